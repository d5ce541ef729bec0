"""WordNet 3.0 for NLTK: found, copied from the system dictionary or downloaded, and NLTK's
reader (:func:`wordnet`); the judge reads it through
:class:`kiekai.judge.resources.Resources`.

Part of :mod:`kiekai.models` (import from there).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiekai import paths

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
from kiekai.models import common
from kiekai.models.common import (
    _WORDNET_MARKER,
    LEXNAMES_PATH,
    ModelUnavailable,
    Resolved,
    _env_path,
    cache_dir,
    is_online,
    sha256_file,
)

# ---------------------------------------------------------------------------------------------
# WordNet
# ---------------------------------------------------------------------------------------------


def _wordnet_fix() -> str:
    apt = " ".join(common.registry()["wordnet"]["apt_packages"])
    return (
        f"Fix: `sudo apt-get install {apt}` (Debian/Ubuntu), or, online, "
        "`python -m nltk.downloader wordnet`, or set KIEKAI_NLTK_DATA to an nltk_data folder "
        "holding corpora/wordnet."
    )


def _is_wordnet_dict(folder: Path) -> bool:
    """A folder in WordNet's own dictionary layout (data.noun, index.noun, ...)."""
    return all((folder / name).is_file() for name in common.registry()["wordnet"]["required_files"])


def _find_nltk_wordnet(roots: list[Path]) -> Path | None:
    """The first ``corpora/wordnet`` folder (or ``corpora/wordnet.zip``) under ``roots``."""
    for root in roots:
        folder = root / "corpora" / "wordnet"
        if _is_wordnet_dict(folder) and (folder / "lexnames").is_file():
            return folder
        archive = root / "corpora" / "wordnet.zip"
        if archive.is_file():
            return archive
    return None


def _system_wordnet_dirs() -> list[Path]:
    dirs = []
    env = _env_path("WNSEARCHDIR")
    if env is not None:
        dirs.append(env)
    dirs += [Path(p) for p in common.registry()["wordnet"]["system_dirs"]]
    return dirs


def _wordnet_copy_marker(source: Path) -> dict[str, Any]:
    cfg = common.registry()["wordnet"]
    files = {}
    for name in cfg["required_files"] + cfg["optional_files"]:
        if (source / name).is_file():
            files[name] = (source / name).stat().st_size
    return {
        "copy_format": cfg["copy_format"],
        "source": str(source),
        "files": files,
        "lexnames_sha256": sha256_file(LEXNAMES_PATH),
    }


