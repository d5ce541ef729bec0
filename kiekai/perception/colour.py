"""The ``colour`` perception: colour and light words read from a photo's pixels.

The words (:data:`COLOUR_WORDS`) are the eleven basic colour terms of English (Berlin & Kay
1969, "Basic Color Terms: Their Universality and Evolution": black, white, red, green,
yellow, blue, brown, purple, pink, orange, grey; plus the spelling *gray*), *colourful* (and
*colorful*, *multicoloured*, *multicolored*), *monochrome*, *dark* and *bright*. Every other
word is unknown here (:meth:`ColourPerception.knows` is False, score 0.5).

Naming pixels (:func:`name_pixels`), on the photo decoded at :data:`DECODE_MAX_SIDE` px:

1. **CIELAB** (scikit-image ``rgb2lab``, D65): chroma C*ab and the coordinates the naming
   table is searched with.
2. **Exposure.** The lightness L* used for neutrals is read after a white-patch
   normalisation (the brightest surface looks white: Land & McCann 1971, "Lightness and
   Retinex Theory"): relative luminance Y is scaled so that its 99th percentile reaches 1, by
   a gain of at most :data:`MAX_GAIN` (one photographic stop), so a dim photo of a white dog
   reads white and a night scene stays dark. Hue and chroma are not touched.
3. **Neutral pixels** (C*ab < :data:`NEUTRAL_CHROMA`) are named by lightness alone: black
   below L* :data:`BLACK_BELOW`, white from L* :data:`WHITE_FROM`, grey between. So are very
   dark pixels of modest chroma (L* < :data:`VERY_DARK_BELOW`, C*ab < :data:`DARK_CHROMA`):
   black (black fur, shadows of black things). In photos white things lie in shade and black
   things catch light, so these bounds are wider than the ISCC-NBS neutral scale for surface
   samples (Kelly & Judd 1976: black below Munsell value 2.5 ~ L* 25, white from 8.5 ~ L* 86).
4. **Other pixels** take the name of the nearest colour (Euclidean distance in CIELAB, ΔE*ab
   1976) of the XKCD colour survey (Munroe 2010; 949 names with their mean sRGB from about
   222,500 people, as shipped by matplotlib in ``matplotlib._color_data.XKCD_COLORS``),
   mapped to a basic term by the last basic term in the name, its head: ``greenish blue`` ->
   blue, ``blue green`` -> green, ``dark grey`` -> grey, ``gray`` read as grey. The 372 names
   without a basic term (``teal``, ``mauve``, ``puke``) are left out of the table, so a
   pixel of such a colour takes the nearest survey colour whose name has one.

What makes a photo "black" (:func:`colour_features`, :meth:`ColourPerception.scores`). The
rulebook's example ("If the three cards are all black, and the other two are white, write
down 'Black'") is about what the photo shows, so the subject counts more than the background:

* ``share[c]``: the share of the photo's pixels named *c*, each pixel weighted by a Gaussian
  centred on the photo (sigma = :data:`CENTRE_SIGMA` of each side): the subject of a photo is
  usually near its centre;
* ``border[c]``: the share of the pixels of the outer frame (:data:`BORDER` of each side)
  named *c*: the background (the boundary prior of saliency detection: Wei, Wen, Zhu & Sun
  2012, "Geodesic Saliency Using Background Priors", ECCV);
* the evidence for *c* is ``share[c] + max(0, share[c] - border[c])``: its weighted share,
  plus how much more of it lies in the centre than at the edges (a white dog on green grass
  is white; green grass up to the frame is the background, but a photo that is mostly green
  is green too);
* score = logistic((evidence - :data:`SHARE_AT_HALF`) / :data:`SHARE_SCALE`): 0.5 where the
  evidence is 0.3 (say a third of the weighted photo, or a subject a fifth of it that the
  border lacks), 0.12 at 0.2, 0.88 at 0.4. Grey needs an evidence of
  :data:`GREY_AT_HALF` = 0.5 for 0.5: shading and shadow make neutral mid-tones out of
  surfaces of every colour, so a photo is grey only when grey clearly dominates. A photo may
  have several colours (a black-and-white dog is black and white).

*colourful* / *monochrome*: the colourfulness M of Hasler & Süsstrunk (2003, "Measuring
colourfulness in natural images", SPIE 5007), whose scale calls M = 59 "quite colourful" and
M = 15 "slightly colourful": colourful = logistic((M - 59) / 8), monochrome =
logistic((15 - M) / 4). *dark* / *bright*: the photo's mean L* (before the exposure step)
against middle grey (L* 50) +- 15: dark = logistic((35 - mean L*) / 5), bright =
logistic((mean L* - 65) / 5). All these constants are stated priors, not fitted to any deck.

**The fitted model** (:class:`ColourModel`, ``data/colour-model.json``, refitted by
``scripts/fit_colour.py``, logic :mod:`kiekai.eval.fit_colour`). The hand-set rule above agreed
with stand-in raters on the subject's colour for only 0.44 of the fit half's photos, so the
basic terms are scored by one-vs-rest logistic models (scikit-learn, standardised inputs)
fitted on the fit half of ``data/people-rounds/photo-ratings.tsv``: each term's score is the
probability that both raters name that colour for the subject. Inputs (:func:`design`): the
24 features above (shares also as ``log(share + 0.02)``), the **subject** features
(:func:`subject_features`: the photo at :data:`SUBJECT_MAX_SIDE` px cut into SLIC superpixels,
Achanta et al. 2012; each superpixel weighted by how little it touches the frame, how far its
colour lies from the frame's colours and how central it is, the boundary and contrast priors of
Zhu, Liang, Wei & Sun 2014, "Saliency Optimization from Robust Background Detection"; the
weighted share of each term and the weighted mean L*, a*, b*, chroma, lightness spread and
foreground size), and, where a class distribution is known (the attributes perception), the
class's typical colour from ``data/class-attributes.tsv``. When the model file is missing or
unreadable, the hand-set rule scores the terms and one message says so
(:class:`ColourPerception`). *colourful*, *monochrome*, *dark* and *bright* keep their priors.

Features (:data:`FEATURES` floats) are cached per photo content hash in memory and on disk.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kiekai import paths
from kiekai.deck import Card, PhotoError, decode_photos
from kiekai.perception.cache import EmbeddingCache

#: Berlin & Kay's eleven basic colour terms of English, in the order of the feature vector.
BASIC_TERMS: tuple[str, ...] = (
    "black", "white", "grey", "red", "orange", "yellow",
    "green", "blue", "purple", "pink", "brown",
)  # fmt: skip
#: Every word this perception knows -> what it reads (a basic term or a light feature).
COLOUR_WORDS: dict[str, str] = {
    **{term: term for term in BASIC_TERMS},
    "gray": "grey",
    "colourful": "colourful",
    "colorful": "colourful",
    "multicoloured": "colourful",
    "multicolored": "colourful",
    "monochrome": "monochrome",
    "dark": "dark",
    "bright": "bright",
}
#: Longest side (pixels) a photo is decoded at.
DECODE_MAX_SIDE = 64
#: Threads decoding photos and computing their features at once. Pillow's decoders, SLIC
#: (scikit-image's Cython), the k-d tree query (SciPy) and NumPy's array arithmetic release
#: the GIL, so on 2 cores two threads compute about 1.6x the photos per second of one (the
#: same features, bit for bit).
COMPUTE_WORKERS = max(1, min(4, os.cpu_count() or 1))
#: Largest exposure gain of the white-patch step (2 = one photographic stop).
MAX_GAIN = 2.0
#: Percentile of relative luminance that the white-patch step brings to white.
WHITE_PERCENTILE = 99.0
#: Chroma C*ab below which a pixel is neutral (black, grey or white by lightness).
NEUTRAL_CHROMA = 10.0
#: Neutral pixels darker than this L* are black.
BLACK_BELOW = 30.0
#: Neutral pixels at least this light (L*) are white.
WHITE_FROM = 75.0
#: Pixels darker than this L* with chroma below :data:`DARK_CHROMA` are black too.
VERY_DARK_BELOW = 25.0
DARK_CHROMA = 20.0
#: Standard deviation of the centre weighting, as a fraction of each side.
CENTRE_SIGMA = 0.3
#: Width of the border frame, as a fraction of each side.
BORDER = 0.1
#: Evidence (module docstring) at which a colour term scores 0.5, and the logistic's scale.
SHARE_AT_HALF = 0.3
SHARE_SCALE = 0.05
#: The same for grey, which needs more: shading and shadow turn parts of surfaces of every
#: colour into neutral mid-tones, so a photo reads grey only when grey clearly dominates.
GREY_AT_HALF = 0.5
#: Hasler & Süsstrunk colourfulness: "quite colourful" (59) and "slightly colourful" (15).
COLOURFUL_AT_HALF, COLOURFUL_SCALE = 59.0, 8.0
MONOCHROME_AT_HALF, MONOCHROME_SCALE = 15.0, 4.0
#: Mean L* at which "dark" and "bright" score 0.5, and the logistic's scale.
DARK_AT_HALF, BRIGHT_AT_HALF, LIGHTNESS_SCALE = 35.0, 65.0, 5.0
#: Longest side (pixels) the subject features are read at.
SUBJECT_MAX_SIDE = 128
#: SLIC superpixels asked for (scikit-image ``slic``: n_segments, compactness).
SUPERPIXELS, COMPACTNESS = 120, 10.0
#: Subject weight of a superpixel: boundary connectivity (frame pixels / sqrt(area)) at which
#: the background prior is 1 - e^-0.5, and the Lab distance to the nearest frame superpixel
#: at which the contrast prior is 1 - e^-0.5.
BOUNDARY_SIGMA, CONTRAST_SIGMA = 1.0, 15.0
#: Width (pixels at :data:`SUBJECT_MAX_SIDE`) of the frame the subject weighting reads.
SUBJECT_FRAME = 2
#: Names of the subject statistics (after the 11 subject shares).
SUBJECT_STATS = ("subject_L", "subject_a", "subject_b", "subject_chroma_of_mean",
                 "subject_mean_chroma", "subject_L_sd", "subject_size")  # fmt: skip
#: Version of the feature pipeline in the cache namespace (change it when any constant
#: above that shapes the features changes).
FEATURE_VERSION = (
    f"v2-max{DECODE_MAX_SIDE}-gain{MAX_GAIN}-p{WHITE_PERCENTILE}-c{NEUTRAL_CHROMA}"
    f"-b{BLACK_BELOW}-w{WHITE_FROM}-d{VERY_DARK_BELOW}/{DARK_CHROMA}-s{CENTRE_SIGMA}-f{BORDER}"
    f"-subj{SUBJECT_MAX_SIDE}-slic{SUPERPIXELS}/{COMPACTNESS}-{BOUNDARY_SIGMA}/{CONTRAST_SIGMA}"
    f"-fr{SUBJECT_FRAME}"
)
#: Length of the photo part (share 11, border 11, colourfulness M, mean L*).
PHOTO_FEATURES = 2 * len(BASIC_TERMS) + 2
#: Length of the cached feature vector: the photo part, then subject shares (11) and
#: :data:`SUBJECT_STATS` (7).
FEATURES = PHOTO_FEATURES + len(BASIC_TERMS) + len(SUBJECT_STATS)
#: The fitted model shipped with kiekai.
MODEL_PATH = paths.data_file("colour-model.json")
#: Offset inside ``log(share + SHARE_LOG_OFFSET)``, the model's log-share inputs.
SHARE_LOG_OFFSET = 0.02
#: Score of a word this perception does not know.
UNDECIDED = 0.5

_SRGB_TO_Y = np.asarray([0.2126, 0.7152, 0.0722])  # ITU-R BT.709 / sRGB luminance


@functools.lru_cache(maxsize=1)
def xkcd_table() -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The XKCD survey colours whose name holds a basic colour term.

    Returns:
        ``(names, lab, term)``: the names (e.g. ``"greenish blue"``); float64 (K, 3) their
        CIELAB coordinates (D65); intp (K,) the index in :data:`BASIC_TERMS` of each name's
        head term (the last basic term in it; *gray* read as grey). K = 577 for matplotlib's
        table of 949 names.
    """
    from matplotlib._color_data import XKCD_COLORS
    from matplotlib.colors import to_rgb
    from skimage.color import rgb2lab

    names, rgb, term = [], [], []
    for key, hex_value in XKCD_COLORS.items():
        name = key.removeprefix("xkcd:")
        tokens = ["grey" if t == "gray" else t for t in re.split(r"[\s/-]+", name)]
        heads = [t for t in tokens if t in BASIC_TERMS]
        if not heads:
            continue
        names.append(name)
        rgb.append(to_rgb(hex_value))
        term.append(BASIC_TERMS.index(heads[-1]))
    lab = rgb2lab(np.asarray(rgb, dtype=np.float64)[None])[0]
    return tuple(names), lab, np.asarray(term, dtype=np.intp)


