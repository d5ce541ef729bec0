"""``kiekai play`` (a game of Kiek against bots, or bots alone) and ``kiekai replay LOG``.

Thin: the rules are in :mod:`kiekai.kiek.engine`, the game loop and the log in
:mod:`kiekai.kiek.game`, the human seat in :mod:`kiekai.ui.kiek_terminal`. The options are
read once into a :class:`~kiekai.kiek.settings.TableSettings`, which is handed down with the
objects built from it (judge, perception, players). Heavy imports (the judge's WordNet,
perception models, bots) happen inside the command so that ``kiekai --help`` stays fast.
User errors (bad numbers, a missing or empty deck, a deck too small) print one message
naming the fix and exit with status 2; a game stopped by EOF on stdin exits 1, by Ctrl-C
130; the log is kept either way.
"""

from __future__ import annotations

import random
import shlex
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console

from kiekai.clock import MonotonicClock, VirtualClock
from kiekai.commands import command_resources, path_value
from kiekai.display import safe_text
from kiekai.files import FileRefusedError
from kiekai.judge.verdict import Strictness
from kiekai.kiek.rules import MAX_PLAYERS, MIN_PLAYERS, TURN_SECONDS
from kiekai.kiek.settings import BotLevel, GameSettings, PerceptionKind, TableSettings, WebSettings

if TYPE_CHECKING:
    from kiekai.clock import Clock
    from kiekai.deck import Card
    from kiekai.events import EventLog
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules
    from kiekai.kiek.players import KiekPlayer
    from kiekai.kiek.repeats import JudgeMemo
    from kiekai.kiek.resume import StoppedGame
    from kiekai.kismet.rules import Rules
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
#: Exit status of ``kiekai replay`` when a line contradicts the rules (the log was edited or
#: written by a kiekai with other rules).
EXIT_CONTRADICTED = 1
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPT = 130


def default_log_path(seed: int) -> Path:
    """A new log file in the user data dir: ``<data>/games/kiek-<UTC time>-seed<seed>.jsonl``."""
    from platformdirs import user_data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return Path(user_data_dir("kiekai")) / "games" / f"kiek-{stamp}-seed{seed}.jsonl"


def _fail(err: Console, message: str, code: int = EXIT_USAGE) -> typer.Exit:
    err.print(f"[red]Error:[/red] {safe_text(message)}", highlight=False)
    return typer.Exit(code)


