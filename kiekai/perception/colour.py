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

Features (:data:`FEATURES` floats) are cached per photo content hash in memory and on disk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

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
#: Version of the feature pipeline in the cache namespace (change it when any constant
#: above that shapes the features changes).
FEATURE_VERSION = (
    f"v1-max{DECODE_MAX_SIDE}-gain{MAX_GAIN}-p{WHITE_PERCENTILE}-c{NEUTRAL_CHROMA}"
    f"-b{BLACK_BELOW}-w{WHITE_FROM}-d{VERY_DARK_BELOW}/{DARK_CHROMA}-s{CENTRE_SIGMA}-f{BORDER}"
)
#: Length of the cached feature vector: share (11), border (11), colourfulness M, mean L*.
FEATURES = 2 * len(BASIC_TERMS) + 2
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
    share = np.bincount(terms.ravel(), weights=weight.ravel(), minlength=n_terms)
    share /= share.sum()
    bh, bw = max(1, round(h * BORDER)), max(1, round(w * BORDER))
    frame = np.ones((h, w), dtype=bool)
    frame[bh : h - bh, bw : w - bw] = False
    border = np.bincount(terms[frame], minlength=n_terms).astype(np.float64)
    border /= max(border.sum(), 1.0)
    extra = [colourfulness(rgb), float(lab[..., 0].mean())]
    return np.concatenate([share, border, extra]).astype(np.float32)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


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


def _key(word: str) -> str:
    return " ".join(word.strip().lower().split())


class ColourPerception:
    """Perception of colour and light words from pixels (see the module docstring).

    Args:
        cache_root: folder of the on-disk feature cache (default
            ``kiekai.models.cache_dir() / "embeddings"``).

    Attributes:
        name: ``"colour"``.
        cache: the on-disk feature cache.
        failed: content hash -> reason, for photos that could not be decoded.
    """

    name = "colour"

    def __init__(self, *, cache_root: Any = None) -> None:
        self.cache = EmbeddingCache(f"colour|{FEATURE_VERSION}", root=cache_root, dim=FEATURES)
        self.failed: dict[str, str] = {}
        self._memory: dict[str, np.ndarray] = {}

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
        for photo in decode_photos(pending.values(), DECODE_MAX_SIDE):
            key = photo.card.sha256
            if photo.image is None:
                self.failed[key] = photo.reason or "cannot be decoded"
                continue
            features = colour_features(np.asarray(photo.image, dtype=np.uint8))
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
        readings = scores_from_features(self.features(cards))
        for j, reading in known:
            out[:, j] = readings[reading]
        return out