@functools.lru_cache(maxsize=1)
def _xkcd_tree() -> Any:
    from scipy.spatial import cKDTree

    return cKDTree(xkcd_table()[1])


def _to_linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _to_srgb(linear: np.ndarray) -> np.ndarray:
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def _lightness(y: np.ndarray) -> np.ndarray:
    """CIE 1976 L* (0-100) of relative luminance Y in [0, 1] (white Y = 1)."""
    e = 216 / 24389
    return np.where(y > e, 116.0 * np.cbrt(y) - 16.0, y * 24389 / 27)


def name_pixels(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Name every pixel with a basic colour term (steps 1-4 of the module docstring).

    Args:
        rgb: uint8 array (H, W, 3) in sRGB, or float in [0, 1].

    Returns:
        ``(terms, lab)``: intp (H, W) indices into :data:`BASIC_TERMS`; float64 (H, W, 3) the
        CIELAB values of the pixels (before the exposure step).
    """
    from skimage.color import rgb2lab

    srgb = np.asarray(rgb, dtype=np.float64)
    if np.asarray(rgb).dtype == np.uint8:
        srgb = srgb / 255.0
    srgb = np.clip(srgb, 0.0, 1.0)
    lab = rgb2lab(srgb)
    luminance = _to_linear(srgb) @ _SRGB_TO_Y
    white = float(np.percentile(luminance, WHITE_PERCENTILE))
    gain = float(np.clip(1.0 / max(white, 1e-6), 1.0, MAX_GAIN))
    lightness = _lightness(np.clip(luminance * gain, 0.0, 1.0))
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    _, _, table_term = xkcd_table()
    _, nearest = _xkcd_tree().query(lab.reshape(-1, 3))
    terms = table_term[nearest].reshape(lab.shape[:2])
    black, white_i, grey = (BASIC_TERMS.index(t) for t in ("black", "white", "grey"))
    neutral_name = np.where(
        lightness < BLACK_BELOW, black, np.where(lightness >= WHITE_FROM, white_i, grey)
    )
    terms = np.where(chroma < NEUTRAL_CHROMA, neutral_name, terms)
    terms = np.where((lightness < VERY_DARK_BELOW) & (chroma < DARK_CHROMA), black, terms)
    return terms.astype(np.intp), lab


def colourfulness(rgb: np.ndarray) -> float:
    """Hasler & Süsstrunk (2003) colourfulness M of an sRGB image (uint8 (H, W, 3), or float in
    [0, 1] scaled to 0-255): ``sqrt(sd_rg² + sd_yb²) + 0.3 sqrt(mean_rg² + mean_yb²)`` with
    ``rg = R - G`` and ``yb = (R + G) / 2 - B``. 0 for a grey image; about 59 "quite colourful",
    82 "highly", 109 "extremely"."""
    array = np.asarray(rgb, dtype=np.float64)
    if np.asarray(rgb).dtype != np.uint8:
        array = array * 255.0
    r, g, b = array[..., 0], array[..., 1], array[..., 2]
    rg, yb = r - g, 0.5 * (r + g) - b
    return float(np.hypot(rg.std(), yb.std()) + 0.3 * np.hypot(rg.mean(), yb.mean()))


def colour_features(rgb: np.ndarray) -> np.ndarray:
    """The cached features of one photo.

    Args:
        rgb: uint8 array (H, W, 3) in sRGB.

    Returns:
        float32 array (:data:`FEATURES`,): centre-weighted share of each basic term (11, sums
        to 1), share of each term in the border frame (11, sums to 1), the colourfulness M,
        and the mean L* (0-100).
    """
    terms, lab = name_pixels(rgb)
    h, w = terms.shape
    yy, xx = np.mgrid[0:h, 0:w]
    d2 = ((yy + 0.5) / h - 0.5) ** 2 + ((xx + 0.5) / w - 0.5) ** 2
    weight = np.exp(-d2 / (2 * CENTRE_SIGMA**2))
    n_terms = len(BASIC_TERMS)
    share: np.ndarray = np.bincount(terms.ravel(), weights=weight.ravel(), minlength=n_terms)
    share /= share.sum()
    bh, bw = max(1, round(h * BORDER)), max(1, round(w * BORDER))
    frame = np.ones((h, w), dtype=bool)
    frame[bh : h - bh, bw : w - bw] = False
    border = np.bincount(terms[frame], minlength=n_terms).astype(np.float64)
    border /= max(border.sum(), 1.0)
    extra = [colourfulness(rgb), float(lab[..., 0].mean())]
    return np.concatenate([share, border, extra]).astype(np.float32)


def subject_features(rgb: np.ndarray) -> np.ndarray:
    """Colour of the photo's likely subject (module docstring, "The fitted model").

    Args:
        rgb: uint8 array (H, W, 3) in sRGB, decoded at :data:`SUBJECT_MAX_SIDE` px.

    Returns:
        float32 (18,): the subject-weighted share of each basic term (11, sums to 1), then
        :data:`SUBJECT_STATS`: weighted mean L*, a*, b* (CIELAB, before the exposure step),
        the chroma of that mean, the weighted mean chroma, the weighted spread of L*, and the
        share of pixels weighted more than uniform (the subject's size).
    """
    from skimage.segmentation import slic

    terms, lab = name_pixels(rgb)
    h, w = terms.shape
    seg = slic(np.asarray(rgb), n_segments=SUPERPIXELS, compactness=COMPACTNESS, start_label=0)
    n = int(seg.max()) + 1
    flat = seg.ravel()
    count = np.bincount(flat, minlength=n).astype(np.float64)
    mean = (
        np.stack(
            [np.bincount(flat, weights=lab[..., k].ravel(), minlength=n) for k in range(3)], axis=1
        )
        / np.maximum(count, 1.0)[:, None]
    )
    f = SUBJECT_FRAME
    frame = np.zeros((h, w), dtype=bool)
    frame[:f], frame[-f:], frame[:, :f], frame[:, -f:] = True, True, True, True
    on_frame = np.bincount(seg[frame], minlength=n).astype(np.float64)
    background = 1.0 - np.exp(
        -((on_frame / np.sqrt(np.maximum(count, 1.0))) ** 2) / (2 * BOUNDARY_SIGMA**2)
    )
    frame_segments = np.flatnonzero(on_frame > 0)
    distance = np.sqrt(((mean[:, None, :] - mean[None, frame_segments, :]) ** 2).sum(-1)).min(
        axis=1
    )
    contrast = 1.0 - np.exp(-(distance**2) / (2 * CONTRAST_SIGMA**2))
    yy, xx = np.mgrid[0:h, 0:w]
    centre = np.exp(
        -(((yy + 0.5) / h - 0.5) ** 2 + ((xx + 0.5) / w - 0.5) ** 2) / (2 * CENTRE_SIGMA**2)
    )
    central = np.bincount(flat, weights=centre.ravel(), minlength=n) / np.maximum(count, 1.0)
    weight = ((1.0 - background) * contrast * central)[seg]
    if weight.sum() <= 1e-9:  # no superpixel stands out: the centre weighting
        weight = centre
    share: np.ndarray = np.bincount(
        terms.ravel(), weights=weight.ravel(), minlength=len(BASIC_TERMS)
    )
    share /= share.sum()
    pw = weight + 1e-6 * centre
    pw = pw / pw.sum()
    lightness, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    m_l, m_a, m_b = (pw * lightness).sum(), (pw * a).sum(), (pw * b).sum()
    stats = [
        m_l, m_a, m_b, np.hypot(m_a, m_b), (pw * np.hypot(a, b)).sum(),
        np.sqrt((pw * (lightness - m_l) ** 2).sum()), float((pw > 1.0 / (h * w)).mean()),
    ]  # fmt: skip
    return np.concatenate([share, np.asarray(stats, dtype=np.float64)]).astype(np.float32)


def _logistic(x: np.ndarray) -> np.ndarray:
    probability: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return probability


def scores_from_features(features: np.ndarray) -> dict[str, np.ndarray]:
    """Score every reading of :data:`COLOUR_WORDS` from features (module docstring).

    Args:
        features: float32 (N, :data:`FEATURES`).

    Returns:
        reading (a basic term, ``colourful``, ``monochrome``, ``dark``, ``bright``) -> float32
        (N,) scores in [0, 1].
    """
    n = len(BASIC_TERMS)
    share, border = features[:, :n], features[:, n : 2 * n]
    m, lightness = features[:, 2 * n], features[:, 2 * n + 1]
    evidence = np.minimum(share + np.maximum(0.0, share - border), 1.0)
    at_half = np.full(n, SHARE_AT_HALF)
    at_half[BASIC_TERMS.index("grey")] = GREY_AT_HALF
    term_scores = _logistic((evidence - at_half) / SHARE_SCALE)
    out = {term: term_scores[:, i] for i, term in enumerate(BASIC_TERMS)}
    out["colourful"] = _logistic((m - COLOURFUL_AT_HALF) / COLOURFUL_SCALE)
    out["monochrome"] = _logistic((MONOCHROME_AT_HALF - m) / MONOCHROME_SCALE)
    out["dark"] = _logistic((DARK_AT_HALF - lightness) / LIGHTNESS_SCALE)
    out["bright"] = _logistic((lightness - BRIGHT_AT_HALF) / LIGHTNESS_SCALE)
    return {key: value.astype(np.float32) for key, value in out.items()}


#: Length of a class-colour input row: the class distribution's mass on classes whose
#: typical colour is each basic term (11, :data:`BASIC_TERMS` order), then the mass on classes
#: with a typical colour at all.
CLASS_COLOUR_INPUTS = len(BASIC_TERMS) + 1


def design_columns(
    features: np.ndarray, class_colour: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every named model input (:class:`ColourModel`) from the cached features.

    Args:
        features: float (N, :data:`FEATURES`).
        class_colour: float (N, :data:`CLASS_COLOUR_INPUTS`) or None (no class inputs).

    Returns:
        name -> float64 (N,): ``share_T``, ``border_T``, ``subject_T`` and their
        ``log_…`` (``log(x + SHARE_LOG_OFFSET)``) for each term T; ``colourfulness``,
        ``mean_L``; :data:`SUBJECT_STATS`; with ``class_colour``: ``class_T`` and ``class_known``.
    """
    x = np.asarray(features, dtype=np.float64)
    n = len(BASIC_TERMS)
    out: dict[str, np.ndarray] = {}
    blocks = {
        "share": x[:, :n],
        "border": x[:, n : 2 * n],
        "subject": x[:, PHOTO_FEATURES : PHOTO_FEATURES + n],
    }
    for block, values in blocks.items():
        for i, term in enumerate(BASIC_TERMS):
            out[f"{block}_{term}"] = values[:, i]
            out[f"log_{block}_{term}"] = np.log(values[:, i] + SHARE_LOG_OFFSET)
    out["colourfulness"], out["mean_L"] = x[:, 2 * n], x[:, 2 * n + 1]
    for i, name in enumerate(SUBJECT_STATS):
        out[name] = x[:, PHOTO_FEATURES + n + i]
    if class_colour is not None:
        c = np.asarray(class_colour, dtype=np.float64)
        for i, term in enumerate(BASIC_TERMS):
            out[f"class_{term}"] = c[:, i]
        out["class_known"] = c[:, n]
    return out


@dataclass(frozen=True)
class ColourModel:
    """One-vs-rest logistic models, one per basic term, on standardised inputs.

    Attributes:
        name: ``pixels``, ``labels`` or ``classifier`` (which class inputs it was fitted with).
        inputs: the input names (:func:`design_columns`), in column order.
        mean, scale: float (F,) standardisation of the inputs (fit half).
        coef: float (11, F) weights per term (:data:`BASIC_TERMS` order); intercept (11,).
        info: everything else recorded with the model (C, CV figures, ...).
    """

    name: str
    inputs: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def uses_classes(self) -> bool:
        """Whether it needs class-colour inputs."""
        return any(name.startswith("class_") for name in self.inputs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ColourModel:
        """Read one entry of ``colour-model.json``.

        Raises:
            ValueError, KeyError, TypeError: a field is missing or the shapes disagree.
        """
        if list(data["terms"]) != list(BASIC_TERMS):
            raise ValueError(f"terms must be {', '.join(BASIC_TERMS)}")
        inputs = tuple(str(i) for i in data["inputs"])
        model = cls(
            name=str(data["name"]),
            inputs=inputs,
            mean=np.asarray(data["mean"], dtype=np.float64),
            scale=np.asarray(data["scale"], dtype=np.float64),
            coef=np.asarray(data["coef"], dtype=np.float64),
            intercept=np.asarray(data["intercept"], dtype=np.float64),
            info={
                k: v
                for k, v in data.items()
                if k not in {"name", "terms", "inputs", "mean", "scale", "coef", "intercept"}
            },
        )
        f = len(inputs)
        if not f or model.mean.shape != (f,) or model.scale.shape != (f,):
            raise ValueError("inputs, mean and scale must have the same non-zero length")
        if model.coef.shape != (len(BASIC_TERMS), f) or model.intercept.shape != (
            len(BASIC_TERMS),
        ):
            raise ValueError(
                f"coef must be {len(BASIC_TERMS)} x {f} and intercept {len(BASIC_TERMS)} long"
            )
        known = set(design_columns(np.zeros((1, FEATURES)), np.zeros((1, CLASS_COLOUR_INPUTS))))
        unknown = [i for i in inputs if i not in known]
        if unknown:
            raise ValueError(f"unknown inputs {', '.join(unknown)}")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON entry (:meth:`from_dict` reads it back)."""
        return {
            "name": self.name,
            **self.info,
            "terms": list(BASIC_TERMS),
            "inputs": list(self.inputs),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept.tolist(),
        }

    def design(self, features: np.ndarray, class_colour: np.ndarray | None = None) -> np.ndarray:
        """float64 (N, F): the standardised inputs."""
        columns = design_columns(features, class_colour)
        x = np.stack([columns[name] for name in self.inputs], axis=1)
        standardised: np.ndarray = (x - self.mean) / self.scale
        return standardised

    def probabilities(
        self, features: np.ndarray, class_colour: np.ndarray | None = None
    ) -> np.ndarray:
        """float64 (N, 11) in [0, 1]: per term, the probability that the raters name it."""
        z = self.design(features, class_colour) @ self.coef.T + self.intercept
        return _logistic(z)


class ColourModelError(ValueError):
    """``colour-model.json`` is missing or malformed (the message names the file and the fix)."""


def load_colour_models(path: Path | str | None = None) -> dict[str, ColourModel]:
    """The models of ``data/colour-model.json`` by name (``pixels``, ``labels``, ``classifier``).

    Raises:
        ColourModelError: the file is missing, not JSON, or an entry is malformed; or it has
            no ``pixels`` model.
    """
    path = Path(path) if path is not None else MODEL_PATH
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        models = [ColourModel.from_dict(entry) for entry in data["models"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ColourModelError(
            f"cannot read the colour model {path} ({type(exc).__name__}: {exc}). Fix: restore "
            "data/colour-model.json from kiekai's source (git checkout data/colour-model.json) "
            "or refit it with `python scripts/fit_colour.py`"
        ) from None
    by_name = {m.name: m for m in models}
    if "pixels" not in by_name:
        raise ColourModelError(
            f"{path} has no 'pixels' model. Fix: refit it with `python scripts/fit_colour.py`"
        )
    return by_name


def _read_photo(card: Card) -> tuple[np.ndarray | None, str | None]:
    """``(features, None)`` of one photo (:func:`_photo_features` of it decoded at both
    sizes through :func:`kiekai.deck.decode_photos`), or ``(None, reason)`` when it cannot
    be decoded."""
    pixels = []
    for side in (DECODE_MAX_SIDE, SUBJECT_MAX_SIDE):
        photo = next(iter(decode_photos([card], side)))
        if photo.image is None:
            return None, photo.reason or "cannot be decoded"
        pixels.append(np.asarray(photo.image, dtype=np.uint8))
    return _photo_features(pixels[0], pixels[1]), None


def _photo_features(small: np.ndarray, large: np.ndarray) -> np.ndarray:
    """float32 (:data:`FEATURES`,): :func:`colour_features` of ``small`` (uint8 (H, W, 3),
    the photo at :data:`DECODE_MAX_SIDE` px) then :func:`subject_features` of ``large``
    (uint8 (H', W', 3), at :data:`SUBJECT_MAX_SIDE` px)."""
    return np.concatenate([colour_features(small), subject_features(large)]).astype(np.float32)


def _key(word: str) -> str:
    return " ".join(word.strip().lower().split())


class ColourPerception:
    """Perception of colour and light words from pixels (see the module docstring).

    Args:
        cache_root: folder of the on-disk feature cache (default
            ``kiekai.models.cache_dir() / "embeddings"``).
        model_path: the fitted model (default :data:`MODEL_PATH`); ``False``: no model, the
            hand-set rule (what the refit uses to read features).
        echo: told one line when the model file cannot be read (default: stderr).

    Attributes:
        name: ``"colour"``.
        cache: the on-disk feature cache.
        failed: content hash -> reason, for photos that could not be decoded.
        models: the fitted models by name (empty: the hand-set rule scores the terms).
        note: the line given to ``echo`` when the model could not be read, else None.
    """

    name = "colour"

    def __init__(
        self,
        *,
        cache_root: Any = None,
        model_path: Path | str | bool | None = None,
        echo: Callable[[str], object] | None = None,
    ) -> None:
        self.cache = EmbeddingCache(f"colour|{FEATURE_VERSION}", root=cache_root, dim=FEATURES)
        self.failed: dict[str, str] = {}
        self._memory: dict[str, np.ndarray] = {}
        self.models: dict[str, ColourModel] = {}
        self.note: str | None = None
        if model_path is not False:
            try:
                path = model_path if isinstance(model_path, (str, Path)) else None  # True: default
                self.models = load_colour_models(path)
            except ColourModelError as exc:
                self.note = f"colour: {exc}; until then colours are scored by the hand-set rule"
                (echo or (lambda line: print(line, file=sys.stderr)))(self.note)

    def features(self, cards: Sequence[Card]) -> np.ndarray:
        """float32 (N, :data:`FEATURES`): each card's features (:func:`colour_features`),
        computed once per photo and cached by content hash.

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded.
        """
        self._compute(cards)
        for card in cards:
            if card.sha256 in self.failed:
                raise PhotoError(f"{card.id}: {self.failed[card.sha256]}")
        if not cards:
            return np.zeros((0, FEATURES), dtype=np.float32)
        return np.stack([self._memory[card.sha256] for card in cards])

    def _compute(self, cards: Sequence[Card]) -> None:
        """Features of ``cards`` into memory (from the disk cache, else decoded through
        :func:`kiekai.deck.decode_photos`); photos that cannot be decoded go to
        :attr:`failed` with the reason."""
        pending: dict[str, Card] = {}  # content hash -> one card with that photo
        for card in cards:
            key = card.sha256
            if key in self._memory or key in self.failed or key in pending:
                continue
            cached = self.cache.get(key)
            if cached is None:
                pending[key] = card
            else:
                self._memory[key] = cached
        if not pending:
            return
        # each photo is decoded and computed in one thread: decoding (Pillow) and the
        # features (SLIC, the k-d tree, NumPy) release the GIL, so the threads keep every
        # core busy, with no step that waits for the slowest photo of a batch
        with ThreadPoolExecutor(COMPUTE_WORKERS, thread_name_prefix="kiekai-colour") as pool:
            for key, (features, reason) in zip(
                pending, pool.map(_read_photo, pending.values()), strict=True
            ):
                if features is None:
                    self.failed[key] = reason or "cannot be decoded"
                else:
                    self.cache.put(key, features)
                    self._memory[key] = features

    # -- the Perception protocol ------------------------------------------------------------------

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Read every card's colours now; return ``(card, reason)`` for photos that cannot be
        decoded, in input order."""
        self._compute(cards)
        return [(card, self.failed[card.sha256]) for card in cards if card.sha256 in self.failed]

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): True for the words of :data:`COLOUR_WORDS` (any case)."""
        return np.asarray([_key(word) in COLOUR_WORDS for word in words], dtype=bool)

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Score each word against each card (module docstring); 0.5 for unknown words.

        Returns:
            float32 array (N, V) in [0, 1].

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded.
        """
        words = list(words)
        out = np.full((len(cards), len(words)), UNDECIDED, dtype=np.float32)
        known = [(j, COLOUR_WORDS[_key(w)]) for j, w in enumerate(words) if _key(w) in COLOUR_WORDS]
        if not cards or not known:
            return out
        features = self.features(cards)
        readings = scores_from_features(features)
        if "pixels" in self.models:
            terms = self.models["pixels"].probabilities(features)
            readings.update({t: terms[:, i].astype(np.float32) for i, t in enumerate(BASIC_TERMS)})
        for j, reading in known:
            out[:, j] = readings[reading]
        return out

    def term_scores(
        self, cards: Sequence[Card], class_colour: np.ndarray, model: np.ndarray
    ) -> np.ndarray | None:
        """The basic terms scored with class-colour inputs (the attributes perception).

        Args:
            class_colour: float (N, :data:`CLASS_COLOUR_INPUTS`) per card.
            model: str (N,) the model per card (``labels`` or ``classifier``).

        Returns:
            float64 (N, 11) in [0, 1] (:data:`BASIC_TERMS` order), or None when a needed
            model is not loaded (the caller then mixes the table with :meth:`scores`).

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded.
        """
        names = set(np.asarray(model).tolist())
        if not names <= set(self.models):
            return None
        features = self.features(cards)
        out = np.zeros((len(cards), len(BASIC_TERMS)))
        for name in names:
            rows = np.asarray(model) == name
            out[rows] = self.models[name].probabilities(
                features[rows], np.asarray(class_colour)[rows]
            )
        return out
