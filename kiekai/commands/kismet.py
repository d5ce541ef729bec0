"""``kiekai kismet``: play Kismet (base game or variant) against reflex bots.

With ``--humans 1`` (the default) a Textual terminal UI opens; with ``--humans 0`` the bots
play alone on a virtual clock, and the game and the results are printed (no terminal UI).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NoReturn

import typer

from kiekai.clock import Clock, MonotonicClock, VirtualClock
from kiekai.commands import freeze_imported, path_value
from kiekai.display import printable
from kiekai.events import Event, EventLog
from kiekai.files import FileRefusedError
from kiekai.kismet.bots import LEVELS
from kiekai.kismet.rules import Rules
from kiekai.kismet.table import BaseTable, VariantTable, seat_names

#: Most variant rounds ``--rounds`` accepts: a headless round of 8 bots takes about 40 ms and
#: some 300 events, so 1000 rounds is under a minute and a few hundred thousand lines.
MAX_ROUNDS = 1000


class GuardedLog(EventLog):
    """An :class:`~kiekai.events.EventLog` whose file may fail mid-game without ending it.

    A full disk or a vanished device makes a write raise ``OSError`` inside a game action
    (a bot's cover, a human's key). Here the first failure closes the file and is kept in
    :attr:`write_error`; the game goes on with every event still in :attr:`events`, and the
    command reports the incomplete file at the end.

    Attributes:
        write_error: the first ``OSError`` from writing or closing the file, or ``None``.
        written: events written to the file before the failure.
    """

    def __init__(self, path: Path | None) -> None:
        super().__init__(path)
        self.write_error: OSError | None = None
        self.written = 0

    def append(self, event: Event) -> Event:
        """Record ``event``; write it to the file unless writing has already failed."""
        try:
            super().append(event)
        except OSError as exc:
            self._give_up(exc)
        else:
            if self.write_error is None and self.path is not None:
                self.written += 1
        return event

    def close(self) -> None:
        """Close the file; a failure to flush the last lines is recorded, not raised."""
        try:
            super().close()
        except OSError as exc:
            self._give_up(exc)

    def _give_up(self, exc: OSError) -> None:
        if self.write_error is None:
            self.write_error = exc
        handle, self._fh = self._fh, None
        if handle is not None:
            try:
                handle.close()
            except OSError:
                pass


def results_text(table: BaseTable | VariantTable, names: dict[int, str]) -> str:
    """The results of a finished (or interrupted) table as printable lines (small tables).

    Base game: cards won and plus points per player and the winner(s). Variant: the place in
    each round (for up to 8 rounds; longer matches show rounds won), the minus points summed
    over the rounds and the match winner(s) (fewest minus points); a match stopped before
    its last round names the leader(s) instead.
    """
    from kiekai.kismet.prose import plural, table_lines

    lines = ["", "results"]
    if isinstance(table, BaseTable):
        game = table.game
        scores = game.scores()
        rows = [
            (names[s], plural(len(game.piles[s]), "card"), scores[s]) for s in range(game.players)
        ]
        lines += ["  " + r for r in table_lines(("player", "won", "points"), rows)]
        if game.over:
            lines.append("  winner: " + ", ".join(names[s] for s in game.winners()))
        else:
            lines.append("  game not finished")
        return "\n".join(lines)
    variant_game = table.game
    history = variant_game.history
    if history:
        per_round = len(history) <= 8
        header = ["player"] + (
            [f"round {n} place" for n in range(1, len(history) + 1)]
            if per_round
            else ["rounds won"]
        )
        header.append("minus points")
        round_rows: list[list[object]] = []
        for seat in range(variant_game.players):
            places = [h[seat] for h in history]
            middle = places if per_round else [sum(p == 1 for p in places)]
            round_rows.append([names[seat], *middle, variant_game.tallies[seat]])
        lines += ["  " + r for r in table_lines(header, round_rows)]
    leaders = ", ".join(names[s] for s in variant_game.match_winners()) if history else ""
    if history and table.done:
        lines.append("  winner: " + leaders + " (fewest minus points)")
    elif history:
        lines.append(
            f"  match not finished after {len(history)} of {table.rounds} rounds; "
            f"leading: {leaders}"
        )
    else:
        lines.append("  no round finished")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add the ``kismet`` command to ``app``."""

    @app.command("kismet")
    def kismet(
        bots: int = typer.Option(
            3, "--bots", help="Number of reflex bots: 1-7 with you, 2-8 with --humans 0."
        ),
        humans: int = typer.Option(
            1, "--humans", help="1: you play in the terminal UI; 0: bots only, printed."
        ),
        variant: bool = typer.Option(
            False,
            "--variant/--base-game",
            help="Which game: --variant (each player's own 11 cards, knocking) or "
            "--base-game (the shared circle of cards).",
        ),
        level: str = typer.Option(
            "normal", "--level", help=f"Bot level: {_spelled(LEVELS)} (any case)."
        ),
        seed: int | None = typer.Option(
            None, "--seed", help="Seed for cards, dice and bots (random if omitted)."
        ),
        rounds: int | None = typer.Option(
            None,
            "--rounds",
            help="Variant only: rounds to play, 1-1000, default 3 (minus points are tallied).",
        ),
        rules: Path | None = typer.Option(
            None,
            "--rules",
            help="TOML rules file overriding chip points / pre-lay limit.",
            parser=path_value,
            metavar="PATH",
        ),
        log: Path | None = typer.Option(
            None,
            "--log",
            help="Append the game's events to this JSON-lines file.",
            parser=path_value,
            metavar="PATH",
        ),
    ) -> None:
        """Play Kismet against reflex bots with human-like reaction times."""
        if humans not in (0, 1):
            _fail(f"--humans must be 0 or 1 (got {humans})")
        level = _checked_level(level)
        _check_players(bots, humans)
        rounds = _check_rounds(rounds, variant)
        chosen_rules = _rules(rules)
        if humans == 1 and not (sys.stdin.isatty() and sys.stdout.isatty()):
            _fail("playing needs an interactive terminal; use --humans 0 to let bots play alone")
        if seed is None:
            seed = secrets.randbelow(10**6)
        names = seat_names(bots + humans, humans)
        event_log = _open_log(log)
        with event_log:
            table, clock = _table(
                bots, humans, variant, level, seed, rounds, chosen_rules, event_log
            )
            if isinstance(clock, VirtualClock):
                mode = "variant" if variant else "base game"
                typer.echo(f"Kismet {mode}: {bots} {level} bots, seed {seed}")
                _run_headless(table, clock, event_log, names, chosen_rules)
            else:

                def new_table() -> BaseTable | VariantTable:
                    fresh, _ = _table(
                        bots, humans, variant, level, secrets.randbelow(10**6), rounds,
                        chosen_rules, event_log,
                    )  # fmt: skip
                    return fresh

                _run_app(table, event_log, names, new_table)


