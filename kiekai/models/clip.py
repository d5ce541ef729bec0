"""CLIP through open_clip: the checkpoint found (flag, variable, hub cache, download) and the
model loaded.

Part of :mod:`kiekai.models` (import from there).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from kiekai.models import common
from kiekai.models.common import (
    ModelUnavailable,
    Resolved,
    _env_path,
    _hash_status,
    cache_dir,
    hub_offline,
    is_online,
    sha256_file,
)

# ---------------------------------------------------------------------------------------------
# CLIP (open_clip)
# ---------------------------------------------------------------------------------------------


def default_clip() -> tuple[str, str]:
    """Return the default CLIP ``(model_name, pretrained_tag)`` from ``models/registry.json``
    (justified in ``docs/models.md``)."""
    cfg = common.registry()["clip"]
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
    Face cache, looked up without network; without a folder of the repository in any of
    those caches, ``None`` without importing huggingface_hub (0.5-0.8 s before a game's
    first prompt on 2 cores)."""
    from kiekai.models.sentence import _hub_cache_roots

    repo, names = _hub_files(hf_hub)
    folder = "models--" + repo.replace("/", "--")
    roots = [cache_dir() / "models" / "hub", *_hub_cache_roots()]
    if not any((root / folder).is_dir() for root in roots):
        return None
    from huggingface_hub import try_to_load_from_cache

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
    hf_hub = common.registry()["clip"].get("default_hf_hub", "")
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
    pinned = common.registry()["clip"]["pinned"].get(f"{model_name}/{pretrained}")
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
    pinned = (
        common.registry()["clip"]["pinned"].get(f"{model_name}/{pretrained}")
        if pretrained
        else None
    )
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
