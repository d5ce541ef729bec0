"""The player protocol for Kiek: the decisions the engine asks of a seat.

Bots (:mod:`kiekai.kiek.bots`) and humans (:mod:`kiekai.ui.kiek_terminal`) implement the
same protocol; the engine never knows which it has. Each decision receives a *view*: the
public state of the table plus the player's own hand, never another player's hand.
Card references are :class:`kiekai.deck.Card` objects; answers name cards by ``Card.id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from kiekai.deck import Card


class TimeUp(Exception):
    """Raised by a player whose time for a decision ran out (rulebook "A Turn": a turn may
    never take more than two minutes). The runner then records that nothing was written.
    """


@dataclass(frozen=True)
class ActiveView:
    """What the active player sees at the start of the turn (rulebook, "A Turn").

    Attributes:
        seat: the active player's seat index.
        turn: 0-based turn number.
        stake: points per match this turn (1, 2 or 3; rulebook, "The Next Turn").
        table: the 3 face-up cards.
        hand: the active player's cards (at least 2).
        used_words: every word written so far in the game (ne bis in idem).
        time_limit: seconds for the whole turn (120 by the rulebook).
    """

    seat: int
    turn: int
    stake: int
    table: tuple[Card, ...]
    hand: tuple[Card, ...]
    used_words: tuple[str, ...]
    time_limit: float = 120.0


@dataclass(frozen=True)
class ActivePlay:
    """The active player's answer: 2 cards from hand, the 3-vs-2 split and the secret word.

    Attributes:
        played: ids of the 2 hand cards put on the table.
        three: ids of the group of three (the word is true of these).
        two: ids of the group of two (the word is not true of these).
        word: the one word written down.
    """

    played: tuple[str, str]
    three: tuple[str, str, str]
    two: tuple[str, str]
    word: str


@dataclass(frozen=True)
class GuessView:
    """What a guessing player sees: the split (both groups) and the words used so far.

    Attributes:
        seat: the guesser's seat index.
        turn: 0-based turn number.
        stake: points per match this turn.
        active_seat: seat of the active player.
        three: the group of three cards.
        two: the group of two cards.
        used_words: every word written in earlier turns.
        time_limit: seconds left for writing the guess.
    """

    seat: int
    turn: int
    stake: int
    active_seat: int
    three: tuple[Card, ...]
    two: tuple[Card, ...]
    used_words: tuple[str, ...]
    time_limit: float = 120.0


@dataclass(frozen=True)
class RevealView:
    """The words read aloud at the end of a turn, for deciding a ne bis in idem call.

    Attributes:
        seat: the seat deciding whether to call.
        turn: 0-based turn number.
        words: seat -> word written this turn (the active player's secret included).
        active_seat: seat of the active player.
        used_words: words used in earlier turns (what a repeat repeats).
    """

    seat: int
    turn: int
    words: dict[int, str]
    active_seat: int
    used_words: tuple[str, ...]


@dataclass(frozen=True)
class KeepView:
    """A chooser picks one card to stay on the table (rulebook, "The Next Turn").

    Attributes:
        seat: the chooser's seat.
        new_active_seat: the seat of the next active player.
        cards: the cards still available (5 minus those already chosen).
        kept: cards already chosen by earlier choosers this turn.
        hand: the chooser's own hand (a bot may keep cards that suit its hand).
        used_words: every word written so far.
    """

    seat: int
    new_active_seat: int
    cards: tuple[Card, ...]
    kept: tuple[Card, ...]
    hand: tuple[Card, ...]
    used_words: tuple[str, ...] = field(default_factory=tuple)


@runtime_checkable
class KiekPlayer(Protocol):
    """A seat at the table: a bot or a human.

    Attributes:
        name: shown in the score table and the log.
        is_human: True for people (the first human is the first active player).
    """

    name: str
    is_human: bool

    def play_turn(self, view: ActiveView) -> ActivePlay:
        """As active player: choose 2 cards, the split and the word."""
        ...

    def guess(self, view: GuessView) -> str:
        """As guesser: write one word (may be ``""`` when out of time)."""
        ...

    def call_repeat(self, view: RevealView) -> bool:
        """Say "ne bis in idem" this turn? (True = call.)"""
        ...

    def keep_card(self, view: KeepView) -> str:
        """Return the id of the card (from ``view.cards``) that stays on the table."""
        ...


def card_ids(cards: Sequence[Card]) -> tuple[str, ...]:
    """The ids of ``cards`` in order."""
    return tuple(card.id for card in cards)
