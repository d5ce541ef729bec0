"""Command line of :mod:`kiekai.eval.scenes` (``python scripts/eval_scenes.py --help``).

Prints precision and recall of the scene words indoors, outdoors and water (threshold chosen on
the fit half of the rated dev photos) and the subject-colour agreement, for each perception,
against the stand-in raters of ``data/people-rounds/photo-ratings.tsv``.
"""

import sys

from kiekai.eval.scenes import main

if __name__ == "__main__":
    sys.exit(main())
