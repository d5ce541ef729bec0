"""People detectors: MTCNN faces (facenet-pytorch's weights), OpenCV 4.x's Haar cascades and
HOG people detector, MediaPipe's legacy solutions; each file SHA-256 checked against
``models/registry.json``.

Part of :mod:`kiekai.models` (import from there).
"""

from __future__ import annotations

import functools
import hashlib
import warnings
from pathlib import Path
from typing import Any

from kiekai.models import common
from kiekai.models.common import (
    REGISTRY_PATH,
    ModelUnavailable,
    Resolved,
    _hash_status,
    _pinned_package_files,
)

# ---------------------------------------------------------------------------------------------
# People detectors (MTCNN faces; OpenCV 4.x Haar cascades and HOG people detector)
# ---------------------------------------------------------------------------------------------


def _mtcnn_fix() -> str:
    cfg = common.registry()["people"]["mtcnn"]
    return (
        f"Fix: `{cfg['install']}` in kiekai's environment (--no-deps: {cfg['package']}'s own "
        "pins ask for torch<2.3, numpy<2 and Pillow<10.3, which kiekai does not use; it runs on "
        "kiekai's torch)."
    )


def _opencv_fix() -> str:
    cfg = common.registry()["people"]["opencv"]
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
    cfg = common.registry()["people"]["mtcnn"]
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
    files = common.registry()["people"]["mtcnn"]["files"]
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
    cfg = common.registry()["people"]["opencv"]
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
    pins = common.registry()["people"]["opencv"]["cascades"]
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
    pinned = common.registry()["people"]["opencv"]["cascades"][file_name]
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
    pinned = common.registry()["people"]["opencv"]["hog_people_float32_sha256"]
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
    cfg = common.registry()["people"]["mediapipe"]
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
    cfg = common.registry()["people"]["mediapipe"]
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
    files = common.registry()["people"]["mediapipe"]["detectors"][detector]
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
