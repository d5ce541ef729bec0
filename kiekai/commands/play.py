"""``kiekai play`` (a game of Kiek against bots, or bots alone) and ``kiekai replay LOG``.

Thin: the rules are in :mod:`kiekai.kiek.engine`, the game loop and the log in
:mod:`kiekai.kiek.game`, the human seat in :mod:`kiekai.ui.kiek_terminal`. Heavy imports
(the judge's WordNet, perception models, bots) happen inside the command so that
``kiekai --help`` stays fast. User errors (bad numbers, a missing or empty deck, a deck too
small) print one message naming the fix and exit with status 2; a game stopped by EOF on
stdin exits 1, by Ctrl-C 130; the log is kept either way.
"""

from __future__ import annotations

import random
import shlex
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.console import Console

from kiekai.commands import command_resources, path_value
from kiekai.display import safe_text
from kiekai.files import FileRefusedError
from kiekai.kiek.rules import TURN_SECONDS

if TYPE_CHECKING:
    from kiekai.perception.base import Perception

#: Most rounds ``--rounds`` accepts. The rulebook plays 3 and allows more ("It is possible to
#: keep on playing"), each using up words (ne bis in idem): a round of n players writes up to
#: n x n words, so by 100 rounds even 3 players have written 900 words, over half of the
#: bots' 1,566-word vocabulary, and 8 players would need 6,400. A round of 8 people takes up
#: to 16 minutes (two a turn), so 100 rounds is over a day's play; the log stays under 5 MB.
MAX_ROUNDS = 100
#: Exit status for a user error (bad option values, unusable deck): click's usage status.
EXIT_USAGE = 2
#: Exit status when the input ended mid-game.
EXIT_EOF = 1
#: Exit status of ``kiekai replay`` when lines of the log were left out (not valid events).
EXIT_PARTIAL = 1
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPT = 130


class PerceptionKind(StrEnum):
    """``--perception`` (:data:`kiekai.perception.KINDS`): CLIP when it loads, else labels.csv
    where present, the classifier for unlabelled photos and colours from the pixels (auto);
    or one of CLIP, labels.csv, the classifier with colours (pixels only), colours only."""

    AUTO = "auto"
    CLIP = "clip"
    LABELS = "labels"
    CLASSIFIER = "classifier"
    COLOUR = "colour"


class StrictnessChoice(StrEnum):
    """``--strictness``: how close a guess must be (rulebook "Imperfect Guesses")."""

    STRICT = "strict"
    STANDARD = "standard"
    LENIENT = "lenient"


