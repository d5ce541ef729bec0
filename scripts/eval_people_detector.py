"""Command line of :mod:`kiekai.eval.people_detector` (``python scripts/eval_people_detector.py --help``).

Prints precision, recall and the chosen threshold of each people-detector candidate on the fit
and report halves of the rated dev photos; ``--write-model data/people-model.json`` writes the
models the people perception uses.
"""

import sys

from kiekai.eval.people_detector import main

if __name__ == "__main__":
    sys.exit(main())
