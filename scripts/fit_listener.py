"""Command line of :mod:`kiekai.eval.fit_listener` (``python scripts/fit_listener.py --help``)."""

import sys

from kiekai.eval.fit_listener import main

if __name__ == "__main__":
    sys.exit(main())
