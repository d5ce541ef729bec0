"""The words a Kiek bot may write: the vocabulary, plus ``X-less`` for everyday categories.

The candidate words are the vocabulary (:mod:`kiekai.lexicon`): everyday categories, colours,
light, materials, settings and qualities, plus ``X-less`` (rulebook
``../shared/rules/kiek.txt``, "Imperfect Guesses": "person-less") for an everyday category X
(Zipf >= :data:`~kiekai.kiek.bot_tuning.PRIVATIVE_MIN_ZIPF`) whose closed form is not already
a word (no *fruit-less*: *fruitless*). How readily people write a word is its *prior*, in log
units (:func:`word_prior`)::

    ZIPF_WEIGHT * (zipf - 4.5) + CONCRETENESS_WEIGHT * (concreteness - 4)
      + KIND_PRIOR[kind] + SPECIFICITY_WEIGHT * specificity

with the weights of :mod:`kiekai.kiek.bot_tuning` (wordfreq Zipf frequency; Brysbaert et al.
2014 concreteness; the kind's base rate; WordNet intrinsic information content, Seco et al.
2004, as the *size principle* of Xu & Tenenbaum 2007: of two true words, the one true of fewer
things explains three examples better).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from kiekai.kiek import bot_tuning as tuning
from kiekai.lexicon import Vocabulary


def written_key(word: str) -> str:
    """``word`` as written, case and spacing aside: ``" Dog  House"`` -> ``"dog house"``
    (the judge's "same word" at every level, rulebook "Ne Bis in Idem")."""
    return " ".join(word.lower().split())


def less(word: str) -> str:
    """The rulebook's privative category ("Imperfect Guesses": "white-less", "person-less")
    of ``word`` as one hyphenated word: ``dog`` -> ``dog-less``."""
    return "-".join(word.split()) + "-less"


@dataclass(frozen=True)
class Candidates:
    """The words a bot may write: the vocabulary's words, then ``X-less`` for everyday
    categories X.

    Attributes:
        vocabulary: the V vocabulary words.
        words: the W >= V candidate words (vocabulary first).
        kinds: kind of each candidate (``privative`` for ``X-less``).
        base: int array (W,): the vocabulary row each candidate is scored from (itself, or X).
        negated: bool array (W,): True for ``X-less`` (its score is 1 - X's).
        prior: float64 array (W,): the population prior of each word (:func:`word_prior`).
    """

    vocabulary: Vocabulary
    words: tuple[str, ...]
    kinds: tuple[str, ...]
    base: np.ndarray
    negated: np.ndarray
    prior: np.ndarray

    def __len__(self) -> int:
        return len(self.words)

    def scores(self, vocabulary_scores: np.ndarray) -> np.ndarray:
        """float64 (N, W): the candidates' scores from the vocabulary's (N, V) scores
        (``X-less`` = 1 - X; an undecided 0.5 stays 0.5)."""
        s = np.asarray(vocabulary_scores, dtype=np.float64)[:, self.base]
        s[:, self.negated] = 1.0 - s[:, self.negated]
        return s

    @functools.cached_property
    def checked(self) -> np.ndarray:
        """bool (W,): candidates whose truth WordNet decides on labelled cards: categories all
        of whose declared senses are WordNet noun senses of the word
        (:func:`kiekai.lexicon.checkable_senses`; not *pet*, declared also as domestic animal,
        nor *sports* = sports equipment) and their ``X-less``. Computed once per object."""
        from kiekai.lexicon import checkable_senses

        vocab = self.vocabulary
        own = np.asarray(
            [
                kind == "category"
                and bool(names)
                and len(checkable_senses(word, names)) == len(names)
                for word, kind, names in zip(vocab.words, vocab.kinds, vocab.synsets, strict=True)
            ]
        )
        return cast(np.ndarray, own[self.base])

    @functools.cached_property
    def written_index(self) -> dict[str, tuple[int, ...]]:
        """:func:`written_key` -> the candidate indices written that way (usually one),
        computed once per object, so that a used word is found among the W candidates by
        one lookup."""
        index: dict[str, list[int]] = {}
        for j, word in enumerate(self.words):
            index.setdefault(written_key(word), []).append(j)
        return {key: tuple(rows) for key, rows in index.items()}

    @functools.cached_property
    def synset_index(self) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
        """Two maps from a synset name (``dog.n.01``) to candidate indices, computed once
        per object: the category candidates that declare it, and the ``X-less`` candidates
        whose X declares it."""
        categories: dict[str, list[int]] = {}
        privatives: dict[str, list[int]] = {}
        for j, (kind, row) in enumerate(zip(self.kinds, self.base, strict=True)):
            if kind == "category":
                target = categories
            elif self.negated[j]:
                target = privatives
            else:
                continue
            for name in self.vocabulary.synsets[int(row)]:
                target.setdefault(name, []).append(j)
        return (
            {name: tuple(rows) for name, rows in categories.items()},
            {name: tuple(rows) for name, rows in privatives.items()},
        )


def word_prior(vocabulary: Vocabulary) -> np.ndarray:
    """float64 array (V,): how readily people write each word, in log units (see the module
    docstring): Zipf, concreteness, the kind's base rate and, for categories, specificity."""
    zipf = vocabulary.zipf.astype(np.float64)
    concrete = np.nan_to_num(vocabulary.concreteness.astype(np.float64) - 4.0, nan=0.0)
    kind = np.asarray([tuning.KIND_PRIOR.get(k, -1.0) for k in vocabulary.kinds])
    grounded = np.asarray([bool(names) for names in vocabulary.synsets])
    specificity = np.where(
        grounded, vocabulary.specificity.astype(np.float64), tuning.UNGROUNDED_SPECIFICITY
    )
    prior: NDArray[np.float64] = (
        tuning.ZIPF_WEIGHT * (zipf - 4.5)
        + tuning.CONCRETENESS_WEIGHT * np.clip(concrete, -2.0, 1.0)
        + kind
        + tuning.SPECIFICITY_WEIGHT * specificity
    )
    return prior


def _closed_forms_are_words(closed: list[str]) -> list[bool]:
    """Whether each of ``closed`` (``fruitless``, ``homeless``) is already an English word,
    in WordNet or met in text (wordfreq Zipf >= 2): ``fruit-less`` would read as
    *fruitless* (unproductive), and a table (the judge's one-word check) takes it as that
    word split in two, not as a new formation like ``people-less``. The frequencies come
    from :func:`kiekai.lexicon.zipf_frequencies` (kept on disk: wordfreq's import and
    table cost about a second before a game's first prompt)."""
    from kiekai.judge.resources import wordnet
    from kiekai.lexicon import zipf_frequencies

    zipf = zipf_frequencies(closed)
    reader = wordnet()
    return [bool(reader.synsets(w)) or float(z) >= 2.0 for w, z in zip(closed, zipf, strict=True)]


def candidates_for(vocabulary: Vocabulary) -> Candidates:
    """The :class:`Candidates` of a vocabulary: its words, then ``X-less`` for each everyday
    category X (Zipf >= :data:`~kiekai.kiek.bot_tuning.PRIVATIVE_MIN_ZIPF`, one word) whose
    closed form is not already a word.

    Built anew on each call (a few milliseconds once WordNet and wordfreq have the words at
    hand); a bot builds its own once and keeps it.
    """
    prior = word_prior(vocabulary)
    everyday = [
        i
        for i, (word, kind) in enumerate(zip(vocabulary.words, vocabulary.kinds, strict=True))
        if kind == "category"
        and " " not in word
        and vocabulary.zipf[i] >= tuning.PRIVATIVE_MIN_ZIPF
        and less(word) not in vocabulary
    ]
    closed = _closed_forms_are_words([vocabulary.words[i] + "less" for i in everyday])
    xs = [i for i, is_word in zip(everyday, closed, strict=True) if not is_word]
    words = tuple(vocabulary.words) + tuple(less(vocabulary.words[i]) for i in xs)
    kinds = tuple(vocabulary.kinds) + ("privative",) * len(xs)
    base = np.concatenate([np.arange(len(vocabulary)), np.asarray(xs, dtype=np.intp)]).astype(
        np.intp
    )
    negated = np.zeros(len(words), dtype=bool)
    negated[len(vocabulary) :] = True
    full_prior = np.concatenate([prior, np.zeros(len(xs))])
    for j in range(len(vocabulary), len(words)):
        # X-less is the kind "privative": its X's frequency, not X's kind or specificity
        i = base[j]
        full_prior[j] = (
            tuning.ZIPF_WEIGHT * (float(vocabulary.zipf[i]) - 4.5) + tuning.KIND_PRIOR["privative"]
        )
    return Candidates(vocabulary, words, kinds, base, negated, full_prior)


def wordnet_checked(candidates: Candidates) -> np.ndarray:
    """bool (W,): :attr:`Candidates.checked` (the candidates whose truth WordNet decides on
    labelled cards)."""
    return candidates.checked


def naming_words(candidates: Candidates) -> np.ndarray:
    """bool (W,): the words that name kinds of things (WordNet could check them on photos):
    categories, words grounded in one of their own noun senses (*wheels*), words with a
    misreading (*orange*); never an ``X-less``."""
    from kiekai.lexicon import checkable_senses

    vocab = candidates.vocabulary
    own = np.asarray(
        [
            kind == "category" or bool(checkable_senses(word, names)) or bool(misread)
            for word, kind, names, misread in zip(
                vocab.words, vocab.kinds, vocab.synsets, vocab.misread, strict=True
            )
        ]
    )
    naming: NDArray[np.bool_] = own[candidates.base] & ~candidates.negated
    return naming