def _consoles() -> tuple[Console, Console]:
    """The command's stdout and stderr consoles (no highlighting or emoji of their own)."""
    out = Console(highlight=False, emoji=False)
    err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
    return out, err


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
            Strictness,
            typer.Option(help="Which guesses match (the judge's level).", case_sensitive=False),
        ] = Strictness.STANDARD,
        level: Annotated[
            BotLevel, typer.Option(help="Bot strength.", case_sensitive=False)
        ] = BotLevel.NORMAL,
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
                help="A house-rules file for this game instead of the rulings store: read "
                "before the judge, and rulings made at the reveal are saved to it.",
                parser=path_value,
                metavar="PATH",
            ),
        ] = None,
        table: Annotated[
            str | None,
            typer.Option(
                help="The table in the rulings store whose rulings this game applies and "
                "adds to (created when missing; default: the 'default' table, your own "
                "games). The store is $KIEKAI_STORE, else house-rules.sqlite3 in the user "
                "data dir.",
                metavar="NAME",
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
        resume: Annotated[
            Path | None,
            typer.Option(
                help="Continue the stopped game of this log (the table, seed and deck come "
                "from the log; the whole game goes to a new log, --log or <LOG>-resumed.jsonl).",
                parser=path_value,
                metavar="LOG",
            ),
        ] = None,
    ) -> None:
        """Play a game of Kiek: split five photos 3 against 2 with one word; guess the others' words."""
        out, err = _consoles()
        # the judge, bots and perception of this game read these; one-time builds (the
        # WordNet index) say so on stderr, with their estimate
        command_resources(report=lambda line: err.print(safe_text(line), highlight=False))
        if resume is not None:
            given = {
                "--bots": bots != 3, "--humans": humans != 1, "--deck": deck is not None,
                "--seed": seed is not None, "--perception": perception is not PerceptionKind.AUTO,
                "--strictness": strictness is not Strictness.STANDARD,
                "--level": level is not BotLevel.NORMAL, "--rounds": rounds != 3,
                "--clip-model": clip_model is not None,
                "--clip-checkpoint": clip_checkpoint is not None,
                "--house-rules": house_rules is not None,
                "--turn-seconds": turn_seconds != TURN_SECONDS, "--web": web,
                "--seats": seats is not None,
            }  # fmt: skip
            try:
                code = _resume(out, err, resume, log, [name for name, on in given.items() if on])
            except KeyboardInterrupt:
                err.print("Stopped with Ctrl-C before the game went on.")
                raise typer.Exit(EXIT_INTERRUPT) from None
            if code:
                raise typer.Exit(code)
            return
        try:
            people = _people(err, humans, web=web, seats=seats)
            _check_numbers(err, bots, people, rounds=rounds, turn_seconds=turn_seconds, port=port)
            settings = TableSettings(
                game=GameSettings(_seed(err, seed), rounds=rounds, turn_seconds=turn_seconds),
                bots=bots,
                humans=people,
                level=level,
                strictness=strictness,
                perception=perception,
                deck=deck,
                log=_new_log(err, log),
                house_rules=house_rules,
                table=table,
                clip_model=clip_model,
                clip_checkpoint=clip_checkpoint,
                web=WebSettings(host, port, open_browser) if web else None,
            )
            code = _play(out, err, settings)
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
                help="A game log written by `kiekai play` (or `kiekai kismet --log`).",
                parser=path_value,
                metavar="PATH",
            ),
        ],
        rules: Annotated[
            Path | None,
            typer.Option(
                help="Kismet: the TOML rules file the game was played with (`kiekai kismet "
                "--rules`); the points are checked against it.",
                parser=path_value,
                metavar="PATH",
            ),
        ] = None,
    ) -> None:
        """Print a game of Kiek (or Kismet) again from its log alone, and check it against the rules.

        Every line is checked; a line that is not a valid event is reported on stderr with its
        line number and left out. The game is then played again through the rules from the
        log's seed and actions (the verdicts as logged: no deck or model is needed); the
        first line that contradicts the rules or the log's own scores is reported on stderr
        with its number. Exit status: 0 when every line was printed and agrees with the
        rules, 1 when some lines were left out or a line contradicts the rules, 2 when the
        file cannot be replayed (missing, not a regular file, too large, not a game log).
        """
        _replay(log, rules)


def _kismet_rules(err: Console, path: Path | None) -> Rules | None:
    """``kiekai replay --rules FILE``: the Kismet rules file read (``None`` without one).

    Raises:
        typer.Exit: status 2 when the file is not a valid rules file.
    """
    if path is None:
        return None
    from kiekai.kismet.rules import RulesFileError, load_rules

    try:
        return load_rules(path)
    except RulesFileError as exc:
        raise _fail(err, str(exc)) from None


def _replay(log: Path, rules_path: Path | None = None) -> None:
    """The body of ``kiekai replay``: print the game, report left-out lines and the first
    contradiction of the rules on stderr (``rules_path``: a Kismet rules file).

    Raises:
        typer.Exit: status 2 when the file cannot be replayed, 1 when lines were left out.
    """
    from kiekai.events import LogProblem
    from kiekai.kiek.game import replay
    from kiekai.log_check import Contradiction

    err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

    def problem(found: LogProblem) -> None:
        if found.cut_short:
            err.print(
                f"{safe_text(log)}: the last line is cut short (the game was stopped while "
                "writing it); it is left out."
            )
        else:
            err.print(f"[yellow]{safe_text(log)}: {safe_text(found)}; line left out[/yellow]")

    kismet_rules = _kismet_rules(err, rules_path)

    def contradiction(found: Contradiction) -> None:
        err.print(f"[red]{safe_text(log)}: {safe_text(found)} (the rules contradict the log)[/red]")

    try:
        result = replay(
            log,
            Console(highlight=False, emoji=False),
            on_problem=problem,
            on_contradiction=contradiction,
            kismet_rules=kismet_rules,
        )
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
            f"{result.problems} {lines} left out of {safe_text(log)} (not valid events; see above)."
        )
        raise typer.Exit(EXIT_PARTIAL)
    if result.contradiction is not None:
        raise typer.Exit(EXIT_CONTRADICTED)


# ---------------------------------------------------------------- the options, checked


