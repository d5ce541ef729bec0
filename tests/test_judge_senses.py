"""Sense weights: the SemCor counts behind P(sense | word) (kiekai.judge.lexical)."""

from __future__ import annotations

import pytest

from kiekai.judge.lexical import semcor_counts, sense_weights
from kiekai.judge.resources import wordnet

pytestmark = pytest.mark.slow


def test_semcor_counts_equal_nltk_lemma_count() -> None:
    wn = wordnet()
    lemmas = [lem for s in list(wn.all_synsets("n"))[::500] for lem in s.lemmas()]
    assert lemmas
    assert [semcor_counts().get(lem.key(), 0) for lem in lemmas] == [
        lem.count() for lem in lemmas
    ]
    assert semcor_counts()[wn.synset("dog.n.01").lemmas()[0].key()] > 0


def test_sense_weights_favour_the_common_sense() -> None:
    senses = sense_weights("dog")
    assert senses[0][0] == wordnet().synset("dog.n.01")
    probs = [p for _, p in senses]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0 + 1e-9
