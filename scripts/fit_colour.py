"""Command line of :mod:`kiekai.eval.fit_colour` (``python scripts/fit_colour.py --help``).

Cross-validates the colour model's variants on the fit half of the rated dev photos, refits the
best per class source and prints their agreement with the stand-in raters; ``--write-model
data/colour-model.json`` writes the models the colour perception ships with.
"""

import sys

from kiekai.eval.fit_colour import main

if __name__ == "__main__":
    sys.exit(main())
