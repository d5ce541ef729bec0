"""``kiekai replay``: print a Kiek game again from its JSON-lines log alone."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from kiekai.display import safe_text
from kiekai.events import (
    Event,
    KiekAborted,
    KiekGameOver,
    KiekHeader,
    KismetSetup,
    LogProblem,
    ProblemTally,
    read_numbered_log,
)
from kiekai.kiek.audit import audit_kiek
from kiekai.kiek.printer import EventPrinter
from kiekai.log_check import Contradiction

if TYPE_CHECKING:
    from kiekai.kismet.rules import Rules

#: Bad lines after which :func:`replay` stops: a file with this many is no longer a game log
#: with a few damaged lines (and a huge file of junk must not print millions of warnings).
MAX_REPLAY_PROBLEMS = 50


@dataclass(frozen=True)
class ReplayResult:
    """What :func:`replay` printed.

    Attributes:
        events: events printed (header included).
        problems: lines left out because they are not valid events (a last line cut short
            by a crash is not counted: see ``cut_short``).
        cut_short: the last line was cut short mid-write (a game killed while logging).
        finished: the log reaches the end of the game (``game-over`` or ``aborted``).
        contradiction: the first line the rules or the log's own arithmetic contradict
            (:func:`kiekai.kiek.audit.audit_kiek`), or ``None``; the rules are checked up
            to the first line left out.
        game: ``"kiek"`` or ``"kismet"``.
    """

    events: int
    problems: int
    cut_short: bool
    finished: bool
    contradiction: Contradiction | None = None
    game: str = "kiek"


def replay(
    log_path: str | os.PathLike[str],
    console: Console | None = None,
    *,
    on_problem: Callable[[LogProblem], None] | None = None,
    max_problems: int = MAX_REPLAY_PROBLEMS,
    on_contradiction: Callable[[Contradiction], None] | None = None,
    kismet_rules: Rules | None = None,
) -> ReplayResult:
    """Print a game again from its JSON-lines log alone, line by line, and check it
    against the rules.

    Every line is checked (:func:`kiekai.events.read_log` with the Kiek event models); a
    line that is not a valid event is reported through ``on_problem`` with its line number
    and left out, and the replay goes on. A log that stops early (Ctrl-C, a crash) is
    printed up to where it stops, followed by a line saying so. All text from the log is
    made printable (:class:`EventPrinter`, :mod:`kiekai.kiek.describe`).

    Then the game is played again through the engine from the log's seed and actions
    (:func:`kiekai.kiek.audit.audit_kiek`: verdicts as the log records them, so neither the
    deck nor the models are needed); the first line that contradicts the rules or the
    log's own arithmetic (scores, stakes, winner, turn order, seats, the deal) is reported
    through ``on_contradiction`` (default: a red line on ``console``) and returned in the
    result. A Kismet log (first line a Kismet ``setup``) is printed and checked the same
    way (:func:`kiekai.kismet.audit.replay_kismet`).

    Args:
        log_path: the log (a regular file of at most :data:`kiekai.events.MAX_LOG_BYTES`).
        console: where to print (default: a new Rich console on stdout).
        on_problem: receives each line left out; default: a yellow line on ``console``.
        max_problems: stop (ValueError) once more than this many lines were left out.
        on_contradiction: receives the first contradiction; default: a red line on
            ``console``.
        kismet_rules: the chip points a Kismet game was played with (``kiekai kismet
            --rules``; they are not logged); default: the rulebook's.

    Returns:
        A :class:`ReplayResult` (events printed, lines left out, whether the game ended).

    Raises:
        FileNotFoundError: no file at ``log_path`` (other ``OSError``: cannot be opened).
        ValueError: not a Kiek game log (its first line is not a valid Kiek ``header``), a
            :class:`kiekai.files.FileRefusedError` (not a regular file, too large), or more
            than ``max_problems`` bad lines; the message names the file and the reason.
    """
    console = console or Console()
    if kismet_log(log_path):
        from kiekai.kismet.audit import replay_kismet

        return replay_kismet(
            log_path,
            console,
            on_problem=on_problem,
            max_problems=max_problems,
            on_contradiction=on_contradiction,
            rules=kismet_rules,
        )
    return _replay_kiek(log_path, console, on_problem, max_problems, on_contradiction)


def _replay_kiek(
    log_path: str | os.PathLike[str],
    console: Console,
    on_problem: Callable[[LogProblem], None] | None,
    max_problems: int,
    on_contradiction: Callable[[Contradiction], None] | None,
) -> ReplayResult:
    """:func:`replay` of a Kiek log (arguments, result and errors as there)."""
    header_seen = False

    def show(problem: LogProblem) -> None:
        console.print(f"[yellow]{safe_text(problem)} (line left out)[/yellow]", highlight=False)

    tally = ProblemTally(log_path, "Kiek", max_problems, on_problem or show)

    def report(problem: LogProblem) -> None:
        tally(problem)
        if not header_seen:
            raise ValueError(
                f"{log_path} is not a Kiek game log: its first line should be the 'header' "
                f"event written by `kiekai play` ({problem})"
            )
        tally.check()

    printer = EventPrinter(console)
    count = 0
    last: Event | None = None
    finished = False
    numbered: list[tuple[int, Event]] = []
    for line, event in read_numbered_log(log_path, game="kiek", on_problem=report):
        if not header_seen:
            header = event.payload
            if not isinstance(header, KiekHeader) or header.game != "kiek":
                raise ValueError(
                    f"{log_path} is not a Kiek game log: the first line should be a 'header' "
                    "event written by `kiekai play`"
                )
            header_seen = True
        printer(event)
        if tally.first_bad is None:
            numbered.append((line, event))
        count += 1
        last = event
        finished = finished or isinstance(event.payload, (KiekGameOver, KiekAborted))
    if last is None:
        raise ValueError(
            f"{log_path} is not a Kiek game log: it holds no event (a game log starts with "
            "a 'header' line written by `kiekai play`)"
        )
    if not finished:
        console.print(
            f"The log ends at turn {last.turn + 1}, before the game did (the program was stopped).",
            highlight=False,
        )
    contradiction = _audited(numbered, console, on_contradiction)
    return ReplayResult(
        events=count,
        problems=tally.problems,
        cut_short=tally.cut_short,
        finished=finished,
        contradiction=contradiction,
    )


def _audited(
    numbered: list[tuple[int, Event]],
    console: Console,
    on_contradiction: Callable[[Contradiction], None] | None,
) -> Contradiction | None:
    """The first contradiction of the events (:func:`audit_kiek`), reported."""
    contradiction = audit_kiek(numbered)
    if contradiction is not None:
        report_contradiction(contradiction, console, on_contradiction)
    return contradiction


def report_contradiction(
    found: Contradiction,
    console: Console,
    on_contradiction: Callable[[Contradiction], None] | None,
) -> None:
    """Pass ``found`` to ``on_contradiction``, or print it in red on ``console``."""
    if on_contradiction is not None:
        on_contradiction(found)
    else:
        console.print(
            f"[red]The rules contradict the log at {safe_text(found)}[/red]", highlight=False
        )


def kismet_log(log_path: str | os.PathLike[str]) -> bool:
    """Whether the log's first event is a Kismet ``setup`` (``game`` base or variant): what
    ``kiekai kismet`` writes first (a Kiek log starts with its ``header``). A file that
    cannot be read is not (the Kiek replay then says why)."""

    def stop(problem: LogProblem) -> None:
        raise ValueError(str(problem))  # the first line is no Kismet event: not a Kismet log

    try:
        for _, event in read_numbered_log(log_path, game="kismet", on_problem=stop):
            return isinstance(event.payload, KismetSetup)
    except (OSError, ValueError):
        return False
    return False
