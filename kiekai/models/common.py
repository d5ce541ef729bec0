"""What every model kind shares: the registry of pinned ids and hashes
(``models/registry.json``), kiekai's cache folder, the network probe, and the one SHA-256
check of a model file or an installed package's files: models are resolved and hash-checked
here, and only here.

Part of :mod:`kiekai.models` (import from there).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiekai import paths
from kiekai.files import replacing

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
        with replacing(memo_path, "w", encoding="utf-8") as fh:
            json.dump(memo, fh, indent=1, sort_keys=True)
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
