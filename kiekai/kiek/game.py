"""The Kiek game runner: drives the engine with players, the clock and the game log.

:func:`play_game` asks each seat (bot or human, through the
:class:`kiekai.kiek.players.KiekPlayer` protocol) for its decisions, enforces the
two-minute turn through a :class:`kiekai.clock.Clock`, and writes every event to a
JSON-lines :class:`kiekai.events.EventLog` (flushed per event, so a crash or Ctrl-C keeps
the log). The log starts with a ``header`` event (seed, players, deck, perception,
strictness, versions), so :func:`replay` can print the whole game from the log alone.

:class:`EventPrinter` turns events into the lines a watcher reads (split, word, guesses,
verdicts, scores, the final score table); the live game and the replay use the same
printer, so a replay prints what the game printed.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.events import Event, EventLog, read_log
from kiekai.kiek.engine import (
    TURN_SECONDS,
    IllegalAction,
    JudgeLike,
    KiekEngine,
    Phase,
)
from kiekai.kiek.players import ActivePlay, KiekPlayer, TimeUp

#: Version of the log format written by :func:`play_game` (in the header event).
LOG_FORMAT = 1
#: Tries a human gets when the engine refuses an answer before the game stops.
HUMAN_RETRIES = 5


class GameAborted(RuntimeError):
    """The game stopped before its end (EOF on stdin, Ctrl-C, a player's error).

    Attributes:
        reason: one sentence for the person at the terminal.
        log_path: where the (kept) log is, or ``None`` for an in-memory log.
    """

    def __init__(self, reason: str, log_path: Path | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.log_path = log_path


@dataclass(frozen=True)
class GameOutcome:
    """The result of a finished game.

    Attributes:
        names: player names by seat.
        scores: final points by seat.
        ranking: seats from first to last place (ties to the player who played last).
        winner: the winning seat.
        turns: turns played.
        end_reason: why the game ended, in words.
        log_path: the JSON-lines log, or ``None`` for an in-memory log.
        events: every event of the game, header first.
    """

    names: tuple[str, ...]
    scores: tuple[int, ...]
    ranking: tuple[int, ...]
    winner: int
    turns: int
    end_reason: str
    log_path: Path | None
    events: tuple[Event, ...]


def versions() -> dict[str, str]:
    """Versions recorded in the log header: kiekai, Python and the platform."""
    from kiekai import __version__

    return {
        "kiekai": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }


def play_game(
    players: Sequence[KiekPlayer],
    cards: Sequence[Card],
    *,
    judge: JudgeLike,
    seed: int,
    rounds: int = 3,
    clock: Clock | None = None,
    log: EventLog | None = None,
    header: Mapping[str, Any] | None = None,
    on_event: Callable[[Event], None] | None = None,
    time_limit: float = TURN_SECONDS,
) -> GameOutcome:
    """Play one whole game of Kiek and return the outcome.

    Seat ``i`` is ``players[i]``; the first human seat is the first active player (the
    rulebook's "youngest player"), else the seed chooses. Each turn the active player gets
    ``time_limit`` seconds (120, rulebook "A Turn") measured on ``clock``; a word that comes
    later, or a :class:`~kiekai.kiek.players.TimeUp` from the player, counts as nothing
    written (a ``time-up`` event says so). Guessers write at the same time at a real
    table, so each guesser gets what the active player left of the two minutes.

    Args:
        players: 3 to 8 seats (bots and humans).
        cards: the deck (at least 4 per player + 3).
        judge: decides matches, repeats and one-word checks.
        seed: seeds the engine (shuffle, redeals, first active player without humans).
        rounds: rounds to play (3 = the game proper; more = extra rounds).
        clock: time source (default: :class:`~kiekai.clock.MonotonicClock`).
        log: the event log (default: in memory); a header event is written first.
        header: extra header fields (deck path, perception, strictness ...).
        on_event: called with every event as it is logged (e.g. an :class:`EventPrinter`).
        time_limit: seconds per turn.

    Returns:
        the :class:`GameOutcome`.

    Raises:
        ValueError: bad numbers of players or cards (from the engine).
        GameAborted: EOF on a human's input or Ctrl-C; an ``aborted`` event is logged first
            and the log is kept.
        IllegalAction: a bot answered against the rules (a bug in the bot).
    """
    clock = clock or MonotonicClock()
    log = log if log is not None else EventLog(None)
    names = [p.name for p in players]
    header_event = Event(
        type="header",
        data={
            "game": "kiek",
            "format": LOG_FORMAT,
            "seed": seed,
            "rounds": rounds,
            "time_limit": time_limit,
            "players": [
                {"seat": i, "name": p.name, "human": bool(p.is_human)} for i, p in enumerate(players)
            ],
            **dict(header or {}),
            "versions": versions(),
        },
    )
    log.append(header_event)
    if on_event is not None:
        on_event(header_event)
    humans = [i for i, p in enumerate(players) if p.is_human]
    engine = KiekEngine(
        cards,
        len(players),
        judge=judge,
        seed=seed,
        first_active=humans[0] if humans else None,
        rounds=rounds,
        log=log,
        on_event=on_event,
        time_limit=time_limit,
    )
    try:
        while not engine.is_over():
            _step(engine, players, clock)
    except (KeyboardInterrupt, EOFError) as exc:
        reason = (
            "stopped with Ctrl-C"
            if isinstance(exc, KeyboardInterrupt)
            else "the input ended (EOF on stdin) while a player was being asked"
        )
        event = log.append(
            Event(type="aborted", turn=engine.turn, data={"reason": reason, "scores": engine.scores})
        )
        if on_event is not None:
            on_event(event)
        raise GameAborted(reason, log.path) from None
    return GameOutcome(
        names=tuple(names),
        scores=tuple(engine.scores),
        ranking=tuple(engine.ranking()),
        winner=engine.winner(),
        turns=len(engine.results),
        end_reason=engine.end_reason,
        log_path=log.path,
        events=tuple(log.events),
    )


def _step(engine: KiekEngine, players: Sequence[KiekPlayer], clock: Clock) -> None:
    """Ask for and apply the decisions of the current phase."""
    if engine.phase is Phase.PLAY:
        _active_turn(engine, players, clock)
    elif engine.phase is Phase.CALL:
        callers = [
            seat for seat in engine.to_move() if players[seat].call_repeat(engine.reveal_view(seat))
        ]
        engine.call(callers)
    elif engine.phase is Phase.KEEP:
        seat = engine.to_move()[0]
        player = players[seat]
        _retrying(player, lambda: engine.keep(seat, player.keep_card(engine.keep_view(seat))))
    else:  # pragma: no cover - GUESS is handled inside the active turn
        raise RuntimeError(f"unexpected phase {engine.phase}")


def _active_turn(engine: KiekEngine, players: Sequence[KiekPlayer], clock: Clock) -> None:
    """The timed part of a turn: the active player's play, then every guess."""
    seat = engine.active
    player = players[seat]
    limit = engine.time_limit
    start = clock.now()

    def ask_play() -> None:
        try:
            play: ActivePlay | None = player.play_turn(engine.active_view())
        except TimeUp:
            play = None
        late = clock.now() - start > limit
        if play is None or late or not play.word.strip():
            engine.note_time_up(seat, "word")
            if play is not None:
                play = ActivePlay(play.played, play.three, play.two, "")
        engine.play(play)

    _retrying(player, ask_play)
    if engine.phase is not Phase.GUESS:
        return
    left = max(0.0, limit - (clock.now() - start))
    for guesser in list(engine.guessers):
        gplayer = players[guesser]

        def ask_guess(guesser: int = guesser, gplayer: KiekPlayer = gplayer) -> None:
            if left <= 0:
                engine.note_time_up(guesser, "guess")
                engine.guess(guesser, "")
                return
            began = clock.now()
            try:
                word = gplayer.guess(engine.guess_view(guesser, left))
            except TimeUp:
                word = None
            if word is None or not word.strip() or clock.now() - began > left:
                engine.note_time_up(guesser, "guess")
                word = ""
            engine.guess(guesser, word)

        _retrying(gplayer, ask_guess)


def _retrying(player: KiekPlayer, action: Callable[[], None]) -> None:
    """Run ``action``; a human whose answer the engine refuses is told why and asked again."""
    for attempt in range(HUMAN_RETRIES):
        try:
            action()
            return
        except IllegalAction as exc:
            if not player.is_human or attempt == HUMAN_RETRIES - 1:
                raise
            tell = getattr(player, "tell", None)
            if callable(tell):
                tell(f"Not allowed: {exc}. Try again.")


class EventPrinter:
    """Prints game events for people watching (and for :func:`replay`).

    Args:
        console: where to print.
        show_labels: print the deck's labels next to card names. Off while a human plays
            (labels would give answers away); on when only bots play and in replays.
    """

    def __init__(self, console: Console, *, show_labels: bool = True) -> None:
        self.console = console
        self.show_labels = show_labels
        self.names: list[str] = []
        self.labels: dict[str, str] = {}

    def __call__(self, event: Event) -> None:
        """Print ``event`` (unknown event types are ignored)."""
        handler = getattr(self, "_on_" + event.type.replace("-", "_"), None)
        if handler is not None:
            handler(event)

    # -- helpers
    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "the table"
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def _card(self, card_id: str) -> str:
        name = escape(card_id.rsplit("/", 1)[-1])
        label = self.labels.get(card_id)
        if self.show_labels and label:
            return f"{name} [dim]({escape(label)})[/dim]"
        return name

    def _say(self, text: str) -> None:
        self.console.print(text, highlight=False)

    # -- handlers
    def _on_header(self, event: Event) -> None:
        data = event.data
        self.names = [p["name"] for p in data.get("players", [])]
        parts = [f"seed {data.get('seed')}", f"{len(self.names)} players: {', '.join(self.names)}"]
        for key in ("deck", "perception", "strictness", "level"):
            if data.get(key):
                parts.append(f"{key} {data[key]}")
        self._say("[bold]Kiek[/bold] · " + escape(" · ".join(str(p) for p in parts)))

    def _on_setup(self, event: Event) -> None:
        data = event.data
        self.labels = dict(data.get("labels", {}))
        how = "chosen by the seed" if data.get("first_active_by") == "seed" else "the first human"
        rounds = data.get("rounds")
        self._say(
            f"Dealt 4 cards to each player, 3 face up on the table, {data.get('aside', 0)} set "
            f"aside. {rounds} round{'s' if rounds != 1 else ''}; first active player: "
            f"{escape(self._name(data.get('first_active')))} ({how})."
        )

    def _on_turn(self, event: Event) -> None:
        data = event.data
        extra = " (extra round)" if data.get("extra_round") else ""
        self.console.rule(
            f"Turn {event.turn + 1} · round {data.get('round')}{extra} · stake x{data.get('stake')}"
            f" · {escape(self._name(event.player))} {'are' if self._name(event.player) == 'You' else 'is'} active"
        )

    def _on_redeal(self, event: Event) -> None:
        data = event.data
        if not data.get("each"):
            self._say(f"Only {data.get('discards')} discarded cards: too few to deal again.")
            return
        self._say(
            f"Out of cards: the {data.get('discards')} discarded cards are shuffled and dealt "
            f"again, {data.get('each')} to each player."
        )

    def _on_play(self, event: Event) -> None:
        data = event.data
        who = escape(self._name(event.player))
        three = ", ".join(self._card(c) for c in data.get("three", []))
        two = ", ".join(self._card(c) for c in data.get("two", []))
        self._say(f"{who} played {len(data.get('played', []))} cards and split the five:")
        self._say(f"  three: {three}")
        self._say(f"  two:   {two}")

    def _on_time_up(self, event: Event) -> None:
        what = event.data.get("what", "word")
        self._say(
            f"[yellow]{escape(self._name(event.player))} ran out of time: no {what} written "
            "this turn.[/yellow]"
        )

    def _on_reveal(self, event: Event) -> None:
        words = event.data.get("words", [])
        parts = []
        for seat, word in enumerate(words):
            role = " (active)" if seat == event.player else ""
            shown = f"'{escape(word)}'" if word else "[dim]nothing[/dim]"
            parts.append(f"{escape(self._name(seat))}{role}: {shown}")
        self._say("Words: " + "; ".join(parts))

    def _on_call(self, event: Event) -> None:
        data = event.data
        callers = ", ".join(escape(self._name(s)) for s in data.get("callers", []))
        if not data.get("right"):
            self._say(f"Ne bis in idem! called by {callers}: wrong, no word repeats. No points.")
            return
        repeats = "; ".join(
            f"{escape(self._name(int(s)))}'s word repeats '{escape(w)}'"
            for s, w in data.get("repeats", {}).items()
        )
        credited = data.get("credited")
        gain = (
            f"{escape(self._name(credited))} scores {data.get('points', 1)}"
            if credited is not None
            else "nobody scores the call"
        )
        self._say(f"Ne bis in idem! called by {callers}: right ({repeats}); {gain}.")

    def _on_verdict(self, event: Event) -> None:
        data = event.data
        mark = "[green]match[/green]" if data.get("accepted") else "[red]no match[/red]"
        gain = f" +{data['scored']} each" if data.get("scored") else ""
        self._say(
            f"  {escape(self._name(event.player))}: '{escape(str(data.get('guess')))}' vs "
            f"'{escape(str(data.get('secret')))}': {mark}{gain} "
            f"[dim]({escape(str(data.get('relation')))}: {escape(str(data.get('reason')))})[/dim]"
        )

    def _on_score(self, event: Event) -> None:
        data = event.data
        if data.get("note"):
            self._say(f"  [dim]{escape(data['note'])}[/dim]")
        points, totals = data.get("points", []), data.get("totals", [])
        parts = [
            f"{escape(self._name(s))} {totals[s]}" + (f" (+{points[s]})" if points[s] else "")
            for s in range(len(totals))
        ]
        self._say("Scores: " + ", ".join(parts))

    def _on_discard(self, event: Event) -> None:
        table = ", ".join(self._card(c) for c in event.data.get("table", []))
        self._say(f"Kept on the table: {table}")

    def _on_aborted(self, event: Event) -> None:
        self._say(f"[red]Game stopped at turn {event.turn + 1}: {escape(event.data.get('reason', ''))}[/red]")

    def _on_game_over(self, event: Event) -> None:
        data = event.data
        scores = data.get("scores", [])
        last = data.get("last_active_turn", [])
        table = Table(title=f"Final scores ({escape(data.get('reason', ''))})")
        table.add_column("Place", justify="right")
        table.add_column("Player")
        table.add_column("Points", justify="right")
        table.add_column("Last active turn", justify="right")
        for place, seat in enumerate(data.get("ranking", []), start=1):
            table.add_row(
                str(place),
                escape(self._name(seat)),
                str(scores[seat]),
                str(last[seat] + 1) if seat < len(last) and last[seat] >= 0 else "-",
            )
        self.console.print(table)
        winner = data.get("winner")
        note = " (tie broken in favour of the player who played last)" if data.get(
            "tie_broken_by_last_active"
        ) else ""
        self._say(f"[bold]{escape(self._name(winner))} wins{note}.[/bold]")


def replay(log_path: str | os.PathLike[str], console: Console | None = None) -> list[Event]:
    """Print a game again from its JSON-lines log alone; returns the events read.

    Labels are shown (the game is over). A log that stops early (Ctrl-C, a crash) is
    printed up to where it stops, followed by a line saying so.

    Raises:
        FileNotFoundError: no file at ``log_path``.
        ValueError: the file is not a Kiek game log (no header event first) or a line is
            broken (the error names the line).
    """
    console = console or Console()
    events = list(read_log(log_path))
    if not events or events[0].type != "header" or events[0].data.get("game") != "kiek":
        raise ValueError(
            f"{log_path} is not a Kiek game log: the first line should be a 'header' event "
            "written by `kiekai play`"
        )
    printer = EventPrinter(console, show_labels=True)
    for event in events:
        printer(event)
    if not any(e.type in ("game-over", "aborted") for e in events):
        console.print(
            f"The log ends at turn {events[-1].turn + 1}, before the game did "
            "(the program was stopped).",
            highlight=False,
        )
    return events
