"""Continuing a stopped Kiek game from its log (``kiekai play --resume LOG``).

A game stopped with Ctrl-C (or by the end of the input) keeps its log up to that moment
(:class:`kiekai.events.EventLog` flushes each event). To continue it, the game is played
again from its first turn with the same seed, deck and seats, and each seat answers from
the log as long as the log holds its answer (:class:`ResumedSeat`); after that the game goes
on live. The bots are asked every question of the game again, in the same order, and their
answers from the log are used: a bot's choices depend only on its seed and the views it was
shown, so each bot is back in the state it was in when the game stopped, and a bot-only game
stopped and resumed ends as the same seed played through does (tests/test_kiek_resume.py).

The turn the game was stopped in starts again from its beginning (a turn whose ``score``
is not in the log; its secret word may never have been written down): the bots play it as
they did, people play it again. Cards kept after a turn's score are taken from the log one
by one.

The resumed game is written to a new log, whole (the turns from the old log, then the rest):
:class:`ResumeCheck` compares every event it writes with the old log's and stops the game
at the first difference (another deck, another version of the bots or the engine).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from kiekai.events import (
    Event,
    KiekAborted,
    KiekCall,
    KiekGameOver,
    KiekGuess,
    KiekHeader,
    KiekKeep,
    KiekOverrule,
    KiekOverruleRepeat,
    KiekPlay,
    KiekReveal,
    KiekScore,
    KiekVerdict,
    LogProblem,
    read_numbered_log,
)
from kiekai.kiek.audit import PROSE_FIELDS, audit_kiek
from kiekai.kiek.players import (
    ActivePlay,
    ActiveView,
    CallView,
    GuessView,
    HumanKiekPlayer,
    KeepView,
    KiekPlayer,
    RevealView,
    TableRuling,
    TimeUp,
)
from kiekai.log_check import compare_events


class ResumeError(ValueError):
    """The log cannot be resumed; the message says why and what to do."""


@dataclass
class StoppedGame:
    """What a stopped game's log says each seat answered.

    Attributes:
        path: the log.
        header: its ``header`` event's data.
        events: the game's events after the header, up to where it stopped (the
            ``aborted`` line left out).
        done: turns whose ``score`` is in the log (their answers are replayed).
        plays: turn -> the active player's play (``None``: time ran out before any card).
        guesses: ``(turn, seat)`` -> the word written (``""``: nothing in time).
        callers: turn -> seats that called ne bis in idem.
        overrules: ``(turn, seat)`` -> the rulings on guesses the seat asked for.
        repeat_rulings: ``(turn, seat)`` -> the repeat rulings the seat asked for.
        keeps: seat -> the cards it kept, in order.
    """

    path: Path
    header: KiekHeader
    events: list[Event]
    done: set[int] = field(default_factory=set)
    plays: dict[int, ActivePlay | None] = field(default_factory=dict)
    guesses: dict[tuple[int, int], str] = field(default_factory=dict)
    callers: dict[int, set[int]] = field(default_factory=dict)
    overrules: dict[tuple[int, int], dict[str, TableRuling[bool]]] = field(default_factory=dict)
    repeat_rulings: dict[tuple[int, int], dict[str, TableRuling[str | None]]] = field(
        default_factory=dict
    )
    keeps: dict[int, list[str]] = field(default_factory=dict)

    @property
    def seats(self) -> int:
        """Players at the table."""
        return len(self.header.players)

    @property
    def stopped_turn(self) -> int:
        """The first turn not scored in the log (where the live game picks up)."""
        return max(self.done, default=-1) + 1


def read_stopped_game(path: str | os.PathLike[str]) -> StoppedGame:
    """Read a stopped Kiek game's log for :class:`ResumedSeat`.

    Raises:
        ResumeError: the file is not a Kiek game log, has lines that are not events,
            contradicts the rules (:func:`kiekai.kiek.audit.audit_kiek`), or its game is
            over (nothing to resume).
        FileNotFoundError: no file at ``path``.
    """
    problems: list[LogProblem] = []

    def problem(found: LogProblem) -> None:
        if not found.cut_short:
            problems.append(found)

    try:
        numbered = list(read_numbered_log(path, game="kiek", on_problem=problem))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise ResumeError(f"cannot resume {path}: {exc}") from None
    if problems:
        raise ResumeError(
            f"cannot resume {path}: {problems[0]} (not a valid event); `kiekai replay` lists "
            "every such line"
        )
    if not numbered or not isinstance(numbered[0][1].payload, KiekHeader):
        raise ResumeError(f"cannot resume {path}: it is not a Kiek game log (no header)")
    if any(isinstance(e.payload, KiekGameOver) for _, e in numbered):
        raise ResumeError(f"{path}: that game is over; nothing to resume")
    found = audit_kiek(numbered)
    if found is not None:
        raise ResumeError(f"cannot resume {path}: {found} (the rules contradict the log)")
    header = cast(KiekHeader, numbered[0][1].payload)
    events = [e for _, e in numbered[1:] if not isinstance(e.payload, KiekAborted)]
    stopped = StoppedGame(Path(path), header, events)
    _learn(stopped)
    return stopped


def _learn(stopped: StoppedGame) -> None:
    """Fill in what each seat answered (see :class:`StoppedGame`)."""
    secrets: dict[int, str] = {}
    for event in stopped.events:
        data, turn = event.payload, event.turn
        if isinstance(data, KiekScore):
            stopped.done.add(turn)
        elif isinstance(data, KiekReveal) and data.secret is not None:
            secrets.setdefault(turn, data.secret)
        elif isinstance(data, KiekVerdict):
            secrets.setdefault(turn, data.secret)
    for event in stopped.events:
        data, seat = event.payload, event.player
        if isinstance(data, KiekKeep) and seat is not None:
            stopped.keeps.setdefault(seat, []).append(data.card)
        elif event.turn in stopped.done:
            _learn_answer(stopped, event, secrets)


def _learn_answer(stopped: StoppedGame, event: Event, secrets: Mapping[int, str]) -> None:
    """Note the answer ``event`` records, of a turn the log scored."""
    data, turn, seat = event.payload, event.turn, event.player
    if isinstance(data, KiekPlay):
        word = secrets.get(turn, "") if data.wrote_word else ""
        stopped.plays[turn] = (
            None
            if data.forfeited
            else ActivePlay(tuple(data.played), tuple(data.three), tuple(data.two), word)  # type: ignore[arg-type]
        )
    elif isinstance(data, KiekGuess) and seat is not None:
        stopped.guesses[(turn, seat)] = data.word
    elif isinstance(data, KiekCall):
        stopped.callers[turn] = set(data.callers)
    elif isinstance(data, KiekOverrule) and seat is not None:
        ruling = TableRuling(data.accepted, seat, tuple(data.agreed))
        stopped.overrules.setdefault((turn, seat), {})[data.guess] = ruling
    elif isinstance(data, KiekOverruleRepeat) and seat is not None:
        used = data.used if data.repeats else None
        repeat = TableRuling(used, seat, tuple(data.agreed))
        stopped.repeat_rulings.setdefault((turn, seat), {})[data.word] = repeat


class ResumedSeat:
    """A seat of a resumed game: answers from the log while it holds the answer, then as
    ``player`` does (a bot, or a person at the terminal).

    A bot is asked every question even while the log answers, so that its state (its
    random draws, what it remembers) is the one it had when the game stopped.
    """

    def __init__(self, player: KiekPlayer, seat: int, stopped: StoppedGame) -> None:
        self.player = player
        self.seat = seat
        self.stopped = stopped
        self._keeps = list(stopped.keeps.get(seat, []))

    @property
    def name(self) -> str:
        """The seat's name (the player's)."""
        return self.player.name

    @property
    def is_human(self) -> bool:
        """Whether a person plays the seat."""
        return self.player.is_human

    def __getattr__(self, attribute: str) -> Any:  # the person's other methods (tell, stop)
        return getattr(self.player, attribute)

    def _bot(self, ask: Callable[[], Any]) -> None:
        if not self.player.is_human:
            try:
                ask()
            except TimeUp:
                pass

    def play_turn(self, view: ActiveView) -> ActivePlay:
        """The logged play of a scored turn (a time-up stays one), else the player's."""
        if view.turn not in self.stopped.done:
            return self.player.play_turn(view)
        self._bot(lambda: self.player.play_turn(view))
        play = self.stopped.plays.get(view.turn)
        if play is None:
            raise TimeUp()
        return play

    def guess(self, view: GuessView) -> str | None:
        """The logged guess of a scored turn (``None``: nothing in time), else the player's."""
        if view.turn not in self.stopped.done:
            return self.player.guess(view)
        self._bot(lambda: self.player.guess(view))
        return self.stopped.guesses.get((view.turn, self.seat)) or None

    def call_repeat(self, view: RevealView) -> bool:
        """Whether the seat called ne bis in idem in a scored turn, else the player's call."""
        if view.turn not in self.stopped.done:
            return self.player.call_repeat(view)
        self._bot(lambda: self.player.call_repeat(view))
        return self.seat in self.stopped.callers.get(view.turn, set())

    def keep_card(self, view: KeepView) -> str:
        """The next card the log says the seat kept, else the player's choice."""
        if not self._keeps:
            return self.player.keep_card(view)
        self._bot(lambda: self.player.keep_card(view))
        return self._keeps.pop(0)

    def overrule(self, view: RevealView) -> Mapping[str, bool | TableRuling[bool]]:
        """A person's logged rulings on the guesses of a scored turn (with who agreed),
        else asked."""
        if view.turn not in self.stopped.done:
            return cast(HumanKiekPlayer, self.player).overrule(view)
        return self.stopped.overrules.get((view.turn, self.seat), {})

    def overrule_repeats(
        self, view: CallView
    ) -> Mapping[str, str | None | TableRuling[str | None]]:
        """A person's logged repeat rulings of a scored turn (with who agreed), else asked."""
        if view.turn not in self.stopped.done:
            return cast(HumanKiekPlayer, self.player).overrule_repeats(view)
        return self.stopped.repeat_rulings.get((view.turn, self.seat), {})


