"""The plain guesser: the population's listener, with no persona and no noise.

What the evaluation (:mod:`kiekai.eval.guesser`, :mod:`kiekai.eval.people`) compares people
and bots with: for a 3-vs-2 split (rulebook ``../shared/rules/kiek.txt``, "A Turn") each word
scores its fit (:func:`~kiekai.kiek.truth.split_log_fit`) plus its prior
(:func:`~kiekai.kiek.candidates.word_prior`), and :func:`baseline_guess` is the plain WordNet
baseline of docs/EVALUATION.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from kiekai.deck import Card
from kiekai.judge.protocol import JudgeLike
from kiekai.kiek.candidates import candidates_for, word_prior
from kiekai.kiek.repeats import JudgeMemo, used_mask
from kiekai.kiek.truth import split_log_fit, wordnet_penalty
from kiekai.lexicon import Vocabulary, as_vocabulary

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

    from kiekai.perception.base import Perception


def guess_scores(
    perception: Perception,
    three: Sequence[Card],
    two: Sequence[Card],
    vocabulary: Vocabulary | Iterable[str] | None = None,
) -> np.ndarray:
    """The plain guesser's score of every vocabulary word for a 3-vs-2 split (no persona).

    Returns:
        float64 array (V,) in log units: :func:`split_log_fit` + :func:`word_prior`.

    Raises:
        ValueError: ``three`` does not hold 3 cards or ``two`` does not hold 2.
    """
    if len(three) != 3 or len(two) != 2:
        raise ValueError(f"a Kiek split is 3 cards vs 2, got {len(three)} vs {len(two)}")
    vocab = as_vocabulary(vocabulary)
    scores = perception.scores(list(three) + list(two), vocab.words)
    value: NDArray[np.float64] = split_log_fit(scores, (0, 1, 2), (3, 4)) + word_prior(vocab)
    return value


def rank_guesses(
    perception: Perception,
    three: Sequence[Card],
    two: Sequence[Card],
    used_words: Sequence[str] = (),
    vocabulary: Vocabulary | Iterable[str] | None = None,
    k: int = 5,
    *,
    judge: JudgeLike | None = None,
) -> list[tuple[str, float]]:
    """The plain guesser's ``k`` best words for a split, best first, never a used word (the
    population's listener: no persona, no noise; with a perception that names the cards'
    synsets, category words must be certainly true, as the active bots write them).

    Returns:
        ``[(word, score), ...]`` with scores in log units, descending.

    Raises:
        ValueError: the split is not 3 vs 2.
    """
    if len(three) != 3 or len(two) != 2:
        raise ValueError(f"a Kiek split is 3 cards vs 2, got {len(three)} vs {len(two)}")
    vocab = as_vocabulary(vocabulary)
    cands = candidates_for(vocab)
    five = list(three) + list(two)
    scores = cands.scores(perception.scores(five, vocab.words))
    value = split_log_fit(scores, (0, 1, 2), (3, 4)) + cands.prior
    value += wordnet_penalty(perception, five, cands, [([0, 1, 2], [3, 4])])[0]
    value[used_mask(cands, used_words)] = -np.inf
    order = np.argsort(-value, kind="stable")
    chosen = JudgeMemo(judge).first_writable(order, cands.words, used_words, k)
    return [(cands.words[j], float(value[j])) for j in chosen]


def baseline_guess(three: Sequence[Card], two: Sequence[Card]) -> str | None:
    """The plain baseline: the word for the most specific WordNet ancestor shared by the
    three cards' synsets and by neither of the two (deepest by :func:`kiekai.lexicon.depth`,
    its first lemma with spaces). ``None`` when a card has no resolvable synset or no such
    ancestor exists. (The baseline guesser of docs/EVALUATION.md.)"""
    from kiekai.lexicon import depth, hypernym_closure, synset_for_label, synset_for_wnid

    def synset(card: Card) -> Synset | None:
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
    name: str = best.lemmas()[0].name()
    return name.replace("_", " ")
