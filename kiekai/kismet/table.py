"""Kismet played in time: the two tables (base game and variant) that connect the engine,
the reflex bots, human input and one injectable clock.

The tables hold no rules; they decide *when* things happen, on a
:class:`~kiekai.kismet.scheduler.Scheduler`. Bots' actions are scheduled at ``now +
reaction time``; humans act when their key arrives. :func:`make_table` builds a table from
a seed; the drivers (:mod:`kiekai.kismet.drivers`) run it headless or in real time, and
:mod:`kiekai.kismet.prose` turns its events into text.

A table can be started with a countdown (:meth:`_Table.start`) and paused (:meth:`_Table.pause`,
e.g. while the terminal is too small to show the board): while paused nothing runs and no
human move is taken; on :meth:`_Table.resume` every pending action moves on by the time the
table stood still, so nobody gains or loses reaction time.

The scheduler, the drivers and the text functions are re-exported here for callers that
import them from this module.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from kiekai.clock import Clock
from kiekai.events import EventLog
from kiekai.kismet.bots import FLOORS, ReflexBot
from kiekai.kismet.drivers import run_headless, run_realtime
from kiekai.kismet.engine import (
    BaseGame,
    IllegalAction,
    KismetCard,
    KnockOutcome,
    Reveal,
    VariantGame,
)
from kiekai.kismet.prose import (
    describe,
    plural,
    printout,
    round_result_lines,
    table_lines,
    wrong_knock_why,
)
from kiekai.kismet.rules import DEFAULT_RULES, Rules, is_joker_throw, slot_name
from kiekai.kismet.scheduler import Scheduler

__all__ = [
    "BaseTable",
    "Reaction",
    "RoundView",
    "Scheduler",
    "VariantTable",
    "describe",
    "make_table",
    "plural",
    "printout",
    "round_result_lines",
    "run_headless",
    "run_realtime",
    "seat_names",
    "table_lines",
    "wrong_knock_why",
]


@dataclass(frozen=True)
class Reaction:
    """One bot action and how long after its trigger it came.

    Attributes:
        kind: ``cover``, ``lay``, ``knock``, ``pass`` or ``take_dice`` (keys of
            :data:`kiekai.kismet.bots.FLOORS`).
        seat: the bot's seat.
        seconds: time from what the bot reacted to (the roll, a lay, a pass, a hand on the
            card it wanted, the call to roll) to the action.
    """

    kind: str
    seat: int
    seconds: float

    @property
    def floor(self) -> float:
        """The least time a person needs for this kind of action (seconds)."""
        return FLOORS[self.kind]


class _Table(abc.ABC):
    """Shared plumbing of the two tables (clock, scheduler, bots, names, listeners, start,
    pause)."""

    def __init__(
        self,
        players: int,
        clock: Clock,
        bots: Mapping[int, ReflexBot],
        humans: frozenset[int],
        between_rounds: float,
        names: Mapping[int, str] | None = None,
    ) -> None:
        if set(bots) & set(humans) or set(bots) | set(humans) != set(range(players)):
            raise ValueError("every seat must be exactly one of: a bot, a human")
        self.clock = clock
        self.bots = dict(bots)
        self.humans = humans
        #: seconds between a round's end and the next (the reveal stays on screen).
        self.between_rounds = between_rounds
        self.names = dict(names) if names is not None else seat_names(players, len(humans))
        self.scheduler = Scheduler()
        self.message = ""
        self.done = False
        self.started = False
        #: when the first action of the game is due (s, table clock), set by :meth:`start`.
        self.start_at: float | None = None
        self.listeners: list[Callable[[], None]] = []
        #: every bot action that took effect, with its reaction time (see :class:`Reaction`).
        self.reactions: list[Reaction] = []

    def now(self) -> float:
        """The time stamp for what happens now (seconds): inside a scheduled job its due time,
        so a late-running loop neither delays a bot's hand in the ruling nor drifts the
        schedule; otherwise the clock's time."""
        running = self.scheduler.running
        return self.clock.now() if running is None else running

    def run_due(self, now: float | None = None) -> int:
        """Run the jobs due by ``now`` (default: the clock's time)."""
        return self.scheduler.run_due(self.clock.now() if now is None else now)

    def start(self, delay: float = 0.0) -> None:
        """Schedule the game's first action ``delay`` seconds from now (a countdown).

        Raises:
            RuntimeError: the table was started before.
        """
        if self.started:
            raise RuntimeError("this table has already been started")
        self.started = True
        self.start_at = self.clock.now() + max(0.0, delay)
        self._first(self.start_at)
        self._changed()

    @abc.abstractmethod
    def _first(self, at: float) -> None:
        """Schedule the game's first action at clock time ``at`` (seconds)."""

    def countdown(self) -> float | None:
        """Seconds until the first action while a started game waits for it, else ``None``
        (while paused: the seconds that will be left when the game goes on)."""
        if not self.started or self.start_at is None or self.game_begun():
            return None
        now = self.clock.now() if self.scheduler.paused_at is None else self.scheduler.paused_at
        return max(0.0, self.start_at - now)

    @abc.abstractmethod
    def game_begun(self) -> bool:
        """True once the first action after :meth:`start` has happened."""

    @property
    def paused(self) -> bool:
        """True while :meth:`pause` holds the table."""
        return self.scheduler.paused

    def pause(self) -> None:
        """Stop the game now: no scheduled action runs and no human move is taken until
        :meth:`resume`. Used while the board cannot be shown (terminal too small)."""
        if not self.done:
            self.scheduler.pause(self.clock.now())
            self._changed()

    def resume(self) -> float:
        """Go on after :meth:`pause`; every pending action moves on by the held time.

        Returns:
            The seconds the table stood still.
        """
        still = self.scheduler.resume(self.clock.now())
        if still and self.start_at is not None and not self.game_begun():
            self.start_at += still
        self._changed()
        return still

    def _refusal(self) -> str | None:
        """Why a human move cannot be taken now, or ``None`` when it can."""
        if self.done:
            return "the game is over: press q to leave"
        if not self.started:
            return "the game has not started yet"
        if self.paused:
            return "the game is paused"
        if not self.game_begun():
            return "get ready: the game starts in a moment"
        return None

    def _bot_job(
        self,
        seat: int,
        kind: str,
        stimulus: float,
        delay: float,
        action: Callable[[], bool],
        tag: str,
    ) -> None:
        """Schedule a bot's ``action`` ``delay`` s after ``stimulus`` (its trigger, s); when
        it takes effect (returns True) its reaction time is recorded in :attr:`reactions`."""

        def run() -> None:
            if action():
                self.reactions.append(Reaction(kind, seat, self.now() - stimulus))

        self.scheduler.at(stimulus + delay, run, tag, seat)

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()


