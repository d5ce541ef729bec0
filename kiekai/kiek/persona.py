"""A Kiek bot's own mind: the words it knows, how it sees, where it draws colour lines.

Each bot has a seeded :class:`Persona`: the words it knows (a sample of the candidates, likelier
for common words), its own perception noise (Gaussian, in logit units, fixed per card and word)
and where it draws colour boundaries (Lindsey & Brown 2014: people name colours differently);
never a taste for kinds of words. Same seed, same persona. The numbers are the
:class:`~kiekai.kiek.bot_tuning.Level`'s and :data:`~kiekai.kiek.bot_tuning.COLOUR_BOUNDARY_SD`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kiekai.deck import Card
from kiekai.kiek.bot_tuning import COLOUR_BOUNDARY_SD, EPS, UNDECIDED, Level
from kiekai.kiek.candidates import Candidates
from kiekai.kiek.listener import FOCAL_WORDS


@dataclass(frozen=True)
class Persona:
    """A bot's own mind, drawn once from its seed.

    Attributes:
        seed: the bot's seed (also keys its perception noise).
        known: bool array (W,): the candidate words this bot knows and writes.
        noise: its perception noise, standard deviation in logit units.
        boundary: float64 array (V,) over the vocabulary, or ``None`` (no offsets): where
            this bot draws the line of each colour and light word, as a shift in logit
            units added to every card's score of the word (:data:`COLOUR_BOUNDARY_SD`):
            one person's grey is another's brown.
    """

    seed: int
    known: np.ndarray
    noise: float
    boundary: np.ndarray | None = None


def make_persona(candidates: Candidates, level: Level, seed: int) -> Persona:
    """Draw a :class:`Persona` for a bot of ``level`` from ``seed`` (same seed, same persona).

    Every bot knows the focal words (:data:`kiekai.kiek.listener.FOCAL_WORDS`: *animals*,
    *outdoors*, *nature*; everyone at a table knows them, whatever their Zipf frequency says);
    any other word is known with probability ``logistic((zipf - knows_zipf) / 0.25)``
    (``X-less`` with its X), and the colour and light words' boundaries are Gaussian
    (:data:`COLOUR_BOUNDARY_SD`, the same at every level: naming colours is not a skill)."""
    rng = np.random.default_rng([seed, 7919])
    vocab = candidates.vocabulary
    zipf = vocab.zipf.astype(np.float64)[candidates.base]
    p_know = 1.0 / (1.0 + np.exp(-(zipf - level.knows_zipf) / 0.25))
    known = rng.random(len(candidates)) < p_know
    known |= np.asarray([w in FOCAL_WORDS for w in candidates.words])
    # privative words are known when their X is
    known[candidates.negated] = known[candidates.base[candidates.negated]]
    named_by_hue = np.asarray([k in ("colour", "light") for k in vocab.kinds])
    boundary = np.where(named_by_hue, rng.normal(0.0, COLOUR_BOUNDARY_SD, len(vocab)), 0.0)
    return Persona(seed=seed, known=known, noise=level.noise, boundary=boundary)


def _card_key(card: Card) -> bytes:
    return (card.sha256 or card.id).encode("utf-8", "surrogatepass")


def perceive(
    scores: np.ndarray,
    cards: Sequence[Card],
    persona: Persona,
    cache: dict[bytes, np.ndarray] | None = None,
) -> np.ndarray:
    """The scores as this persona sees them: ``sigmoid(logit(s) + noise * e + boundary)``
    with ``e`` standard normal, fixed per (persona seed, card, word column), and the
    persona's boundary shift of the word (colour and light words); 0.5 ("can't tell") stays
    0.5.

    Args:
        scores: float array (N, V) from the perception.
        cards: the N cards (their content hash, or id, keys the noise).
        persona: whose eyes.
        cache: optional dict card key -> noise row (V,), kept by the bot.

    Returns:
        float64 array (N, V) in (0, 1).
    """
    s = np.clip(np.asarray(scores, dtype=np.float64), EPS, 1.0 - EPS)
    shift = (
        persona.boundary
        if persona.boundary is not None and persona.boundary.shape[0] == s.shape[1]
        else None
    )
    if persona.noise <= 0 and shift is None:
        return s
    rows: list[np.ndarray] = []
    for card in cards:
        key = _card_key(card)
        row: np.ndarray | None = None if cache is None else cache.get(key)
        if row is None or row.shape[0] != s.shape[1]:
            digest = int.from_bytes(hashlib.sha256(key).digest()[:8], "little")
            draw = np.random.default_rng([persona.seed, digest]).standard_normal(int(s.shape[1]))
            row = np.asarray(draw, dtype=np.float64)
            if cache is not None:
                cache[key] = row
        rows.append(row)
    noise = np.stack(rows) * persona.noise if rows else np.zeros_like(s)
    if shift is not None:
        noise = noise + shift[None, :]
    seen = 1.0 / (1.0 + np.exp(-(np.log(s) - np.log1p(-s) + noise)))
    return np.where(np.asarray(scores) == UNDECIDED, UNDECIDED, seen)