def _people(err: Console, humans: int, *, web: bool, seats: int | None) -> int:
    """People's seats: ``--humans`` at the terminal; with ``--web``, ``--seats`` (default
    ``--humans``), at least one.

    Raises:
        typer.Exit: ``--web`` with no seat for a person, or ``--seats`` without ``--web``.
    """
    if web:
        people = humans if seats is None else seats
        if people < 1:
            raise _fail(
                err, f"--web needs at least one seat for a person (--seats 1 or more), got {people}"
            )
        return people
    if seats is not None:
        raise _fail(
            err, "--seats is for the browser table: add --web, or use --humans at the terminal"
        )
    return humans


def _check_numbers(
    err: Console, bots: int, humans: int, *, rounds: int, turn_seconds: float, port: int
) -> None:
    """Refuse numbers out of range: the port, the seconds a turn (1 to 3600), negative seats,
    a table outside :data:`~kiekai.kiek.rules.MIN_PLAYERS` to
    :data:`~kiekai.kiek.rules.MAX_PLAYERS` (docs/rules.md), rounds outside 1 to
    :data:`MAX_ROUNDS`; checked in that order, the first problem is reported.

    Raises:
        typer.Exit: status 2 with a message naming the option and the fix.
    """
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


def _seed(err: Console, seed: int | None) -> int:
    """``--seed``, or a random one when it is left out.

    Raises:
        typer.Exit: a negative seed (numpy's seeding takes none).
    """
    if seed is None:
        return random.SystemRandom().randrange(2**31)
    if seed < 0:
        raise _fail(
            err, f"--seed must be 0 or more (numpy's seeding takes no negative seeds), got {seed}"
        )
    return seed


def _new_log(err: Console, log: Path | None) -> Path | None:
    """``--log`` when it names a new (or empty) file; ``None`` stays ``None``.

    Raises:
        typer.Exit: the file exists and holds something, or is not a regular file: a game
            log holds one game.
    """
    if log is not None and log.exists() and (not log.is_file() or log.stat().st_size > 0):
        raise _fail(
            err,
            f"--log {log} already exists; a game log holds one game: give a new file name "
            "(or leave --log out for a fresh file in the user data dir)",
        )
    return log


# ---------------------------------------------------------------- building the table


@dataclass(frozen=True)
class _Game:
    """What :func:`_play` builds from the settings for one game, at the terminal or in the
    browser.

    Attributes:
        cards: the deck (the photos the bots' perception can read).
        card_names: card id -> the name shown to people.
        names: every seat's name, people first.
        judge: the judge (its strictness is the table's).
        house_rules: the table's rulings (the judge applies them; new ones are saved there).
        make_bot: ``make_bot(seat, name)`` builds the bot of a seat.
        log: the open game log.
        log_path: where the log is written.
        header: the log header's fields from the command (deck, perception, strictness ...).
        clock: the game's time: real time when people play at this terminal, else a
            virtual clock, so that a slow machine cannot change a bots-only game (the same
            seed prints the same game). The browser table keeps its own real time.
    """

    cards: list[Card]
    card_names: dict[str, str]
    names: list[str]
    judge: Judge
    house_rules: HouseRules
    make_bot: Callable[[int, str], KiekPlayer]
    log: EventLog
    log_path: Path
    header: dict[str, Any]
    clock: Clock