@dataclass(frozen=True)
class RoundView:
    """What a finished base-game round showed, kept for the pause after it (the reveal).

    Attributes:
        dice: the round's three dice.
        circle: the circle as it lay at the reveal, before the covered cards left it and
            before it was refilled (slot 0..10 → card or ``None``).
        reveals: one :class:`~kiekai.kismet.engine.Reveal` per covered card (with its slot).
        cleared: True when no card could be taken and the 11 cards left the game.
        timed_out: True when the round ended because :attr:`BaseTable.round_limit` ran out
            (not every player had a hand on a card and matching cards were still open).
    """

    dice: tuple[int, int, int]
    circle: tuple[KismetCard | None, ...]
    reveals: tuple[Reveal, ...]
    cleared: bool
    timed_out: bool = False


class BaseTable(_Table):
    """A base game in time: roll, bots cover after their reaction times, humans cover by key,
    reveal, a pause, the next roll.

    Args:
        game: the engine state.
        bots: seat → bot for every bot seat.
        clock: the time source.
        humans: seats played by people (their covers come from :meth:`human_cover`).
        between_rounds: seconds between a reveal and the next roll; the round's dice and
            results stay in :attr:`last_round` meanwhile, for a front end to show.
        round_limit: seconds after the roll when a round ends even if a human has not
            covered (a front-end rule so a game cannot hang; see docs/kismet.md).
        names: seat → display name (default :func:`seat_names`).

    Raises:
        ValueError: a seat is both human and bot, or a seat has neither.
    """

    def __init__(
        self,
        game: BaseGame,
        bots: Mapping[int, ReflexBot],
        clock: Clock,
        humans: frozenset[int] = frozenset(),
        between_rounds: float = 2.0,
        round_limit: float = 12.0,
        names: Mapping[int, str] | None = None,
    ) -> None:
        super().__init__(game.players, clock, bots, humans, between_rounds, names)
        self.game = game
        self.round_limit = round_limit
        #: the last finished round (dice, circle at the reveal, reveals), until the next roll.
        self.last_round: RoundView | None = None
        #: bot seat -> the slot its pending cover aims at (see :meth:`_replan_beaten`).
        self._targets: dict[int, int] = {}

    @property
    def last_reveals(self) -> list[Reveal]:
        """The reveals of the last finished round (empty once the next round is rolled)."""
        return list(self.last_round.reveals) if self.last_round is not None else []

    def _first(self, at: float) -> None:
        self.scheduler.at(at, self._roll, "roll")

    def game_begun(self) -> bool:
        """True once the first roll has happened."""
        g = self.game
        return g.round > 0 or g.phase != "roll"

    def _roll(self) -> None:
        g = self.game
        if g.over:
            return
        t = self.now()
        g.roll(t)
        self.last_round = None
        self.message = ""  # the sums are the players' job: only the dice are shown
        self._targets = {}
        for seat in self.bots:
            self._plan_bot(seat, t)
        self.scheduler.at(t + self.round_limit, self._time_up, "round")
        self._check_end()
        self._changed()

    def time_left(self) -> float | None:
        """Seconds (>= 0) until :attr:`round_limit` ends the round being played, ``None``
        outside a round (while paused: the seconds left when the game goes on)."""
        if self.game.phase != "cover":
            return None
        due = self.scheduler.due_of("round")
        if due is None:
            return None
        now = self.clock.now() if self.scheduler.paused_at is None else self.scheduler.paused_at
        return max(0.0, due - now)

    def _plan_bot(self, seat: int, t: float, again: bool = False) -> None:
        """Plan the cover of bot ``seat`` from time ``t``: its first search after the roll,
        or (``again``) its choice among the matches it has already found, after a hand took
        the card it wanted (:meth:`~kiekai.kismet.bots.ReflexBot.replan_cover`)."""
        g = self.game
        circle = [c.value if c is not None else None for c in g.circle]
        bot = self.bots[seat]
        plan = (bot.replan_cover if again else bot.plan_cover)(
            circle, g.open_slots(), g.dice or (1, 1, 1)
        )
        self._targets.pop(seat, None)
        if plan is not None:
            self._targets[seat] = plan.slot
            self._bot_job(
                seat, "cover", t, plan.delay, lambda: self._bot_cover(seat, plan.slot), f"bot{seat}"
            )

    def _bot_cover(self, seat: int, slot: int) -> bool:
        g = self.game
        if g.phase != "cover" or seat in g.covers:
            return False
        t = self.now()
        if slot not in g.open_slots():  # not reached: a hand on it re-plans at once
            self._plan_bot(seat, t, again=True)
            return False
        self._apply_cover(seat, slot, t)
        return True

    def _apply_cover(self, seat: int, slot: int, t: float) -> None:
        outcome = self.game.cover(seat, slot, t)
        self._targets.pop(seat, None)
        self._replan_beaten(seat, slot, outcome.displaced)
        self._check_end()
        self._changed()

    def _replan_beaten(self, seat: int, slot: int, displaced: int | None) -> None:
        """A hand (``seat``'s) came down on ``slot``: every bot that was reaching for that
        card sees it *now* and turns to another of the matches it found (a choice reaction
        from this moment, not a new search from the roll, and not only when its own planned
        time comes); a bot pushed off the card does the same. Rulebook, "Playing the Game":
        "As soon as a player has spotted a matching card, he places his hand on it"."""
        t = self.now()
        for other in sorted(self.bots):
            if other == seat or other in self.game.covers:
                continue
            if other == displaced or self._targets.get(other) == slot:
                self.scheduler.cancel(f"bot{other}")
                self._plan_bot(other, t, again=True)

    def human_cover(self, seat: int, slot: int, t: float | None = None) -> str:
        """A human's hand on ``slot`` (0..10; time stamp ``t``, default now).

        Returns:
            A short message for the player (also kept in :attr:`message`); never raises
            for moves at the wrong moment.
        """
        if seat not in self.humans:
            return "no game to play"
        refusal = self._refusal()
        if refusal is None and self.game.phase != "cover":
            refusal = "wait for the roll: cards are covered after the dice are rolled"
        if refusal is not None:
            self.message = refusal
            self._changed()
            return self.message
        t = self.now() if t is None else min(t, self.now())
        try:
            self._apply_cover(seat, slot, t)
        except IllegalAction as exc:
            self.message = str(exc)
            self._changed()
            return self.message
        self.message = f"your hand is on card {slot_name(slot)}"
        return self.message

    def _check_end(self) -> None:
        if self.game.round_complete():
            self.scheduler.cancel("round")
            self.scheduler.at(self.now(), self._end_round, "round")

    def _time_up(self) -> None:
        """:attr:`round_limit` ran out: the round ends as it stands (Reading 7)."""
        self._end_round(timed_out=not self.game.round_complete())

    def _end_round(self, timed_out: bool = False) -> None:
        g = self.game
        if g.phase != "cover" or g.dice is None:
            return
        for seat in self.bots:
            self.scheduler.cancel(f"bot{seat}")
        self.scheduler.cancel("round")
        dice, circle, cleared = g.dice, tuple(g.circle), not g.matching_slots()
        reveals = g.end_round(self.now())
        self.last_round = RoundView(dice, circle, tuple(reveals), cleared, timed_out)
        self.message = ""
        if g.over:
            self.done = True
            self.message = "game over"
        else:
            self.scheduler.at(self.now() + self.between_rounds, self._roll, "roll")
        self._changed()


