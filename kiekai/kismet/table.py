"""Kismet played in time: a scheduler of timed actions and the two tables (base game and
variant) that connect the engine, the reflex bots, human input and one injectable clock.

The tables hold no rules; they decide *when* things happen. Bots' actions are scheduled at
``now + reaction time``; humans act when their key arrives. :func:`run_headless` plays a
bots-only game on a :class:`~kiekai.clock.VirtualClock` (a seed repeats exactly);
:func:`run_realtime` drives a table on a real clock inside an asyncio loop (the Textual app
and ``scripts/measure_kismet.py`` use it) and records the timing error of every scheduled
action (actual minus scheduled time, seconds) in :attr:`Scheduler.lags`.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kiekai.clock import Clock, VirtualClock
from kiekai.events import Event, EventLog
from kiekai.kismet.bots import ReflexBot
from kiekai.kismet.engine import BaseGame, IllegalAction, KnockOutcome, VariantGame
from kiekai.kismet.rules import DEFAULT_RULES, Rules


@dataclass(order=True)
class _Job:
    due: float
    seat: int
    seq: int
    tag: str = field(compare=False)
    fn: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class Scheduler:
    """Timed actions in order of due time (seconds), then seat, then scheduling order.

    Equal due times are therefore decided by seat and then by order, which keeps headless
    games deterministic. :attr:`lags` collects ``actual - due`` (seconds) of every job run.
    """

    def __init__(self) -> None:
        self._heap: list[_Job] = []
        self._seq = itertools.count()
        self.lags: list[float] = []
        #: due time (s) of the job being run, ``None`` outside :meth:`run_due`.
        self.running: float | None = None

    def at(self, due: float, fn: Callable[[], None], tag: str = "", seat: int = -1) -> _Job:
        """Schedule ``fn`` to run at time ``due`` (seconds); returns a handle for :meth:`cancel`."""
        job = _Job(due, seat, next(self._seq), tag, fn)
        heapq.heappush(self._heap, job)
        return job

    def cancel(self, tag: str) -> None:
        """Cancel every pending job whose tag equals ``tag`` or starts with ``tag + ':'``."""
        for job in self._heap:
            if job.tag == tag or job.tag.startswith(tag + ":"):
                job.cancelled = True

    def pending(self, tag: str) -> bool:
        """True when a job tagged exactly ``tag`` is waiting to run."""
        return any(job.tag == tag and not job.cancelled for job in self._heap)

    def next_due(self) -> float | None:
        """Due time of the earliest pending job, or ``None`` when nothing is pending."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].due if self._heap else None

    def run_due(self, now: float) -> int:
        """Run every job due at or before ``now`` (including ones they schedule); returns the
        number run."""
        ran = 0
        while (due := self.next_due()) is not None and due <= now:
            job = heapq.heappop(self._heap)
            self.lags.append(now - job.due)
            self.running = job.due
            try:
                job.fn()
            finally:
                self.running = None
            ran += 1
        return ran


class _Table:
    """Shared plumbing of the two tables (clock, scheduler, bots, listeners)."""

    def __init__(
        self,
        players: int,
        clock: Clock,
        bots: Mapping[int, ReflexBot],
        humans: frozenset[int],
        pause: float,
    ) -> None:
        if set(bots) & set(humans) or set(bots) | set(humans) != set(range(players)):
            raise ValueError("every seat must be exactly one of: a bot, a human")
        self.clock = clock
        self.bots = dict(bots)
        self.humans = humans
        self.pause = pause
        self.scheduler = Scheduler()
        self.message = ""
        self.done = False
        self.listeners: list[Callable[[], None]] = []

    def now(self) -> float:
        """The time stamp for what happens now (seconds): inside a scheduled job its due time,
        so a late-running loop neither delays a bot's hand in the ruling nor drifts the
        schedule; otherwise the clock's time."""
        running = self.scheduler.running
        return self.clock.now() if running is None else running

    def run_due(self, now: float | None = None) -> int:
        """Run the jobs due by ``now`` (default: the clock's time)."""
        return self.scheduler.run_due(self.clock.now() if now is None else now)

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()


