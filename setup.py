"""Build hook: copy the repository's ``data/`` and ``models/`` folders into the wheel.

All metadata lives in ``pyproject.toml``; this file only extends setuptools' ``build_py``
command (setuptools docs, "Extending or Customizing Setuptools"). The top-level ``data/`` and
``models/`` folders stay the single copy in version control; at build time every file in them
is copied to ``kiekai/_data/`` and ``kiekai/_models/`` in the build folder, so a wheel (and
``pip install .``) carries them as package data. ``kiekai/paths.py`` reads them from there when
kiekai is not running from a checkout. Editable installs (``pip install -e .``) skip the copy:
they read the repository folders directly.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: Repository folder -> package sub-folder (must match kiekai/paths.py).
SHIPPED = {"data": "_data", "models": "_models"}


class build_py_with_data(build_py):  # noqa: N801 (setuptools command naming)
    """``build_py`` that also copies ``data/*`` and ``models/*`` into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for source_name, target_name in SHIPPED.items():
            source = HERE / source_name
            if not source.is_dir():
                raise SystemExit(
                    f"cannot build kiekai: the folder {source} is missing; build from a complete "
                    "checkout or sdist (it holds the judge model, vocabulary and model registry)"
                )
            target = Path(self.build_lib) / "kiekai" / target_name
            target.mkdir(parents=True, exist_ok=True)
            for file in sorted(source.iterdir()):
                if file.is_file() and not file.name.startswith("."):
                    self.copy_file(str(file), str(target / file.name))


setup(cmdclass={"build_py": build_py_with_data})
