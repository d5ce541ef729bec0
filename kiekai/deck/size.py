"""The deal rule check: does a deck hold enough photos for a game of Kiek?

The rulebook ("Preparations", /work/shared/rules/) deals four cards to each player and places
three face up, so a deck must hold at least ``4 * players + 3`` usable photos; the numbers
come from :mod:`kiekai.kiek.rules` (:func:`~kiekai.kiek.rules.cards_needed`).
"""

from __future__ import annotations

from collections.abc import Sequence

from kiekai.deck.model import Card, Deck, DeckError
from kiekai.kiek.rules import HAND_SIZE, TABLE_SIZE, cards_needed

__all__ = ["DeckTooSmallError", "cards_needed", "check_deck_size"]


class DeckTooSmallError(DeckError):
    """A deck has fewer usable photos than a game of Kiek deals (rulebook, "Preparations").

    Attributes:
        needed: cards the game deals (``4 * players + 3``).
        available: usable photos in the deck.
        players: number of players.
    """

    def __init__(self, needed: int, available: int, players: int) -> None:
        self.needed = needed
        self.available = available
        self.players = players
        super().__init__(
            f"needs {HAND_SIZE} cards a player + {TABLE_SIZE} = {needed} for "
            f"{players} player{'' if players == 1 else 's'}, this deck has {available} usable photos; add photos to the "
            f"deck folder or play with fewer players"
        )


def check_deck_size(deck_or_count: Deck | Sequence[Card] | int, players: int) -> int:
    """Check a deck holds enough usable photos to deal a game of Kiek; return the number needed.

    Args:
        deck_or_count: a :class:`Deck`, a sequence of cards, or a count of usable photos.
        players: number of players.

    Raises:
        DeckTooSmallError: fewer than ``4 * players + 3`` usable photos, e.g. "needs 4 cards a
            player + 3 = 19 for 4 players, this deck has 12 usable photos".
        ValueError: ``players`` is below 1.
    """
    available = deck_or_count if isinstance(deck_or_count, int) else len(deck_or_count)
    needed = cards_needed(players)
    if available < needed:
        raise DeckTooSmallError(needed, available, players)
    return needed
