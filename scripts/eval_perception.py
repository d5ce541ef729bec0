"""Command line of :mod:`kiekai.eval.perception` (``python scripts/eval_perception.py --help``)."""

import sys

from kiekai.eval.perception import main

if __name__ == "__main__":
    sys.exit(main())
