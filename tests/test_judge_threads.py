"""The judge from several threads at once: no errors, the same verdicts as one thread.

NLTK's WordNet reader shares open data files between callers; without
``kiekai.judge.lexical.WORDNET_LOCK`` two threads reading synsets at once got each
other's lines (``WordNetError: ... too many values to unpack``) on about one call in
ten (8 threads, 800 new pairs).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from kiekai.judge import Judge, features, lexical
from kiekai.judge.resources import wordnet

pytestmark = pytest.mark.slow


def _fresh_pairs(n: int) -> list[tuple[str, str]]:
    """``n`` pairs of single-word WordNet nouns this test session is unlikely to have met."""
    names = [w for w in wordnet().all_lemma_names("n") if w.isalpha() and len(w) > 5]
    picked = names[11::41][: 2 * n]
    return list(zip(picked[::2], picked[1::2], strict=True))


def test_threads_get_the_same_verdicts_as_one_thread() -> None:
    judge = Judge("lenient")
    pairs = _fresh_pairs(200)
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(lambda p: judge.match(*p), pairs))
    features.clear_caches()
    for cached in (lexical.sense_weights, lexical.wordnet_links, lexical.lemmas):
        cached.cache_clear()
    single = [judge.match(*p) for p in pairs]
    assert [(v.accepted, v.relation, v.score) for v in threaded] == [
        (v.accepted, v.relation, v.score) for v in single
    ]
