"""Command line of :mod:`kiekai.eval.guesser` (``python scripts/eval_guesser.py --help``)."""

import sys

from kiekai.eval.guesser import main

if __name__ == "__main__":
    sys.exit(main())
