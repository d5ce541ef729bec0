"""Where kiekai's own data files are: one resolver for the repository and the installed wheel.

kiekai reads a handful of small files it ships itself: ``data/judge-model.json``,
``data/vocabulary.tsv``, ``data/default-deck.csv``,
``data/lexnames`` and ``models/registry.json``. The top-level ``data/`` and ``models/`` folders
of the repository are the only copy in version control (scripts such as
``scripts/fit_judge.py`` and ``scripts/build_vocabulary.py`` write there). A built wheel
carries a copy of them inside the package, made by ``setup.py`` at build time:

* ``data/<name>``  -> ``kiekai/_data/<name>``
* ``models/<name>`` -> ``kiekai/_models/<name>``

Resolution, first hit wins:

1. **checkout**: the folder above the package holds ``pyproject.toml``, ``data/`` and
   ``models/`` (a git checkout, or an editable install ``pip install -e .``); its files are used,
   so a freshly refitted ``data/judge-model.json`` takes effect without reinstalling.
2. **installed**: the copy inside the package, found with :mod:`importlib.resources`
   (``pip install .`` or a wheel).

Nothing here checks that a file exists: callers raise their own error type and build its
message with :func:`missing_file_message`, which names the file and the fix for this layout.
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

#: The folder of the ``kiekai`` package (``.../kiekai``).
PACKAGE_DIR = Path(__file__).resolve().parent
#: The folder above the package: the repository root in a checkout, ``site-packages`` when
#: installed. Use :func:`is_checkout` before treating it as the repository.
REPO_ROOT = PACKAGE_DIR.parent
#: Sub-folders of the package that hold the build-time copies of ``data/`` and ``models/``.
PACKAGED_DATA = "_data"
PACKAGED_MODELS = "_models"


def is_checkout() -> bool:
    """Whether kiekai runs from a source checkout (or an editable install of one).

    True when the folder above the package holds ``pyproject.toml`` and the ``data/`` and
    ``models/`` folders; ``site-packages`` never holds all three.
    """
    return (
        (REPO_ROOT / "pyproject.toml").is_file()
        and (REPO_ROOT / "data").is_dir()
        and (REPO_ROOT / "models").is_dir()
    )


def _installed_dir(sub: str) -> Path:
    """The package sub-folder ``sub`` of the installed kiekai, as a filesystem path.

    pip always unpacks wheels, so :func:`importlib.resources.files` gives a real folder; an
    import from a zip archive (not supported) falls back to the folder next to this module.
    """
    root = importlib.resources.files("kiekai")
    return (root if isinstance(root, Path) else PACKAGE_DIR) / sub


#: Environment variable naming the shared development folder (rules, dev decks, eval files).
SHARED_ENV = "KIEKAI_SHARED"


def shared_dir() -> Path:
    """The shared development folder (``../shared``: rulebooks, the dev deck, eval files).

    ``$KIEKAI_SHARED`` when set (a clone that does not sit beside ``shared/``, e.g. one made
    directly in ``/tmp``), else ``shared`` beside the repository root. The folder may not
    exist (a user's clone has none); callers check.

    Raises:
        ValueError: ``$KIEKAI_SHARED`` is set but empty (``Path("")`` would be the current
            folder); unset it or give the folder.
    """
    value = os.environ.get(SHARED_ENV)
    if value is None:
        return REPO_ROOT.parent / "shared"
    if not value.strip():
        raise ValueError(
            f"${SHARED_ENV} is set but empty: unset it, or set it to the shared folder "
            "(the one holding rules/, decks/ and eval/)"
        )
    return Path(value).expanduser()


def data_dir() -> Path:
    """The folder of kiekai's data files: the repository's ``data/`` in a checkout, else
    ``kiekai/_data`` inside the installed package."""
    return REPO_ROOT / "data" if is_checkout() else _installed_dir(PACKAGED_DATA)


def models_dir() -> Path:
    """The folder of the model registry: the repository's ``models/`` in a checkout, else
    ``kiekai/_models`` inside the installed package."""
    return REPO_ROOT / "models" if is_checkout() else _installed_dir(PACKAGED_MODELS)


def data_file(name: str) -> Path:
    """Path of the data file ``name`` (e.g. ``"judge-model.json"``), see :func:`data_dir`.

    The file may not exist (a script is about to write it); check before reading.

    Raises:
        ValueError: ``name`` is empty, absolute or climbs out of the folder (``..``).
    """
    return data_dir() / _plain_name(name)


def registry_path() -> Path:
    """Path of ``registry.json`` (pinned model ids and SHA-256 hashes), see :func:`models_dir`."""
    return models_dir() / "registry.json"


def missing_file_message(path: Path, what: str, *, remake: str | None = None) -> str:
    """The message for a missing or unreadable kiekai file: names it and says how to fix it.

    Args:
        path: the file that was looked for.
        what: what it is, in words (``"judge model"``).
        remake: in a checkout, the command that regenerates the file
            (``"python scripts/fit_judge.py"``); without it the fix is ``git checkout``. For a
            path outside kiekai's folders (one the user chose) the message says to check the
            path, or to create the file with ``remake``.

    Returns:
        One line, e.g. ``"judge model /x/kiekai/_data/judge-model.json not found; this kiekai
        install is incomplete: reinstall it with `pip install --force-reinstall kiekai` ..."``.
    """
    resolved = Path(path).resolve()
    if not any(resolved.is_relative_to(d.resolve()) for d in (data_dir(), models_dir())):
        # A file the user chose.
        return f"{what} {path} not found; check the path" + (
            f" or create the file with `{remake}`" if remake else ""
        )
    if is_checkout():
        relative = resolved.relative_to(REPO_ROOT).as_posix()
        fix = f"regenerate it with `{remake}`" if remake else "restore it"
        return f"{what} {path} not found; {fix} (or `git checkout -- {relative}`)"
    return (
        f"{what} {path} not found; this kiekai install is incomplete: reinstall it with "
        "`pip install --force-reinstall kiekai` (from a checkout: `pip install .`), "
        "whose wheel ships the file under kiekai/_data or kiekai/_models"
    )


def _plain_name(name: str) -> str:
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        raise ValueError(
            f"bad data file name {name!r}: give a name inside data/, e.g. 'vocabulary.tsv'"
        )
    return name
