"""The people-fitted listener: which word would a person write for a 3-vs-2 split?

A conditional-logit (McFadden 1974) choice model over the candidate words of one split. Every
candidate word ``j`` gets a utility ``u_j = features_j . weights`` (log units) and a person is
modelled as writing word ``j`` with probability ``exp(u_j) / sum_k exp(u_k)``. The features
(:data:`FEATURES`, :func:`features`) are what a person weighs when writing a word:

* how true the word is of the three and false of the two, as the perception sees the photos
  (summed and weakest-card log-likelihoods, :func:`kiekai.kiek.truth.likelihood_scores`), and how
  much of it the perception cannot tell at all;
* how readily people use the word: wordfreq Zipf frequency, Brysbaert et al. (2014)
  concreteness, WordNet specificity (the *size principle*, Xu & Tenenbaum 2007), whether it
  is a *focal* word (:data:`FOCAL_WORDS`: the basic-level and everyday superordinate
  categories people name first, Rosch et al. 1976), and the kind of word (category, colour,
  setting, material, quality, light, ``X-less``).

The weights are fitted on the **fitting part** of the people rounds only
(:mod:`kiekai.eval.fit_listener`, ``scripts/fit_listener.py``) to every word a person wrote for
the split (the active player's word and the other players' guesses), and shipped in
``data/listener.json``, one set per perception family (:func:`family_of`): ``labels`` (a deck's
labels.csv) and ``pixels`` (the classifier, CLIP). The model is the game bots' guesser (their
first guess is its best word) and the listener the active bot speaks to (RSA, Goodman & Frank
2016: the speaker picks the split and word its modelled listener is likeliest to guess).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from kiekai import paths

if TYPE_CHECKING:
    from kiekai.kiek.candidates import Candidates

#: The listener's weights shipped with kiekai (written by ``scripts/fit_listener.py``;
#: ``data/listener.json`` in a checkout, the wheel's copy otherwise: :func:`kiekai.paths.data_file`).
LISTENER_FILE = paths.data_file("listener.json")

#: Words people name things by first: Rosch et al. (1976)'s basic-level categories and the
#: everyday superordinates and scene words met in party games (animals, people, food,
#: vehicles, indoors, outdoors, water, nature), written from general knowledge (not from the
#: people rounds). Plural and singular forms both count.
FOCAL_WORDS: frozenset[str] = frozenset(
    """
    animal animals dog dogs cat cats bird birds fish insect insects bug bugs flower flowers
    tree trees plant plants food fruit vegetable vegetables vehicle vehicles car cars boat
    boats people person water outdoors indoors nature tool tools clothing clothes furniture
    music toy toys building buildings sport sports weapon weapons metal wooden glass plastic
    sky grass snow mammal mammals reptile reptiles pet pets wheels wings fur furry
    """.split()
)

#: Rosch et al. (1976)'s basic level: the words people name a thing by when they see it (a
#: dog, not an animal or a terrier), written from general knowledge. People write one when
#: all three share it (three dogs: *dogs*, not *animals*).
BASIC_WORDS: frozenset[str] = frozenset(
    """
    dog dogs cat cats bird birds fish flower flowers tree trees car cars boat boats snake
    snakes horse horses monkey monkeys bear bears insect insects bug bugs spider spiders shoe
    shoes hat hats chair chairs ball balls bottle bottles cup cups bag bags clock clocks
    """.split()
)

#: A word the perception sees on the wrong side of 0.5 on one of the five (false of one of
#: the three, or true of one of the two) costs this much per such card, beyond the
#: split's least contradicted words: a person writes a word true of the three and false of
#: the two as they see them. A design constant (not fitted): the fit cannot learn it, since
#: where the perception errs the person's word looks false.
WRONG_SIDE_COST = 10.0

#: Names of the features, in column order (see :func:`features`). The kind columns follow.
BASE_FEATURES: tuple[str, ...] = (
    "log_true_three",  # sum over the three of log p(true)
    "log_false_two",  # sum over the two of log p(false)
    "weakest_three",  # min over the three of log p(true)
    "weakest_two",  # min over the two of log p(false)
    "undecided",  # share of the five the perception cannot tell (score exactly 0.5)
    "zipf",  # wordfreq Zipf - 4.5
    "concreteness",  # Brysbaert concreteness - 4, clipped to [-2, 1]; 0 unrated
    "specificity",  # WordNet intrinsic information content (0.35 for ungrounded words)
    "focal",  # 1 for FOCAL_WORDS
    "basic",  # 1 for BASIC_WORDS
)
#: Kinds of candidate word, one indicator column each (``privative`` = ``X-less``).
KIND_FEATURES: tuple[str, ...] = (
    "category",
    "colour",
    "light",
    "material",
    "privative",
    "quality",
    "setting",
)
FEATURES: tuple[str, ...] = BASE_FEATURES + tuple(f"kind_{k}" for k in KIND_FEATURES)

#: Perception families the listener has weights for.
FAMILIES: tuple[str, ...] = ("labels", "pixels")


class ListenerError(ValueError):
    """The listener's weights file is missing or malformed (the message names the file and
    the command that rebuilds it)."""


def family_of(perception: Any) -> str:
    """``"labels"`` when the perception's name says it reads labels.csv and no pixels model
    names things (``labels``, ``labels+colour``), else ``"pixels"`` (``classifier+colour``,
    ``labels+classifier+colour`` for a partly labelled deck, ``clip``)."""
    name = str(getattr(perception, "name", ""))
    parts = set(name.split("+"))
    if "labels" in parts and not parts & {"classifier", "clip"}:
        return "labels"
    return "pixels"


@dataclass(frozen=True)
class WordTraits:
    """The per-word, split-independent features of a candidate list.

    Attributes:
        static: float64 (W, F - 5): the columns of :data:`FEATURES` from ``zipf`` on.
    """

    static: np.ndarray

    @classmethod
    def of(cls, candidates: Candidates) -> WordTraits:
        """The traits of ``candidates`` (a :class:`kiekai.kiek.candidates.Candidates`)."""
        from kiekai.kiek.bot_tuning import UNGROUNDED_SPECIFICITY

        vocab = candidates.vocabulary
        base = candidates.base
        zipf = vocab.zipf.astype(np.float64)[base] - 4.5
        concrete = np.nan_to_num(vocab.concreteness.astype(np.float64)[base] - 4.0, nan=0.0)
        grounded = np.asarray([bool(vocab.synsets[b]) for b in base])
        specificity = np.where(
            grounded, vocab.specificity.astype(np.float64)[base], UNGROUNDED_SPECIFICITY
        )
        focal = np.asarray([w in FOCAL_WORDS for w in candidates.words], dtype=np.float64)
        basic = np.asarray([w in BASIC_WORDS for w in candidates.words], dtype=np.float64)
        kinds = np.asarray(
            [[float(k == kind) for kind in KIND_FEATURES] for k in candidates.kinds]
        ).reshape(len(candidates), len(KIND_FEATURES))
        static = np.column_stack(
            [zipf, np.clip(concrete, -2.0, 1.0), specificity, focal, basic, kinds]
        ).astype(np.float64)
        return cls(static)


def split_features(
    scores: np.ndarray, three: Sequence[int], two: Sequence[int], traits: WordTraits
) -> np.ndarray:
    """float64 (W, F): the :data:`FEATURES` of every candidate for one split.

    Args:
        scores: float array (N, W) of candidate scores in [0, 1] (0.5 = can't tell), as
            :meth:`kiekai.kiek.candidates.Candidates.scores` gives them.
        three, two: row indices of the group of three and the group of two.
        traits: the candidates' :class:`WordTraits`.

    Raises:
        ValueError: ``three`` is not 3 rows or ``two`` not 2, or the widths disagree.
    """
    from kiekai.kiek.bot_tuning import EPS, UNDECIDED
    from kiekai.kiek.truth import likelihood_scores

    if len(three) != 3 or len(two) != 2:
        raise ValueError(f"a Kiek split is 3 cards vs 2, got {len(three)} vs {len(two)}")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[1] != traits.static.shape[0]:
        raise ValueError(
            f"scores of shape {s.shape} do not match {traits.static.shape[0]} candidate words"
        )
    p = np.clip(likelihood_scores(s), EPS, 1.0 - EPS)
    t, f = list(three), list(two)
    log_true = np.log(p[t])
    log_false = np.log1p(-p[f])
    undecided = (s[t + f] == UNDECIDED).mean(axis=0)
    dynamic = np.column_stack(
        [log_true.sum(0), log_false.sum(0), log_true.min(0), log_false.min(0), undecided]
    )
    features: NDArray[np.float64] = np.concatenate([dynamic, traits.static], axis=1)
    return features


def wrong_side(scores: np.ndarray, three: Sequence[int], two: Sequence[int]) -> np.ndarray:
    """int (W,): on how many of the five cards the perception sees each word on the wrong
    side of 0.5 (below it on one of the three, above it on one of the two; 0.5 itself, "can't
    tell", is neither)."""
    s = np.asarray(scores, dtype=np.float64)
    wrong: NDArray[np.intp] = (s[list(three)] < 0.5).sum(axis=0) + (s[list(two)] > 0.5).sum(axis=0)
    return wrong


def least_contradicted(scores: np.ndarray, three: Sequence[int], two: Sequence[int]) -> np.ndarray:
    """bool (W,): the words with the fewest wrong-side cards (:func:`wrong_side`): the words
    the listener chooses among (all true of the three and false of the two when any is)."""
    wrong = wrong_side(scores, three, two)
    least: NDArray[np.bool_] = wrong == wrong.min()
    return least


@dataclass(frozen=True)
class PeopleListener:
    """The fitted choice model for one perception family.

    Attributes:
        family: ``labels`` or ``pixels`` (:func:`family_of`).
        weights: float64 (F,), one per :data:`FEATURES` name.
        info: what the weights file says of how they were fitted (rounds, regulariser,
            cross-validated top-1, commit).
    """

    family: str
    weights: np.ndarray
    info: dict[str, Any]

    def utilities(
        self, scores: np.ndarray, three: Sequence[int], two: Sequence[int], traits: WordTraits
    ) -> np.ndarray:
        """float64 (W,): each candidate's utility (log units) for the split; a person writes
        word j with probability ``softmax(utilities)[j]``. Words contradicted on more cards
        than the split's least contradicted ones cost :data:`WRONG_SIDE_COST` per extra card."""
        wrong = wrong_side(scores, three, two)
        u = split_features(scores, three, two, traits) @ self.weights
        utility: NDArray[np.float64] = u - WRONG_SIDE_COST * (wrong - wrong.min())
        return utility


def read_weights(path: Path | str = LISTENER_FILE) -> dict[str, Any]:
    """The parsed weights file (``{"features": [...], "families": {family: {"weights":
    [...], ...}}, ...}``).

    Raises:
        ListenerError: the file is missing, not JSON, or its features are not
            :data:`FEATURES` (written by another version: refit).
    """
    path = Path(path)
    fix = "rebuild it with `python scripts/fit_listener.py` (or reinstall kiekai)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ListenerError(f"the listener's weights file {path} is missing; {fix}") from None
    except (OSError, ValueError) as exc:
        raise ListenerError(
            f"cannot read the listener's weights file {path} ({exc}); {fix}"
        ) from None
    if not isinstance(data, dict) or tuple(data.get("features", ())) != FEATURES:
        raise ListenerError(
            f"the listener's weights file {path} was written for other features; {fix}"
        )
    families = data.get("families")
    if not isinstance(families, dict) or not families:
        raise ListenerError(f"the listener's weights file {path} holds no weights; {fix}")
    for name, entry in families.items():
        weights = entry.get("weights") if isinstance(entry, dict) else None
        if (
            not isinstance(weights, list)
            or len(weights) != len(FEATURES)
            or not all(isinstance(w, int | float) and np.isfinite(w) for w in weights)
        ):
            raise ListenerError(
                f"the listener's weights file {path}: family {name!r} needs "
                f"{len(FEATURES)} finite weights; {fix}"
            )
    return data


def load_listener(family: str, path: Path | str = LISTENER_FILE) -> PeopleListener:
    """The :class:`PeopleListener` of ``family`` from the weights file (the ``pixels``
    weights stand in for a family the file lacks). The file is read once per path and
    modification time, however many bots a table seats.

    Raises:
        ListenerError: see :func:`read_weights`.
    """
    try:
        stamp = Path(path).stat().st_mtime_ns
    except OSError:
        stamp = -1
    return _load_listener(family, str(path), stamp)


@functools.lru_cache(maxsize=8)
def _load_listener(family: str, path: str, stamp: int) -> PeopleListener:
    data = read_weights(path)
    families = data["families"]
    entry = families.get(family) or families.get("pixels") or next(iter(families.values()))
    info = {k: v for k, v in entry.items() if k != "weights"}
    return PeopleListener(family, np.asarray(entry["weights"], dtype=np.float64), info)
