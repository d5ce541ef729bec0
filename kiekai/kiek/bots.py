"""Kiek bots: players with minds of their own who write the words people write.

This module holds the bot, :class:`KiekBot`; its parts live by job: the tuning numbers in
:mod:`kiekai.kiek.bot_tuning`, the candidate words and their prior in
:mod:`kiekai.kiek.candidates`, personas in :mod:`kiekai.kiek.persona`, truth on a split
(and WordNet on labelled cards) in :mod:`kiekai.kiek.truth`, the judge's answers about words
(one word, ne bis in idem), remembered per bot, in :mod:`kiekai.kiek.repeats`, and the plain
guesser of the evaluation in :mod:`kiekai.kiek.guessing`. Their public names are importable
from here too.

Everything a bot knows about a photo comes from a :class:`~kiekai.perception.base.Perception`
(``scores(cards, words) -> float32 [N, V]`` in [0, 1], 0.5 = "can't tell"); everything it
knows about words being "the same" comes from the judge (``is_repeat``, and ``check_word`` for
"just one word"), asked through the bot's own :class:`~kiekai.kiek.repeats.JudgeMemo`.

**Words.** The candidates are the vocabulary plus ``X-less`` (rulebook, "Imperfect Guesses"),
each with a prior: how readily people write it (:mod:`kiekai.kiek.candidates`).

**Guessing**: the guesser scores each unused word it knows with the people-fitted listener
(:mod:`kiekai.kiek.listener`: a choice model fitted on what stand-in persons wrote for splits,
over its truth on the bot's own noisy view of the five cards, frequency, concreteness,
specificity, focal and basic-level words and kind; a score of 0.5 counts as "can't tell", never
as true), and takes the best or samples among its best at its level's temperature; never an
``X-less`` while another word is left (no stand-in person ever guessed one).

**Active player** (the pragmatic speaker of Goodman & Frank 2016, "Pragmatic language
interpretation as probabilistic inference"): for each choice of 2 hand cards and each of the 10
3-vs-2 splits, it models the guessers (the listener, mixed with the plain fit-plus-prior by its
level's theory of mind) and computes the probability that a guesser writes each word; it
writes a word it believes true of the three and false of the two (per-kind margins,
:data:`TRUE_MARGIN`), choosing by that probability. When the perception names the cards'
WordNet synsets (a deck's labels), a category word must be *certainly* true by WordNet
(:func:`certain_truth`) and no word may be false by WordNet in a sense a reader may take it in
(:func:`wordnet_verdicts`). Words blind raters found mostly false (size, texture, light,
settings: :data:`SPEAKER_AVOIDS`, :data:`SPEAKER_AVOIDS_KINDS`) and jargon come only when
nothing else true is left, after an ``X-less``; a colour only when the fitted colour model
sees it clearly on each of the three and on neither of the two.

**Minds of their own.** Each bot has a seeded :class:`Persona` (:mod:`kiekai.kiek.persona`):
the words it knows, its own perception noise and where it draws colour boundaries; never a
taste for kinds of words. The :class:`Level` sets how well a bot sees (noise), how well it models the others
(theory of mind), how many words it knows and how much it varies. Same seed, same persona,
same game. Keepers let a card go after :data:`MAX_TABLE_TURNS` turns on the table.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
from numpy.typing import NDArray

from kiekai.deck import Card
from kiekai.judge.protocol import JudgeLike
from kiekai.kiek.bot_tuning import (
    COLOUR_BOUNDARY_SD,
    CONCRETENESS_WEIGHT,
    DOUBT_MARGIN,
    EPS,
    FALLBACK_NAMING_COST,
    KIND_PRIOR,
    LEVELS,
    LISTENER_BETA,
    LISTENER_NULL,
    MAX_TABLE_TURNS,
    PRIVATIVE_MIN_ZIPF,
    RULED_OUT,
    SPEAKER_AVOIDS,
    SPEAKER_AVOIDS_KINDS,
    SPECIFICITY_WEIGHT,
    TABLE_AGE_DECAY,
    TRUE_MARGIN,
    UNDECIDED,
    UNGROUNDED_SPECIFICITY,
    UNKNOWN_BASE_RATE,
    WEAK_COST,
    WEAK_MARGIN,
    ZIPF_WEIGHT,
    Level,
    parse_level,
)
from kiekai.kiek.candidates import (
    Candidates,
    candidates_for,
    less,
    naming_words,
    word_prior,
    wordnet_checked,
)
from kiekai.kiek.guessing import baseline_guess, guess_scores, rank_guesses
from kiekai.kiek.listener import PeopleListener, WordTraits, family_of, load_listener
from kiekai.kiek.persona import Persona, make_persona, perceive
from kiekai.kiek.players import (
    ActivePlay,
    ActiveView,
    GuessView,
    KeepView,
    RevealView,
)
from kiekai.kiek.repeats import JudgeMemo, is_used, may_write, same_category_mask, used_mask
from kiekai.kiek.truth import (
    believed_true,
    certain_truth,
    likelihood_scores,
    ruled_out,
    split_log_fit,
    wordnet_masks,
    wordnet_penalty,
    wordnet_verdicts,
)
from kiekai.lexicon import Vocabulary, as_vocabulary

if TYPE_CHECKING:
    from kiekai.perception.base import Perception

__all__ = [
    "COLOUR_BOUNDARY_SD",
    "CONCRETENESS_WEIGHT",
    "DOUBT_MARGIN",
    "EPS",
    "FALLBACK_NAMING_COST",
    "KIND_PRIOR",
    "LEVELS",
    "LISTENER_BETA",
    "LISTENER_NULL",
    "MAX_TABLE_TURNS",
    "PRIVATIVE_MIN_ZIPF",
    "RULED_OUT",
    "SPECIFICITY_WEIGHT",
    "SPEAKER_AVOIDS",
    "SPEAKER_AVOIDS_KINDS",
    "SPLITS",
    "TABLE_AGE_DECAY",
    "TRUE_MARGIN",
    "UNDECIDED",
    "UNGROUNDED_SPECIFICITY",
    "UNKNOWN_BASE_RATE",
    "WEAK_COST",
    "WEAK_MARGIN",
    "ZIPF_WEIGHT",
    "Candidates",
    "JudgeMemo",
    "KiekBot",
    "Level",
    "Persona",
    "baseline_guess",
    "believed_true",
    "candidates_for",
    "certain_truth",
    "guess_scores",
    "is_used",
    "less",
    "likelihood_scores",
    "make_persona",
    "may_write",
    "parse_level",
    "perceive",
    "rank_guesses",
    "same_category_mask",
    "split_log_fit",
    "used_mask",
    "word_prior",
    "wordnet_checked",
    "wordnet_verdicts",
]

#: :meth:`KiekBot.plan_turn`'s answer: the hand-index pairs, then the listener's log
#: probabilities (float64), the writable words (bool) and the fit (float64), each
#: (C(H, 2), 10, W).
_Plan = tuple[list[tuple[int, int]], NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]
#: :meth:`KiekBot.plan_turn`'s answer ``with_penalty``: :data:`_Plan`, then the WordNet
#: penalty and the truth margin (float64, the same shape).
_PenaltyPlan = tuple[
    list[tuple[int, int]],
    NDArray[np.float64],
    NDArray[np.bool_],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
]


def _options(pairs: Sequence[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """The (three rows, two rows) of every (pair, split) choice over ``table + hand`` rows,
    pair-major, then :data:`SPLITS`."""
    out = []
    for a, b in pairs:
        rows = [0, 1, 2, 3 + a, 3 + b]
        for three, two in SPLITS:
            out.append(([rows[i] for i in three], [rows[i] for i in two]))
    return out


def _log_softmax(values: np.ndarray, beta: float, null: float) -> np.ndarray:
    """log softmax over the last axis of ``beta * values`` with one more, constant option
    ``beta * null`` (the listener's "something else")."""
    z = values * beta
    top = np.maximum(np.max(z, axis=-1, keepdims=True), beta * null)
    total = np.exp(z - top).sum(axis=-1, keepdims=True) + np.exp(beta * null - top)
    out: NDArray[np.float64] = z - top - np.log(total)
    return out


def _softmax(values: np.ndarray, temperature: float) -> np.ndarray:
    z = values / max(temperature, 1e-9)
    z = z - z.max()
    p = np.exp(z)
    out: NDArray[np.float64] = p / p.sum()
    return out


def _sample(rng: np.random.Generator, values: np.ndarray, temperature: float) -> int:
    """Index of the choice: argmax at temperature 0, else a softmax sample."""
    if temperature <= 0.0 or len(values) == 1:
        return int(np.argmax(values))
    return int(rng.choice(len(values), p=_softmax(values, temperature)))


SPLITS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (three, tuple(i for i in range(5) if i not in three))
    for three in itertools.combinations(range(5), 3)
)


