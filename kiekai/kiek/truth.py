"""What a Kiek bot believes true of a split, and what WordNet says of it on labelled cards.

A word is *believed true* of a 3-vs-2 split (rulebook ``../shared/rules/kiek.txt``, "A Turn":
the word "is shown by the group of three, but not by the group of two") when the bot's scores
clear its kind's margin (:data:`~kiekai.kiek.bot_tuning.TRUE_MARGIN`) on each of the three and
the two. When the perception names the cards' WordNet synsets (a deck's labels), a category
must be *certainly* true by WordNet (:func:`certain_truth`), and no word may be false by
WordNet in a sense a reader may take it in (:func:`wordnet_verdicts`): the check the held-out
evaluation runs (:mod:`kiekai.eval.quality`). Scores are in [0, 1], 0.5 = "can't tell".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from kiekai.deck import Card
from kiekai.kiek.bot_tuning import EPS, RULED_OUT, TRUE_MARGIN, UNDECIDED, UNKNOWN_BASE_RATE
from kiekai.kiek.candidates import Candidates
from kiekai.lexicon import Vocabulary


def likelihood_scores(scores: np.ndarray) -> np.ndarray:
    """float64 copy of ``scores`` with each "can't tell" (exactly 0.5) replaced by
    :data:`UNKNOWN_BASE_RATE`: what a score means as a probability in a likelihood."""
    s = np.asarray(scores, dtype=np.float64)
    return np.where(s == UNDECIDED, UNKNOWN_BASE_RATE, s)


def split_log_fit(scores: np.ndarray, three: Sequence[int], two: Sequence[int]) -> np.ndarray:
    """Log-probability that each word is true of every card in ``three`` and false of every
    card in ``two`` (cards independent; a "can't tell" score counts as
    :data:`UNKNOWN_BASE_RATE`, :func:`likelihood_scores`).

    Args:
        scores: float array (N, W) of scores in [0, 1].
        three: row indices of the group of three.
        two: row indices of the group of two.

    Returns:
        float64 array (W,), at most 0.
    """
    s = np.clip(likelihood_scores(scores), EPS, 1.0 - EPS)
    fit: NDArray[np.float64] = np.log(s[list(three)]).sum(axis=0) + np.log1p(-s[list(two)]).sum(
        axis=0
    )
    return fit


def believed_true(
    scores: np.ndarray, three: Sequence[int], two: Sequence[int], kinds: Sequence[str]
) -> np.ndarray:
    """bool (W,): the word is true of each of ``three`` (score >= 0.5 + margin of its kind,
    :data:`TRUE_MARGIN`) and false of each of ``two`` (<= 0.5 - margin)."""
    margin = np.asarray([TRUE_MARGIN.get(k, 0.2) for k in kinds])
    s = np.asarray(scores, dtype=np.float64)
    # bool (W,): scores is (cards, W), so each .all(0) is an array
    return cast(
        np.ndarray,
        (s[list(three)] >= UNDECIDED + margin).all(0) & (s[list(two)] <= UNDECIDED - margin).all(0),
    )


@functools.lru_cache(maxsize=4096)
def _noun_sense_names(word: str) -> tuple[str, ...]:
    """Names of every WordNet noun sense of ``word`` (a reader may take it in any)."""
    from kiekai.lexicon import wordnet_noun_senses

    return tuple(s.name() for s in wordnet_noun_senses(word))


def _card_closures(perception: Any, cards: Sequence[Card]) -> list[frozenset[str]] | None:
    """Per card, its synset and hypernyms (names), or an empty set for a card without one;
    ``None`` when the perception cannot name synsets (it has no ``card_synset``)."""
    from kiekai.lexicon import hypernym_closure

    synset_of = getattr(perception, "card_synset", None)
    if synset_of is None or len(cards) > 62:
        return None
    out = []
    for card in cards:
        synset = synset_of(card)
        out.append(
            frozenset(a.name() for a in hypernym_closure(synset))
            if synset is not None
            else frozenset()
        )
    return out


def wordnet_verdicts(
    perception: Any,
    cards: Sequence[Card],
    words: Sequence[str],
    options: Sequence[tuple[Sequence[int], Sequence[int]]],
) -> np.ndarray | None:
    """What a WordNet check of a split says of each word (the check the held-out evaluation
    runs, :mod:`kiekai.eval.quality`): per option and word, ``1`` true (one noun sense of the
    word is the synset or a hypernym of each of the three and no sense is of either of the
    two), ``-1`` false (some sense covers a card of the five, but not in that way), ``0`` not
    checkable (no sense covers any of the five, e.g. a colour; or a card has no synset).

    Returns:
        int8 array (O, len(words)), or ``None`` when the perception cannot name synsets.
    """
    closures = _card_closures(perception, cards)
    if closures is None:
        return None
    unknown = sum(1 << i for i, c in enumerate(closures) if not c)
    out = np.zeros((len(options), len(words)), dtype=np.int8)
    union = frozenset().union(*closures) if closures else frozenset()
    for v, word in enumerate(words):
        senses = [n for n in _noun_sense_names(word) if n in union]
        if not senses:
            continue
        bits = [sum(1 << i for i, c in enumerate(closures) if name in c) for name in senses]
        touched = 0
        for b in bits:
            touched |= b
        for o, (three, two) in enumerate(options):
            want = sum(1 << i for i in three)
            avoid = sum(1 << i for i in two)
            if (want | avoid) & unknown or not touched & (want | avoid):
                continue
            covers = any(b & want == want for b in bits)
            out[o, v] = 1 if covers and not touched & avoid else -1
    return out


def wordnet_masks(
    perception: Any,
    cards: Sequence[Card],
    candidates: Candidates,
    options: Sequence[tuple[Sequence[int], Sequence[int]]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(certain, verdict, labelled)`` for every candidate word and option when the
    perception names the cards' synsets (a deck's labels), else ``None``.

    ``labelled`` (bool (O,)): every card of the option has a synset (only then do the other
    two arrays speak); ``certain`` (bool (O, W)): :func:`certain_truth` for categories and
    their ``X-less`` (X certainly true of the two, false of the three), False for other kinds;
    ``verdict`` (int8 (O, W)): :func:`wordnet_verdicts`."""
    closures = _card_closures(perception, cards)
    if closures is None:
        return None
    has = [bool(c) for c in closures]
    labelled = np.asarray([all(has[i] for i in (*three, *two)) for three, two in options])
    if not labelled.any():
        return None
    vocab = candidates.vocabulary
    found = certain_truth(perception, cards, vocab, options)
    swapped = certain_truth(perception, cards, vocab, [(two, three) for three, two in options])
    if found is None or swapped is None:  # the perception names synsets: only beyond 62 cards
        raise ValueError(f"certain_truth takes at most 62 cards, not {len(cards)}")
    certain = np.zeros((len(options), len(candidates)), dtype=bool)
    is_cat = np.asarray([k == "category" for k in vocab.kinds])
    v = len(vocab)
    certain[:, :v] = found & is_cat[None, :]
    certain[:, v:] = swapped[:, candidates.base[v:]]
    verdict = wordnet_verdicts(perception, cards, candidates.words[:v], options)
    # X-less: what WordNet says of X with the groups swapped
    xs = wordnet_verdicts(
        perception,
        cards,
        [vocab.words[b] for b in candidates.base[v:]],
        [(two, three) for three, two in options],
    )
    return certain, np.concatenate([verdict, xs], axis=1), labelled