def _resume(out: Console, err: Console, path: Path, log: Path | None, given: list[str]) -> int:
    """``kiekai play --resume LOG``: the table from the log's header, the game played again
    from its log up to where it stopped (:mod:`kiekai.kiek.resume`), then on; returns the
    exit status.

    Raises:
        typer.Exit: status 2 when options that the log decides are given, the log cannot
            be resumed (not a Kiek log, over, contradicting the rules, a browser game), or
            the deck is not the one the log was played with.
    """
    from kiekai.kiek.resume import ResumeError, read_stopped_game, resumed_log_path

    if given:
        raise _fail(
            err,
            f"--resume takes the table from the log (seats, seed, deck, rounds ...): leave "
            f"out {', '.join(given)}",
        )
    try:
        stopped = read_stopped_game(path)
    except FileNotFoundError:
        raise _fail(err, f"no game log at {path}; give the path `kiekai play` printed") from None
    except ResumeError as exc:
        raise _fail(err, str(exc)) from None
    header = stopped.header
    extra = header.model_extra or {}
    if extra.get("front_end") == "web":
        raise _fail(err, f"{path} is a browser game: --resume continues games of the terminal")
    people = [p for p in header.players if p.human]
    if [p.seat for p in people] != list(range(len(people))):
        raise _fail(err, f"{path}: the people's seats are not the first ones; it cannot be resumed")
    try:
        perception = PerceptionKind(header.perception or "auto")
    except ValueError:
        perception = PerceptionKind.AUTO
    deck_name = header.deck
    checkpoint = extra.get("clip_checkpoint")
    settings = TableSettings(
        game=GameSettings(
            int(header.seed or 0),
            rounds=header.rounds or 3,
            turn_seconds=header.time_limit or TURN_SECONDS,
        ),
        bots=stopped.seats - len(people),
        humans=len(people),
        level=BotLevel(header.level or "normal"),
        strictness=Strictness(header.strictness or "standard"),
        perception=perception,
        deck=None if deck_name in (None, "embedded default deck") else Path(str(deck_name)),
        log=_new_log(err, log if log is not None else resumed_log_path(path)),
        house_rules=Path(header.house_rules) if header.house_rules else None,
        clip_model=extra.get("clip_model") if isinstance(extra.get("clip_model"), str) else None,
        clip_checkpoint=Path(checkpoint) if isinstance(checkpoint, str) else None,
    )
    err.print(
        f"Resuming {safe_text(str(path))} at turn {stopped.stopped_turn + 1} (the turns before "
        "are played again from the log).",
        highlight=False,
    )
    return _play(out, err, settings, resumed=stopped)


def _play(
    out: Console, err: Console, settings: TableSettings, resumed: StoppedGame | None = None
) -> int:
    """The body of ``kiekai play``; returns the exit status (raises ``typer.Exit`` on user
    errors). ``resumed``: the stopped game this one continues (``--resume``)."""
    listening = _listen(err, settings.web)
    cards, deck_name = _load_cards(err, settings.deck, settings.players)
    table_rules, rules_where = _house_rules(err, settings.house_rules, settings.table)
    judge = _make_judge(err, settings.strictness, table_rules)
    bot_perception, cards, perception_name = _perception(out, err, settings, cards, deck_name)

    from kiekai.display import card_names as name_cards

    names_of_cards = name_cards(cards)
    log_path = settings.log if settings.log is not None else default_log_path(settings.game.seed)
    err.print(f"Game log: {safe_text(str(log_path))}", highlight=False)
    err.print(
        f"House rules: {safe_text(rules_where)} ({len(table_rules)} ruling"
        f"{'' if len(table_rules) == 1 else 's'})",
        highlight=False,
    )
    names = _seat_names(settings)
    make_bot = _bot_maker(settings, judge, bot_perception)
    clock = MonotonicClock() if settings.humans else VirtualClock()
    terminal = settings.web is None
    warm_up = _warm_up_judge(err, judge) if settings.humans and terminal else None
    players = _terminal_players(
        out, settings, judge, names, names_of_cards, log_path, make_bot, clock
    )
    event_log = _open_log(err, log_path)
    header: dict[str, Any] = {
        "deck": deck_name,
        "deck_cards": len(cards),
        "perception": perception_name,
        "strictness": judge.strictness.value,
        "level": settings.level.value if settings.bots else None,
        "clip_model": settings.clip_model,
        "clip_checkpoint": str(settings.clip_checkpoint) if settings.clip_checkpoint else None,
    }
    if resumed is not None:
        header["resumed_from"] = str(resumed.path)
    game = _Game(
        cards, names_of_cards, names, judge, table_rules, make_bot, event_log, log_path, header,
        clock,
    )  # fmt: skip
    if warm_up is not None:  # last, so that its imports do not slow the start-up down
        warm_up.start()
    if settings.web is not None:
        return _play_web(out, err, settings, game, sock=listening)
    code = _play_terminal(out, err, settings, game, players, resumed)
    played = 1
    while code == 0 and _play_again(players):
        # a new game at the same table: new seed, new log; deck, judge and models stay
        played += 1
        seed = random.SystemRandom().randrange(2**31)
        log = None if settings.log is None else _numbered_log(settings.log, played)
        settings = replace(settings, game=replace(settings.game, seed=seed), log=log)
        log_path = log if log is not None else default_log_path(seed)
        err.print(f"Game log: {safe_text(str(log_path))}", highlight=False)
        make_bot = _bot_maker(settings, judge, bot_perception)
        players = _terminal_players(
            out, settings, judge, names, names_of_cards, log_path, make_bot, clock,
            reader=_reader_of(players),
        )  # fmt: skip
        game = replace(
            game,
            make_bot=make_bot,
            log=_open_log(err, log_path),
            log_path=log_path,
            header={k: v for k, v in game.header.items() if k != "resumed_from"},
        )
        code = _play_terminal(out, err, settings, game, players)  # a new game: not resumed
    return code


