"""Command line of :mod:`kiekai.eval.people` (``python scripts/eval_people.py --help``)."""

import sys

from kiekai.eval.people import main

if __name__ == "__main__":
    sys.exit(main())