class ResumeMismatch(RuntimeError):
    """The resumed game wrote an event the stopped game's log does not have there."""


class ResumeCheck:
    """``on_event`` of a resumed game: each event of the turns the log scored must be the
    log's (the same deck, seed, bots and rules give the same game), then passes every
    event to ``then`` (e.g. the terminal printer).

    Raises:
        ResumeMismatch: from the call, at the first event that differs (the message names
            the old log's event and what differs).
    """

    def __init__(self, stopped: StoppedGame, then: Callable[[Event], None] | None = None) -> None:
        self.then = then
        self.expected = [
            e for e in stopped.events if e.turn < stopped.stopped_turn or e.type == "setup"
        ]
        self.index = 0
        self.path = stopped.path

    def __call__(self, event: Event) -> None:
        if event.type != "header" and self.index < len(self.expected):
            logged = self.expected[self.index]
            self.index += 1
            difference = compare_events(logged, event, PROSE_FIELDS.get(logged.type, frozenset()))
            if difference is not None:
                raise ResumeMismatch(
                    f"the resumed game is not the game of {self.path} at its event "
                    f"{self.index + 1} ({logged.type}): {difference}; resume with the same "
                    "deck and the same version of kiekai"
                )
        if self.then is not None:
            self.then(event)


def resumed_log_path(path: Path) -> Path:
    """Where the resumed game is written: ``<log>-resumed.jsonl`` beside the log (then
    ``-resumed-2`` ... when that exists)."""
    stem = path.stem
    candidate = path.with_name(f"{stem}-resumed.jsonl")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{stem}-resumed-{number}.jsonl")
        number += 1
    return candidate
