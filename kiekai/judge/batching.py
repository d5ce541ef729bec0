"""Judging many words at once: the sentence model encodes the words outside the judge's
tables in one batch first, then each pair is judged as alone.

One forward pass of the sentence model (all-MiniLM-L6-v2) over several words costs far
less than one pass per word, so a batch of pairs is faster when the words that are neither
in the embedding table nor encoded before in this process are encoded together first.
Verdicts are unchanged: the judge then finds those embeddings in its cache
(:func:`kiekai.judge.resources.prefetch_embeddings`, equal to one-word encodes within
float32 rounding). :meth:`kiekai.judge.Judge.match_many` and the HTTP API
(:mod:`kiekai.judge.server`) both encode through :func:`prefetch`; the API's functions
:func:`match_many` and :func:`is_repeat` take any :class:`~kiekai.judge.protocol.JudgeLike`
and ask it one pair at a time through the protocol's own methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kiekai.judge.protocol import JudgeLike
from kiekai.judge.verdict import Verdict


def _normalised(words: Iterable[object]) -> list[str]:
    """The non-empty normalised forms of the text items of ``words``, in order (items that
    are not text are left for the judge to reject with its own message)."""
    from kiekai.judge.normalize import normalise

    out = []
    for word in words:
        if isinstance(word, str):
            norm = normalise(word)
            if norm:
                out.append(norm)
    return out


def needs_encoder(words: Iterable[object]) -> bool:
    """Whether judging ``words`` may need the sentence model while it is not loaded:
    some word, normalised, is neither in the embedding table nor encoded before."""
    from kiekai.judge import resources

    if resources.encoder_loaded():
        return False
    return any(not resources.in_tables(norm) for norm in _normalised(words))


def words_to_encode(words: Iterable[object]) -> list[str]:
    """The distinct normalised ``words`` whose embedding is in no table and not encoded
    yet (each costs a sentence-model pass), in the order first met."""
    from kiekai.judge import resources

    return [norm for norm in dict.fromkeys(_normalised(words)) if not resources.in_tables(norm)]


def encode(words: Sequence[str], *, single_thread: bool = True) -> None:
    """Encode normalised ``words`` in one batch into the judge's embedding cache (those
    already known are skipped). ``single_thread`` runs torch on one thread, which is
    faster for a few words on a busy machine (see
    :func:`kiekai.judge.resources.prefetch_embeddings`).

    Raises:
        RuntimeError: the sentence model cannot be loaded.
    """
    from kiekai.judge import resources

    resources.prefetch_embeddings(words, single_thread=single_thread)


def load_encoder() -> None:
    """Load the sentence model and run one pass now (servers call it on a thread of its
    own, so that words in the tables go on being judged meanwhile).

    Raises:
        RuntimeError: the sentence model cannot be loaded.
    """
    from kiekai.judge import resources

    resources.warm_up_encoder()


def prefetch(words: Iterable[object], *, at_least: int = 1, single_thread: bool = False) -> None:
    """Encode in one batch the normalised text ``words`` outside the judge's tables, when
    there are at least ``at_least`` normalised words (speed only; verdicts unchanged)."""
    norms = _normalised(words)
    if norms and len(norms) >= at_least:
        encode(norms, single_thread=single_thread)


def match_many(judge: JudgeLike, pairs: Sequence[tuple[str, str]]) -> list[Verdict]:
    """``judge.match`` over ``(secret, guess)`` pairs, in order, after encoding in one
    batch (on one torch thread) the words outside the judge's tables.

    Raises:
        Whatever ``judge.match`` raises (``TypeError``, ``ValueError`` for bad input).
    """
    prefetch((w for pair in pairs for w in pair), single_thread=True)
    return [judge.match(secret, guess) for secret, guess in pairs]


def is_repeat(judge: JudgeLike, candidate: str, used: Sequence[str]) -> Verdict:
    """``judge.is_repeat(candidate, used)`` after encoding in one batch the words outside
    the judge's tables (as :func:`match_many`).

    Raises:
        Whatever ``judge.is_repeat`` raises (``TypeError`` for bad input).
    """
    prefetch([candidate, *used], single_thread=True)
    return judge.is_repeat(candidate, used)