class VariantTable(_Table):
    """The variant in time: pre-lay, rolls, lays, passes and knocks with reaction times.

    Bots react to what they see: a bot's knock is planned when the dice are rolled, planned
    again when the roller lays a card (his row changed) and when he passes over a card he
    could have laid; so no knock comes sooner after the lay or pass it reacts to than a
    choice reaction (:data:`~kiekai.kismet.bots.CHOICE_RT_FLOOR_S`).

    Args:
        game: the engine state (rounds are started here).
        bots: seat → bot for every bot seat.
        clock: the time source.
        humans: seats played by people (they call :meth:`human_pre_lay`, :meth:`human_roll`,
            :meth:`human_lay`, :meth:`human_pass`, :meth:`human_knock`).
        rounds: rounds to play; minus points are tallied over them.
        between_rounds: seconds between rounds.
        turn_limit: seconds a human roller may take before his turn ends for him (and
            before the dice are taken for him); keeps a game from hanging. A turn ended this
            way is not an overlook (Reading 18, docs/kismet.md).
        names: seat → display name (default :func:`seat_names`).

    Raises:
        ValueError: a seat is both human and bot, a seat has neither, or ``rounds`` < 1.
    """

    def __init__(
        self,
        game: VariantGame,
        bots: Mapping[int, ReflexBot],
        clock: Clock,
        humans: frozenset[int] = frozenset(),
        rounds: int = 1,
        between_rounds: float = 2.0,
        turn_limit: float = 30.0,
        names: Mapping[int, str] | None = None,
    ) -> None:
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}")
        super().__init__(game.players, clock, bots, humans, between_rounds, names)
        self.game = game
        self.rounds = rounds
        self.turn_limit = turn_limit
        #: bots that have decided about knocking in this turn (a wrong knock is one slip per
        #: turn, not one per look).
        self._decided: set[int] = set()

    def _first(self, at: float) -> None:
        self.scheduler.at(at, self._start_round, "round")

    def game_begun(self) -> bool:
        """True once the first round has been dealt."""
        return self.game.round >= 0

    def time_left(self, seat: int) -> float | None:
        """Seconds (≥ 0) before :attr:`turn_limit` acts for the person at ``seat``: the
        dice are taken for him (his turn to roll) or his turn ends (he has rolled); ``None``
        when nothing waits on him. While paused: the seconds left when the game goes on."""
        g = self.game
        if seat not in self.humans:
            return None
        if g.phase in ("await_roll", "pass") and g.next_roller == seat:
            due = self.scheduler.due_of("turn:take")
        elif g.phase == "turn" and g.roller == seat:
            due = self.scheduler.due_of("turn:pass")
        else:
            return None
        if due is None:
            return None
        now = self.clock.now() if self.scheduler.paused_at is None else self.scheduler.paused_at
        return max(0.0, due - now)

    # --- flow ----------------------------------------------------------------------------
    def _start_round(self) -> None:
        g = self.game
        t = self.now()
        g.start_round(t)
        for seat, bot in sorted(self.bots.items()):
            g.pre_lay(seat, bot.plan_pre_lay(g.fronts[seat]), t)
        self.message = "choose cards to pre-lay" if self.humans else ""
        self._after_change()

    def _after_change(self) -> None:
        """Schedule what follows from the current phase (called after every action)."""
        g = self.game
        if g.phase == "round_over":
            self.scheduler.cancel("turn")
            if g.round + 1 >= self.rounds:
                self.done = True
                self.message = "match over"
            elif self.humans:  # the results stay until the person asks for the next round
                self.message = f"round {g.round + 1} over: Enter starts round {g.round + 2}"
            else:
                self.scheduler.at(self.now() + self.between_rounds, self._start_round, "round")
        elif g.phase in ("await_roll", "pass") and not self.scheduler.pending("turn:take"):
            seat, t = g.next_roller, self.now()
            if seat in self.bots:
                self._bot_job(
                    seat,
                    "take_dice",
                    t,
                    self.bots[seat].take_dice_delay(),
                    lambda: self._take_dice(seat),
                    "turn:take",
                )
            else:
                self.scheduler.at(
                    t + self.turn_limit,
                    lambda: self._take_dice(seat, timed_out=True),
                    "turn:take",
                    seat,
                )
        self._changed()

    def _take_dice(self, seat: int, timed_out: bool = False) -> bool:
        """``seat`` takes the dice and rolls; ``timed_out``: a person sat idle past
        :attr:`turn_limit` and the table rolls for him, which the roll event says
        (``"timed_out": true``; Reading 18)."""
        g = self.game
        if g.phase not in ("await_roll", "pass") or g.next_roller != seat:
            return False
        self.scheduler.cancel("turn")
        t = self.now()
        g.roll(seat, t, timed_out=timed_out)
        self.message = (
            f"{self.turn_limit:g} s passed without r: the table rolled for you" if timed_out else ""
        )
        self._decided = set()
        if seat in self.bots:
            plan = self.bots[seat].plan_turn(g.fronts[seat], g.dice or (1, 1, 1))
            last, last_delay = t, plan.delay
            for i, value in enumerate(plan.lay):
                at, delay = (t, plan.delay) if i == 0 else (last, plan.extra_delay)
                self._bot_job(
                    seat, "lay", at, delay, partial(self._bot_lay, seat, value), "turn:lay"
                )
                last, last_delay = at + delay, 0.0
            self._bot_job(
                seat,
                "pass",
                last,
                last_delay + plan.pass_delay,
                lambda: self._pass(seat),
                "turn:pass",
            )
        else:
            self.scheduler.at(
                t + self.turn_limit, lambda: self._pass(seat, timed_out=True), "turn:pass", seat
            )
        self._plan_knocks()
        self._after_change()
        return True

    def _plan_knocks(self, fresh: bool = True) -> None:
        """Let every bot but the roller decide whether and when to knock, from now.

        Args:
            fresh: the roller's situation changed (roll, lay, overlooked pass): pending
                knocks are dropped and decided again from what the bots now see.
        """
        g = self.game
        if g.roller is None or g.dice is None:
            return
        t = self.now()
        for seat, bot in sorted(self.bots.items()):
            tag = f"turn:knock{seat}"
            if seat == g.roller or seat in g.knocked:
                continue
            if self.scheduler.pending(tag):
                if not fresh:
                    continue
                self.scheduler.cancel(tag)
            slip = seat not in self._decided
            self._decided.add(seat)
            delay = bot.plan_knock(
                g.fronts[seat], g.fronts[g.roller], g.dice, g.overlooked, may_slip=slip
            )
            if delay is not None:

                def knock(s: int = seat) -> bool:
                    return self._knock(s) is not None

                self._bot_job(seat, "knock", t, delay, knock, tag)

    def _bot_lay(self, seat: int, value: int) -> bool:
        try:
            self.game.lay(seat, value, self.now())
        except IllegalAction:
            return False
        self._plan_knocks()
        self._after_change()
        return True

    def _pass(self, seat: int, timed_out: bool = False) -> bool:
        g = self.game
        if g.phase != "turn" or g.roller != seat:
            return False
        g.pass_turn(seat, self.now(), timed_out=timed_out)
        if timed_out and seat in self.humans:
            self.message = f"time is up ({self.turn_limit:g} s): your turn ends without a lay"
        if g.overlooked:
            self._plan_knocks()
        self._after_change()
        return True

    def _knock(self, seat: int, value: int | None = None) -> KnockOutcome | None:
        try:
            outcome = self.game.knock(seat, self.now(), value)
        except IllegalAction as exc:
            if seat in self.humans:
                self.message = str(exc)
                self._changed()
            return None
        self._after_change()
        return outcome

    # --- human input ---------------------------------------------------------------------
    def _name(self, seat: int | None) -> str:
        return self.names.get(seat, f"seat {seat}") if seat is not None else "nobody"

    def _say(self, message: str) -> str:
        self.message = message
        self._changed()
        return message

    def human_pre_lay(self, seat: int, values: tuple[int, ...]) -> str:
        """Submit a human's secret pre-lay; returns a message (never raises)."""
        refusal = self._refusal()
        if refusal is not None:
            return self._say(refusal)
        try:
            self.game.pre_lay(seat, values, self.now())
        except IllegalAction as exc:
            return self._say(str(exc))
        listed = ", ".join(map(str, values))
        self.message = f"you pre-laid {listed} face down" if values else "you pre-laid nothing"
        self._after_change()
        return self.message

    def waiting_for_next_round(self) -> bool:
        """True while a finished round's results wait for the person to start the next
        (a table with a person does not go on by itself: the results stay on screen)."""
        g = self.game
        return (
            bool(self.humans)
            and not self.done
            and g.phase == "round_over"
            and not self.scheduler.pending("round")
        )

    def human_next_round(self, seat: int) -> str:
        """The person starts the next round after reading the results; returns a message."""
        refusal = self._refusal()
        if refusal is not None:
            return self._say(refusal)
        if not self.waiting_for_next_round():
            return self._say("Enter starts the next round once a round is over")
        self._start_round()
        return self.message

    def human_roll(self, seat: int) -> str:
        """The human takes the dice (only when it is his turn to roll); returns a message."""
        refusal = self._refusal()
        if refusal is not None:
            return self._say(refusal)
        g = self.game
        if g.phase in ("await_roll", "pass") and g.next_roller == seat:
            self._take_dice(seat)
            return self.message
        if g.phase == "pre_lay":
            return self._say("first choose the cards to pre-lay (Enter confirms)")
        if g.phase == "turn" and g.roller == seat:
            return self._say("you have rolled: lay a card the dice make with its key, or p passes")
        if g.phase == "turn":
            return self._say(f"{self._name(g.roller)} has the dice: wait until your turn")
        if g.phase in ("await_roll", "pass"):
            return self._say(f"it is {self._name(g.next_roller)}'s turn to roll, not yours")
        return self._say("the round is over: the next one starts in a moment")

    def human_lay(self, seat: int, value: int) -> str:
        """The human roller lays the card ``value``; returns a message (never raises)."""
        refusal = self._refusal()
        if refusal is not None:
            return self._say(refusal)
        g = self.game
        if g.phase in ("await_roll", "pass") and g.next_roller == seat:
            return self._say("take the dice first (r), then lay a card the dice make")
        if g.phase != "turn" or g.roller != seat:
            if g.phase in ("turn", "pass"):
                return self._say(
                    f"only the roller ({self._name(g.roller)}) lays cards; space knocks if "
                    "you can lay a card and he cannot"
                )
            return self._say("you lay cards on your own turn, after rolling")
        try:
            g.lay(seat, value, self.now())
        except IllegalAction as exc:
            return self._say(str(exc))
        if g.phase == "round_over":
            self.message = f"you lay your {value}: your last card!"
        elif len(g.laid_this_turn) == 1 and g.dice is not None and is_joker_throw(g.dice):
            self.message = (
                f"you lay your {value}; joker throw: lay one more card of your choice, or p"
            )
        else:
            self.message = f"you lay your {value}; p passes the dice on"
        self._plan_knocks()
        self._after_change()
        return self.message

    def human_pass(self, seat: int) -> str:
        """The human roller passes the turn; returns a message."""
        refusal = self._refusal()
        if refusal is not None:
            return self._say(refusal)
        g = self.game
        if g.phase in ("await_roll", "pass") and g.next_roller == seat:
            return self._say("take the dice first (r): you pass after your roll")
        if g.phase != "turn" or g.roller != seat:
            return self._say("you pass only on your own turn, after rolling")
        self.scheduler.cancel("turn:pass")
        self._pass(seat)
        return self._say("you pass: the next player takes the dice")

    def human_knock(self, seat: int) -> str:
        """The human knocks; returns what came of it."""
        refusal = self._refusal()
        if refusal is not None:
            return self._say(refusal)
        g = self.game
        if g.roller == seat and g.phase in ("turn", "pass"):
            return self._say("you cannot knock into your own turn")
        roller = self._name(g.roller)
        outcome = self._knock(seat)
        if outcome is None:
            return self.message
        return self._say(
            {
                "lay": f"you knocked first and lay your {outcome.card}",
                "roller_turns_back": (
                    f"you knocked first: {roller} overlooked a card and turns back his "
                    f"{outcome.card}"
                    if outcome.card is not None
                    else f"you knocked first: {roller} overlooked a card, but has no "
                    "laid-down card to turn back"
                ),
                "too_slow": "right knock, but someone knocked first",
                "penalty": (
                    f"wrong knock: {wrong_knock_why(outcome.why, outcome.values, roller)}; "
                    f"your {outcome.card} goes face up again"
                ),
                "no_penalty": (
                    f"wrong knock: {wrong_knock_why(outcome.why, outcome.values, roller)}; "
                    "no cost, you have laid nothing down"
                ),
            }[outcome.result]
        )