class LevelChoice(StrEnum):
    """``--level``: the bots' strength (vocabulary and noise)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


def default_log_path(seed: int) -> Path:
    """A new log file in the user data dir: ``<data>/games/kiek-<UTC time>-seed<seed>.jsonl``."""
    from platformdirs import user_data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return Path(user_data_dir("kiekai")) / "games" / f"kiek-{stamp}-seed{seed}.jsonl"


def _fail(err: Console, message: str, code: int = EXIT_USAGE) -> typer.Exit:
    err.print(f"[red]Error:[/red] {safe_text(message)}", highlight=False)
    return typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add the ``play`` and ``replay`` commands to ``app``."""

    @app.command("play")
    def play(
        bots: Annotated[int, typer.Option(help="Bot players (3 to 8 players in all).")] = 3,
        humans: Annotated[
            int, typer.Option(help="People at this terminal; 0 lets the bots play alone.")
        ] = 1,
        deck: Annotated[
            Path | None,
            typer.Option(
                help="Folder of photos (optionally with labels.csv); default: the embedded deck.",
                parser=path_value,
                metavar="PATH",
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(help="Seed for the shuffle and the bots (same seed, same game)."),
        ] = None,
        perception: Annotated[
            PerceptionKind, typer.Option(help="How bots see the photos.", case_sensitive=False)
        ] = PerceptionKind.AUTO,
        strictness: Annotated[
            StrictnessChoice,
            typer.Option(help="Which guesses match (the judge's level).", case_sensitive=False),
        ] = StrictnessChoice.STANDARD,
        level: Annotated[
            LevelChoice, typer.Option(help="Bot strength.", case_sensitive=False)
        ] = LevelChoice.NORMAL,
        rounds: Annotated[
            int,
            typer.Option(
                help=f"Rounds to play, 1 to {MAX_ROUNDS}: 3 by the rulebook; more are extra rounds at x3."
            ),
        ] = 3,
        log: Annotated[
            Path | None,
            typer.Option(
                help="JSON-lines game log (default: a new file in the user data dir).",
                parser=path_value,
                metavar="PATH",
            ),
        ] = None,
        clip_model: Annotated[
            str | None, typer.Option(help="open_clip model name for the clip perception.")
        ] = None,
        clip_checkpoint: Annotated[
            Path | None,
            typer.Option(
                help="Local open_clip checkpoint file (with --clip-model).",
                parser=path_value,
                metavar="PATH",
            ),
        ] = None,
        house_rules: Annotated[
            Path | None,
            typer.Option(
                help="The table's house-rules file: read before the judge, and rulings made at "
                "the reveal are saved to it (default: house-rules.tsv in the user data dir).",
                parser=path_value,
                metavar="PATH",
            ),
        ] = None,
        turn_seconds: Annotated[
            float,
            typer.Option(help="Seconds per turn: 120 by the rulebook (a house variant otherwise)."),
        ] = TURN_SECONDS,
        web: Annotated[
            bool,
            typer.Option("--web", help="Play at a table in the browser instead of the terminal."),
        ] = False,
        seats: Annotated[
            int | None,
            typer.Option(
                help="With --web: seats for people, each with its own link (default: --humans)."
            ),
        ] = None,
        host: Annotated[
            str,
            typer.Option(
                help="With --web: the address to listen on; 0.0.0.0 lets other devices join."
            ),
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="With --web: the port (0 = a free one).")] = 0,
        open_browser: Annotated[
            bool,
            typer.Option(
                "--open/--no-open", help="With --web: open the first seat in the default browser."
            ),
        ] = True,
    ) -> None:
        """Play a game of Kiek: split five photos 3 against 2 with one word; guess the others' words."""
        out = Console(highlight=False, emoji=False)
        err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
        command_resources()  # the judge, bots and perception of this game read these
        try:
            code = _play(
                out,
                err,
                bots=bots,
                humans=humans,
                deck=deck,
                seed=seed,
                perception=perception.value,
                strictness=strictness.value,
                level=level.value,
                rounds=rounds,
                log=log,
                clip_model=clip_model,
                clip_checkpoint=clip_checkpoint,
                house_rules=house_rules,
                turn_seconds=turn_seconds,
                web=web,
                seats=seats,
                host=host,
                port=port,
                open_browser=open_browser,
            )
        except KeyboardInterrupt:
            err.print("Stopped with Ctrl-C before the game began.")
            raise typer.Exit(EXIT_INTERRUPT) from None
        if code:
            raise typer.Exit(code)

    @app.command("replay")
    def replay_command(
        log: Annotated[
            Path,
            typer.Argument(
                help="A game log written by `kiekai play`.", parser=path_value, metavar="PATH"
            ),
        ],
    ) -> None:
        """Print a game of Kiek again from its JSON-lines log alone.

        Every line is checked; a line that is not a valid event is reported on stderr with its
        line number and left out. Exit status: 0 when every line was printed, 1 when some
        lines were left out, 2 when the file cannot be replayed (missing, not a regular file,
        too large, not a Kiek game log).
        """
        from kiekai.events import LogProblem
        from kiekai.kiek.game import replay

        err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

        def problem(found: LogProblem) -> None:
            if found.cut_short:
                err.print(
                    f"{safe_text(log)}: the last line is cut short (the game was stopped while "
                    "writing it); it is left out."
                )
            else:
                err.print(f"[yellow]{safe_text(log)}: {safe_text(found)}; line left out[/yellow]")

        try:
            result = replay(log, Console(highlight=False, emoji=False), on_problem=problem)
        except FileNotFoundError:
            raise _fail(err, f"no game log at {log}; give the path `kiekai play` printed") from None
        except IsADirectoryError:
            raise _fail(err, f"{log} is a folder; give a game log file (.jsonl)") from None
        except FileRefusedError as exc:
            raise _fail(
                err, f"cannot replay {log}: {exc.reason}; give a game log file (.jsonl)"
            ) from None
        except OSError as exc:
            raise _fail(err, f"cannot read {log}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise _fail(err, f"cannot replay: {exc}") from None
        if result.problems:
            lines = "line was" if result.problems == 1 else "lines were"
            err.print(
                f"{result.problems} {lines} left out of {safe_text(log)} (not valid events; "
                "see above)."
            )
            raise typer.Exit(EXIT_PARTIAL)


def _play(
    out: Console,
    err: Console,
    *,
    bots: int,
    humans: int,
    deck: Path | None,
    seed: int | None,
    perception: str,
    strictness: str,
    level: str,
    rounds: int,
    log: Path | None,
    clip_model: str | None,
    clip_checkpoint: Path | None,
    house_rules: Path | None = None,
    turn_seconds: float = TURN_SECONDS,
    web: bool = False,
    seats: int | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    open_browser: bool = True,
) -> int:
    """The body of ``kiekai play``; returns the exit status (raises ``typer.Exit`` on user errors)."""
    from kiekai.kiek.engine import MAX_PLAYERS, MIN_PLAYERS

    if web:
        if seats is None:
            seats = humans
        if seats < 1:
            raise _fail(
                err, f"--web needs at least one seat for a person (--seats 1 or more), got {seats}"
            )
        humans = seats
    elif seats is not None:
        raise _fail(
            err, "--seats is for the browser table: add --web, or use --humans at the terminal"
        )
    if not 0 <= port <= 65535:
        raise _fail(err, f"--port must be 0 (a free port) to 65535, got {port}")
    if not 1.0 <= turn_seconds <= 3600.0:
        raise _fail(
            err, f"--turn-seconds must be 1 to 3600 (120 by the rulebook), got {turn_seconds:g}"
        )
    if bots < 0 or humans < 0:
        raise _fail(err, f"--bots and --humans cannot be negative (got {bots} and {humans})")
    players_n = bots + humans
    if not MIN_PLAYERS <= players_n <= MAX_PLAYERS:
        raise _fail(
            err,
            f"Kiek is for {MIN_PLAYERS} to {MAX_PLAYERS} players; --bots {bots} --humans "
            f"{humans} makes {players_n}: change --bots or --humans",
        )
    if not 1 <= rounds <= MAX_ROUNDS:
        raise _fail(
            err,
            f"--rounds must be from 1 to {MAX_ROUNDS} (3 is a whole game by the rulebook; more "
            f"are extra rounds), got {rounds}",
        )
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    elif seed < 0:
        raise _fail(
            err, f"--seed must be 0 or more (numpy's seeding takes no negative seeds), got {seed}"
        )
    if log is not None and log.exists() and (not log.is_file() or log.stat().st_size > 0):
        raise _fail(
            err,
            f"--log {log} already exists; a game log holds one game: give a new file name "
            "(or leave --log out for a fresh file in the user data dir)",
        )

    listening = None
    if web:  # a wrong --host or a busy --port fails now, not after the deck and the judge
        from kiekai.web.server import listen

        try:
            listening = listen(host, port)
        except OSError as exc:
            raise _fail(err, f"{exc}: pick another --port (0 = a free one) or --host") from None

    cards, deck_name = _load_cards(err, deck, players_n)

    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules, HouseRulesError, default_path

    rules_path = house_rules if house_rules is not None else default_path()
    try:
        table_rules = HouseRules.load(rules_path, missing_ok=True)
    except HouseRulesError as exc:
        raise _fail(err, f"{exc} (or pass --house-rules with another file)") from None

    try:
        # the judge applies the table's rulings itself; the runner saves new ones to the
        # same object (one house-rules path for matches and ne bis in idem)
        judge = Judge(strictness, house_rules=table_rules)
    except (OSError, LookupError, ValueError) as exc:
        raise _fail(err, f"the judge cannot start: {exc}") from None

    perception_name = "none"
    bot_perception = None
    if bots:
        from kiekai.perception import load_perception

        try:
            bot_perception, usable = load_perception(
                perception,
                cards,
                clip_model=clip_model,
                clip_checkpoint=clip_checkpoint,
                echo=lambda line: out.print(safe_text(str(line)), highlight=False),
            )
        except (ValueError, RuntimeError, FileNotFoundError, OSError) as exc:
            raise _fail(err, str(exc)) from None
        cards = list(usable)
        perception_name = getattr(bot_perception, "name", perception)
        from kiekai.deck import DeckTooSmallError, check_deck_size

        try:
            check_deck_size(cards, players_n)
        except DeckTooSmallError as exc:
            raise _fail(err, f"{deck_name} with the {perception_name} perception: {exc}") from None

    from kiekai.display import card_names as name_cards

    names_of_cards = name_cards(cards)
    log_path = log if log is not None else default_log_path(seed)
    err.print(f"Game log: {safe_text(str(log_path))}", highlight=False)
    err.print(
        f"House rules: {safe_text(str(rules_path))} ({len(table_rules)} ruling"
        f"{'' if len(table_rules) == 1 else 's'})",
        highlight=False,
    )

    from kiekai.clock import MonotonicClock, VirtualClock
    from kiekai.events import EventLog
    from kiekai.kiek.game import EventPrinter, GameAborted, play_game

    human_names = ["You"] if humans == 1 and not web else [f"Player {i + 1}" for i in range(humans)]
    names = human_names + [f"Bot {i + 1}" for i in range(bots)]
    # People need real time; bots alone play on a virtual clock so that a slow machine
    # cannot change the game (the same seed prints the same game).
    clock = MonotonicClock() if humans else VirtualClock()

    def make_bot(seat: int, name: str):
        from kiekai.kiek.bots import KiekBot

        return KiekBot(
            name,
            perception=cast("Perception", bot_perception),  # loaded: there are bots
            judge=judge,
            level=level,
            # bots at seats humans.. are seeded by their bot number (the same bots whatever
            # the number of people); a person's seat taken over by a bot (web) gets its own
            seed=seed * 100 + (seat - humans + 1 if seat >= humans else 50 + seat),
        )

    if humans and not web:
        # The first verdicts need WordNet and MiniLM: load them before the clock runs.
        try:
            judge.warm_up()
        except RuntimeError as exc:
            raise _fail(err, f"the judge cannot start: {exc}") from None
    players: list = []
    if humans and not web:
        from kiekai.ui.kiek_terminal import LineReader, TerminalKiekPlayer

        reader = LineReader()
        sheet_dir = log_path.parent / f"{log_path.stem}-cards"
        for name in human_names:
            players.append(
                TerminalKiekPlayer(
                    name,
                    judge=judge,
                    console=out,
                    reader=reader,
                    clock=clock,
                    names=names,
                    card_names=names_of_cards,
                    sheet_dir=sheet_dir,
                )  # fmt: skip
            )
    if bots and not web:
        for index in range(bots):
            players.append(make_bot(humans + index, names[humans + index]))

    try:
        event_log = EventLog(log_path)
    except FileRefusedError as exc:
        raise _fail(
            err, f"cannot write the game log {log_path}: {exc.reason}; give another --log"
        ) from None
    except OSError as exc:
        raise _fail(
            err, f"cannot write the game log {log_path}: {exc}; give another --log"
        ) from None
    header = {
        "deck": deck_name,
        "deck_cards": len(cards),
        "perception": perception_name,
        "strictness": strictness,
        "level": level if bots else None,
        "clip_model": clip_model,
        "clip_checkpoint": str(clip_checkpoint) if clip_checkpoint else None,
    }
    if web:
        return _play_web(
            out, err, event_log, log_path, names, humans, make_bot, cards, names_of_cards,
            judge=judge, seed=seed, rounds=rounds, header=header, turn_seconds=turn_seconds,
            table_rules=table_rules, strictness=strictness, host=host, port=port,
            open_browser=open_browser, sock=listening,
        )  # fmt: skip
    try:
        with event_log:
            play_game(
                players,
                cards,
                judge=judge,
                seed=seed,
                rounds=rounds,
                clock=clock,
                log=event_log,
                header=header,
                # a person at this terminal reads each verdict's reason when asked to overrule
                on_event=EventPrinter(out, reasons_shown=any(p.is_human for p in players)),
                time_limit=turn_seconds,
                house_rules=table_rules,
                ruling_level=strictness,
                card_names=names_of_cards,
            )
    except GameAborted as exc:
        _say_stopped(err, exc.reason, log_path, seed)
        return EXIT_INTERRUPT if "Ctrl-C" in exc.reason else EXIT_EOF
    err.print(
        f"Game log: {safe_text(str(log_path))} (replay it with `kiekai replay`)", highlight=False
    )
    return 0


def _play_web(
    out: Console,
    err: Console,
    event_log,
    log_path: Path,
    names: list[str],
    humans: int,
    make_bot,
    cards: list,
    names_of_cards: dict[str, str],
    *,
    judge,
    seed: int,
    rounds: int,
    header: dict,
    turn_seconds: float,
    table_rules,
    strictness: str,
    host: str,
    port: int,
    open_browser: bool,
    sock=None,
) -> int:
    """``kiekai play --web``: serve the table (on ``sock``, from :func:`kiekai.web.server.listen`,
    when given), print the seat links, play, keep the log."""
    import webbrowser

    from kiekai.kiek.game import EventPrinter, GameAborted
    from kiekai.web.server import run_web_game, start_server
    from kiekai.web.table import WebTable

    table = WebTable(names, list(range(humans)), cards, names_of_cards, judge)
    table.log_path = str(log_path)
    try:
        server = start_server(table, host=host, port=port, sock=sock)
    except OSError as exc:
        raise _fail(err, f"{exc}: pick another --port (0 = a free one) or --host") from None
    if server.reachable_from_network:  # --host 0, "" and 0x0 are 0.0.0.0 too
        where = (
            "every network address"
            if server.everywhere
            else f"the network address {server.address}"
        )
        out.print(
            f"[yellow]Listening on {safe_text(where)}: other devices on your network can "
            "open these links.[/yellow]",
            highlight=False,
        )
    for seat in range(humans):
        out.print(
            f"{safe_text(names[seat])}: {server.seat_url(seat)}", highlight=False, soft_wrap=True
        )
    out.print(
        "The game starts when every seat is open, or when someone presses Start now (bots take "
        "the empty seats). Ctrl-C stops the table.",
        highlight=False,
    )
    if open_browser:
        try:
            webbrowser.open(server.seat_url(0))
        except webbrowser.Error:
            pass
    try:
        with event_log:
            run_web_game(
                table, server, make_bot, cards, judge=judge, seed=seed, rounds=rounds,
                log=event_log, header=header, time_limit=turn_seconds, house_rules=table_rules,
                ruling_level=strictness, on_event=EventPrinter(out),
            )  # fmt: skip
    except GameAborted as exc:
        _say_stopped(err, exc.reason, log_path, seed)
        return EXIT_INTERRUPT
    err.print(
        f"Game log: {safe_text(str(log_path))} (replay it with `kiekai replay`)", highlight=False
    )
    return 0


def _say_stopped(err: Console, reason: str, log_path: Path, seed: int) -> None:
    """The last words of a stopped game (Ctrl-C, end of input): why, that the log keeps
    every finished turn, how to replay it, and that a game cannot be resumed but the same
    seed deals it again."""
    path = safe_text(str(log_path))
    err.print(
        f"{safe_text(reason[:1].upper() + reason[1:])}. The game is saved: its log keeps every "
        f"finished turn ({path}).\n"
        f"  Replay it:  kiekai replay {shlex.quote(path)}\n"
        f"  A stopped game cannot be resumed; the same options with --seed {seed} deal the "
        "same game again.",
        highlight=False,
        soft_wrap=True,
    )


def _load_cards(err: Console, deck: Path | None, players: int) -> tuple[list, str]:
    """Read ``deck`` (or the embedded default deck) and check it is big enough.

    Skipped photos and labels.csv problems are reported once each on stderr.

    Returns:
        (cards, the deck's name for the log header).
    """
    from kiekai.deck import (
        DeckError,
        DeckTooSmallError,
        WordNetNounIds,
        check_deck_size,
        load_deck,
    )

    def skipped(relative: str, reason: str) -> None:
        err.print(f"Skipped {safe_text(relative)}: {safe_text(reason)}", highlight=False)

    def problem(message: str) -> None:
        prefix = "" if message.startswith("labels.csv") else "labels.csv: "
        err.print(f"{prefix}{safe_text(message)}", highlight=False)

    try:
        if deck is None:
            from kiekai.default_deck import default_deck

            loaded = default_deck(on_skip=skipped)
            name = "embedded default deck"
        else:
            loaded = load_deck(
                deck, on_skip=skipped, on_problem=problem, known_wnid=WordNetNounIds()
            )
            name = str(loaded.root)
        check_deck_size(loaded, players)
    except DeckTooSmallError as exc:
        if deck is None:
            raise _fail(
                err,
                f"the embedded default deck: {exc.needed} cards are needed for {exc.players} "
                f"players and it holds {exc.available} photos: pass --deck FOLDER with more photos",
            ) from None
        raise _fail(err, f"{deck}: {exc}") from None
    except DeckError as exc:
        raise _fail(err, str(exc)) from None
    return list(loaded.cards), name
