"""Kiek bots: the guesser, the active player, the card keeper and ne bis in idem calls.

Everything a bot knows about a photo comes from a :class:`~kiekai.perception.base.Perception`
(``scores(cards, words) -> float32 [N, V]`` in [0, 1]); everything it knows about words being
"the same" comes from the judge (:class:`kiekai.judge.Judge`).

**Guesser** (rulebook, "A Turn": the guessers "try to guess what the active player thinks
divides the two groups"). The active player's word is true of the three cards and false of the
two; among such words people write the *most specific everyday category*. A word's guess score
is therefore, in log units,

    log P(true of each of the 3) + log P(false of each of the 2)
      + SPECIFICITY_WEIGHT * specificity(word) + ZIPF_WEIGHT * zipf(word)

with the perception's scores as the probabilities (cards independent), ``specificity`` the
intrinsic information content of the word's WordNet synsets (Seco et al. 2004; 0 = ``entity``,
1 = a leaf; :attr:`kiekai.lexicon.Vocabulary.specificity`) and ``zipf`` the wordfreq Zipf
frequency (commoner words are likelier written). Words already used are never guessed (ne bis
in idem; the judge decides what counts as the same word).

**Active player.** For each choice of 2 hand cards, each of the 10 ways to split the five
cards 3-vs-2, and each word, the expected number of matching guesses is modelled as the
probability that a guesser (the guess score above, as a softmax at temperature
:data:`GUESSER_MODEL_TEMPERATURE`) writes that word. The bot writes the best word that its own
perception holds true of its three (score >= 0.5 each) and false of its two (< 0.5 each) and
that is not a repeat. All C(hand, 2) x 10 x V values are computed at once with numpy.

**Card keeper** (rulebook, "The Next Turn": three players each keep one of the five cards).
The bot keeps the card that leaves the next active player the most distinguishable options:
the card with the most unused everyday categories, counting twice those it shares with the
cards already kept (so a 3-card category stays possible). When the bot is itself the next
active player, shared categories must also hold for two of its hand cards.

**Levels** change the vocabulary (easy: only common words, Zipf >= 4.0; normal: Zipf >= 3.0;
hard: all) and the noise: each bot has a seeded *taste* (a Gaussian preference per word,
standard deviation 1.5 / 0.75 / 0 log units for easy / normal / hard), and choices are sampled
from a softmax of the scores at the level's temperature (1.5 / 0.6 / 0; 0 = always the best)
from a seeded ``numpy.random.Generator``. Bots of one level with different seeds therefore
sometimes write different words; a game with the same seed repeats exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kiekai.deck import Card
from kiekai.kiek.players import (
    ActivePlay,
    ActiveView,
    GuessView,
    KeepView,
    RevealView,
)
from kiekai.lexicon import Vocabulary, as_vocabulary, load_fallback_vocabulary

if TYPE_CHECKING:
    from kiekai.perception.base import Perception

#: Weight of a word's intrinsic information content (0..1) in the guess score, in log units.
SPECIFICITY_WEIGHT = 4.0
#: Weight of a word's Zipf frequency (about 3..6 for the vocabulary) in the guess score.
ZIPF_WEIGHT = 0.25
#: Probabilities are clipped to [EPS, 1 - EPS] before taking logs.
EPS = 1e-4
#: A perception score at or above this says the word is true of the card (0.5 = undecided).
TRUE_AT = 0.5
#: Temperature of the softmax by which the active bot models the guessers (log units).
GUESSER_MODEL_TEMPERATURE = 1.0


@dataclass(frozen=True)
class Level:
    """A bot strength.

    Attributes:
        name: ``easy``, ``normal`` or ``hard``.
        min_zipf: words with a lower wordfreq Zipf frequency are not in the bot's vocabulary.
        temperature: softmax temperature of the bot's choices in log-score units
            (0 = always the best-scoring choice).
        taste: standard deviation, in log-score units, of the bot's own seeded preference
            for each word (drawn once per bot from its generator and added to its guess and
            choice scores): bots of one level with different seeds lean to different words,
            as people do; 0 = no taste (the best guess).
    """

    name: str
    min_zipf: float
    temperature: float
    taste: float = 0.0


LEVELS: dict[str, Level] = {
    "easy": Level("easy", 4.0, 1.5, 1.5),
    "normal": Level("normal", 3.0, 0.6, 0.75),
    "hard": Level("hard", 0.0, 0.0, 0.0),
}


def parse_level(level: str | Level) -> Level:
    """The :class:`Level` named ``level`` (case-insensitive).

    Raises:
        ValueError: not one of easy / normal / hard.
    """
    if isinstance(level, Level):
        return level
    key = str(level).strip().lower()
    if key not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}: use easy, normal or hard")
    return LEVELS[key]


# ---------------------------------------------------------------------------------------------
# Pure scoring functions (used by the bots and by the evaluation scripts)
# ---------------------------------------------------------------------------------------------


def word_preference(vocabulary: Vocabulary) -> np.ndarray:
    """float64 array (V,): the prior part of the guess score, in log units:
    ``SPECIFICITY_WEIGHT * specificity + ZIPF_WEIGHT * zipf`` (see the module docstring)."""
    return SPECIFICITY_WEIGHT * vocabulary.specificity.astype(np.float64) + ZIPF_WEIGHT * (
        vocabulary.zipf.astype(np.float64)
    )


def split_log_fit(scores: np.ndarray, three: Sequence[int], two: Sequence[int]) -> np.ndarray:
    """Log-probability that each word is true of every card in ``three`` and false of every
    card in ``two``.

    Args:
        scores: float array (N, V) of perception scores in [0, 1].
        three: row indices of the group of three.
        two: row indices of the group of two.

    Returns:
        float64 array (V,), at most 0.
    """
    s = np.clip(scores.astype(np.float64), EPS, 1.0 - EPS)
    return np.log(s[list(three)]).sum(axis=0) + np.log1p(-s[list(two)]).sum(axis=0)


def guess_scores(
    perception: Perception,
    three: Sequence[Card],
    two: Sequence[Card],
    vocabulary: Vocabulary | Iterable[str] | None = None,
) -> np.ndarray:
    """The guesser's score of every vocabulary word for a 3-vs-2 split.

    Returns:
        float64 array (V,) in log units: :func:`split_log_fit` + :func:`word_preference`.
        Used words are not removed here (see :func:`rank_guesses`).

    Raises:
        ValueError: ``three`` does not hold 3 cards or ``two`` does not hold 2.
    """
    if len(three) != 3 or len(two) != 2:
        raise ValueError(f"a Kiek split is 3 cards vs 2, got {len(three)} vs {len(two)}")
    vocab = as_vocabulary(vocabulary)
    scores = perception.scores(list(three) + list(two), vocab.words)
    return split_log_fit(scores, (0, 1, 2), (3, 4)) + word_preference(vocab)


def _plain(word: str) -> str:
    word = word.strip().lower()
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def is_used(word: str, used_words: Sequence[str], judge: Any | None = None) -> bool:
    """Whether ``word`` repeats one of ``used_words`` (ne bis in idem).

    The same word in any case or with a plural -s/-es/-ies counts as a repeat without asking
    anyone; otherwise, with a judge, ``judge.is_repeat`` decides. The judge is asked about one
    used word at a time and its answers are remembered per process (:func:`_repeats_pair`),
    so that a game asks about each (candidate, used word) pair once however many turns and
    bots check it. (``is_repeat(word, used)`` accepts exactly when it accepts ``word``
    against one of the used words.)
    """
    used = [u for u in used_words if isinstance(u, str) and u.strip()]
    if not used:
        return False
    plain = _plain(word)
    if any(_plain(u) == plain for u in used):
        return True
    if judge is None:
        return False
    return any(_repeats_pair(judge, word, u) for u in used)


#: judge identity -> (judge, {(candidate, used word): repeat?}); see :func:`_repeats_pair`.
_REPEATS: dict[int, tuple[Any, dict[tuple[str, str], bool]]] = {}


def _repeats_pair(judge: Any, word: str, used: str) -> bool:
    """``judge.is_repeat(word, [used]).accepted``, remembered per judge and pair."""
    hit = _REPEATS.get(id(judge))
    if hit is None or hit[0] is not judge:
        hit = (judge, {})
        _REPEATS[id(judge)] = hit
    cache = hit[1]
    key = (word, used)
    value = cache.get(key)
    if value is None:
        value = bool(judge.is_repeat(word, [used]).accepted)
        cache[key] = value
    return value


def used_mask(words: Sequence[str], used_words: Sequence[str]) -> np.ndarray:
    """bool array (len(words),): True where a word is the same as a used word in any case or
    with a plural -s/-es/-ies (the cheap part of :func:`is_used`, for a whole vocabulary at
    once; the judge is then asked only about the few words a bot is about to write)."""
    plain_used = {_plain(u) for u in used_words if isinstance(u, str) and u.strip()}
    if not plain_used:
        return np.zeros(len(words), dtype=bool)
    return np.fromiter((_plain(w) in plain_used for w in words), dtype=bool, count=len(words))


def used_senses(used_words: Sequence[str]) -> frozenset[str]:
    """The WordNet synset names the used words stand for (ne bis in idem forbids a category
    already used, whatever the word: *instrumentation* after *instrumentality*): a word's
    synsets in the vocabulary or the fallback categories where it is listed, else its first
    WordNet noun sense. ``X-less`` words stand for no synset here."""
    from kiekai.lexicon import load_fallback_vocabulary, load_vocabulary, wordnet_noun_senses

    out: set[str] = set()
    for word in used_words:
        if not isinstance(word, str) or not word.strip() or word.strip().endswith("-less"):
            continue
        key = " ".join(word.strip().lower().split())
        for vocab in (load_vocabulary(), load_fallback_vocabulary()):
            if key in vocab:
                out.update(vocab.synsets[vocab.index(key)])
                break
        else:
            senses = wordnet_noun_senses(key)
            if senses:
                out.add(senses[0].name())
    return frozenset(out)


def same_category_mask(vocabulary: Vocabulary, used_words: Sequence[str]) -> np.ndarray:
    """bool (V,): True where a word of ``vocabulary`` declares a synset that a used word
    stands for (:func:`used_senses`), so writing it would repeat that category."""
    taken = used_senses(used_words)
    if not taken:
        return np.zeros(len(vocabulary), dtype=bool)
    return np.fromiter(
        (any(n in taken for n in names) for names in vocabulary.synsets),
        dtype=bool,
        count=len(vocabulary),
    )


def _first_unused(
    order: Iterable[int], words: Sequence[str], used_words: Sequence[str], judge: Any | None, k: int
) -> list[int]:
    chosen: list[int] = []
    for j in order:
        if not is_used(words[j], used_words, judge):
            chosen.append(int(j))
            if len(chosen) >= k:
                break
    return chosen


def rank_guesses(
    perception: Perception,
    three: Sequence[Card],
    two: Sequence[Card],
    used_words: Sequence[str] = (),
    vocabulary: Vocabulary | Iterable[str] | None = None,
    k: int = 5,
    *,
    judge: Any | None = None,
) -> list[tuple[str, float]]:
    """The guesser's ``k`` best words for a split, best first, never a used word.

    Args:
        perception: scores cards against words.
        three: the 3 cards the active player's word is true of.
        two: the 2 cards it is false of.
        used_words: words written earlier in the game (ne bis in idem).
        vocabulary: candidate words (a :class:`~kiekai.lexicon.Vocabulary`, a list of words,
            or ``None`` for the default vocabulary).
        k: how many to return.
        judge: decides repeats (``judge.is_repeat``); without one, same word or plural only.

    Returns:
        ``[(word, score), ...]`` with scores in log units (:func:`guess_scores`), descending.

    Raises:
        ValueError: the split is not 3 vs 2.
    """
    vocab = as_vocabulary(vocabulary)
    scores = guess_scores(perception, three, two, vocab)
    order = np.argsort(-scores, kind="stable")
    chosen = _first_unused(order, vocab.words, used_words, judge, k)
    return [(vocab.words[j], float(scores[j])) for j in chosen]


def baseline_guess(three: Sequence[Card], two: Sequence[Card]) -> str | None:
    """The plain baseline: the word for the most specific WordNet ancestor shared by the
    three cards' synsets and by neither of the two (deepest by :func:`kiekai.lexicon.depth`,
    its first lemma with spaces). ``None`` when a card has no resolvable synset or no such
    ancestor exists. (Issue 5 names this baseline.)"""
    from kiekai.lexicon import depth, hypernym_closure, synset_for_label, synset_for_wnid

    def synset(card: Card):
        if card.wnid:
            try:
                return synset_for_wnid(card.wnid)
            except ValueError:
                pass
        return synset_for_label(card.label) if card.label else None

    ins = [synset(c) for c in three]
    outs = [synset(c) for c in two]
    if any(s is None for s in ins + outs):
        return None
    shared = set.intersection(*(set(hypernym_closure(s)) for s in ins))
    for s in outs:
        shared -= hypernym_closure(s)
    if not shared:
        return None
    best = max(shared, key=lambda s: (depth(s), s.name()))
    return best.lemmas()[0].name().replace("_", " ")


def certain_truth(
    perception: Any,
    cards: Sequence[Card],
    vocabulary: Vocabulary,
    options: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    grounded: bool = False,
) -> np.ndarray | None:
    """Which words WordNet confirms for each way of splitting ``cards`` (rulebook, "A Turn":
    the word "is shown by the group of three, but not by the group of two").

    A word is *certainly true* of an option ``(three, two)`` when

    - one of its checkable senses (:func:`kiekai.lexicon.checkable_senses`: an everyday sense
      of the vocabulary that is also a WordNet noun sense of the word, for a word that is not
      mainly an adjective) is the synset, or a hypernym of the synset, of every card of the
      three (one sense for all three); and
    - no sense a reader may take it in (:func:`kiekai.lexicon.all_senses`) is the synset, a
      hypernym or a hyponym of the synset of a card of the two (``terrier`` is not certainly
      false of a photo labelled only "dog").

    This needs each card's WordNet synset, which only perceptions with a
    ``card_synset(card)`` method (the ``labels`` perception) give.

    Args:
        perception: the bot's perception.
        cards: N cards (N <= 62).
        vocabulary: the V candidate words.
        options: O pairs of row lists into ``cards``: the group the word must be true of and
            the group it must be false of (any sizes; an ``X-less`` check swaps them).
        grounded: take every declared synset of a word as checkable, also for words WordNet
            has no such noun sense of (grounded qualities: ``man-made`` = ``artifact.n.01``);
            such words are true by their grounding, though a WordNet-only check cannot say.

    Returns:
        bool array (O, V), or ``None`` when the perception cannot name the cards' synsets.
    """
    from kiekai.lexicon import all_senses, checkable_senses, hypernym_closure, sense_index

    synset_of = getattr(perception, "card_synset", None)
    if synset_of is None or len(cards) > 62:
        return None
    synsets = [synset_of(card) for card in cards]
    closures = [
        frozenset(a.name() for a in hypernym_closure(x)) if x is not None else frozenset()
        for x in synsets
    ]
    unknown = sum(1 << i for i, x in enumerate(synsets) if x is None)
    index = sense_index(vocabulary)
    sense_word: list[int] = []
    sense_cover: list[int] = []
    for name in set().union(*closures):
        positions = index.get(name)
        if not positions:
            continue
        cover = sum(1 << i for i, closure in enumerate(closures) if name in closure)
        for v in positions:
            if grounded or name in checkable_senses(vocabulary.words[v], vocabulary.synsets[v]):
                sense_word.append(v)
                sense_cover.append(cover)
    out = np.zeros((len(options), len(vocabulary)), dtype=bool)
    if not sense_word:
        return out
    # cards each candidate word may be true of, in any sense (hypernym or hyponym)
    maybe: dict[int, int] = {}
    for v in set(sense_word):
        senses = all_senses(vocabulary.words[v], vocabulary.synsets[v])
        names = {x.name() for x in senses}
        bits = unknown
        for i, (synset, closure) in enumerate(zip(synsets, closures, strict=True)):
            if synset is None:
                continue
            if names & closure or any(synset in hypernym_closure(x) for x in senses):
                bits |= 1 << i
        maybe[v] = bits
    words = np.asarray(sense_word, dtype=np.intp)
    cover = np.asarray(sense_cover, dtype=np.int64)
    may = np.asarray([maybe[v] for v in sense_word], dtype=np.int64)
    want = np.asarray([sum(1 << i for i in three) for three, _ in options], dtype=np.int64)
    avoid = np.asarray([sum(1 << i for i in two) for _, two in options], dtype=np.int64)
    ok = ((cover[None, :] & want[:, None]) == want[:, None]) & (
        (may[None, :] & avoid[:, None]) == 0
    )
    hits = np.zeros((len(vocabulary), len(options)), dtype=np.int32)
    np.add.at(hits, words, ok.T.astype(np.int32))
    return hits.T > 0


def less(word: str) -> str:
    """The rulebook's privative category ("Imperfect Guesses": "white-less", "person-less")
    of ``word`` as one hyphenated word: ``dog`` -> ``dog-less``, ``living thing`` ->
    ``living-thing-less``."""
    return "-".join(word.split()) + "-less"


def _options(pairs: Sequence[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """The (three rows, two rows) of every (pair, split) choice over ``table + hand`` rows,
    in the order of :meth:`KiekBot.plan_turn` (pair-major, then :data:`SPLITS`)."""
    out = []
    for a, b in pairs:
        rows = [0, 1, 2, 3 + a, 3 + b]
        for three, two in SPLITS:
            out.append(([rows[i] for i in three], [rows[i] for i in two]))
    return out


#: For perceptions other than ``labels`` (CLIP must embed every word it scores), the fallback
#: list is cut to one-word categories at least this common (Zipf), plus grounded qualities.
FALLBACK_MIN_ZIPF_OTHER = 4.0


def _fallback_for(perception: Any) -> Vocabulary:
    """The fallback categories a bot with this perception may write (see
    :data:`FALLBACK_MIN_ZIPF_OTHER`)."""
    fallback = load_fallback_vocabulary()
    if getattr(perception, "name", "") == "labels":
        return fallback
    keep = [
        group == "quality" or (" " not in word and zipf >= FALLBACK_MIN_ZIPF_OTHER)
        for word, group, zipf in zip(fallback.words, fallback.groups, fallback.zipf, strict=True)
    ]
    return fallback.subset(keep)


def _fallback_order(fallback: Vocabulary, possible: np.ndarray) -> list[int]:
    """Indices of the fallback words where ``possible`` (bool, (F,)) is true, in the order
    the bots try them: nouns (categories WordNet can check) before grounded qualities
    ("man-made"), then the commonest (Zipf), one-word names before compounds."""
    return sorted(
        np.flatnonzero(possible).tolist(),
        key=lambda j: (
            fallback.groups[j] == "quality",
            -float(fallback.zipf[j]),
            fallback.words[j].count(" "),
        ),
    )


def _softmax(values: np.ndarray, temperature: float) -> np.ndarray:
    z = values / max(temperature, 1e-9)
    z = z - z.max()
    p = np.exp(z)
    return p / p.sum()


def _sample(
    rng: np.random.Generator, values: np.ndarray, temperature: float
) -> int:
    """Index of the choice: argmax at temperature 0, else a softmax sample."""
    if temperature <= 0.0 or len(values) == 1:
        return int(np.argmax(values))
    return int(rng.choice(len(values), p=_softmax(values, temperature)))


# ---------------------------------------------------------------------------------------------
# The bot
# ---------------------------------------------------------------------------------------------


SPLITS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (three, tuple(i for i in range(5) if i not in three))
    for three in itertools.combinations(range(5), 3)
)


class KiekBot:
    """A computer player of Kiek implementing :class:`kiekai.kiek.players.KiekPlayer`.

    Args:
        name: shown in the score table and the log.
        perception: scores cards against words (``clip`` or ``labels``).
        judge: decides repeats (``judge.is_repeat(word, used) -> Verdict``).
        level: ``easy``, ``normal`` or ``hard`` (see :data:`LEVELS`).
        seed: seed of the bot's ``numpy.random.Generator`` (same seed, same game).
        vocabulary: candidate words (default :func:`kiekai.lexicon.load_vocabulary`); the
            level keeps those with Zipf frequency >= its ``min_zipf``.
        fallback: when no everyday word separates any split, write a broad or technical
            category (:func:`kiekai.lexicon.load_fallback_vocabulary`) that does, rather
            than an untrue word.

    Raises:
        ValueError: unknown level, or no vocabulary word is common enough for the level.
    """

    is_human = False

    def __init__(
        self,
        name: str,
        *,
        perception: Perception,
        judge: Any,
        level: str | Level = "normal",
        seed: int = 0,
        vocabulary: Vocabulary | Iterable[str] | None = None,
        fallback: bool = True,
    ) -> None:
        self.name = name
        self.perception = perception
        self.judge = judge
        self.level = parse_level(level)
        self.rng = np.random.default_rng(seed)
        full = as_vocabulary(vocabulary)
        full.specificity  # noqa: B018 - computed once per vocabulary; levels share slices
        self.vocabulary = full.common(self.level.min_zipf)
        if len(self.vocabulary) == 0:
            raise ValueError(
                f"no vocabulary word has a Zipf frequency >= {self.level.min_zipf} "
                f"for level {self.level.name!r}; give a larger vocabulary"
            )
        self._preference = word_preference(self.vocabulary)
        #: float64 (V,): this bot's seeded taste for each word (see :attr:`Level.taste`)
        self._taste = (
            self.rng.normal(0.0, self.level.taste, len(self.vocabulary))
            if self.level.taste > 0
            else np.zeros(len(self.vocabulary))
        )
        self.fallback = _fallback_for(perception) if fallback else None

    def __repr__(self) -> str:
        return f"KiekBot({self.name!r}, level={self.level.name!r})"

    # -- guesser ------------------------------------------------------------------------------

    def guess(self, view: GuessView) -> str:
        """Write the most likely secret word for the split (never a used word).

        At temperature > 0 the word is sampled from a softmax over the 5 best unused words.
        When no unused everyday word is true of the three and false of the two, the bot
        guesses what an active bot writes then: a fallback category or an ``X-less``.
        Returns ``""`` when every vocabulary word is used.
        """
        five = list(view.three) + list(view.two)
        words = self.vocabulary.words
        k = 5 if self.level.temperature > 0 else 1
        certain = certain_truth(self.perception, five, self.vocabulary, [([0, 1, 2], [3, 4])])
        if certain is not None:
            # the active bot writes a certainly true word when one exists (see play_turn)
            allowed = certain[0] & ~used_mask(words, view.used_words)
            allowed &= ~same_category_mask(self.vocabulary, view.used_words)
            if allowed.any():
                scores = guess_scores(self.perception, view.three, view.two, self.vocabulary)
                scores = scores + self._taste
                order = np.flatnonzero(allowed)[np.argsort(-scores[allowed], kind="stable")]
                chosen = _first_unused(order, words, view.used_words, self.judge, k)
                if chosen:
                    values = scores[chosen]
                    return words[chosen[_sample(self.rng, values, self.level.temperature)]]
            special = self._fallback_guess(view, certain=True)
            if special is not None:
                return special
        ranked = rank_guesses(
            self.perception,
            view.three,
            view.two,
            view.used_words,
            self.vocabulary,
            k=k,
            judge=self.judge,
        )
        if not ranked:
            return ""
        top = np.asarray(self.perception.scores(five, [ranked[0][0]]))[:, 0]
        if not ((top[:3] >= TRUE_AT).all() and (top[3:] < TRUE_AT).all()):
            # no everyday word separates the split: the active bot (modelled as a bot
            # like this one) has written a fallback category or an X-less category
            special = self._fallback_guess(view)
            if special is not None:
                return special
        values = np.asarray(
            [score + self._taste[self.vocabulary.index(word)] for word, score in ranked]
        )
        return ranked[_sample(self.rng, values, self.level.temperature)][0]

    def _fallback_guess(self, view: GuessView, *, certain: bool = False) -> str | None:
        """What the active bot writes when no everyday word fits (see :meth:`play_turn`):
        the first unused fallback category true of the three and false of the two, else the
        best ``X-less``; ``None`` when neither exists. With ``certain``, truth is
        :func:`certain_truth`, else the perception's scores."""
        five = list(view.three) + list(view.two)
        split = [([0, 1, 2], [3, 4])]
        if certain:
            if self.fallback is not None and len(self.fallback):
                ok = certain_truth(self.perception, five, self.fallback, split)[0]
                ok &= ~same_category_mask(self.fallback, view.used_words)
                for j in _fallback_order(self.fallback, ok):
                    if not is_used(self.fallback.words[j], view.used_words, self.judge):
                        return self.fallback.words[j]
            for vocab, ok in self._privatives(five, [([3, 4], [0, 1, 2])]):
                for j in ok[0]:
                    word = less(vocab.words[j])
                    if not is_used(word, view.used_words, self.judge):
                        return word
            if self.fallback is not None and len(self.fallback):
                ok = certain_truth(self.perception, five, self.fallback, split, grounded=True)[0]
                ok &= ~same_category_mask(self.fallback, view.used_words)
                for j in _fallback_order(self.fallback, ok):
                    if not is_used(self.fallback.words[j], view.used_words, self.judge):
                        return self.fallback.words[j]
            return None
        if self.fallback is not None and len(self.fallback):
            true = np.asarray(self.perception.scores(five, self.fallback.words)) >= TRUE_AT
            ok = true[:3].all(0) & ~true[3:].any(0)
            for j in _fallback_order(self.fallback, ok):
                if not is_used(self.fallback.words[j], view.used_words, self.judge):
                    return self.fallback.words[j]
        true = np.asarray(self.perception.scores(five, self.vocabulary.words)) >= TRUE_AT
        ok = true[3:].all(0) & ~true[:3].any(0)
        for j in np.flatnonzero(ok)[np.argsort(-self._preference[ok], kind="stable")]:
            word = f"{self.vocabulary.words[j]}-less"
            if " " not in word and not is_used(word, view.used_words, self.judge):
                return word
        return None

    def _privatives(
        self, cards: Sequence[Card], options: Sequence[tuple[Sequence[int], Sequence[int]]]
    ) -> list[tuple[Vocabulary, list[list[int]]]]:
        """Candidate X of certainly true ``X-less`` words (rulebook, "Imperfect Guesses").

        ``options`` are (group X must hold for, group X must not hold for) row lists (the
        two, then the three). Returns, per vocabulary tried in order (the everyday
        vocabulary, then the one-word fallback categories), for each option the positions of
        the X that :func:`certain_truth` confirms (a WordNet compound X is written with
        hyphens, :func:`less`), in the order the bot tries them
        (everyday: by guess preference; fallback: :func:`_fallback_order`)."""
        out: list[tuple[Vocabulary, list[list[int]]]] = []
        vocab = self.vocabulary
        found = certain_truth(self.perception, cards, vocab, options)
        if found is None:
            return out
        per: list[list[int]] = []
        for ok in found:
            idx = np.flatnonzero(ok)
            per.append(idx[np.argsort(-self._preference[idx], kind="stable")].tolist())
        out.append((vocab, per))
        if self.fallback is not None and len(self.fallback):
            fb = self.fallback
            found = certain_truth(self.perception, cards, fb, options)
            out.append((fb, [_fallback_order(fb, ok) for ok in found]))
        return out

    # -- active player ------------------------------------------------------------------------

    def plan_turn(
        self,
        table: Sequence[Card],
        hand: Sequence[Card],
        used_words: Sequence[str],
        *,
        with_fit: bool = False,
    ):
        """Score every (2 hand cards, 3-vs-2 split, word) choice.

        Returns:
            ``(pairs, values, truthful)``: the C(H, 2) hand-index pairs; float64 array
            (C(H, 2), 10, V) of the modelled probability that a guesser writes the word
            (softmax of :func:`guess_scores` over unused words at
            :data:`GUESSER_MODEL_TEMPERATURE`); bool array of the same shape, True where
            the word is true of the three and false of the two by this bot's perception.
            Splits index :data:`SPLITS` over the five cards ``table + pair``. With
            ``with_fit``, a fourth array of the same shape: :func:`split_log_fit` of each
            choice (log-probability that the word is true of the three, false of the two).

        Raises:
            ValueError: the table does not hold 3 cards or the hand fewer than 2.
        """
        if len(table) != 3 or len(hand) < 2:
            raise ValueError(
                f"the active player needs 3 cards on the table and at least 2 in hand, "
                f"got {len(table)} and {len(hand)}"
            )
        vocab = self.vocabulary
        cards = list(table) + list(hand)
        scores = np.asarray(self.perception.scores(cards, vocab.words), dtype=np.float64)
        pairs = list(itertools.combinations(range(len(hand)), 2))
        used = used_mask(vocab.words, used_words)
        s = np.clip(scores, EPS, 1.0 - EPS)
        log_true, log_false = np.log(s), np.log1p(-s)
        values = np.empty((len(pairs), len(SPLITS), len(vocab)), dtype=np.float64)
        truthful = np.empty(values.shape, dtype=bool)
        fit = np.empty(values.shape, dtype=np.float64)
        for p, (a, b) in enumerate(pairs):
            rows = [0, 1, 2, 3 + a, 3 + b]
            for q, (three, two) in enumerate(SPLITS):
                r3 = [rows[i] for i in three]
                r2 = [rows[i] for i in two]
                fit[p, q] = log_true[r3].sum(0) + log_false[r2].sum(0)
                score = fit[p, q] + self._preference
                score[used] = -np.inf
                values[p, q] = _softmax(score, GUESSER_MODEL_TEMPERATURE)
                truthful[p, q] = (scores[r3] >= TRUE_AT).all(0) & (scores[r2] < TRUE_AT).all(0)
        truthful &= ~used[None, None, :]
        if with_fit:
            return pairs, values, truthful, fit
        return pairs, values, truthful

    def play_turn(self, view: ActiveView) -> ActivePlay:
        """Choose 2 hand cards, the 3-vs-2 split and the word (rulebook, "A Turn").

        The choice maximises the modelled share of guessers who write the word
        (:meth:`plan_turn`), sampled at the level's temperature among the best 10 unused
        choices whose word is true of the three and false of the two. Repeats are checked
        with the judge. With a perception that names the cards' WordNet synsets (``labels``),
        only *certainly* true words (:func:`certain_truth`) are considered first, in this
        order: an everyday word; the commonest fallback category (``vertebrate``,
        ``covering``); ``X-less`` for an everyday X certainly true of both of the two and
        certainly false of the three (rulebook, "Imperfect Guesses": "person-less"), or for
        a fallback name X; a grounded quality true by its synset (``man-made``). Only
        when no option at all has such a word does the bot fall back on its perception's
        probable truth: an everyday word, a fallback category or grounded quality
        (``man-made``), an ``X-less``, and failing all, the unused word that fits a split
        best.
        """
        pairs, values, truthful, fit = self.plan_turn(
            view.table, view.hand, view.used_words, with_fit=True
        )
        words = self.vocabulary.words
        cards = list(view.table) + list(view.hand)
        options = _options(pairs)
        certain = certain_truth(self.perception, cards, self.vocabulary, options)
        if certain is not None:
            unused = ~used_mask(words, view.used_words)
            unused &= ~same_category_mask(self.vocabulary, view.used_words)
            certain = certain.reshape(values.shape) & unused[None, None, :]
            candidates = self._best_unused(values, certain, view.used_words)
            if candidates:
                return self._choose(view, pairs, values, candidates)
            play = self._fallback_play(view, pairs, certain=True)
            if play is not None:
                return play
            play = self._privative_play(view, pairs, certain=True)
            if play is not None:
                return play
            play = self._fallback_play(view, pairs, certain=True, grounded=True)
            if play is not None:
                return play
        candidates = self._best_unused(values, truthful, view.used_words)
        if not candidates:
            fallback = self._fallback_play(view, pairs)
            if fallback is not None:
                return fallback
            privative = self._privative_play(view, pairs)
            if privative is not None:
                return privative
            # nothing truthful and unused at all: write the word that fits a split best
            flat_fit = fit.ravel()
            for f in np.argsort(-flat_fit, kind="stable")[:500]:
                if not is_used(words[f % len(words)], view.used_words, self.judge):
                    candidates = [int(f)]
                    break
            else:
                candidates = [int(np.argmax(flat_fit))]
        return self._choose(view, pairs, values, candidates)

    def _best_unused(
        self, values: np.ndarray, allowed: np.ndarray, used_words: Sequence[str], k: int = 10
    ) -> list[int]:
        """Flat indices of the (at most ``k``) highest ``values`` where ``allowed`` (bool, same
        shape as ``values``) whose word the judge does not find used; best first."""
        words = self.vocabulary.words
        flat_values = np.where(allowed, values, -1.0).ravel()
        count = int(allowed.sum())
        if count == 0:
            return []
        order = np.argsort(-flat_values, kind="stable")[: min(count, 400)]
        candidates: list[int] = []
        for flat in order:
            if not is_used(words[flat % len(words)], used_words, self.judge):
                candidates.append(int(flat))
                if len(candidates) >= k:
                    break
        return candidates

    def _choose(
        self, view: ActiveView, pairs: list[tuple[int, int]], values: np.ndarray, candidates: list[int]
    ) -> ActivePlay:
        """Sample one of the flat ``candidates`` by log ``values`` at the level's temperature."""
        scores = np.log(np.maximum(values.ravel()[candidates], 1e-300))
        scores = scores + self._taste[np.asarray(candidates) % values.shape[2]]
        flat = candidates[_sample(self.rng, scores, self.level.temperature)]
        p, q, j = np.unravel_index(flat, values.shape)
        return self._play(view, pairs[p], int(q), self.vocabulary.words[j])

    def _fallback_play(
        self,
        view: ActiveView,
        pairs: list[tuple[int, int]],
        *,
        certain: bool = False,
        grounded: bool = False,
    ) -> ActivePlay | None:
        """When no everyday word separates any split: the commonest unused fallback category
        (:func:`kiekai.lexicon.load_fallback_vocabulary`) true of a three and false of its
        two, or ``None`` when there is none. With ``certain``, truth is
        :func:`certain_truth` (WordNet on the cards' synsets; with ``grounded``, grounded
        qualities by their declared synset too); else the perception's scores
        (>= :data:`TRUE_AT` is true)."""
        fallback = self.fallback
        if fallback is None or len(fallback) == 0:
            return None
        cards = list(view.table) + list(view.hand)
        options = _options(pairs)
        if certain:
            found = certain_truth(self.perception, cards, fallback, options, grounded=grounded)
            if found is None:
                return None
            found &= ~same_category_mask(fallback, view.used_words)[None, :]
            ok = found.reshape(len(pairs), len(SPLITS), len(fallback))
        else:
            true = np.asarray(self.perception.scores(cards, fallback.words)) >= TRUE_AT
            ok = np.stack([true[three].all(0) & ~true[two].any(0) for three, two in options])
            ok = ok.reshape(len(pairs), len(SPLITS), len(fallback))
        for j in _fallback_order(fallback, ok.any(axis=(0, 1))):
            word = fallback.words[j]
            if is_used(word, view.used_words, self.judge):
                continue
            p, q = (int(x) for x in np.argwhere(ok[:, :, j])[0])
            return self._play(view, pairs[p], q, word)
        return None

    def _privative_play(
        self, view: ActiveView, pairs: list[tuple[int, int]], *, certain: bool = False
    ) -> ActivePlay | None:
        """The rulebook's "person-less" categories ("Imperfect Guesses"): ``X-less`` for the
        most preferred everyday word X true of both cards of the two and of none of the three
        (so ``X-less`` is true of the three and not of the two), ``X-less`` not used.
        ``None`` when no split has such an X. With ``certain``, truth is
        :func:`certain_truth` (X certainly true of the two, certainly false of the three)."""
        vocab = self.vocabulary
        cards = list(view.table) + list(view.hand)
        options = _options(pairs)
        if certain:
            for source, per in self._privatives(cards, [(two, three) for three, two in options]):
                # each X once, in the source's order (per option lists keep that order),
                # with the first option where it holds
                first: dict[int, int] = {}
                rank: dict[int, int] = {}
                for o, order in enumerate(per):
                    for r, j in enumerate(order):
                        first.setdefault(j, o)
                        rank[j] = min(rank.get(j, r), r)
                if source is self.vocabulary:
                    xs = sorted(first, key=lambda j: (-self._preference[j], j))
                else:
                    xs = _fallback_order(source, np.isin(np.arange(len(source)), list(first)))
                for j in xs:
                    word = less(source.words[j])
                    if is_used(word, view.used_words, self.judge):
                        continue
                    p, q = divmod(first[j], len(SPLITS))
                    return self._play(view, pairs[p], q, word)
            return None
        true = np.asarray(self.perception.scores(cards, vocab.words)) >= TRUE_AT
        ok_all = np.stack([true[two].all(0) & ~true[three].any(0) for three, two in options])
        best: tuple[float, int, int] | None = None
        for o in range(len(options)):
            ok = ok_all[o]
            for j in np.flatnonzero(ok)[np.argsort(-self._preference[ok], kind="stable")]:
                if best is not None and self._preference[j] <= best[0]:
                    break
                word = f"{vocab.words[j]}-less"
                if " " in word or is_used(word, view.used_words, self.judge):
                    continue
                best = (float(self._preference[j]), o, int(j))
                break
        if best is None:
            return None
        _, o, j = best
        p, q = divmod(o, len(SPLITS))
        return self._play(view, pairs[p], q, f"{vocab.words[j]}-less")

    def _play(self, view: ActiveView, pair: tuple[int, int], split: int, word: str) -> ActivePlay:
        a, b = pair
        five = list(view.table) + [view.hand[a], view.hand[b]]
        three, two = SPLITS[split]
        return ActivePlay(
            played=(view.hand[a].id, view.hand[b].id),
            three=tuple(five[i].id for i in three),  # type: ignore[arg-type]
            two=tuple(five[i].id for i in two),  # type: ignore[arg-type]
            word=word,
        )

    # -- ne bis in idem -----------------------------------------------------------------------

    def call_repeat(self, view: RevealView) -> bool:
        """Say "ne bis in idem" when the judge finds that a word another player wrote this
        turn repeats a used word (rulebook, "Ne Bis in Idem"). The bot never calls its own."""
        if not view.used_words:
            return False
        for seat, word in sorted(view.words.items()):
            if seat == view.seat or not word or not word.strip():
                continue
            if is_used(word, view.used_words, self.judge):
                return True
        return False

    # -- card keeper --------------------------------------------------------------------------

    def keep_card(self, view: KeepView) -> str:
        """Choose the card that stays on the table (rulebook, "The Next Turn").

        The bot keeps the card that leaves the next active player the most distinguishable
        options: each available card is valued by the number of unused everyday words true
        of it (its categories still in play), plus twice the number of those also true of
        every card already kept (categories a three could share). When this bot is itself
        the next active player, a category counts twice only if it is also true of at least
        two of its hand cards, so it keeps what it can use. A card whose categories are all
        used up is worth little, so the table changes as words go out of play. Ties are
        broken by the seeded generator.

        Raises:
            ValueError: ``view.cards`` is empty.
        """
        if not view.cards:
            raise ValueError("no card left to keep")
        if len(view.cards) == 1:
            return view.cards[0].id
        vocab = self.vocabulary
        own_turn = view.seat == view.new_active_seat
        cards = list(view.cards) + list(view.kept) + (list(view.hand) if own_turn else [])
        true = np.asarray(self.perception.scores(cards, vocab.words), dtype=np.float64) >= TRUE_AT
        n = len(view.cards)
        unused = ~np.asarray([is_used(w, view.used_words) for w in vocab.words], dtype=bool)
        shared = true[n : n + len(view.kept)].all(0) if view.kept else np.zeros(len(vocab), bool)
        if own_turn and view.hand:
            shared = true[n + len(view.kept) :].sum(0) >= 2
            if view.kept:
                shared &= true[n : n + len(view.kept)].all(0)
        value = np.empty(n)
        for i in range(n):
            mine = true[i] & unused
            value[i] = mine.sum() + 2.0 * (mine & shared).sum()
        key = value + self.rng.random(n) * 1e-3
        return view.cards[int(np.argmax(key))].id
