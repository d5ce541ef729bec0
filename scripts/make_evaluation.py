"""Command line of :mod:`kiekai.eval.report` (``python scripts/make_evaluation.py --help``)."""

import sys

from kiekai.eval.report import main

if __name__ == "__main__":
    sys.exit(main())