def _reader_of(players: list[KiekPlayer]) -> Any:
    """The line reader the people at this terminal share (``None`` without people)."""
    return next((getattr(p, "reader", None) for p in players if p.is_human), None)


def _play_again(players: list[KiekPlayer]) -> bool:
    """At the end of a terminal game: the first person at the terminal is offered another
    game (only on an interactive terminal: piped answers play one game)."""
    from kiekai.ui.kiek_terminal import TerminalKiekPlayer

    person = next((p for p in players if isinstance(p, TerminalKiekPlayer)), None)
    if person is None or not (person.reader.is_tty() and person.console.is_terminal):
        return False
    return person.play_again()


def _numbered_log(log: Path, number: int) -> Path:
    """The log of the ``number``-th game played after one started with ``--log LOG``:
    ``LOG`` with ``-game<number>`` before its suffix (``g.jsonl`` → ``g-game2.jsonl``), a log
    holding one game; a name already taken gets a further number."""
    candidate = log.with_name(f"{log.stem}-game{number}{log.suffix}")
    extra = 1
    while candidate.exists():
        extra += 1
        candidate = log.with_name(f"{log.stem}-game{number}-{extra}{log.suffix}")
    return candidate


def _warm_up_judge(err: Console, judge: Judge) -> threading.Thread:
    """Make the first verdicts as fast as later ones without holding up the first prompt.

    What can fail or build is done now, in this thread: WordNet is opened (a first run
    builds its index, saying so with an estimate on stderr), the embedding table is looked
    up and the sentence model's weights are found and their hash checked, so that a
    missing model stops the game before it begins. Loading MiniLM with torch (about 10 s
    of imports on 2 cores) and the judge's other first-call costs then run in a daemon
    thread, started by the caller just before the game, while the person reads the first
    prompt: a verdict asked for before it is done waits for it (the judge's loaders hold
    locks), and nothing it does is printed.

    Returns:
        The warm-up thread, not started yet.

    Raises:
        typer.Exit: WordNet or the sentence model cannot be found.
    """
    from kiekai import models

    resources = judge.resources
    try:
        resources.wordnet()
        resources.embedding_table()
        if not resources.encoder_loaded():
            models.resolve_sentence_model(allow_download=False)
    except (RuntimeError, OSError, LookupError) as exc:
        raise _fail(err, f"the judge cannot start: {exc}") from None
    resources.report = None  # the background loads print nothing over the prompt

    def warm_up() -> None:
        try:
            judge.warm_up()
        except Exception:  # noqa: BLE001 - the first verdict reports it, in the game's thread
            return

    return threading.Thread(target=warm_up, name="kiekai-judge-warm-up", daemon=True)


def _listen(err: Console, web: WebSettings | None) -> socket.socket | None:
    """With ``--web``, the listening socket, bound now so that a wrong ``--host`` or a busy
    ``--port`` fails before the deck and the judge load; ``None`` at the terminal.

    Raises:
        typer.Exit: the address cannot be bound.
    """
    if web is None:
        return None
    from kiekai.web.server import listen

    try:
        return listen(web.host, web.port)
    except OSError as exc:
        raise _fail(err, f"{exc}: pick another --port (0 = a free one) or --host") from None


