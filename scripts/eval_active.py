"""Command line of :mod:`kiekai.eval.active` (``python scripts/eval_active.py --help``)."""

import sys

from kiekai.eval.active import main

if __name__ == "__main__":
    sys.exit(main())
