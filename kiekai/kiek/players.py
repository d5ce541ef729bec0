"""The player protocol for Kiek: the decisions the engine asks of a seat.

Bots (:mod:`kiekai.kiek.bots`) and people (:mod:`kiekai.ui.kiek_terminal` in the terminal,
:mod:`kiekai.web` in the browser) implement the same protocol, :class:`KiekPlayer`; the
engine never knows which it has. People also implement :class:`HumanKiekPlayer` (being told
why an answer was refused, overruling the judge at the reveal). Each decision receives a *view*: the
public state of the table plus the player's own hand, never another player's hand.
Card references are :class:`kiekai.deck.Card` objects; answers name cards by ``Card.id``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

from kiekai.clock import Clock
from kiekai.deck import Card
from kiekai.judge.verdict import Verdict
from kiekai.kiek.rules import TURN_SECONDS

_V = TypeVar("_V")


@dataclass(frozen=True)
class TableRuling(Generic[_V]):
    """A ruling at the reveal as a front end reports it, with who made it.

    A person's :meth:`HumanKiekPlayer.overrule` (and :meth:`~HumanKiekPlayer.overrule_repeats`)
    may answer a word with a plain value (the ruling of that person) or with a
    ``TableRuling`` when the front end shares one set of rulings among several people (the
    browser table), so that the runner credits the person who made it, not the seat that
    happened to report it.

    Attributes:
        value: the ruling: ``True``/``False`` (a match or not) for a guess; the used word
            it repeats, or ``None`` (no repeat), after a ne bis in idem call.
        by: the seat of the person who made the ruling.
        agreed: the seats of the other people who agreed to it (see
            :func:`needs_agreement`).
    """

    value: _V
    by: int
    agreed: tuple[int, ...] = ()


def scored_by_guess_ruling(active: int, writers: Sequence[int], accepted: bool) -> frozenset[int]:
    """The seats a ruling on a guess can give points to this turn.

    Rulebook "A Turn": "Each match scores one point for both the guessing and the active
    player", so ruling a guess a match can score every seat that wrote it and the active
    player; ruling it no match scores nobody.
    """
    return frozenset((active, *writers)) if accepted else frozenset()


def scored_by_repeat_ruling(
    active: int, writers: Sequence[int], callers: Sequence[int], repeats: bool
) -> frozenset[int]:
    """The seats a ruling on ne bis in idem can give points to this turn.

    Rulebook "Ne Bis in Idem": a right call scores the caller, and "the player(s) who wrote
    down the repeated category cannot score points that turn". So ruling a word a repeat
    can score the callers; ruling it no repeat lets its writers score again, and with them
    the active player (a match scores both).
    """
    return frozenset(callers) if repeats else frozenset((active, *writers))


def needs_agreement(ruler: int, scored: frozenset[int], people: Sequence[int]) -> bool:
    """Whether a ruling by ``ruler`` needs another person's agreement (docs/rules.md,
    "Who rules"): it would score its ruler (``ruler in scored``) and another person
    (``people``: the seats played by people) is at the table to agree. Bots do not rule
    and are not asked to agree; a person alone with bots rules alone."""
    return ruler in scored and any(seat != ruler for seat in people)


class TimeUp(Exception):
    """Raised by a player whose time for a decision ran out (rulebook "A Turn": a turn may
    never take more than two minutes). The runner then records that nothing was written.
    """


class Hourglass:
    """The time a player has for one timed decision, started when the cards are on screen.

    Rulebook "A Turn": "First, turn the hourglass. A turn may never take more than two
    minutes." A person's hourglass is turned when the cards and the prompt are in front of
    them (:meth:`start`, called by the front end), not while the program is still getting
    ready; a player that never starts it (a bot) is timed from the moment it was asked.
    Thread-safe: a front end may start it from another thread.

    Args:
        clock: the time source (seconds).
        seconds: the time allowed (>= 0).
    """

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock = clock
        self.seconds = max(0.0, float(seconds))
        self.asked_at = clock.now()
        self.started_at: float | None = None
        self._lock = threading.Lock()

    def start(self, at: float | None = None) -> None:
        """Turn the hourglass now (or at clock time ``at``, no later than now); once only."""
        with self._lock:
            if self.started_at is None:
                now = self.clock.now()
                self.started_at = now if at is None else min(float(at), now)

    @property
    def started(self) -> bool:
        """Whether :meth:`start` was called."""
        return self.started_at is not None

    def elapsed(self) -> float:
        """Seconds since it was started (or, if never started, since the player was asked)."""
        start = self.started_at if self.started_at is not None else self.asked_at
        return max(0.0, self.clock.now() - start)

    def left(self) -> float:
        """Seconds left (``seconds`` until started; never negative)."""
        if self.started_at is None:
            return self.seconds
        return max(0.0, self.seconds - self.elapsed())

    def ran_out(self) -> bool:
        """True once more than ``seconds`` have passed (an answer now is too late)."""
        return self.elapsed() > self.seconds


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
        hourglass: the turn's clock, turned by a front end when the cards are on screen
            (``None`` outside a timed game).
    """

    seat: int
    turn: int
    stake: int
    table: tuple[Card, ...]
    hand: tuple[Card, ...]
    used_words: tuple[str, ...]
    time_limit: float = TURN_SECONDS
    hourglass: Hourglass | None = field(default=None, compare=False, repr=False)


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
        hourglass: the guesser's clock (``time_limit`` seconds), turned by a front end when
            the cards are on screen (``None`` outside a timed game).
    """

    seat: int
    turn: int
    stake: int
    active_seat: int
    three: tuple[Card, ...]
    two: tuple[Card, ...]
    used_words: tuple[str, ...]
    time_limit: float = TURN_SECONDS
    hourglass: Hourglass | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class WordVerdict:
    """One distinct word written this turn, who wrote it and the judge's verdict on it.

    A table rules a word once (docs/rules.md, reading 14): guessers who wrote the same word
    (the same after the judge's surface normalisation: case, diacritics, articles) share
    one verdict and one ruling.

    Attributes:
        word: the word as the first of its writers wrote it (seating order from the active
            player's left); answers name the word by this text.
        seats: the seats that wrote it, in that order.
        verdict: the judge's verdict (for a guess: does it match the secret; for ne bis in
            idem: does it repeat a used word, ``matched`` naming which).
        ruling: the table's ruling so far where it overruled the judge (for a guess: True =
            a match; for ne bis in idem: True = a repeat), else ``None``.
        used: for ne bis in idem: the used word the table's ruling says it repeats (or
            that the judge's repeat verdict named, when the table ruled it no repeat).
    """

    word: str
    seats: tuple[int, ...]
    verdict: Verdict
    ruling: bool | None = None
    used: str | None = None


@dataclass(frozen=True)
class RevealView:
    """The words read aloud at the end of a turn, for deciding a ne bis in idem call.

    Attributes:
        seat: the seat deciding whether to call.
        turn: 0-based turn number.
        words: seat -> word written this turn (the active player's secret included).
        active_seat: seat of the active player.
        used_words: words used in earlier turns (what a repeat repeats).
        verdicts: guesser seat -> the judge's verdict on its word (guessers who wrote one;
            empty when the active player wrote nothing).
        rulings: guesser seat -> the table's ruling so far, where it overruled the judge.
        guesses: the distinct guesses with their verdicts and rulings (what a person
            overrules: one ruling a word, whoever wrote it), in seating order.
    """

    seat: int
    turn: int
    words: dict[int, str]
    active_seat: int
    used_words: tuple[str, ...]
    verdicts: Mapping[int, Verdict] = field(default_factory=dict)
    rulings: Mapping[int, bool] = field(default_factory=dict)
    guesses: tuple[WordVerdict, ...] = ()


@dataclass(frozen=True)
class CallView:
    """Ne bis in idem was called: the judge's repeat verdict on each word of this turn,
    for the people at the table to overrule (rulebook "Ne Bis in Idem": the call is right
    "if all players agree that the category has already been used").

    Attributes:
        seat: the seat asked.
        turn: 0-based turn number.
        words: seat -> word written this turn (the active player's secret included).
        active_seat: seat of the active player.
        used_words: words used in earlier turns.
        callers: the seats that called, in seating order from the active player's left.
        repeats: every distinct word written this turn with the judge's repeat verdict
            (``verdict.accepted``: it repeats ``verdict.matched``) and the table's ruling.
    """

    seat: int
    turn: int
    words: dict[int, str]
    active_seat: int
    used_words: tuple[str, ...]
    callers: tuple[int, ...]
    repeats: tuple[WordVerdict, ...] = ()


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
        turns_on_table: for each of ``cards``, the turns running it has been among the five
            on the table, this one included (1 for a card just played from a hand); empty
            when the caller does not say.
    """

    seat: int
    new_active_seat: int
    cards: tuple[Card, ...]
    kept: tuple[Card, ...]
    hand: tuple[Card, ...]
    used_words: tuple[str, ...] = field(default_factory=tuple)
    turns_on_table: tuple[int, ...] = field(default_factory=tuple)


@runtime_checkable
class KiekPlayer(Protocol):
    """A seat at the table: a bot or a human.

    Attributes:
        name: shown in the score table and the log.
        is_human: True for people (the first human is the first active player).
    """

    # read-only properties, so that a wrapper may give them as properties

    @property
    def name(self) -> str: ...

    @property
    def is_human(self) -> bool: ...

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


@runtime_checkable
class HumanKiekPlayer(KiekPlayer, Protocol):
    """A seat played by a person (terminal or browser): the bot questions plus those of
    people only (being told things, overruling the judge).

    The runner asks people at once where the rulebook has players write at the same
    time (guesses, the reveal), each in its own thread, so a person's decisions may
    block until the person answers or their hourglass runs out.
    """

    def tell(self, message: str) -> None:
        """Show ``message`` to the person (e.g. why an answer was refused)."""
        ...

    def overrule(self, view: RevealView) -> Mapping[str, bool | TableRuling[bool]]:
        """At the reveal: the verdicts this person wants the table to overrule.

        Returns word -> the ruling (True = match) for each word of ``view.guesses`` (named
        by its ``word``) to overrule; empty to accept the judge's verdicts. A ruling holds
        for every guesser who wrote that word. A plain value is this person's ruling; a
        front end shared by several people answers :class:`TableRuling` values naming who
        made each ruling and who agreed. Not timed (the two minutes are over when the
        words are read aloud).
        """
        ...

    def stop(self, reason: str) -> None:
        """The game stopped (``reason``: Ctrl-C, the input ended, an error) while this
        person may still be asked something: end any question on screen and give the
        screen back (a terminal's prompt line finished, a page told why), so that the
        runner's last words are read. Returns promptly; called once, from the runner."""
        ...

    def overrule_repeats(
        self, view: CallView
    ) -> Mapping[str, str | None | TableRuling[str | None]]:
        """Ne bis in idem was called: the repeat verdicts this person wants overruled.

        Returns word -> the used word the table rules it repeats, or ``None`` where the
        table rules that it repeats no used word, for each word of ``view.repeats`` (named
        by its ``word``) to overrule; empty to accept the judge's verdicts. Plain values
        or :class:`TableRuling` values, as in :meth:`overrule`. Not timed.
        """
        ...


def card_ids(cards: Sequence[Card]) -> tuple[str, ...]:
    """The ids of ``cards`` in order."""
    return tuple(card.id for card in cards)