class KiekBot:
    """A computer player of Kiek implementing :class:`kiekai.kiek.players.KiekPlayer`.

    Args:
        name: shown in the score table and the log.
        perception: scores cards against words.
        judge: decides one-word checks and repeats (``check_word``, ``is_repeat``), asked
            through the bot's :class:`~kiekai.kiek.repeats.JudgeMemo`; ``None``: every word is
            one word and only a word written the same way as a used one is a repeat.
        level: ``easy``, ``normal`` or ``hard`` (see :data:`LEVELS`).
        seed: seeds the bot's persona and choices (same seed, same game).
        vocabulary: candidate words (default :func:`kiekai.lexicon.load_vocabulary`).
        listener: the people-fitted listener (default: ``data/listener.json``'s weights for
            the perception's family, :func:`kiekai.kiek.listener.family_of`).
        memo: where the judge's answers are remembered (:class:`~kiekai.kiek.repeats.JudgeMemo`
            of the same ``judge``): a table passes one to all its bots, so that a question one
            bot asked is not asked again for another; default a new one for this bot.

    Attributes:
        persona: the bot's :class:`Persona`.
        candidates: the words it may write (:class:`Candidates`).
        memo: the judge's answers to its questions (:class:`~kiekai.kiek.repeats.JudgeMemo`).

    Raises:
        ValueError: unknown level, the persona knows no word, or ``memo`` remembers the
            answers of another judge.
        kiekai.kiek.listener.ListenerError: the listener's weights file is missing or
            malformed (the message says how to rebuild it).
    """

    is_human = False

    def __init__(
        self,
        name: str,
        *,
        perception: Perception,
        judge: JudgeLike | None,
        level: str | Level = "normal",
        seed: int = 0,
        vocabulary: Vocabulary | Iterable[str] | None = None,
        listener: PeopleListener | None = None,
        memo: JudgeMemo | None = None,
    ) -> None:
        if memo is not None and memo.judge is not judge:
            raise ValueError(
                f"bot {name!r}: the memo given remembers the answers of another judge "
                f"({memo.judge!r}, not {judge!r}); pass JudgeMemo(judge) or no memo"
            )
        self.name = name
        self.perception = perception
        self.judge = judge
        #: the judge's answers to this bot's questions (one word? a repeat?), kept for its life
        self.memo = memo if memo is not None else JudgeMemo(judge)
        self.level = parse_level(level)
        self.rng = np.random.default_rng([seed, 104729])
        self.vocabulary = as_vocabulary(vocabulary)
        self.candidates = candidates_for(self.vocabulary)
        self.persona = make_persona(self.candidates, self.level, seed)
        if not self.persona.known.any():
            raise ValueError(f"bot {name!r} knows no word of the vocabulary; give a larger one")
        #: the people-fitted listener of its perception's family (how a person chooses a word)
        self.listener = listener if listener is not None else load_listener(family_of(perception))
        self._traits = WordTraits.of(self.candidates)
        #: float64 (W,): the population prior (ties, and the plain model of the guessers)
        self._own_prior = self.candidates.prior
        self._noise_rows: dict[bytes, np.ndarray] = {}
        #: bool (W,): words that name kinds of things (WordNet could check them on photos):
        #: categories, words grounded in one of their own noun senses (*wheels*), words with
        #: a misreading (*orange*)
        self._naming = naming_words(self.candidates)

    def __repr__(self) -> str:
        return f"KiekBot({self.name!r}, level={self.level.name!r})"

    # -- seeing -------------------------------------------------------------------------------

    def see(self, cards: Sequence[Card]) -> np.ndarray:
        """float64 (N, W): the candidates' scores for ``cards`` as this bot sees them
        (perception, then :func:`perceive` with its persona's noise)."""
        raw = np.asarray(self.perception.scores(list(cards), self.vocabulary.words))
        seen = perceive(raw, cards, self.persona, self._noise_rows)
        return self.candidates.scores(seen)

    def _unused(self, used_words: Sequence[str]) -> np.ndarray:
        unused: NDArray[np.bool_] = ~used_mask(self.candidates, used_words) & ~same_category_mask(
            self.candidates, used_words
        )
        return unused

    # -- guesser ------------------------------------------------------------------------------

    def guess(self, view: GuessView) -> str:
        """Write the word this bot thinks the active player wrote (never a used word).

        Each unused word the bot knows (and its perception can tell on at least one of the
        five cards) is scored on the bot's own noisy view as the active bot models a guesser
        (:meth:`plan_turn`): its level's ``theory_of_mind`` times the people-fitted listener's
        utility (:mod:`kiekai.kiek.listener`: how a person reads a split) plus the rest times
        the plain fit plus word prior (how true and how common the word is); with a deck's
        WordNet labels, words WordNet rules out score :data:`RULED_OUT`. The bot takes the
        best, or samples among its 5 best at its level's temperature. Returns ``""`` when it
        knows no unused word.
        """
        five = list(view.three) + list(view.two)
        seen = self.see(five)
        tom = self.level.theory_of_mind
        people = self.listener.utilities(seen, (0, 1, 2), (3, 4), self._traits)
        plain = split_log_fit(seen, (0, 1, 2), (3, 4)) + self._own_prior
        value = tom * people + (1.0 - tom) * plain
        value = (
            value
            + wordnet_penalty(self.perception, five, self.candidates, [([0, 1, 2], [3, 4])])[0]
        )
        allowed = self.persona.known & self._unused(view.used_words)
        # a word its perception cannot tell on any of the five is not a guess but a shot in
        # the dark: only when nothing else is left
        seen_any = (seen != UNDECIDED).any(axis=0)
        if (allowed & seen_any).any():
            allowed &= seen_any
        # nobody guesses an X-less: not one of the 744 words stand-in persons wrote as active
        # players or guessers (data/people-rounds), so only when no other word is left
        if (allowed & ~self.candidates.negated).any():
            allowed &= ~self.candidates.negated
        if not allowed.any():
            return ""
        order = np.flatnonzero(allowed)[np.argsort(-value[allowed], kind="stable")]
        chosen = self.memo.first_writable(order, self.candidates.words, view.used_words, 5)
        if not chosen:
            return ""
        pick = chosen[_sample(self.rng, value[chosen], self.level.temperature)]
        return self.candidates.words[pick]

    # -- active player ------------------------------------------------------------------------

    @overload
    def plan_turn(
        self,
        table: Sequence[Card],
        hand: Sequence[Card],
        used_words: Sequence[str],
        *,
        with_penalty: Literal[False] = False,
    ) -> _Plan: ...

    @overload
    def plan_turn(
        self,
        table: Sequence[Card],
        hand: Sequence[Card],
        used_words: Sequence[str],
        *,
        with_penalty: Literal[True],
    ) -> _PenaltyPlan: ...

    def plan_turn(
        self,
        table: Sequence[Card],
        hand: Sequence[Card],
        used_words: Sequence[str],
        *,
        with_penalty: bool = False,
    ) -> _Plan | _PenaltyPlan:
        """Score every (2 hand cards, 3-vs-2 split, word) choice.

        Returns:
            ``(pairs, listener, truthful, fit)``: the C(H, 2) hand-index pairs; float64 array
            (C(H, 2), 10, W) of the log-probability that a modelled guesser writes each word
            (a softmax over the unused words of the listener's prior plus the fit); bool
            array of the same shape, True where this bot may write the word: known, unused,
            believed true of the three and false of the two (:func:`believed_true`) and,
            with a deck's WordNet labels, certainly true (categories, ``X-less``) and not
            false by WordNet (any word); float64 array of the same shape: the fit
            (:func:`split_log_fit`). Splits index :data:`SPLITS` over ``table + pair``.
            With ``with_penalty``, two more arrays of the same shape: :data:`RULED_OUT` where
            WordNet on a deck's labels rules the word out, else 0; and the weakest link of
            the word's truth, ``min(min over the three of s - 0.5, min over the two of
            0.5 - s)`` on the bot's view (-inf where the perception cannot tell the word on
            any of the five).

        Raises:
            ValueError: the table does not hold 3 cards or the hand fewer than 2.
        """
        if len(table) != 3 or len(hand) < 2:
            raise ValueError(
                f"the active player needs 3 cards on the table and at least 2 in hand, "
                f"got {len(table)} and {len(hand)}"
            )
        cards = list(table) + list(hand)
        seen = self.see(cards)
        pairs = list(itertools.combinations(range(len(hand)), 2))
        options = _options(pairs)
        unused = self._unused(used_words)
        p = np.clip(likelihood_scores(seen), EPS, 1.0 - EPS)
        log_true, log_false = np.log(p), np.log1p(-p)
        kinds = self.candidates.kinds
        shape = (len(pairs), len(SPLITS), len(self.candidates))
        fit = np.empty((len(options), shape[2]))
        truthful = np.empty((len(options), shape[2]), dtype=bool)
        margin = np.empty((len(options), shape[2]))
        undecided = seen == UNDECIDED
        for o, (three, two) in enumerate(options):
            fit[o] = log_true[three].sum(0) + log_false[two].sum(0)
            truthful[o] = believed_true(seen, three, two, kinds)
            margin[o] = np.minimum((seen[three] - UNDECIDED).min(0), (UNDECIDED - seen[two]).min(0))
            # a word the perception cannot tell at all on these five is a blind guess
            margin[o][undecided[three + two].all(0)] = -np.inf
        tom = self.level.theory_of_mind
        people = np.stack(
            [self.listener.utilities(seen, three, two, self._traits) for three, two in options]
        )
        plain = fit + self._own_prior[None, :]
        listener = np.where(unused[None, :], tom * people + (1.0 - tom) * plain, -np.inf)
        # a word a reader may take in another sense that names photographable things is
        # written only when that sense can be checked (a deck's labels)
        misread = np.asarray([bool(self.vocabulary.misread[b]) for b in self.candidates.base])
        labelled = np.zeros(len(options), dtype=bool)
        ruled = np.zeros_like(fit)
        masks = wordnet_masks(self.perception, cards, self.candidates, options)
        if masks is not None:
            certain, verdict, labelled = masks
            checked = self.candidates.checked
            # on labelled cards WordNet decides categories; other words must not be false
            decided = labelled[:, None] & checked[None, :]
            truthful = np.where(decided, certain, truthful & ~(labelled[:, None] & (verdict < 0)))
            ruled[ruled_out(self.candidates, masks)] = RULED_OUT
            listener = listener + ruled
        truthful[~labelled] &= ~misread[None, :]
        listener = _log_softmax(listener, LISTENER_BETA, LISTENER_NULL)
        truthful &= (unused & self.persona.known)[None, :]
        out = (pairs, listener.reshape(shape), truthful.reshape(shape), fit.reshape(shape))
        if with_penalty:
            return (*out, ruled.reshape(shape), margin.reshape(shape))
        return out

    def play_turn(self, view: ActiveView) -> ActivePlay:
        """Choose 2 hand cards, the 3-vs-2 split and the word (rulebook, "A Turn").

        Among the choices whose word this bot may write (:meth:`plan_turn`), it scores each by
        the log-probability that a modelled guesser writes the word, and samples among the
        best 10 (judged unused by the judge) at its level's temperature. When no choice has such a word, it
        writes the unused word it knows whose truth is least in doubt (its weakest card
        scores nearest the right side of 0.5); a word its perception cannot tell at all on
        the five cards only as a last resort.
        """
        pairs, listener, truthful, fit, ruled, margin = self.plan_turn(
            view.table, view.hand, view.used_words, with_penalty=True
        )
        words = self.candidates.words
        w = len(words)
        utility = listener.copy()
        # a quality (not a colour: those must be clearly true) only *probably* true of each
        # card (margin WEAK_MARGIN) is preferred to an X-less, which the others rarely guess
        # (rulebook, "Imperfect Guesses"), but comes after the words it is sure of
        hue = np.asarray([k in ("colour", "light") for k in self.candidates.kinds])
        hedged = (
            ~self._naming[None, None, :]
            & ~hue[None, None, :]
            & ~self.candidates.negated[None, None, :]
            & (ruled == 0)
            & (self.persona.known & self._unused(view.used_words))[None, None, :]
        )
        weak = (margin >= WEAK_MARGIN) & hedged & ~truthful
        utility = np.where(weak, utility - WEAK_COST, utility)
        truthful = truthful | weak
        # a colour or quality in some doubt on one card (margin DOUBT_MARGIN: a little less
        # likely than not) still says something about the photos, and comes before X-less
        doubtful = (margin >= DOUBT_MARGIN) & hedged & ~truthful
        # X-less is the last resort (rulebook, "Imperfect Guesses": the others "may not guess
        # these categories as easily"): a positive word it may write, on any cards and split,
        # comes first, and the judge must find it unused (ne bis in idem)
        negated = self.candidates.negated[None, None, :]
        kinds = self.candidates.kinds
        avoided = np.asarray(
            [
                w in SPEAKER_AVOIDS or k in SPEAKER_AVOIDS_KINDS
                for w, k in zip(words, kinds, strict=True)
            ]
        )[None, None, :]
        tiers = (
            truthful & ~negated & ~avoided,
            doubtful & ~avoided,
            truthful & negated,
            truthful & ~negated & avoided,
        )
        candidates: list[int] = []
        values = np.zeros(0)
        for tier in tiers:
            flat = np.where(tier, utility, -np.inf).ravel()
            candidates = self._first_unused_plays(flat, view.used_words, 10)
            if candidates:
                values = flat[candidates]
                break
        if not candidates:
            # nothing it believes true: the unused word it knows whose weakest link is the
            # strongest (a word the perception cannot tell at all only when nothing else is
            # left), never one that WordNet on a deck's labels rules out when another is left
            # ("X-less" only when true: never as a guess)
            allowed = self.persona.known & self._unused(view.used_words) & ~self.candidates.negated
            blind = np.where(np.isfinite(margin), 0.0, -1e3)
            # unsure, it says something vague (a colour, a quality) rather than name a wrong kind
            naming = self._naming
            vague = np.where(naming, -FALLBACK_NAMING_COST, 0.0)[None, None, :]
            key = np.where(np.isfinite(margin), margin, 0.0) + blind + ruled + vague
            key = key + 1e-3 * self._own_prior[None, None, :]  # ties: the likelier word
            best = np.where(allowed[None, None, :], key, -np.inf).ravel()
            for f in np.argsort(-best, kind="stable")[:500]:
                if np.isfinite(best[f]) and self.memo.may_write(words[f % w], view.used_words):
                    candidates = [int(f)]
                    break
            else:
                candidates = [self._any_writable_play(best, view.used_words)]
            values = np.zeros(1)
        flat_choice = candidates[_sample(self.rng, values, self.level.temperature)]
        p, q, j = np.unravel_index(flat_choice, truthful.shape)
        return self._play(view, pairs[p], int(q), words[j])

    def _first_unused_plays(self, flat: np.ndarray, used_words: Sequence[str], k: int) -> list[int]:
        """Up to ``k`` indices of ``flat`` (plays x words, raveled), best value first, among the
        finite ones whose word the bot may write (:meth:`JudgeMemo.may_write`); at most 400 looked
        at."""
        count = int(np.isfinite(flat).sum())
        if not count:
            return []
        words = self.candidates.words
        w = len(words)
        out: list[int] = []
        for f in np.argsort(-flat, kind="stable")[: min(count, 400)]:
            if self.memo.may_write(words[f % w], used_words):
                out.append(int(f))
                if len(out) >= k:
                    break
        return out

    def _any_writable_play(self, best: np.ndarray, used_words: Sequence[str]) -> int:
        """The index of ``best`` (plays x words, raveled) with the highest value whose word
        :meth:`JudgeMemo.may_write` allows, any word of the candidates if none of ``best``'s finite
        ones is; when every word is used up, the best one the judge takes as one word (the
        table may call it a repeat; a word the judge refuses never reaches the engine, which
        would stop the game).

        Raises:
            ValueError: the judge takes none of the candidate words as one word (a
                vocabulary to fix).
        """
        words = self.candidates.words
        w = len(words)
        order = np.argsort(-np.where(np.isfinite(best), best, -1e9), kind="stable")
        for f in order:
            if self.memo.may_write(words[f % w], used_words):
                return int(f)
        for f in order:
            if self.memo.may_write(words[f % w], ()):
                return int(f)
        raise ValueError(f"bot {self.name!r}: the judge takes none of its words as one word")

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
            if self.memo.is_used(word, view.used_words):
                return True
        return False

    # -- card keeper --------------------------------------------------------------------------

    def keep_card(self, view: KeepView) -> str:
        """Choose the card that stays on the table (rulebook, "The Next Turn").

        The bot keeps the card that leaves the next active player the most distinguishable
        options: each available card is valued by the number of unused words the bot knows
        that it believes true of it, plus twice the number of those also true of every card
        already kept (words a three could share). When this bot is itself the next active
        player, a shared word counts twice only if it is also true of at least two of its hand
        cards, so it keeps what it can use. A table does not freeze on one photo: a card's
        value shrinks by :data:`TABLE_AGE_DECAY` for each turn it has already been on the
        table, and a card that has been on it :data:`MAX_TABLE_TURNS` turns running is kept
        only when nothing else is on offer. Ties are broken by the seeded generator.

        Raises:
            ValueError: ``view.cards`` is empty.
        """
        if not view.cards:
            raise ValueError("no card left to keep")
        if len(view.cards) == 1:
            return view.cards[0].id
        own_turn = view.seat == view.new_active_seat
        cards = list(view.cards) + list(view.kept) + (list(view.hand) if own_turn else [])
        margin = np.asarray([TRUE_MARGIN.get(k, 0.2) for k in self.candidates.kinds])
        true = self.see(cards) >= UNDECIDED + margin[None, :]
        n = len(view.cards)
        usable = self.persona.known & ~used_mask(self.candidates, view.used_words)
        shared = true[n : n + len(view.kept)].all(0) if view.kept else np.zeros(len(usable), bool)
        if own_turn and view.hand:
            shared = true[n + len(view.kept) :].sum(0) >= 2
            if view.kept:
                shared &= true[n : n + len(view.kept)].all(0)
        value = np.empty(n)
        for i in range(n):
            mine = true[i] & usable
            value[i] = mine.sum() + 2.0 * (mine & shared).sum()
        age = np.asarray(view.turns_on_table or (1,) * n, dtype=np.float64)
        value = value * TABLE_AGE_DECAY ** (age - 1.0)
        value = np.where(age >= MAX_TABLE_TURNS, value - 1e6, value)
        key = value + self.rng.random(n) * 1e-3
        return view.cards[int(np.argmax(key))].id