class BaseTable(_Table):
    """A base game in time: roll, bots cover after their reaction times, humans cover by key,
    reveal, a pause, the next roll.

    Args:
        game: the engine state.
        bots: seat → bot for every bot seat.
        clock: the time source.
        humans: seats played by people (their covers come from :meth:`human_cover`).
        pause: seconds between a reveal and the next roll (the short pause between rounds).
        round_limit: seconds after the roll when a round ends even if a human has not
            covered (a front-end rule so a game cannot hang; see docs/kismet.md).

    Raises:
        ValueError: a seat is both human and bot, or a seat has neither.
    """

    def __init__(
        self,
        game: BaseGame,
        bots: Mapping[int, ReflexBot],
        clock: Clock,
        humans: frozenset[int] = frozenset(),
        pause: float = 1.5,
        round_limit: float = 12.0,
    ) -> None:
        super().__init__(game.players, clock, bots, humans, pause)
        self.game = game
        self.round_limit = round_limit
        self.last_reveals: list = []

    def start(self) -> None:
        """Schedule the first roll now."""
        self.scheduler.at(self.now(), self._roll, "roll")

    def _roll(self) -> None:
        g = self.game
        if g.over:
            return
        t = self.now()
        g.roll(t)
        self.message = ""  # the sums are the players' job: only the dice are shown
        for seat in self.bots:
            self._plan_bot(seat, t)
        self.scheduler.at(t + self.round_limit, self._end_round, "round")
        self._check_end()
        self._changed()

    def _plan_bot(self, seat: int, t: float) -> None:
        g = self.game
        circle = [c.value if c is not None else None for c in g.circle]
        plan = self.bots[seat].plan_cover(circle, g.open_slots(), g.dice or (1, 1, 1))
        if plan is not None:
            self.scheduler.at(
                t + plan.delay, lambda: self._bot_cover(seat, plan.slot), f"bot{seat}", seat
            )

    def _bot_cover(self, seat: int, slot: int) -> None:
        g = self.game
        if g.phase != "cover" or seat in g.covers:
            return
        t = self.now()
        if slot not in g.open_slots():
            self._plan_bot(seat, t)  # beaten to it: look again
            return
        self._apply_cover(seat, slot, t)

    def _apply_cover(self, seat: int, slot: int, t: float) -> None:
        outcome = self.game.cover(seat, slot, t)
        if outcome.displaced is not None and outcome.displaced in self.bots:
            self._plan_bot(outcome.displaced, self.now())
        self._check_end()
        self._changed()

    def human_cover(self, seat: int, slot: int, t: float | None = None) -> str:
        """A human's hand on ``slot`` (time stamp ``t``, default now).

        Returns:
            A short message for the player; never raises for moves at the wrong moment.
        """
        if self.done or seat not in self.humans:
            return "no game to play"
        t = self.now() if t is None else min(t, self.now())
        try:
            self._apply_cover(seat, slot, t)
        except IllegalAction as exc:
            self.message = str(exc)
            return self.message
        self.message = f"you cover {chr(ord('a') + slot)}"
        return self.message

    def _check_end(self) -> None:
        if self.game.round_complete():
            self.scheduler.cancel("round")
            self.scheduler.at(self.now(), self._end_round, "round")

    def _end_round(self) -> None:
        g = self.game
        if g.phase != "cover":
            return
        for seat in self.bots:
            self.scheduler.cancel(f"bot{seat}")
        self.scheduler.cancel("round")
        self.last_reveals = g.end_round(self.now())
        self.message = ""
        if g.over:
            self.done = True
            self.message = "game over"
        else:
            self.scheduler.at(self.now() + self.pause, self._roll, "roll")
        self._changed()


