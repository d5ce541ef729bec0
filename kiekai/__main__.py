"""``python -m kiekai`` runs the same command-line interface as ``kiekai``."""

from kiekai.cli import main

if __name__ == "__main__":
    main()