def ruled_out(
    candidates: Candidates, masks: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> np.ndarray:
    """bool (O, W): on a labelled option, a word WordNet decides
    (:attr:`~kiekai.kiek.candidates.Candidates.checked`) that it does not certainly confirm,
    or any word WordNet finds false. ``masks`` is :func:`wordnet_masks`' answer."""
    certain, verdict, labelled = masks
    checked = candidates.checked
    out: NDArray[np.bool_] = labelled[:, None] & (((~certain) & checked[None, :]) | (verdict < 0))
    return out


def wordnet_penalty(
    perception: Any,
    cards: Sequence[Card],
    candidates: Candidates,
    options: Sequence[tuple[Sequence[int], Sequence[int]]],
) -> np.ndarray:
    """float64 (O, W): :data:`RULED_OUT` where WordNet on the cards' labels rules a word out
    (:func:`ruled_out`), 0 elsewhere (and everywhere without labels)."""
    masks = wordnet_masks(perception, cards, candidates, options)
    out = np.zeros((len(options), len(candidates)))
    if masks is not None:
        out[ruled_out(candidates, masks)] = RULED_OUT
    return out


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
        card_bits = sum(1 << i for i, closure in enumerate(closures) if name in closure)
        for v in positions:
            if grounded or name in checkable_senses(vocabulary.words[v], vocabulary.synsets[v]):
                sense_word.append(v)
                sense_cover.append(card_bits)
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