def _house_rules(err: Console, path: Path | None, table: str | None) -> tuple[HouseRules, str]:
    """The table's house rules and where they are kept: the file ``path`` (a missing file
    is an empty set), else ``table`` of the rulings store (default: the default table;
    created when missing; the store imports an old house-rules.tsv once on first use).

    Raises:
        typer.Exit: both given, a malformed file (the message names the line), a bad table
            name or a store that cannot be opened.
    """
    from kiekai.judge.house_rules import DEFAULT_TABLE, HouseRules, HouseRulesError

    if path is not None:
        if table is not None:
            raise _fail(err, "give --house-rules FILE or --table NAME, not both")
        try:
            return HouseRules.load(path, missing_ok=True), str(path)
        except HouseRulesError as exc:
            raise _fail(err, f"{exc} (or pass --house-rules with another file)") from None
    from sqlalchemy.exc import SQLAlchemyError

    from kiekai.judge.store import StoreError, open_store

    name = table if table is not None else DEFAULT_TABLE
    try:
        store = open_store(warn=lambda line: err.print(f"warning: {safe_text(line)}"))
        store.ensure_table(name)
        return store.table_rules(name), f"table {name!r} in {store.display_url}"
    except (StoreError, HouseRulesError) as exc:
        raise _fail(err, f"{exc} (or pass --house-rules FILE)") from None
    except (SQLAlchemyError, OSError) as exc:
        raise _fail(
            err,
            f"the rulings store cannot be opened ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0][:200]}); check $KIEKAI_STORE or pass --house-rules FILE",
        ) from None


def _make_judge(err: Console, strictness: Strictness, table_rules: HouseRules) -> Judge:
    """The table's judge at ``strictness``. It applies the table's rulings itself; the runner
    saves new ones to the same object (one house-rules path for matches and ne bis in idem).

    Raises:
        typer.Exit: the judge's model or lexicon cannot be read.
    """
    from kiekai.judge import Judge

    try:
        return Judge(strictness, house_rules=table_rules)
    except (OSError, LookupError, ValueError) as exc:
        raise _fail(err, f"the judge cannot start: {exc}") from None


def _perception(
    out: Console, err: Console, settings: TableSettings, cards: list[Card], deck_name: str
) -> tuple[Perception | None, list[Card], str]:
    """The bots' perception (``None`` without bots), the cards it can read and its name for
    the log header (``"none"`` without bots); the deck is checked again for size with only
    the readable cards.

    Only the cards the game deals are read (:func:`dealt_cards`, the engine's seeded
    shuffle; :func:`kiekai.perception.perceive_dealt`): a game plays no others. One that
    cannot be read is left out, saying so, and the deal made again, so a photo from the
    pile takes its place.

    Raises:
        typer.Exit: the perception cannot load, or leaves too few cards for the table.
    """
    if not settings.bots:
        return None, cards, "none"
    from kiekai.deck import DeckTooSmallError, check_deck_size
    from kiekai.perception import load_perception

    try:
        bot_perception, usable = load_perception(
            settings.perception.value,
            cards,
            clip_model=settings.clip_model,
            clip_checkpoint=settings.clip_checkpoint,
            echo=lambda line: out.print(safe_text(str(line)), highlight=False),
            deal=lambda deck: dealt_cards(deck, settings.game.seed, settings.players),
        )
    except (ValueError, RuntimeError, FileNotFoundError, OSError) as exc:
        raise _fail(err, str(exc)) from None
    usable_cards = list(usable)
    perception_name = getattr(bot_perception, "name", settings.perception.value)
    try:
        check_deck_size(usable_cards, settings.players)
    except DeckTooSmallError as exc:
        raise _fail(err, f"{deck_name} with the {perception_name} perception: {exc}") from None
    return bot_perception, usable_cards, perception_name


def dealt_cards(cards: Sequence[Card], seed: int, players: int) -> list[Card]:
    """The cards a game of ``players`` with ``seed`` deals from ``cards`` (in this order):
    the first ``4 * players + 3`` (:func:`kiekai.kiek.rules.cards_needed`) of the
    engine's shuffle, ``random.Random(seed).shuffle`` of the list, its first draw
    (:class:`kiekai.kiek.engine.KiekEngine`; ``tests/test_play_start.py`` checks the two
    agree). The rest is set aside and never played; fewer cards give them all."""
    from kiekai.kiek.rules import cards_needed

    order = list(cards)
    random.Random(seed).shuffle(order)
    return order[: cards_needed(players)]


def _seat_names(settings: TableSettings) -> list[str]:
    """Seat names, people first: "You" for the one person at a terminal, else "Player 1",
    "Player 2" ...; then "Bot 1", "Bot 2" ..."""
    humans = settings.humans
    if humans == 1 and settings.web is None:
        people = ["You"]
    else:
        people = [f"Player {i + 1}" for i in range(humans)]
    return people + [f"Bot {i + 1}" for i in range(settings.bots)]


