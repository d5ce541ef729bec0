"""Command line of :mod:`kiekai.eval.tournament` (``python scripts/eval_tournament.py --help``)."""

import sys

from kiekai.eval.tournament import main

if __name__ == "__main__":
    sys.exit(main())
