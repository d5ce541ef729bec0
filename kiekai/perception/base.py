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

    Attributes:
        name: ``"clip"`` or ``"labels"``.
    """

    name: str

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (N, V): entry [i, j] in [0, 1] says how well
        ``words[j]`` describes ``cards[i]`` (calibrated so that 0.5 is "undecided").
        """
        ...
