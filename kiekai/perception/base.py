"""The perception interface: how well does each candidate word describe each card?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from kiekai.deck import Card


@runtime_checkable
class Perception(Protocol):
    """A backend that scores cards against words.

    Players use :meth:`scores` only. :meth:`knows` lets perceptions be combined
    (:class:`kiekai.perception.compose.CompositePerception` takes each word from the first part
    that knows it); :meth:`prepare` lets :func:`kiekai.perception.load_perception` read every
    card once up front (with a progress bar) and leave out the ones a backend cannot see.

    Attributes:
        name: ``"clip"``, ``"labels"``, ``"classifier"``, ``"colour"``, or a composite's
            parts joined by ``+`` (``"classifier+colour"``).
    """

    name: str

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (N, V): entry [i, j] in [0, 1] says how well
        ``words[j]`` describes ``cards[i]`` (calibrated so that 0.5 is "undecided"; a word the
        backend does not know scores 0.5).
        """
        ...

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """Return a bool array of shape (V,): True where this backend can tell whether the
        word describes a card (False: its scores for the word are 0.5, undecided)."""
        ...

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Read every card now (decode, embed, cache) and return ``(card, reason)`` for each
        card this backend cannot score, in input order (the caller leaves those out)."""
        ...
