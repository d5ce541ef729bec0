"""``kiekai replay`` on a Kismet log: print the game and check it against the rules.

:func:`audit_kismet` plays the logged game again through the engine
(:class:`~kiekai.kismet.engine.BaseGame` or :class:`~kiekai.kismet.engine.VariantGame`)
from the ``setup`` line's seed: each player's action (a cover, a roll, a pre-lay, a lay, a
pass, a knock) is applied in order, so the seeded dice and the rules decide what follows,
and every event the engine writes (the dice, reveals and points, refills, the end, each
round's minus points and tallies) must be the log's next line, field for field
(:func:`kiekai.log_check.compare_events`). The first line that differs, or an action the
rules refuse, is the :class:`~kiekai.log_check.Contradiction` reported with its line.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.console import Console

from kiekai.display import safe_text
from kiekai.events import (
    Event,
    KismetGameOver,
    KismetSetup,
    LogProblem,
    ProblemTally,
    read_numbered_log,
)
from kiekai.kismet.engine import (
    BaseGame,
    IllegalAction,
    VariantGame,
    _replay_base,
    _replay_variant,
)
from kiekai.kismet.prose import printout
from kiekai.kismet.rules import DEFAULT_RULES, Rules
from kiekai.log_check import Contradiction, LogContradicted, compare_events

if TYPE_CHECKING:
    from kiekai.kiek.replay import ReplayResult


class _KismetAudit:
    """One audit of one Kismet log (see :func:`audit_kismet`)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.game: BaseGame | VariantGame | None = None
        self.pending: deque[Event] = deque()
        self.seen = 0
        self.over_line: int | None = None

    def step(self, line: int, event: Event) -> None:
        data = event.payload
        if self.over_line is not None:
            raise LogContradicted(
                line,
                f"a {event.type!r} event after the end of the game (line {self.over_line}): "
                "a log holds one game",
            )
        if self.game is None:
            if not isinstance(data, KismetSetup):
                raise LogContradicted(line, "a Kismet log starts with its 'setup' event")
            self.build(line, data)
        elif not self.pending:
            self.act(line, event)
        if not self.pending:
            raise LogContradicted(
                line,
                f"the rules give no {event.type!r} event here (the game is at {self.where()})",
            )
        rebuilt = self.pending.popleft()
        difference = compare_events(event, rebuilt)
        if difference is not None:
            raise LogContradicted(line, f"{event.type}: {difference}")
        if isinstance(rebuilt.payload, KismetGameOver):
            self.over_line = line

    def where(self) -> str:
        game = self.game
        assert game is not None
        return f"round {game.round}, phase {game.phase!r}"

    def build(self, line: int, setup: KismetSetup) -> None:
        try:
            if setup.game == "variant":
                self.game = VariantGame(
                    setup.players, setup.seed, self.rules, None, int(setup.first_roller or 0)
                )
            else:
                self.game = BaseGame(setup.players, setup.seed, self.rules, None)
        except ValueError as exc:
            raise LogContradicted(line, f"setup: {exc}") from None
        self.collect()

    def collect(self) -> None:
        game = self.game
        assert game is not None
        self.pending.extend(game.log.events[self.seen :])
        self.seen = len(game.log.events)

    def act(self, line: int, event: Event) -> None:
        game, data = self.game, event.payload
        assert game is not None and data is not None
        players = game.players
        if event.player is not None and event.player >= players:
            raise LogContradicted(
                line, f"{event.type}: seat {event.player} is not one of the {players} at the table"
            )
        try:
            if isinstance(game, BaseGame):
                _replay_base(game, event, data)
            else:
                _replay_variant(game, event, data)
        except (IllegalAction, ValueError) as exc:
            raise LogContradicted(line, f"{event.type}: the rules refuse it: {exc}") from None
        self.collect()


def audit_kismet(
    events: Sequence[tuple[int, Event]], rules: Rules = DEFAULT_RULES
) -> Contradiction | None:
    """Play the game of a Kismet log again through the rules; its first contradiction.

    Args:
        events: ``(line number, checked event)`` pairs in log order, ``setup`` first
            (:func:`kiekai.events.read_numbered_log` with ``game="kismet"``), up to the
            first line left out.
        rules: the chip points the game was played with (they are not logged).

    Returns:
        the first :class:`~kiekai.log_check.Contradiction`, or ``None``. A log that stops
        early is no contradiction.
    """
    audit = _KismetAudit(rules)
    try:
        for line, event in events:
            audit.step(line, event)
    except LogContradicted as exc:
        return exc.contradiction
    return None


def replay_kismet(
    log_path: str | os.PathLike[str],
    console: Console,
    *,
    on_problem: Callable[[LogProblem], None] | None = None,
    max_problems: int = 50,
    on_contradiction: Callable[[Contradiction], None] | None = None,
    rules: Rules | None = None,
) -> ReplayResult:
    """``kiekai replay`` for a Kismet log: print the game (:func:`kiekai.kismet.prose.printout`)
    and report the first line the rules contradict (:func:`audit_kismet`).

    Arguments and result as :func:`kiekai.kiek.replay.replay`; ``rules``: the chip points
    the game was played with (``kiekai kismet --rules``), default the rulebook's. A
    contradiction found with the rulebook's points says that another rules file may explain
    it.

    Raises:
        ValueError: more than ``max_problems`` lines are not valid events.
    """
    from kiekai.kiek.replay import ReplayResult, report_contradiction  # noqa: F811

    def show(problem: LogProblem) -> None:
        console.print(f"[yellow]{safe_text(problem)} (line left out)[/yellow]", highlight=False)

    tally = ProblemTally(log_path, "Kismet", max_problems, on_problem or show)

    def report(problem: LogProblem) -> None:
        tally(problem)
        tally.check()

    numbered = list(read_numbered_log(log_path, game="kismet", on_problem=report))
    events = [event for _, event in numbered]
    for text in printout(events, rules=rules or DEFAULT_RULES):
        console.print(safe_text(text), highlight=False)
    checked = [
        (line, e) for line, e in numbered if tally.first_bad is None or line < tally.first_bad
    ]
    contradiction = audit_kismet(checked, rules or DEFAULT_RULES)
    if contradiction is not None and rules is None:
        contradiction = Contradiction(
            contradiction.line,
            contradiction.message + " (by the rulebook's chip points: a game played with "
            "`kiekai kismet --rules FILE` replays with `kiekai replay --rules FILE`)",
        )
    if contradiction is not None:
        report_contradiction(contradiction, console, on_contradiction)
    finished = any(isinstance(e.payload, KismetGameOver) for e in events) or (
        bool(events) and events[-1].type == "round_over"
    )
    return ReplayResult(
        events=len(events),
        problems=tally.problems,
        cut_short=tally.cut_short,
        finished=finished,
        contradiction=contradiction,
        game="kismet",
    )
