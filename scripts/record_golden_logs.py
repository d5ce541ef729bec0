"""Record the golden logs in tests/golden/ (logic: kiekai/eval/golden.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiekai.eval.golden import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