def _bot_maker(
    settings: TableSettings, judge: Judge, bot_perception: Perception | None
) -> Callable[[int, str], KiekPlayer]:
    """``make_bot(seat, name)``: the table's bot for a seat, at the settings' level.

    Bots at seats ``humans..`` are seeded by their bot number (the same bots whatever the
    number of people); a person's seat taken over by a bot (web) gets its own seed. The
    table's bots share one :class:`~kiekai.kiek.repeats.JudgeMemo`: a question about a word
    (one word? a repeat?) is put to the judge once for the game, whichever bot asks.
    """
    humans, seed = settings.humans, settings.game.seed
    memos: list[JudgeMemo] = []  # made with the first bot (a table of people imports no bot)

    def make_bot(seat: int, name: str) -> KiekPlayer:
        from kiekai.kiek.bots import KiekBot
        from kiekai.kiek.repeats import JudgeMemo

        if not memos:
            memos.append(JudgeMemo(judge))
        return KiekBot(
            name,
            perception=cast("Perception", bot_perception),  # loaded: there are bots
            judge=judge,
            level=settings.level.value,
            seed=seed * 100 + (seat - humans + 1 if seat >= humans else 50 + seat),
            memo=memos[0],
        )

    return make_bot


def _terminal_players(
    out: Console,
    settings: TableSettings,
    judge: Judge,
    names: list[str],
    names_of_cards: dict[str, str],
    log_path: Path,
    make_bot: Callable[[int, str], KiekPlayer],
    clock: Clock,
    reader: Any = None,
) -> list[KiekPlayer]:
    """The seats of a game at this terminal: the people (one line reader shared: ``reader``,
    the previous game's when playing again, else a new one), then the bots; ``[]`` for the
    browser table, whose seats are taken in its lobby."""
    if settings.web is not None:
        return []
    players: list[KiekPlayer] = []
    humans = settings.humans
    if humans:
        from kiekai.ui.kiek_terminal import LineReader, TerminalKiekPlayer

        reader = reader if reader is not None else LineReader()
        sheet_dir = log_path.parent / f"{log_path.stem}-cards"
        for name in names[:humans]:
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
    for index in range(settings.bots):
        players.append(make_bot(humans + index, names[humans + index]))
    return players


def _open_log(err: Console, log_path: Path) -> EventLog:
    """The game log, opened for writing.

    Raises:
        typer.Exit: the file cannot be written (refused kind of file, no permission).
    """
    from kiekai.events import EventLog

    try:
        return EventLog(log_path)
    except FileRefusedError as exc:
        raise _fail(
            err, f"cannot write the game log {log_path}: {exc.reason}; give another --log"
        ) from None
    except OSError as exc:
        raise _fail(
            err, f"cannot write the game log {log_path}: {exc}; give another --log"
        ) from None


def _play_terminal(
    out: Console,
    err: Console,
    settings: TableSettings,
    game: _Game,
    players: list[KiekPlayer],
    resumed: StoppedGame | None = None,
) -> int:
    """Play the game at this terminal; returns the exit status (1 after EOF, 130 after
    Ctrl-C, the log kept and its path printed either way). ``resumed``: the stopped game
    this one continues (its seats answer from its log, and every event is checked against
    it: a game that is not the log's stops with status 2)."""
    from kiekai.kiek.game import EventPrinter, GameAborted, play_game
    from kiekai.kiek.resume import ResumeCheck, ResumedSeat, ResumeMismatch

    printer = EventPrinter(out, reasons_shown=any(p.is_human for p in players))
    on_event: Callable[[Any], None] = printer
    if resumed is not None:
        players = [
            cast("KiekPlayer", ResumedSeat(p, seat, resumed)) for seat, p in enumerate(players)
        ]
        on_event = ResumeCheck(resumed, printer)
    try:
        with game.log:
            play_game(
                players,
                game.cards,
                judge=game.judge,
                settings=settings.game,
                clock=game.clock,
                log=game.log,
                header=game.header,
                # a person at this terminal reads each verdict's reason when asked to overrule
                on_event=on_event,
                house_rules=game.house_rules,
                card_names=game.card_names,
            )
    except ResumeMismatch as exc:
        raise _fail(err, str(exc)) from None
    except GameAborted as exc:
        _say_stopped(err, exc.reason, game.log_path, settings.game.seed)
        return EXIT_INTERRUPT if "Ctrl-C" in exc.reason else EXIT_EOF
    err.print(
        f"Game log: {safe_text(str(game.log_path))} (replay it with `kiekai replay`)",
        highlight=False,
    )
    return 0


