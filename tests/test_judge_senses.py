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
    assert [semcor_counts().get(lem.key(), 0) for lem in lemmas] == [lem.count() for lem in lemmas]
    assert semcor_counts()[wn.synset("dog.n.01").lemmas()[0].key()] > 0


def test_sense_weights_favour_the_common_sense() -> None:
    senses = sense_weights("dog")
    assert senses[0][0] == wordnet().synset("dog.n.01")
    probs = [p for _, p in senses]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0 + 1e-9


def test_semcor_counts_come_from_the_index_without_nltks_reader() -> None:
    """With the WordNet index (the default), the counts are read from the index's stored
    ``cntlist.rev``: NLTK's reader (seconds to load) is never opened. A fresh process,
    since other tests may have opened NLTK's reader in this one."""
    import os
    import subprocess
    import sys

    from kiekai.judge.resources import WORDNET_INDEX_ENV

    env = {k: v for k, v in os.environ.items() if k != WORDNET_INDEX_ENV}  # the default
    script = (
        "from kiekai import models\n"
        "from kiekai.judge import resources, wordnet_index\n"
        "from kiekai.judge.lexical import semcor_counts\n"
        "counts = semcor_counts()\n"
        "print(len(counts), type(resources.wordnet()).__name__,"
        " models.wordnet.cache_info().currsize, sum(resources.wordnet().fallbacks.values()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env=env,
    ).stdout.split()
    assert out == ["37387", "WordNetIndex", "0", "0"]