class VariantTable(_Table):
    """The variant in time: pre-lay, rolls, lays, passes and knocks with reaction times.

    Args:
        game: the engine state (rounds are started here).
        bots: seat → bot for every bot seat.
        clock: the time source.
        humans: seats played by people (they call :meth:`human_pre_lay`, :meth:`human_roll`,
            :meth:`human_lay`, :meth:`human_pass`, :meth:`human_knock`).
        rounds: rounds to play; minus points are tallied over them.
        pause: seconds between rounds.
        turn_limit: seconds a human roller may take before his turn is passed for him (and
            before the dice are taken for him); keeps a game from hanging.

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
        pause: float = 2.0,
        turn_limit: float = 30.0,
    ) -> None:
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}")
        super().__init__(game.players, clock, bots, humans, pause)
        self.game = game
        self.rounds = rounds
        self.turn_limit = turn_limit

    def start(self) -> None:
        """Schedule the first round now."""
        self.scheduler.at(self.now(), self._start_round, "round")

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
            else:
                self.scheduler.at(self.now() + self.pause, self._start_round, "round")
        elif g.phase in ("await_roll", "pass") and not self.scheduler.pending("turn:take"):
            seat = g.next_roller
            delay = self.bots[seat].take_dice_delay() if seat in self.bots else self.turn_limit
            self.scheduler.at(self.now() + delay, lambda: self._take_dice(seat), "turn:take", seat)
        self._changed()

    def _take_dice(self, seat: int) -> None:
        g = self.game
        if g.phase not in ("await_roll", "pass") or g.next_roller != seat:
            return
        self.scheduler.cancel("turn")
        t = self.now()
        g.roll(seat, t)
        self.message = ""
        if seat in self.bots:
            plan = self.bots[seat].plan_turn(g.fronts[seat], g.dice or (1, 1, 1))
            at = t + plan.delay
            for value in plan.lay:
                self.scheduler.at(at, lambda v=value: self._bot_lay(seat, v), "turn:lay", seat)
                at += 0.3
            self.scheduler.at(at + plan.pass_delay, lambda: self._pass(seat), "turn:pass", seat)
        else:
            self.scheduler.at(t + self.turn_limit, lambda: self._pass(seat), "turn:pass", seat)
        self._plan_knocks(overlooked=False)
        self._after_change()

    def _plan_knocks(self, overlooked: bool) -> None:
        g = self.game
        if g.roller is None or g.dice is None:
            return
        for seat, bot in sorted(self.bots.items()):
            if seat == g.roller or seat in g.knocked or self.scheduler.pending(f"turn:knock{seat}"):
                continue
            delay = bot.plan_knock(g.fronts[seat], g.fronts[g.roller], g.dice, overlooked)
            if delay is not None:
                self.scheduler.at(
                    self.now() + delay, lambda s=seat: self._knock(s), f"turn:knock{seat}", seat
                )

    def _bot_lay(self, seat: int, value: int) -> None:
        try:
            self.game.lay(seat, value, self.now())
        except IllegalAction:
            return
        self._plan_knocks(overlooked=False)
        self._after_change()

    def _pass(self, seat: int) -> None:
        g = self.game
        if g.phase != "turn" or g.roller != seat:
            return
        g.pass_turn(seat, self.now())
        if g.overlooked:
            self._plan_knocks(overlooked=True)
        self._after_change()

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
    def human_pre_lay(self, seat: int, values: tuple[int, ...]) -> str:
        """Submit a human's secret pre-lay; returns a message (never raises)."""
        try:
            self.game.pre_lay(seat, values, self.now())
        except IllegalAction as exc:
            self.message = str(exc)
        else:
            self.message = "pre-laid" if values else "nothing pre-laid"
            self._after_change()
        self._changed()
        return self.message

    def human_roll(self, seat: int) -> str:
        """The human takes the dice (only when it is his turn to roll)."""
        g = self.game
        if g.phase not in ("await_roll", "pass") or g.next_roller != seat:
            self.message = "it is not your turn to roll"
            self._changed()
            return self.message
        self._take_dice(seat)
        return self.message

    def human_lay(self, seat: int, value: int) -> str:
        """The human roller lays the card ``value``; returns a message (never raises)."""
        try:
            self.game.lay(seat, value, self.now())
        except IllegalAction as exc:
            self.message = str(exc)
        else:
            self.message = f"you lay your {value}"
            self._plan_knocks(overlooked=False)
            self._after_change()
        self._changed()
        return self.message

    def human_pass(self, seat: int) -> str:
        """The human roller passes the turn; returns a message."""
        g = self.game
        if g.phase != "turn" or g.roller != seat:
            self.message = "you can pass only during your own turn"
        else:
            self.scheduler.cancel("turn:pass")
            self._pass(seat)
            self.message = "you pass"
        self._changed()
        return self.message

    def human_knock(self, seat: int) -> str:
        """The human knocks; returns what came of it."""
        outcome = self._knock(seat)
        if outcome is not None:
            self.message = {
                "lay": f"you knocked first and lay your {outcome.card}",
                "roller_turns_back": f"you knocked first: the roller turns back his {outcome.card}",
                "too_slow": "right knock, but someone was faster",
                "penalty": f"wrong knock: you turn back your {outcome.card}",
                "no_penalty": "wrong knock (nothing laid down to turn back)",
            }[outcome.result]
            self._changed()
        return self.message


# ------------------------------------------------------------------------------------------
# Drivers
# ------------------------------------------------------------------------------------------


def run_headless(
    table: BaseTable | VariantTable, clock: VirtualClock, max_steps: int = 1_000_000
) -> None:
    """Play a table without people to the end on a virtual clock (instant, deterministic).

    Raises:
        RuntimeError: the table waits for a human (nothing is scheduled) or exceeds
            ``max_steps`` jobs.
    """
    table.start()
    steps = 0
    while not table.done:
        due = table.scheduler.next_due()
        if due is None:
            raise RuntimeError("the game waits for a human; headless games need bots only")
        if due > clock.now():
            clock.advance(due - clock.now())
        steps += table.run_due(clock.now())
        if steps > max_steps:
            raise RuntimeError(f"game did not end within {max_steps} actions")