def _play_web(
    out: Console,
    err: Console,
    settings: TableSettings,
    game: _Game,
    sock: socket.socket | None = None,
) -> int:
    """``kiekai play --web``: serve the table (on ``sock``, from :func:`kiekai.web.server.listen`,
    when given), print the seat links, play, keep the log."""
    import webbrowser

    from kiekai.kiek.game import EventPrinter, GameAborted
    from kiekai.web.server import run_web_game, start_server
    from kiekai.web.table import WebTable

    web = cast(WebSettings, settings.web)
    humans = settings.humans
    names = game.names
    web_table = WebTable(names, list(range(humans)), game.cards, game.card_names, game.judge)
    web_table.log_path = str(game.log_path)
    try:
        server = start_server(web_table, host=web.host, port=web.port, sock=sock)
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
    if web.open_browser:
        try:
            webbrowser.open(server.seat_url(0))
        except webbrowser.Error:
            pass
    try:
        with game.log:
            run_web_game(
                web_table, server, game.make_bot, game.cards, judge=game.judge,
                settings=settings.game, log=game.log, header=game.header,
                house_rules=game.house_rules, on_event=EventPrinter(out),
            )  # fmt: skip
    except GameAborted as exc:
        _say_stopped(err, exc.reason, game.log_path, settings.game.seed, resumable=False)
        return EXIT_INTERRUPT
    err.print(
        f"Game log: {safe_text(str(game.log_path))} (replay it with `kiekai replay`)",
        highlight=False,
    )
    out.print(
        "The table stays open for the final scores until everyone has pressed Leave the "
        "table or closed their page; Ctrl-C closes it now.",
        highlight=False,
    )
    why = server.close_after_game()
    out.print(f"The table has closed: {why}.", highlight=False)
    return 0


def _say_stopped(
    err: Console, reason: str, log_path: Path, seed: int, *, resumable: bool = True
) -> None:
    """The last words of a stopped game (Ctrl-C, end of input): why, that the log keeps
    every finished turn, how to replay it, how to resume it (``--resume``), and that the
    same seed deals it again."""
    path = safe_text(str(log_path))
    err.print(
        f"{safe_text(reason[:1].upper() + reason[1:])}. The game is saved: its log keeps every "
        f"finished turn ({path}).\n"
        f"  Replay it:  kiekai replay {shlex.quote(path)}\n"
        + (
            f"  Resume it:  kiekai play --resume {shlex.quote(path)}\n"
            if resumable
            else "  A browser game cannot be resumed (--resume continues terminal games).\n"
        )
        + f"  The same options with --seed {seed} deal the same game again from the start.",
        highlight=False,
        soft_wrap=True,
    )


def _load_cards(err: Console, deck: Path | None, players: int) -> tuple[list, str]:
    """Read ``deck`` (or the embedded default deck) and check it is big enough.

    Photos are checked by their headers only (:func:`kiekai.deck.decode.inspect_header`):
    the bots' perception decodes the ones the game deals before it begins, and a photo
    that fails then is replaced from the pile (:func:`_perception`). Skipped photos and
    labels.csv problems are reported once each on stderr.

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
        # labels.csv's own problems name it; the folder's (a sub-folder unreadable, the count
        # of skipped photos past the first 20) are not labels.csv's
        prefix = "" if message.startswith(("labels.csv", "folder ", "... ")) else "labels.csv: "
        err.print(f"{prefix}{safe_text(message)}", highlight=False)

    try:
        if deck is None:
            from kiekai.default_deck import default_deck

            loaded = default_deck(on_skip=skipped, decode=False)
            name = "embedded default deck"
        else:
            # headers only: the game decodes the photos it deals (_perception)
            loaded = load_deck(
                deck,
                on_skip=skipped,
                on_problem=problem,
                known_wnid=WordNetNounIds(),
                decode=False,
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
