"""Lazily loaded lexical resources for the judge, each loaded once per process.

- WordNet 3.0 (Miller 1995; Fellbaum 1998) through ``kiekai.models.wordnet()``.
- all-MiniLM-L6-v2 sentence embeddings (Reimers & Gurevych 2019; the 384-dim
  MiniLM-L6 model) through ``kiekai.models.sentence_model()``.
- Word frequencies from ``wordfreq`` (Zipf scale: log10 of frequency per billion
  words; 3.0 = once per million words).

Model resolution (which folder, which file) belongs to :mod:`kiekai.models`; this module
only caches what it returns and caches per-word results (embeddings, frequencies).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from functools import lru_cache

import numpy as np

#: Words are embedded inside this sentence, as CLIP prompts are (Radford et al. 2021).
#: Measured on SimLex-999 (Hill et al. 2015), which is kept out of fitting: Spearman
#: 0.55 with the template against 0.45 for the bare word (RG-65: 0.85 against 0.73).
EMBED_TEMPLATE = "a photo of {}."

_LOCK = threading.Lock()
#: Serialises encoding: torch's thread count is process-wide, so two threads changing it
#: at once could leave it at 1 for everyone.
_ENCODE_LOCK = threading.Lock()


def loaded() -> bool:
    """Whether WordNet and the sentence model are both loaded in this process already."""
    from kiekai import models

    return models.wordnet.cache_info().currsize > 0 and models.sentence_model.cache_info().currsize > 0


def wordnet():
    """The NLTK WordNet corpus reader (WordNet 3.0), loaded on first use.

    Raises:
        RuntimeError: WordNet cannot be found; the message says how to install it.
    """
    from kiekai import models

    with _LOCK:  # models.wordnet is lru_cached; the lock keeps two threads from loading it twice
        return models.wordnet()


def sentence_model():
    """The all-MiniLM-L6-v2 SentenceTransformer, loaded on first use (CPU).

    Raises:
        RuntimeError: from :func:`kiekai.models.sentence_model` when the weights are
            missing; its message names the package to install.
    """
    from kiekai import models

    with _LOCK:  # lru_cached in kiekai.models; the lock serialises the first load
        return models.sentence_model()


@contextmanager
def _one_torch_thread():
    """Run torch on one intra-op thread: one short word encodes ~20x faster than with a
    thread pool that competes with other processes on a small CPU (measured: 8 ms vs
    190 ms on 2 loaded cores). Restores the previous thread count."""
    import torch

    old = torch.get_num_threads()
    if old == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


#: Word -> unit embedding, filled by :func:`embedding` and :func:`prefetch_embeddings`.
#: A word keeps the first vector computed for it, so verdicts do not depend on whether
#: it was first seen alone or in a batch. Cleared when it reaches this many words.
MAX_CACHED_EMBEDDINGS = 200_000
_VECTORS: dict[str, np.ndarray] = {}


def embedding(word: str) -> np.ndarray:
    """Unit-length MiniLM embedding of ``word`` in :data:`EMBED_TEMPLATE`: float32 [384].

    Cached per word, so a word seen before costs a dictionary lookup.
    """
    vec = _VECTORS.get(word)
    if vec is not None:
        return vec
    model = sentence_model()
    with _ENCODE_LOCK, _one_torch_thread():
        raw = model.encode(
            [EMBED_TEMPLATE.format(word)],
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )[0]
    return _store(word, raw)


def _store(word: str, raw) -> np.ndarray:
    if len(_VECTORS) >= MAX_CACHED_EMBEDDINGS:
        _VECTORS.clear()
    vec = np.asarray(raw, dtype=np.float32)
    vec.setflags(write=False)
    return _VECTORS.setdefault(word, vec)


def prefetch_embeddings(words: list[str], batch_size: int = 256) -> None:
    """Embed the not-yet-cached ``words`` in batches into :func:`embedding`'s cache.

    A speed-up for batch judging and fitting.
    """
    todo = sorted({w for w in words if w and w not in _VECTORS})
    if not todo:
        return
    model = sentence_model()
    with _ENCODE_LOCK:
        vecs = model.encode(
            [EMBED_TEMPLATE.format(w) for w in todo],
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
    for w, v in zip(todo, vecs, strict=True):
        _store(w, v)


def cosine(a: str, b: str) -> float:
    """Cosine similarity (-1..1) of the MiniLM embeddings of two words.

    When neither word is cached both are encoded in one call (one forward pass of a
    batch of two costs about 60 % of two single passes on this CPU).
    """
    if a != b and a not in _VECTORS and b not in _VECTORS:
        model = sentence_model()
        with _ENCODE_LOCK, _one_torch_thread():
            raw = model.encode(
                [EMBED_TEMPLATE.format(a), EMBED_TEMPLATE.format(b)],
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        _store(a, raw[0])
        _store(b, raw[1])
    return float(np.dot(embedding(a), embedding(b)))


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in English from ``wordfreq`` (0 = unseen, ~7 = "the")."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))
