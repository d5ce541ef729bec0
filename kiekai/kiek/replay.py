"""``kiekai replay``: print a Kiek game again from its JSON-lines log alone."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console

from kiekai.display import safe_text
from kiekai.events import Event, KiekAborted, KiekGameOver, KiekHeader, LogProblem, read_log
from kiekai.kiek.printer import EventPrinter

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
    """

    events: int
    problems: int
    cut_short: bool
    finished: bool


def replay(
    log_path: str | os.PathLike[str],
    console: Console | None = None,
    *,
    on_problem: Callable[[LogProblem], None] | None = None,
    max_problems: int = MAX_REPLAY_PROBLEMS,
) -> ReplayResult:
    """Print a game again from its JSON-lines log alone, line by line.

    Every line is checked (:func:`kiekai.events.read_log` with the Kiek event models); a
    line that is not a valid event is reported through ``on_problem`` with its line number
    and left out, and the replay goes on. A log that stops early (Ctrl-C, a crash) is
    printed up to where it stops, followed by a line saying so. All text from the log is
    made printable (:class:`EventPrinter`, :mod:`kiekai.kiek.describe`).

    Args:
        log_path: the log (a regular file of at most :data:`kiekai.events.MAX_LOG_BYTES`).
        console: where to print (default: a new Rich console on stdout).
        on_problem: receives each line left out; default: a yellow line on ``console``.
        max_problems: stop (ValueError) once more than this many lines were left out.

    Returns:
        A :class:`ReplayResult` (events printed, lines left out, whether the game ended).

    Raises:
        FileNotFoundError: no file at ``log_path`` (other ``OSError``: cannot be opened).
        ValueError: not a Kiek game log (its first line is not a valid Kiek ``header``), a
            :class:`kiekai.files.FileRefusedError` (not a regular file, too large), or more
            than ``max_problems`` bad lines; the message names the file and the reason.
    """
    console = console or Console()
    problems = 0
    cut_short = False
    header_seen = False

    def report(problem: LogProblem) -> None:
        nonlocal problems, cut_short
        if problem.cut_short:
            cut_short = True
        else:
            problems += 1
        if on_problem is not None:
            on_problem(problem)
        else:
            console.print(f"[yellow]{safe_text(problem)} (line left out)[/yellow]", highlight=False)
        if not header_seen:
            raise ValueError(
                f"{log_path} is not a Kiek game log: its first line should be the 'header' "
                f"event written by `kiekai play` ({problem})"
            )
        if problems > max_problems:
            raise ValueError(
                f"{log_path}: stopped after {problems} lines that are not valid events; "
                "this is not a Kiek game log"
            )

    printer = EventPrinter(console)
    count = 0
    last: Event | None = None
    finished = False
    for event in read_log(log_path, game="kiek", on_problem=report):
        if not header_seen:
            header = event.payload
            if not isinstance(header, KiekHeader) or header.game != "kiek":
                raise ValueError(
                    f"{log_path} is not a Kiek game log: the first line should be a 'header' "
                    "event written by `kiekai play`"
                )
            header_seen = True
        printer(event)
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
    return ReplayResult(events=count, problems=problems, cut_short=cut_short, finished=finished)