def _read_copy_marker(copy: Path) -> dict[str, Any] | None:
    try:
        marker = json.loads((copy / _WORDNET_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def _copy_intact(copy: Path, marker: dict[str, Any]) -> bool:
    """The copy still holds every file its marker lists, at the recorded sizes, and the
    recorded lexnames table."""
    try:
        sizes_ok = all(
            (copy / name).stat().st_size == size for name, size in marker["files"].items()
        )
        return sizes_ok and sha256_file(copy / "lexnames") == marker["lexnames_sha256"]
    except (OSError, KeyError, TypeError, AttributeError):
        return False


def _build_wordnet_copy(source: Path, target: Path) -> Path:
    """Copy the system WordNet dictionary plus ``data/lexnames`` into ``target`` (an
    ``nltk_data/corpora/wordnet`` folder), once: a marker file records what was copied, and the
    copy is rebuilt only when the source or the lexnames table changed.

    Files are copied, not linked, because NLTK refuses paths that leave its data root. The copy
    is made in a temporary sibling folder and renamed into place, so an interrupted copy never
    leaves a half-filled corpus behind, under :func:`kiekai.locks.build_lock`, so processes
    starting together copy once.
    """
    if not LEXNAMES_PATH.is_file():
        raise ModelUnavailable(
            paths.missing_file_message(LEXNAMES_PATH, "WordNet lexicographer-file table")
        )
    expected = _wordnet_copy_marker(source)
    if _read_copy_marker(target) == expected and _copy_intact(target, expected):
        return target
    from kiekai.locks import build_lock

    # One process copies at a time (kiekai.locks): a second one waits, then finds the copy in
    # place, so no process removes a copy that another is reading.
    with build_lock(target):
        if _read_copy_marker(target) == expected and _copy_intact(target, expected):
            return target
        staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))
        try:
            for name in expected["files"]:
                shutil.copyfile(source / name, staging / name)
            shutil.copyfile(LEXNAMES_PATH, staging / "lexnames")
            marker = json.dumps(expected, indent=1)
            (staging / _WORDNET_MARKER).write_text(marker, encoding="utf-8")
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            os.replace(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def resolve_wordnet(path: str | Path | None = None, *, allow_download: bool = True) -> Resolved:
    """Find WordNet 3.0 for NLTK, building or downloading it into the cache when needed.

    Order: ``path`` argument, then ``KIEKAI_NLTK_DATA`` (either an ``nltk_data`` folder with
    ``corpora/wordnet`` or a WordNet dictionary folder); ``cache_dir()/nltk_data``; NLTK's own
    search path (``nltk.data.path``); a copy of the system dictionary (``WNSEARCHDIR``,
    ``/usr/share/wordnet``, ...) plus ``data/lexnames``; ``nltk.download('wordnet')`` into
    ``cache_dir()/nltk_data`` when ``allow_download`` and :func:`is_online`.

    Returns:
        :class:`Resolved` whose ``path`` is a folder (or ``wordnet.zip``) NLTK's
        ``WordNetCorpusReader`` can open.

    Raises:
        ModelUnavailable: an explicit path holds no WordNet, or no source has it.
    """
    explicit, source = (Path(path).expanduser(), "argument") if path else (None, "")
    if explicit is None and (env := _env_path("KIEKAI_NLTK_DATA")) is not None:
        explicit, source = env, "env KIEKAI_NLTK_DATA"
    if explicit is not None:
        return _explicit_wordnet(explicit, source)

    cache_root = cache_dir() / "nltk_data"
    copy = cache_root / "corpora" / "wordnet"
    found, rebuild_from = _cached_wordnet(cache_root, copy)
    if found is not None:
        return found

    import nltk

    nltk_found = _find_nltk_wordnet([Path(p) for p in nltk.data.path if Path(p) != cache_root])
    if nltk_found is not None:
        return Resolved("wordnet", "nltk_data", nltk_found)
    found = _system_wordnet_copy(rebuild_from + _system_wordnet_dirs(), copy)
    if found is None and allow_download and is_online():
        found = _downloaded_wordnet(cache_root, copy)
    if found is not None:
        return found
    looked = ", ".join(str(p) for p in [cache_root, *nltk.data.path, *_system_wordnet_dirs()])
    state = "offline" if not is_online() else "download failed or not allowed"
    raise ModelUnavailable(
        f"WordNet 3.0 is missing (looked in {looked}; {state}). {_wordnet_fix()}"
    )


def _explicit_wordnet(explicit: Path, source: str) -> Resolved:
    """WordNet at a folder the user named (``source``: the argument or the variable):
    an ``nltk_data`` folder, or a dictionary folder (copied with ``data/lexnames`` into
    the cache when it lacks that table).

    Raises:
        ModelUnavailable: the folder holds neither.
    """
    found = _find_nltk_wordnet([explicit])
    if found is not None:
        return Resolved("wordnet", source, found)
    if _is_wordnet_dict(explicit):
        if (explicit / "lexnames").is_file():
            return Resolved("wordnet", source, explicit)
        copy = cache_dir() / "nltk_data" / "corpora" / "wordnet"
        return Resolved(
            "wordnet", source, _build_wordnet_copy(explicit, copy), detail=str(explicit)
        )
    raise ModelUnavailable(
        f"WordNet not found at {explicit} (from {source}): it holds neither "
        f"corpora/wordnet nor WordNet's data.noun/index.noun files. {_wordnet_fix()}"
    )


def _cached_wordnet(cache_root: Path, copy: Path) -> tuple[Resolved | None, list[Path]]:
    """WordNet in kiekai's cache: its own copy of a system dictionary when intact and
    current, else a downloaded ``corpora/wordnet``. Also the dictionary a stale or
    damaged copy was made from (to copy again), else ``[]``."""
    if not (copy / _WORDNET_MARKER).exists():
        found = _find_nltk_wordnet([cache_root])
        return (Resolved("wordnet", "cache", found) if found is not None else None), []
    marker = _read_copy_marker(copy)
    built_from = Path(str(marker.get("source", ""))) if marker else None
    if marker and built_from and _copy_intact(copy, marker):
        if not _is_wordnet_dict(built_from) or _wordnet_copy_marker(built_from) == marker:
            return Resolved("wordnet", "cache", copy, detail=f"copied from {built_from}"), []
    return None, [built_from] if built_from else []  # stale or damaged: copied again


def _system_wordnet_copy(candidates: list[Path], copy: Path) -> Resolved | None:
    """A copy into ``copy`` of the first of ``candidates`` that is a WordNet dictionary.

    Raises:
        ModelUnavailable: the copy cannot be written.
    """
    for system in candidates:
        if _is_wordnet_dict(system):
            try:
                built = _build_wordnet_copy(system, copy)
            except OSError as exc:
                raise ModelUnavailable(
                    f"WordNet from {system} cannot be copied into {copy} ({exc}); "
                    "set KIEKAI_CACHE_DIR to a writable folder with about 40 MB free."
                ) from exc
            return Resolved("wordnet", "system", built, detail=f"copied from {system}")
    return None


def _downloaded_wordnet(cache_root: Path, copy: Path) -> Resolved | None:
    """WordNet downloaded by NLTK into ``cache_root`` (replacing a damaged copy), or
    ``None`` when the download fails."""
    import nltk

    package = common.registry()["wordnet"]["nltk_package"]
    (copy / _WORDNET_MARKER).unlink(missing_ok=True)  # a download replaces a damaged copy
    if nltk.download(package, download_dir=str(cache_root), quiet=True):
        found = _find_nltk_wordnet([cache_root])
        if found is not None:
            return Resolved("wordnet", "download", found)
    return None


def wordnet_version(folder: Path) -> str | None:
    """Return the WordNet version in the licence header of ``folder/data.adj`` (``"3.0"``), or
    ``None`` when the file is absent (e.g. a zipped corpus) or has no such header. Reads only the
    first 30 lines; the same header NLTK's ``get_version`` reads."""
    import re

    try:
        with open(folder / "data.adj", encoding="latin-1") as fh:
            for _, line in zip(range(30), fh, strict=False):
                match = re.search(r"WordNet (\d+\.\d+) Copyright", line)
                if match:
                    return match.group(1)
    except OSError:
        return None
    return None


@functools.lru_cache(maxsize=4)
def wordnet(path: str | None = None) -> WordNetCorpusReader:
    """Return NLTK's WordNet 3.0 corpus reader, ready to use (``wordnet().synsets("dog")``).

    Resolution as in :func:`resolve_wordnet`. The reader is built once per process (reading the
    index files takes a few seconds); the system copy is built once per cache folder.

    Raises:
        ModelUnavailable: WordNet is missing, unreadable, or not version 3.0 (ImageNet wnids
            and every synset offset kiekai uses are WordNet 3.0 offsets).
    """
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.data import FileSystemPathPointer, ZipFilePathPointer

    resolved = resolve_wordnet(path)
    # NLTK >= 3.9 opens corpus files only below a root in nltk.data.path: register the
    # nltk_data folder holding corpora/wordnet (or a bare dictionary folder itself).
    if resolved.path.parent.name == "corpora":
        data_root = str(resolved.path.parent.parent)
    else:
        data_root = str(resolved.path)
    if data_root not in nltk.data.path:
        nltk.data.path.append(data_root)
    if resolved.path.suffix == ".zip":
        root: Any = ZipFilePathPointer(str(resolved.path), "wordnet/")
    else:
        root = FileSystemPathPointer(str(resolved.path))
    try:
        with warnings.catch_warnings():
            # "The multilingual functions are not available": kiekai uses English only.
            warnings.simplefilter("ignore", UserWarning)
            reader = WordNetCorpusReader(root, None)
    except (OSError, ValueError, AssertionError) as exc:
        raise ModelUnavailable(
            f"WordNet at {resolved.path} ({resolved.source}) cannot be read: {exc}. "
            f"Delete that folder if it is kiekai's cache copy, then retry. {_wordnet_fix()}"
        ) from exc
    version = reader.get_version()
    wanted = common.registry()["wordnet"]["version"]
    if version != wanted:
        raise ModelUnavailable(
            f"WordNet at {resolved.path} is version {version}, kiekai needs {wanted} "
            f"(ImageNet wnids are WordNet {wanted} offsets). {_wordnet_fix()}"
        )
    return reader