def _spelled(names: Iterable[str]) -> str:
    """``"easy, normal, hard or expert"``: names listed for a help text."""
    listed = list(names)
    return f"{', '.join(listed[:-1])} or {listed[-1]}" if len(listed) > 1 else "".join(listed)


def _fail(message: str) -> NoReturn:
    """Print a user error (no traceback) and exit with status 2; paths and values in it are
    shown escaped (:func:`kiekai.display.printable`)."""
    typer.echo(f"kiekai kismet: {printable(message)}", err=True)
    raise typer.Exit(2)


def _checked_level(level: str) -> str:
    """``--level`` in lower case (``--level EXPERT`` works too); exits 2 when unknown."""
    level = level.strip().lower()
    if level not in LEVELS:
        _fail(f"--level {level!r} is unknown; choose one of {', '.join(LEVELS)}")
    return level


def _check_players(bots: int, humans: int) -> None:
    """Exit 2 unless the table seats Kismet's :data:`~kiekai.kismet.engine.MIN_PLAYERS` to
    :data:`~kiekai.kismet.engine.MAX_PLAYERS` players (one card set each)."""
    from kiekai.kismet.engine import MAX_PLAYERS, MIN_PLAYERS

    if not MIN_PLAYERS <= bots + humans <= MAX_PLAYERS:
        low, high = MIN_PLAYERS - humans, MAX_PLAYERS - humans
        people = "you and " if humans else ""
        _fail(
            f"--bots must be {low} to {high} with --humans {humans} (got {bots}): Kismet "
            f"seats {MIN_PLAYERS} to {MAX_PLAYERS} players, {people}the bots, one card "
            "set each; change --bots"
        )


def _check_rounds(rounds: int | None, variant: bool) -> int:
    """``--rounds`` checked: 1 to :data:`MAX_ROUNDS` in the variant (default 3); exits 2
    when it is given for the base game, which has no rounds to count: it ends when the draw
    pile cannot refill the circle (rulebook, "End of Game and Scoring")."""
    if not variant:
        if rounds is not None:
            _fail(
                f"--rounds {rounds} counts rounds of the variant; the base game ends when the "
                "draw pile cannot refill the circle (rulebook, End of Game and Scoring): leave "
                "--rounds out, or add --variant"
            )
        return 1
    if rounds is None:
        return 3
    if rounds < 1:
        _fail(f"--rounds must be at least 1 (got {rounds})")
    if rounds > MAX_ROUNDS:
        _fail(
            f"--rounds must be at most {MAX_ROUNDS} (got {rounds}); a match that long "
            f"would run for hours and hold every event in memory"
        )
    return rounds