def seat_names(players: int, humans: int = 0) -> dict[int, str]:
    """Seat → display name: ``you`` for the person (seat 0 when ``humans`` is 1), ``bot1``,
    ``bot2`` … for the rest (numbered from 1 with or without a person, as people count).

    The person is "you" everywhere, in the event list as in the messages ("you cover card
    e", "you pass"; :mod:`kiekai.kismet.prose` makes the verbs agree)."""
    return {s: ("you" if s < humans else f"bot{s - humans + 1}") for s in range(players)}


def make_table(
    players: int,
    *,
    variant: bool,
    seed: int,
    clock: Clock,
    level: str = "normal",
    humans: int = 0,
    rules: Rules = DEFAULT_RULES,
    log: EventLog | None = None,
    rounds: int = 1,
    between_rounds: float = 2.0,
    names: Mapping[int, str] | None = None,
) -> BaseTable | VariantTable:
    """Build a table of ``players`` seats; seats ``0 .. humans-1`` are people, the rest bots.

    Bot seeds derive from ``seed`` and the seat, so one seed fixes the whole game.
    ``level`` is case-insensitive (``"EXPERT"``); ``between_rounds`` is the pause (s) after
    a reveal (base game) or a finished round (variant).

    Raises:
        ValueError: ``players`` outside 2..8, ``humans`` not 0 or 1, or an unknown ``level``.
    """
    if humans not in (0, 1):
        raise ValueError(f"humans must be 0 or 1, got {humans}")
    bots = {
        seat: ReflexBot(level, seed=seed * 1009 + seat, rules=rules)
        for seat in range(humans, players)
    }
    human_seats = frozenset(range(humans))
    if variant:
        game = VariantGame(players, seed, rules, log)
        return VariantTable(
            game, bots, clock, human_seats, rounds, between_rounds=between_rounds, names=names
        )
    base = BaseGame(players, seed, rules, log)
    return BaseTable(base, bots, clock, human_seats, between_rounds=between_rounds, names=names)