async def run_realtime(
    table: BaseTable | VariantTable,
    wake: asyncio.Event,
    on_step: Callable[[], None] | None = None,
) -> None:
    """Drive ``table`` on its (real) clock until it is done, inside a running asyncio loop.

    Sleeps until the next job is due or until ``wake`` is set (a human acted), then runs what
    is due and calls ``on_step``. Timing errors land in ``table.scheduler.lags``.
    """
    table.start()
    while not table.done:
        due = table.scheduler.next_due()
        timeout = None if due is None else max(0.0, due - table.clock.now())
        if timeout is None or timeout > 0:
            try:
                await asyncio.wait_for(wake.wait(), timeout)
            except TimeoutError:
                pass
        wake.clear()
        if table.run_due() and on_step is not None:
            on_step()


def seat_names(players: int, humans: int = 0) -> dict[int, str]:
    """Seat → display name: ``human`` for seats ``0 .. humans-1``, ``bot<seat>`` for the rest."""
    return {s: ("human" if s < humans else f"bot{s}") for s in range(players)}


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
    pause: float | None = None,
) -> BaseTable | VariantTable:
    """Build a table of ``players`` seats; seats ``0 .. humans-1`` are people, the rest bots.

    Bot seeds derive from ``seed`` and the seat, so one seed fixes the whole game.

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
            game, bots, clock, human_seats, rounds=rounds, pause=2.0 if pause is None else pause
        )
    base = BaseGame(players, seed, rules, log)
    return BaseTable(base, bots, clock, human_seats, pause=1.5 if pause is None else pause)


# ------------------------------------------------------------------------------------------
# Text
# ------------------------------------------------------------------------------------------


def describe(
    event: Event,
    names: Mapping[int, str] | None = None,
    show_values: bool = True,
    origin: float = 0.0,
) -> str | None:
    """One line of text for an event, or ``None`` for events not worth printing.

    Pre-laid cards are secret: only their number is shown. ``show_values=False`` leaves out
    the values the dice make (a person playing has to form the sums himself). Times are
    printed in seconds after ``origin`` (seconds on the table's clock; a monotonic clock
    counts from boot, so the UI passes the clock's reading when the game opened), never
    below 0.
    """
    d = event.data
    who = (
        (names or {}).get(event.player, f"seat {event.player}") if event.player is not None else ""
    )
    t = f"{max(0.0, float(d.get('t', 0.0)) - origin):8.2f}s "
    kind = event.type
    if kind == "setup":
        return f"{t}setup: {d['players']} players, seed {d['seed']}"
    if kind == "roll":
        roller = f"{who} rolls " if event.player is not None else "roll "
        joker = " (joker throw)" if d.get("joker") else ""
        values = f" -> values {d['values']}" if show_values else ""
        return f"{t}{roller}{d['dice']}{values}{joker}"
    if kind == "cover":
        return f"{t}  {who} covers slot {chr(ord('a') + d['slot'])}"
    if kind == "displaced":
        return f"{t}  {who} is pushed off slot {chr(ord('a') + d['slot'])} (earlier hand)"
    if kind == "reveal":
        if d["correct"]:
            return f"{t}  {who} takes {d['value']} (+{d['points']})"
        back = f", hands back {d['handed_back']}" if d["handed_back"] else ""
        return f"{t}  {who} covered {d['value']}: wrong{back}"
    if kind == "clear":
        return f"{t}  no card could be taken: 11 cards removed"
    if kind == "game_over":
        return f"{t}game over: scores {d['scores']}"
    if kind == "round_start":
        first = (names or {}).get(d["roller"], f"seat {d['roller']}")
        return f"{t}round {d['round'] + 1} starts; {first} rolls first"
    if kind == "pre_lay":
        return f"{t}  {who} pre-lays {len(d['values'])} card(s) face down"
    if kind == "lay":
        extra = " (joker extra)" if d.get("extra") else ""
        return f"{t}  {who} lays {d['value']}{extra}"
    if kind == "pass":
        return f"{t}  {who} passes" + (" (overlooked a card)" if d.get("overlooked") else "")
    if kind == "knock":
        res = d["result"].replace("_", " ")
        card = f" {d['card']}" if d.get("card") is not None else ""
        return f"{t}  {who} knocks: {res}{card}"
    if kind == "round_over":
        return (
            f"{t}round over: {who} laid all cards; minus points {d['minus_points']}, "
            f"placements {d['placements']}, tallies {d['tallies']}"
        )
    return None