def _rules(path: Path | None) -> Rules:
    """The rules from ``--rules`` (the rulebook's without it); exits 2 on a bad file."""
    from kiekai.kismet.rules import DEFAULT_RULES, RulesFileError, load_rules

    try:
        return load_rules(path) if path is not None else DEFAULT_RULES
    except RulesFileError as exc:
        _fail(str(exc))


def _open_log(log: Path | None) -> GuardedLog:
    """The game's event log (appending to ``--log`` when given); exits 2 when it cannot be
    opened."""
    try:
        return GuardedLog(log)
    except FileRefusedError as exc:
        _fail(f"the log {log} is {exc.reason}; give a file name for the log (or leave --log out)")
    except OSError as exc:
        _fail(f"cannot open the log file {log} for appending ({exc}); choose a writable path")


def _table(
    bots: int,
    humans: int,
    variant: bool,
    level: str,
    seed: int,
    rounds: int,
    rules: Rules,
    event_log: GuardedLog,
) -> tuple[BaseTable | VariantTable, Clock]:
    """The table and its clock: a virtual clock for bots alone (the same seed prints the
    same game), real time with a person."""
    from kiekai.kismet.table import make_table

    # a person's game counts from 0 s at its setup, like a headless one (the log's ``t``)
    clock: Clock = VirtualClock() if humans == 0 else MonotonicClock.from_now()
    table = make_table(
        bots + humans,
        variant=variant,
        seed=seed,
        clock=clock,
        level=level,
        humans=humans,
        rules=rules,
        log=event_log,
        rounds=rounds,
    )
    return table, clock


def _check_log(event_log: GuardedLog) -> None:
    """Close the log; exit 1 naming the file when writing it failed during the game."""
    event_log.close()
    error = event_log.write_error
    if error is not None:
        typer.echo(
            f"kiekai kismet: writing the log {event_log.path} failed after {event_log.written} "
            f"events ({error.strerror or error}); the game went on, but the file is "
            f"incomplete: free some space or choose another --log",
            err=True,
        )
        raise typer.Exit(1)


#: Lines of a bots-only game's printout written at once (:func:`_run_headless`).
PRINT_PAGE_LINES = 512


def _run_headless(
    table: BaseTable | VariantTable,
    clock: VirtualClock,
    event_log: GuardedLog,
    names: dict[int, str],
    rules: Rules,
) -> None:
    """Bots alone: play to the end, print the game and the results (Ctrl-C: the results so
    far, status 130)."""
    from kiekai.kismet.table import printout, run_headless

    freeze_imported()
    try:
        run_headless(table, clock)
    except KeyboardInterrupt:
        typer.echo("interrupted")
        typer.echo(results_text(table, names))
        _check_log(event_log)
        raise typer.Exit(130) from None
    # one write per page of lines: a 300-round game prints 70,000 lines, and an echo (and a
    # flush) per line was a tenth of the game's time
    page: list[str] = []
    for line in printout(event_log.events, names, rules):
        page.append(line)
        if len(page) == PRINT_PAGE_LINES:
            typer.echo("\n".join(page))
            page.clear()
    if page:
        typer.echo("\n".join(page))
    typer.echo(results_text(table, names))
    _check_log(event_log)


def _run_app(
    table: BaseTable | VariantTable,
    event_log: GuardedLog,
    names: dict[int, str],
    new_table: Callable[[], BaseTable | VariantTable] | None = None,
) -> None:
    """A person and bots: the Textual terminal UI (``n`` at the end plays again with
    ``new_table``), then the results of every game; a stop by a signal exits with its
    status (130, 143 or 129)."""
    from kiekai.ui.kismet_app import KismetApp

    app = KismetApp(table, names=names, realtime=True, new_table=new_table)
    freeze_imported()
    app.run()
    for played in [*app.finished, app.table]:
        typer.echo(f"Kismet, seed {played.game.seed}")
        if played is app.table and app.return_code:  # Ctrl-C (130), SIGTERM, SIGHUP
            typer.echo("interrupted")
        typer.echo(results_text(played, names))
    _check_log(event_log)
    if app.return_code:
        raise typer.Exit(app.return_code)
