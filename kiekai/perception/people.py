"""The ``people`` perception: does a photo show a person? (people, person, faces, man, ...)

The ImageNet-1k classifier has no class for a person as such (see
:mod:`kiekai.perception.classifier`), yet *people* is the rulebook's own example word. This
backend answers the person words (:data:`PEOPLE_WORDS`, :data:`FACE_WORDS`,
:data:`SOMEONE_WORDS`) from detectors, and knows no other word, so it composes in front of the
others (``CompositePerception([colour, people, classifier])``, see
:mod:`kiekai.perception.compose`). It is not part of the bots' default perception yet.

Detectors (:class:`Detector`), each turning a photo (decoded at :data:`DECODE_MAX_SIDE` px
on its longer side) into a few numbers, cached per photo content hash and detector model key:

* :class:`MtcnnFaces`: the MTCNN face detector (Zhang, Zhang, Li & Qiao 2016, "Joint Face
  Detection and Alignment using Multitask Cascaded Convolutional Networks", IEEE SPL), whose
  weights ship in the PyPI package ``facenet-pytorch`` (installed with ``--no-deps``; its own
  pins ask for torch<2.3; it runs on torch 2.14): the highest face probability, the number of
  faces at 0.9 or more, the largest face's share of the photo.
* :class:`HaarCascade`: an OpenCV 4.x Haar cascade (Viola & Jones 2001) shipped in the
  ``opencv-python-headless`` wheel (frontal faces, profile faces, upper bodies): the largest
  number of neighbouring raw detections of one grouped detection, and the number of
  detections with at least three.
* :class:`HogPeople`: OpenCV's HOG people detector (Dalal & Triggs 2005): the highest SVM
  score of a 64x128 window, and the number of windows above 0.
* :class:`MediaPipePose`, :class:`MediaPipeHands`, :class:`MediaPipeFaces`,
  :class:`MediaPipeSelfie` (``mp-pose``, ``mp-hands``, ``mp-face``, ``mp-selfie``): MediaPipe's
  legacy solutions from the optional ``mediapipe`` 0.10.21 wheel (installed with ``--no-deps``
  with protobuf 4.x and attrs; see :func:`kiekai.models.load_mediapipe`): pose detection and
  landmarks, palm detection and hand landmarks, the full-range face detector, selfie
  segmentation. Measured, not used by the shipped models (``docs/perception.md``).

Every detector's files are resolved and SHA-256 checked in :mod:`kiekai.models`.

From detections to a probability. ``data/people-model.json`` holds small logistic models
fitted by ``scripts/eval_people_detector.py --write-model`` on the *fit* half of the 600 dev
photos rated by two stand-in raters each (``data/people-rounds/photo-ratings.tsv``; truth:
both raters said *people*), each for one set of detectors, most preferred first. A photo is
scored by the first model whose detectors all read it: so a detector that does not load, or
cannot read one photo, is left out for that photo and the next model is used (MTCNN, then the
Haar frontal-face cascade alone). ``docs/perception.md`` has the measured precision and recall
on the other (report) half.

Words:

* :data:`PEOPLE_WORDS` (people, person, human, ...) and :data:`FACE_WORDS` (face, faces): the
  probability ``p`` that the photo shows a person (faces are scored as people: the model is
  calibrated against the raters' *people*, which includes people seen from behind).
* :data:`SOMEONE_WORDS` (man, woman, boy, girl, child, ...): ``p * 0.5``: no person means no
  man, but a person is not told apart by sex or age here, so a photo of people is undecided
  (0.5) about *man*.

A photo no detector loaded for, or none could read, scores 0.5 (undecided). When no detector
loads at all, :meth:`PeoplePerception.knows` is False for every word.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from kiekai import paths
from kiekai.deck import Card, decode_photos
from kiekai.perception.cache import EmbeddingCache

#: Longest side (pixels) a photo is decoded at for every detector (the dev deck's size).
DECODE_MAX_SIDE = 384
#: Version of the image pipeline in every detector's cache namespace.
PIPELINE_VERSION = f"v1-max{DECODE_MAX_SIDE}"
#: Score of a word or photo this backend cannot judge.
UNDECIDED = 0.5
#: The fitted models (written by ``scripts/eval_people_detector.py --write-model``).
MODEL_PATH = paths.data_file("people-model.json")

#: Words true of a photo that shows at least one person.
PEOPLE_WORDS = frozenset(
    {
        "people",
        "person",
        "persons",
        "human",
        "humans",
        "human being",
        "human beings",
        "humanity",
        "someone",
        "somebody",
        "folk",
        "folks",
    }
)
#: Face words, scored as people (see the module docstring).
FACE_WORDS = frozenset({"face", "faces"})
#: Words naming a kind of person: at most undecided when a person is shown.
SOMEONE_WORDS = frozenset(
    {
        "man",
        "men",
        "woman",
        "women",
        "boy",
        "boys",
        "girl",
        "girls",
        "child",
        "children",
        "kid",
        "kids",
        "lady",
        "ladies",
        "guy",
        "guys",
        "adult",
        "adults",
    }
)
#: Share of a person photo that a :data:`SOMEONE_WORDS` word is taken to be true of.
SOMEONE_SHARE = 0.5


def _key(word: str) -> str:
    return " ".join(word.strip().lower().split())


class Detector(Protocol):
    """One detector: a photo in, a fixed number of float features out.

    Attributes:
        name: short id (``"mtcnn"``, ``"haar-frontal"``, ``"hog"``), used in the model file.
        package: the PyPI package it comes from (named in messages).
        model_key: what made the features (weights' hashes); part of the cache namespace.
        feature_names: the names of the features, in order.
    """

    name: str
    package: str
    model_key: str
    feature_names: tuple[str, ...]

    def features(self, image: Any) -> np.ndarray:
        """float32 (len(feature_names),) for an RGB PIL image; raises when it cannot read it."""
        ...


class MtcnnFaces:
    """MTCNN faces (facenet-pytorch): ``max_prob``, ``faces`` (probability >= 0.9),
    ``largest_area`` (the largest face box's share of the photo).

    Raises:
        kiekai.models.ModelUnavailable: facenet-pytorch is missing, its weights do not match
            their pins, or it does not load on this torch.
    """

    name = "mtcnn"
    package = "facenet-pytorch"
    feature_names: tuple[str, ...] = ("max_prob", "faces", "largest_area")

    def __init__(self) -> None:
        from kiekai.models import load_face_detector

        self.mtcnn, self.model_key = load_face_detector()

    def features(self, image: Any) -> np.ndarray:
        import torch

        with torch.inference_mode():
            boxes, probs = self.mtcnn.detect(image)
        if boxes is None or probs is None or len(boxes) == 0:
            return np.zeros(3, dtype=np.float32)
        probs = np.asarray(probs, dtype=np.float64).ravel()
        boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        areas = np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(
            boxes[:, 3] - boxes[:, 1], 0, None
        )
        width, height = image.size
        return np.asarray(
            [probs.max(), (probs >= 0.9).sum(), areas.max() / max(1, width * height)],
            dtype=np.float32,
        )


#: Haar cascades by detector name: (file in ``cv2.data.haarcascades``, also the mirror image).
HAAR_CASCADES = {
    "haar-frontal": ("haarcascade_frontalface_default.xml", False),
    "haar-profile": ("haarcascade_profileface.xml", True),
    "haar-upperbody": ("haarcascade_upperbody.xml", False),
}


class HaarCascade:
    """An OpenCV Haar cascade on the histogram-equalised grey photo (scale step 1.1, smallest
    window 24 px): ``neighbours`` (the most raw detections grouped into one) and
    ``detections`` (grouped detections with at least 3, OpenCV's default).

    Args:
        name: a key of :data:`HAAR_CASCADES`.

    Raises:
        kiekai.models.ModelUnavailable: OpenCV 4.x is missing or the cascade does not match
            its pin.
    """

    package = "opencv-python-headless"
    feature_names: tuple[str, ...] = ("neighbours", "detections")

    def __init__(self, name: str = "haar-frontal") -> None:
        from kiekai.models import load_opencv_cascade

        file_name, self.mirror = HAAR_CASCADES[name]
        self.name = name
        self.cascade, self.model_key = load_opencv_cascade(file_name)

    def features(self, image: Any) -> np.ndarray:
        import cv2

        grey = cv2.equalizeHist(cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2GRAY))
        best, count = 0, 0
        for view in [grey, np.ascontiguousarray(grey[:, ::-1])] if self.mirror else [grey]:
            _, neighbours = self.cascade.detectMultiScale2(
                view, scaleFactor=1.1, minNeighbors=1, minSize=(24, 24)
            )
            neighbours = np.asarray(neighbours).ravel()
            if len(neighbours):
                best = max(best, int(neighbours.max()))
                count += int((neighbours >= 3).sum())
        return np.asarray([best, count], dtype=np.float32)


class HogPeople:
    """OpenCV's HOG people detector (window stride 8, padding 16, scale step 1.05, windows
    scoring above -0.5 kept): ``max_score`` (-0.5 when no window) and ``windows`` (windows
    scoring above 0 after grouping).

    Raises:
        kiekai.models.ModelUnavailable: OpenCV 4.x is missing or its detector does not match.
    """

    name = "hog"
    package = "opencv-python-headless"
    feature_names: tuple[str, ...] = ("max_score", "windows")

    def __init__(self) -> None:
        from kiekai.models import load_hog_people

        self.hog, self.model_key = load_hog_people()

    def features(self, image: Any) -> np.ndarray:
        _, weights = self.hog.detectMultiScale(
            np.asarray(image), winStride=(8, 8), padding=(16, 16), scale=1.05, hitThreshold=-0.5
        )
        weights = np.asarray(weights, dtype=np.float64).ravel()
        if not len(weights):
            return np.asarray([-0.5, 0], dtype=np.float32)
        return np.asarray([weights.max(), (weights > 0).sum()], dtype=np.float32)


class _MediaPipe:
    """Shared by the MediaPipe detectors: the solution (one per detector object, called under a
    lock: a MediaPipe graph is not re-entrant) and the photo as a C-contiguous RGB array."""

    package = "mediapipe"
    name = ""
    #: the solution's ``process`` takes ``{"image": array}`` (SolutionBase) or the array
    #: (FaceDetection, SelfieSegmentation)
    dict_input = True

    def __init__(self) -> None:
        import threading

        from kiekai.models import load_mediapipe

        self.solution, self.model_key = load_mediapipe(self.name)
        self._lock = threading.Lock()

    def _process(self, image: Any) -> Any:
        pixels = np.ascontiguousarray(np.asarray(image.convert("RGB"), dtype=np.uint8))
        with self._lock:
            return self.solution.process({"image": pixels} if self.dict_input else pixels)


def _box_share(box: Any) -> float:
    """A MediaPipe relative bounding box's area share of the photo, clipped to the photo."""
    x0, y0 = max(0.0, box.xmin), max(0.0, box.ymin)
    x1, y1 = min(1.0, box.xmin + box.width), min(1.0, box.ymin + box.height)
    share: float = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    return share


def _detections(found: Any) -> tuple[np.ndarray, np.ndarray]:
    """Scores and area shares of a list of MediaPipe ``Detection`` protos (or one, or None)."""
    if found is None:
        return np.zeros(0), np.zeros(0)
    if not isinstance(found, (list, tuple)):
        found = [found]
    scores = np.asarray([max(d.score) if len(d.score) else 0.0 for d in found], dtype=np.float64)
    areas = np.asarray(
        [_box_share(d.location_data.relative_bounding_box) for d in found], dtype=np.float64
    )
    return scores, areas


class MediaPipePose(_MediaPipe):
    """MediaPipe pose (BlazePose: Bazarevsky et al. 2020, "BlazePose: On-device Real-time
    Body Pose tracking"): the pose detector, then the full landmark model on its most
    prominent person. ``det_score`` (the detector's score, 0 when none reaches
    :data:`kiekai.models.MEDIAPIPE_MIN_SCORE`), ``landmarks`` (1 when the landmark model
    confirms a body), ``visibility`` (the 33 landmarks' mean visibility, 0 without),
    ``box_area`` (the visible landmarks' box's share of the photo).

    Raises:
        kiekai.models.ModelUnavailable: mediapipe is missing, does not load, or its files do
            not match their pins.
    """

    name = "mp-pose"
    feature_names: tuple[str, ...] = ("det_score", "landmarks", "visibility", "box_area")

    def features(self, image: Any) -> np.ndarray:
        result = self._process(image)
        scores, _ = _detections(result.pose_detection)
        out = [scores.max() if len(scores) else 0.0, 0.0, 0.0, 0.0]
        if result.pose_landmarks is not None:
            marks = result.pose_landmarks.landmark
            visibility = np.asarray([m.visibility for m in marks], dtype=np.float64)
            xy = np.clip(np.asarray([(m.x, m.y) for m in marks], dtype=np.float64), 0.0, 1.0)
            seen = xy[visibility >= 0.5]
            area = float(np.prod(seen.max(axis=0) - seen.min(axis=0))) if len(seen) >= 2 else 0.0
            out[1:] = [1.0, float(visibility.mean()), area]
        return np.asarray(out, dtype=np.float32)


class MediaPipeHands(_MediaPipe):
    """MediaPipe hands (Zhang et al. 2020, "MediaPipe Hands: On-device Real-time Hand
    Tracking"): the full palm detector, then the full hand landmark model on up to 4 palms.
    ``max_score`` (the highest palm score, 0 when none reaches
    :data:`kiekai.models.MEDIAPIPE_MIN_SCORE`), ``palms`` (palms scoring 0.5 or more),
    ``hands`` (hands the landmark model confirms), ``largest_area`` (the largest palm box's
    share of the photo).

    Raises:
        kiekai.models.ModelUnavailable: as :class:`MediaPipePose`.
    """

    name = "mp-hands"
    feature_names: tuple[str, ...] = ("max_score", "palms", "hands", "largest_area")

    def features(self, image: Any) -> np.ndarray:
        result = self._process(image)
        scores, areas = _detections(result.palm_detections)
        hands = len(result.multi_hand_landmarks or [])
        if not len(scores):
            return np.asarray([0.0, 0.0, hands, 0.0], dtype=np.float32)
        return np.asarray(
            [scores.max(), (scores >= 0.5).sum(), hands, areas.max()], dtype=np.float32
        )


class MediaPipeFaces(_MediaPipe):
    """MediaPipe's full-range face detector (BlazeFace: Bazarevsky et al. 2019, faces up to
    about 5 m): ``max_score`` (0 when none reaches :data:`kiekai.models.MEDIAPIPE_MIN_SCORE`),
    ``faces`` (scoring 0.5 or more), ``largest_area`` (the largest face box's share).

    Raises:
        kiekai.models.ModelUnavailable: as :class:`MediaPipePose`.
    """

    name = "mp-face"
    feature_names: tuple[str, ...] = ("max_score", "faces", "largest_area")
    dict_input = False

    def features(self, image: Any) -> np.ndarray:
        scores, areas = _detections(self._process(image).detections)
        if not len(scores):
            return np.zeros(3, dtype=np.float32)
        return np.asarray([scores.max(), (scores >= 0.5).sum(), areas.max()], dtype=np.float32)


class MediaPipeSelfie(_MediaPipe):
    """MediaPipe selfie segmentation (the general 256x256 model): ``share`` (the share of
    pixels whose person probability is 0.5 or more) and ``mean`` (the mean probability).

    Raises:
        kiekai.models.ModelUnavailable: as :class:`MediaPipePose`.
    """

    name = "mp-selfie"
    feature_names: tuple[str, ...] = ("share", "mean")
    dict_input = False

    def features(self, image: Any) -> np.ndarray:
        mask = np.asarray(self._process(image).segmentation_mask, dtype=np.float64)
        return np.asarray([(mask >= 0.5).mean(), mask.mean()], dtype=np.float32)


#: MediaPipe detectors by name (package ``mediapipe``).
MEDIAPIPE_DETECTORS: dict[str, Callable[[], Detector]] = {
    "mp-pose": MediaPipePose,
    "mp-hands": MediaPipeHands,
    "mp-face": MediaPipeFaces,
    "mp-selfie": MediaPipeSelfie,
}


#: Detector constructors by name.
DETECTORS: dict[str, Callable[[], Detector]] = {
    "mtcnn": MtcnnFaces,
    "hog": HogPeople,
    **{name: partial(HaarCascade, name) for name in HAAR_CASCADES},
    **MEDIAPIPE_DETECTORS,
}
#: Package of each detector (for messages, without loading it).
DETECTOR_PACKAGES = (
    {"mtcnn": "facenet-pytorch", "hog": "opencv-python-headless"}
    | {name: "opencv-python-headless" for name in HAAR_CASCADES}
    | dict.fromkeys(MEDIAPIPE_DETECTORS, "mediapipe")
)


# -- features -> probability ----------------------------------------------------------------------

#: Transforms a model may apply to a raw feature before its weight.
TRANSFORMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": lambda x: x,
    "log1p": lambda x: np.log1p(np.clip(x, 0, None)),
    # a probability as log-odds, clipped to [1e-4, 1 - 1e-4] (no face: p = 0 -> -9.2)
    "logit": lambda x: np.log(np.clip(x, 1e-4, 1 - 1e-4) / (1 - np.clip(x, 1e-4, 1 - 1e-4))),
}


@dataclass(frozen=True)
class PeopleModel:
    """A logistic model over some detectors' features (one entry of ``people-model.json``).

    Attributes:
        detectors: the detector names it needs, in order.
        inputs: ``(detector, feature, transform)`` per weight.
        mean, scale: standardisation of the transformed inputs.
        coef, intercept: logistic weights (on standardised inputs).
        threshold: the probability at which the fit half reached precision >= 0.9 with the
            most recall (recorded with the model; the scores themselves stay probabilities).
    """

    detectors: tuple[str, ...]
    inputs: tuple[tuple[str, str, str], ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float = 0.5
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PeopleModel:
        inputs = tuple((str(d), str(f), str(t)) for d, f, t in data["inputs"])
        detectors = tuple(dict.fromkeys(d for d, _, _ in inputs))
        n = len(inputs)
        model = cls(
            detectors=detectors,
            inputs=inputs,
            mean=tuple(float(x) for x in data["mean"]),
            scale=tuple(float(x) for x in data["scale"]),
            coef=tuple(float(x) for x in data["coef"]),
            intercept=float(data["intercept"]),
            threshold=float(data.get("threshold", 0.5)),
            info={
                k: v
                for k, v in data.items()
                if k not in {"inputs", "mean", "scale", "coef", "intercept"}
            },
        )
        if not n or not (len(model.mean) == len(model.scale) == len(model.coef) == n):
            raise ValueError("inputs, mean, scale and coef must have the same non-zero length")
        if any(t not in TRANSFORMS for _, _, t in inputs):
            raise ValueError(f"unknown transform in {inputs}; known: {', '.join(TRANSFORMS)}")
        return model

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.info,
            "inputs": [list(i) for i in self.inputs],
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "threshold": self.threshold,
        }

    def design(
        self, features: dict[str, np.ndarray], names: dict[str, tuple[str, ...]]
    ) -> np.ndarray:
        """The transformed, standardised inputs (N, len(inputs)) from per-detector feature
        arrays ``features[detector]`` (N, F) whose columns are ``names[detector]``."""
        columns = []
        for detector, feature, transform in self.inputs:
            raw = features[detector][:, names[detector].index(feature)].astype(np.float64)
            columns.append(TRANSFORMS[transform](raw))
        x = np.stack(columns, axis=1)
        standardised: np.ndarray = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return standardised

    def probability(
        self, features: dict[str, np.ndarray], names: dict[str, tuple[str, ...]]
    ) -> np.ndarray:
        """float64 (N,): the logistic's probability that each photo shows a person."""
        z = self.design(features, names) @ np.asarray(self.coef) + self.intercept
        probability: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return probability


def load_models(path: Path | str | None = None) -> list[PeopleModel]:
    """The fitted models of ``data/people-model.json`` (most preferred first).

    Raises:
        kiekai.models.ModelUnavailable: the file is missing or malformed (names the fix).
    """
    from kiekai.models import ModelUnavailable

    path = Path(path) if path is not None else MODEL_PATH
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [PeopleModel.from_dict(entry) for entry in data["models"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelUnavailable(
            f"The people perception's fitted models {path} cannot be read ({exc}). Fix: restore "
            "it (`git checkout -- data/people-model.json`) or refit it with "
            "`python scripts/eval_people_detector.py --write-model data/people-model.json`."
        ) from exc


# -- the perception --------------------------------------------------------------------------------


class PeoplePerception:
    """Person words from detectors (see the module docstring).

    Args:
        detectors: detector names to load (default: those the fitted models use, in model
            order). A name may also be replaced by a ready :class:`Detector` object.
        models: the fitted models (default :func:`load_models`); with ``None`` and ``models=[]``
            nothing is scored (features only, for the evaluation).
        echo: told one line per detector that does not load (naming the package and the fix)
            and how the perception goes on.
        cache_root: the on-disk feature cache's folder (default
            ``kiekai.models.cache_dir() / "embeddings"``).
        progress: show a progress bar while photos are read for the first time.

    Attributes:
        name: ``"people"``.
        detectors: the loaded detectors by name.
        unavailable: detector name -> why it did not load.
        notes: the lines given to ``echo``.
        failed: detector name -> {content hash: reason} for photos that detector could not read.
        undecodable: content hash -> reason, for photos that could not be decoded at all.
        seconds: detector name -> seconds spent computing features (cache misses only), and
            ``computed``: detector name -> photos computed.
    """

    name = "people"

    def __init__(
        self,
        detectors: Sequence[str | Detector] | None = None,
        *,
        models: Sequence[PeopleModel] | None = None,
        echo: Callable[[str], object] | None = print,
        cache_root: Path | str | None = None,
        progress: bool = False,
    ) -> None:
        from kiekai.models import ModelUnavailable

        self.echo = echo
        self.notes: list[str] = []
        self.models = list(models) if models is not None else load_models()
        if detectors is None:
            detectors = list(dict.fromkeys(d for m in self.models for d in m.detectors))
        self.detectors: dict[str, Detector] = {}
        self.unavailable: dict[str, str] = {}
        for item in detectors:
            if not isinstance(item, str):
                self.detectors[item.name] = item
                continue
            try:
                self.detectors[item] = DETECTORS[item]()
            except (ModelUnavailable, ImportError) as exc:
                self.unavailable[item] = str(exc)
        self.usable_models = [
            m for m in self.models if all(d in self.detectors for d in m.detectors)
        ]
        for name, why in self.unavailable.items():
            if self.usable_models:
                rest = ", ".join("+".join(m.detectors) for m in self.usable_models)
                going_on = f"going on without it (people scored by {rest})"
            else:
                going_on = (
                    "going on without it; no people model is left: person words are undecided (0.5)"
                )
            self._note(
                f"perception people: the {name} detector ({DETECTOR_PACKAGES.get(name, '?')}) "
                f"is unavailable: {why} Perception is {going_on}."
            )
        self.progress = progress
        self.caches = {
            name: EmbeddingCache(
                f"people-{name}|{det.model_key}|{PIPELINE_VERSION}",
                root=Path(cache_root) if cache_root is not None else None,
                dim=len(det.feature_names),
            )
            for name, det in self.detectors.items()
        }
        self.failed: dict[str, dict[str, str]] = {name: {} for name in self.detectors}
        self.undecodable: dict[str, str] = {}
        self.seconds: dict[str, float] = dict.fromkeys(self.detectors, 0.0)
        self.computed: dict[str, int] = dict.fromkeys(self.detectors, 0)
        self._memory: dict[str, dict[str, np.ndarray]] = {name: {} for name in self.detectors}

    def _note(self, line: str) -> None:
        self.notes.append(line)
        if self.echo is not None:
            self.echo(line)

    # -- pixels -> features --------------------------------------------------------------------

    def _compute(self, cards: Sequence[Card], names: Sequence[str]) -> None:
        """Read the features of ``names`` for the cards that miss them (memory, disk), decoding
        each such photo once; a detector that raises on a photo skips that photo only."""
        pending: dict[str, tuple[Card, list[str]]] = {}
        for card in cards:
            key = card.sha256
            if key in self.undecodable:
                continue
            for name in names:
                memory = self._memory[name]
                if key in memory or key in self.failed[name]:
                    continue
                cached = self.caches[name].get(key)
                if cached is not None:
                    memory[key] = cached
                else:
                    pending.setdefault(key, (card, []))[1].append(name)
        if not pending:
            return
        from tqdm.auto import tqdm

        todo = list(pending.values())
        with tqdm(
            total=len(todo), desc="People: reading photos", unit="photo", disable=not self.progress
        ) as bar:
            for photo, (_, wanted) in zip(
                decode_photos([card for card, _ in todo], DECODE_MAX_SIDE), todo, strict=True
            ):
                key = photo.card.sha256
                if photo.image is None:
                    self.undecodable[key] = photo.reason or "cannot be decoded"
                    bar.update(1)
                    continue
                for name in wanted:
                    start = time.perf_counter()
                    try:
                        vector = np.asarray(
                            self.detectors[name].features(photo.image), dtype=np.float32
                        )
                        if vector.shape != (len(self.detectors[name].feature_names),) or not np.all(
                            np.isfinite(vector)
                        ):
                            raise ValueError(f"gave {vector.shape} features, not finite numbers")
                    except Exception as exc:  # a detector that cannot read this photo skips it
                        self.failed[name][key] = f"{type(exc).__name__}: {exc}".strip()
                        continue
                    finally:
                        self.seconds[name] += time.perf_counter() - start
                    self.computed[name] += 1
                    self._memory[name][key] = vector
                    self.caches[name].put(key, vector)
                bar.update(1)

    def features(self, cards: Sequence[Card], name: str) -> np.ndarray:
        """float32 (N, F): detector ``name``'s features per card, NaN rows for the cards it
        could not read (or that do not decode)."""
        self._compute(cards, [name])
        out = np.full(
            (len(cards), len(self.detectors[name].feature_names)), np.nan, dtype=np.float32
        )
        for i, card in enumerate(cards):
            row = self._memory[name].get(card.sha256)
            if row is not None:
                out[i] = row
        return out

    def skipped(self, name: str) -> dict[str, str]:
        """Content hash -> reason, for the photos detector ``name`` could not read."""
        return dict(self.failed.get(name, {}))

    # -- the Perception protocol ------------------------------------------------------------------

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Read every card with the detectors the models need (first model first; a later
        model's detectors only for the photos an earlier one could not score).

        Returns:
            ``(card, reason)`` for each card whose photo cannot be decoded at all, in input
            order. A photo one detector cannot read is not returned: it is scored without that
            detector (or 0.5).
        """
        self.probability(cards)
        return [
            (card, self.undecodable[card.sha256])
            for card in cards
            if card.sha256 in self.undecodable
        ]

    def probability(self, cards: Sequence[Card]) -> np.ndarray:
        """float64 (N,): the probability each photo shows a person, from the first usable model
        whose detectors all read it; :data:`UNDECIDED` where none does."""
        out = np.full(len(cards), np.nan)
        for model in self.usable_models:
            rest = [i for i in range(len(cards)) if np.isnan(out[i])]
            if not rest:
                break
            subset = [cards[i] for i in rest]
            feats = {name: self.features(subset, name) for name in model.detectors}
            names = {name: self.detectors[name].feature_names for name in model.detectors}
            ok = np.all(np.stack([~np.isnan(f).any(axis=1) for f in feats.values()]), axis=0)
            if ok.any():
                p = model.probability({k: v[ok] for k, v in feats.items()}, names)
                out[np.asarray(rest)[ok]] = p
        return np.where(np.isnan(out), UNDECIDED, out)

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): True for the person words when at least one model can be used."""
        if not self.usable_models:
            return np.zeros(len(words), dtype=bool)
        known = PEOPLE_WORDS | FACE_WORDS | SOMEONE_WORDS
        return np.asarray([_key(w) in known for w in words], dtype=bool)

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """float32 (N, V): ``p`` for people and face words, ``p * 0.5`` for man, woman, child
        and the like, 0.5 for every other word (module docstring).

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded at all.
        """
        from kiekai.deck import PhotoError

        words = list(words)
        out = np.full((len(cards), len(words)), UNDECIDED, dtype=np.float32)
        known = self.knows(words)
        if not cards or not known.any():
            return out
        p = self.probability(cards)
        for card in cards:
            if card.sha256 in self.undecodable:
                raise PhotoError(f"{card.id}: {self.undecodable[card.sha256]}")
        for j, word in enumerate(words):
            if known[j]:
                share = SOMEONE_SHARE if _key(word) in SOMEONE_WORDS else 1.0
                out[:, j] = np.clip(p * share, 0.0, 1.0)
        return out
