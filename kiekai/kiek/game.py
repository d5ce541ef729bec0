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
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from rich.console import Console
from rich.table import Table

from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.display import safe_text
from kiekai.events import Event, EventLog, LogProblem, read_log
from kiekai.judge.house_rules import HouseRules, HouseRulesError, HouseRuling
from kiekai.kiek.engine import (
    IllegalAction,
    JudgeLike,
    KiekEngine,
    Phase,
    ruling_key,
)
from kiekai.kiek.players import ActivePlay, Hourglass, HumanKiekPlayer, KiekPlayer, TimeUp
from kiekai.kiek.settings import GameSettings

_T = TypeVar("_T")

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
    settings: GameSettings,
    clock: Clock | None = None,
    log: EventLog | None = None,
    header: Mapping[str, Any] | None = None,
    on_event: Callable[[Event], None] | None = None,
    house_rules: HouseRules | None = None,
    card_names: Mapping[str, str] | None = None,
    on_engine: Callable[[KiekEngine], None] | None = None,
) -> GameOutcome:
    """Play one whole game of Kiek and return the outcome.

    Seat ``i`` is ``players[i]``; the first human seat is the first active player (the
    rulebook's "youngest player"), else the seed chooses. Each turn the active player gets
    ``settings.turn_seconds`` seconds (120, rulebook "A Turn") on an
    :class:`~kiekai.kiek.players.Hourglass` that a person's front end turns when the cards
    and prompt are on screen (a bot is timed from the moment it is asked); a word that
    comes later, or a :class:`~kiekai.kiek.players.TimeUp` from the player, counts as
    nothing written (a ``time-up`` event says so). Guessers write at the same time at a
    real table, so each guesser gets what the active player left of the two minutes, and
    people are asked at once (each in its own thread) while the bots answer in turn; the
    words are written to the engine in seating order, so a seeded game repeats exactly.

    At the reveal every person may overrule the judge's verdicts
    (:meth:`~kiekai.kiek.players.HumanKiekPlayer.overrule`): a ruling that no other person
    contradicts is applied (:meth:`KiekEngine.overrule`) and, with ``house_rules``, saved
    to the table's house-rules file at the judge's level (``judge.strictness``) for the
    next games (:meth:`~kiekai.judge.house_rules.HouseRules.add`). Applying the table's rulings is
    the judge's job, not the runner's: build it with the same object,
    ``Judge(strictness, house_rules=rules)``, and it decides every pair the table has
    ruled on (in ``match`` and ``is_repeat``, reason "house rule"), a ruling made in this
    game from the next verdict on.

    Args:
        players: 3 to 8 seats (bots and humans).
        cards: the deck (at least 4 per player + 3).
        judge: decides matches, repeats and one-word checks; its ``strictness`` is the
            level new rulings are saved at.
        settings: the seed (shuffle, redeals, first active player without humans), the
            rounds to play (3 = the game proper; more = extra rounds) and the seconds per
            turn.
        clock: time source (default: :class:`~kiekai.clock.MonotonicClock`).
        log: the event log (default: in memory); a header event is written first.
        header: extra header fields (deck path, perception, strictness ...).
        on_event: called with every event as it is logged (e.g. an :class:`EventPrinter`).
        house_rules: where the table's new rulings are saved (``add``: the file, and the
            rulings the judge applies when it was built with this object).
        card_names: card id -> the name shown to people (default:
            :func:`kiekai.display.card_names`); written to the log header for replays.
        on_engine: called once with the engine right after it is built (front ends that
            show the table read it; they must not call its actions).

    Returns:
        the :class:`GameOutcome`.

    Raises:
        ValueError: bad numbers of players or cards (from the engine).
        GameAborted: EOF on a human's input or Ctrl-C; an ``aborted`` event is logged first
            and the log is kept.
        IllegalAction: a bot answered against the rules (a bug in the bot).
    """
    from kiekai.display import card_names as default_card_names

    clock = clock or MonotonicClock()
    log = log if log is not None else EventLog(None)
    names = [p.name for p in players]
    shown_names = dict(card_names) if card_names is not None else default_card_names(cards)
    header_event = Event(
        type="header",
        data={
            "game": "kiek",
            "format": LOG_FORMAT,
            "seed": settings.seed,
            "rounds": settings.rounds,
            "time_limit": settings.turn_seconds,
            "players": [
                {"seat": i, "name": p.name, "human": bool(p.is_human)}
                for i, p in enumerate(players)
            ],
            **dict(header or {}),
            "card_names": shown_names,
            "house_rules": str(house_rules.path)
            if house_rules is not None and house_rules.path
            else None,
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
        seed=settings.seed,
        first_active=humans[0] if humans else None,
        rounds=settings.rounds,
        log=log,
        on_event=on_event,
        time_limit=settings.turn_seconds,
    )
    if on_engine is not None:
        on_engine(engine)
    table = _Table(engine, players, clock, house_rules, judge.strictness.value)
    try:
        while not engine.is_over():
            table.step()
    except (KeyboardInterrupt, EOFError) as exc:
        reason = (
            "stopped with Ctrl-C"
            if isinstance(exc, KeyboardInterrupt)
            else "the input ended (EOF on stdin) while a player was being asked"
        )
        for player in players:  # a person's question on screen ends before the last words
            if player.is_human:
                cast(HumanKiekPlayer, player).stop(reason)
        event = log.append(
            Event(
                type="aborted", turn=engine.turn, data={"reason": reason, "scores": engine.scores}
            )
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


class _Table:
    """Asks the players of one game for their decisions and applies them to the engine."""

    def __init__(
        self,
        engine: KiekEngine,
        players: Sequence[KiekPlayer],
        clock: Clock,
        house_rules: HouseRules | None,
        ruling_level: str,
    ) -> None:
        self.engine = engine
        self.players = players
        self.clock = clock
        self.house_rules = house_rules
        self.ruling_level = ruling_level

    def step(self) -> None:
        """Ask for and apply the decisions of the current phase."""
        engine = self.engine
        if engine.phase is Phase.PLAY:
            self.active_turn()
        elif engine.phase is Phase.CALL:
            self.reveal()
        elif engine.phase is Phase.KEEP:
            seat = engine.to_move()[0]
            player = self.players[seat]
            _retrying(player, lambda: engine.keep(seat, player.keep_card(engine.keep_view(seat))))
        else:  # pragma: no cover - GUESS is handled inside the active turn
            raise RuntimeError(f"unexpected phase {engine.phase}")

    def active_turn(self) -> None:
        """The timed part of a turn: the active player's play, then every guess."""
        engine, clock = self.engine, self.clock
        seat = engine.active
        player = self.players[seat]
        glass = Hourglass(clock, engine.time_limit)

        def ask_play() -> None:
            try:
                play: ActivePlay | None = player.play_turn(
                    replace(engine.active_view(), hourglass=glass)
                )
            except TimeUp:
                play = None
            if play is None or glass.ran_out() or not play.word.strip():
                engine.note_time_up(seat, "word")
                if play is not None:
                    play = ActivePlay(play.played, play.three, play.two, "")
            engine.play(play)

        _retrying(player, ask_play)
        if engine.phase is not Phase.GUESS:
            return
        left = max(0.0, engine.time_limit - glass.elapsed())
        guessers = list(engine.guessers)

        def ask_guess(guesser: int) -> str | None:
            gplayer = self.players[guesser]
            if left <= 0:
                return None
            hourglass = Hourglass(clock, left)
            for attempt in range(HUMAN_RETRIES):
                try:
                    word = gplayer.guess(
                        replace(engine.guess_view(guesser, left), hourglass=hourglass)
                    )
                except TimeUp:
                    return None
                if word is None or not word.strip() or hourglass.ran_out():
                    return None
                try:
                    engine.check_guess(guesser, word)
                    return word
                except IllegalAction as exc:
                    if not gplayer.is_human or attempt == HUMAN_RETRIES - 1:
                        raise
                    _tell(gplayer, f"Not allowed: {exc}. Try again.")
            return None  # pragma: no cover - the loop returns or raises

        words = _ask_at_once(self.players, guessers, ask_guess)
        for guesser in guessers:
            word = words[guesser]
            if word is None:
                engine.note_time_up(guesser, "guess")
                word = ""
            engine.guess(guesser, word)

    def reveal(self) -> None:
        """The words read aloud: people may overrule verdicts; anyone may call a repeat;
        after a call, people may overrule the judge's repeat verdicts."""
        engine = self.engine
        seats = engine.to_move()
        views = {seat: engine.reveal_view(seat) for seat in seats}

        def ask(seat: int) -> tuple[Mapping[str, bool], bool]:
            player = self.players[seat]
            rulings: Mapping[str, bool] = {}
            if player.is_human and views[seat].guesses:
                rulings = cast(HumanKiekPlayer, player).overrule(views[seat])
            return rulings, bool(player.call_repeat(views[seat]))

        answers = _ask_at_once(self.players, seats, ask)
        secret = views[seats[0]].words.get(engine.active, "")
        proposed: dict[str, dict[bool, list[int]]] = {}
        for seat in seats:
            for word, accepted in dict(answers[seat][0]).items():
                proposed.setdefault(ruling_key(str(word)), {}).setdefault(
                    bool(accepted), []
                ).append(seat)
        for group in engine.distinct_guesses():
            ruled = proposed.get(ruling_key(group.word), {})
            if len(ruled) != 1:
                continue  # no ruling, or people at the table disagree: the judge's verdict stands
            ((accepted, by),) = ruled.items()
            if accepted == group.verdict.accepted:
                continue
            engine.overrule(group.word, accepted, by=by[0])
            self.save_ruling(HouseRuling(secret, group.word, accepted, self.ruling_level), by[0])
        callers = [seat for seat in seats if answers[seat][1]]
        if callers and engine.used_words:
            self.rule_on_repeats(callers)
        engine.call(callers)

    def rule_on_repeats(self, callers: Sequence[int]) -> None:
        """Ne bis in idem was called: the people see the judge's repeat verdicts and may
        overrule them (rulebook "Ne Bis in Idem": the call is right if all players agree);
        a ruling nobody contradicts is applied and saved as a house rule."""
        engine = self.engine
        people = [s for s in engine.seats_from_left_of(engine.active) if self.players[s].is_human]
        if not people:
            return
        views = {seat: engine.call_view(seat, callers) for seat in people}
        if not views[people[0]].repeats:
            return

        def ask(seat: int) -> Mapping[str, str | None]:
            return cast(HumanKiekPlayer, self.players[seat]).overrule_repeats(views[seat])

        answers = _ask_at_once(self.players, people, ask)
        proposed: dict[str, dict[bool, list[tuple[int, str | None]]]] = {}
        for seat in people:
            for word, used in dict(answers[seat]).items():
                used = None if used is None else str(used)
                proposed.setdefault(ruling_key(str(word)), {}).setdefault(
                    used is not None, []
                ).append((seat, used))
        for group in engine.distinct_repeats():
            ruled = proposed.get(ruling_key(group.word), {})
            if len(ruled) != 1:
                continue  # no ruling, or people disagree: the judge's verdict stands
            ((repeats, asked),) = ruled.items()
            if repeats == group.verdict.accepted:
                continue
            by, used = asked[0]
            try:
                engine.overrule_repeat(group.word, used, by=by)
            except IllegalAction as exc:
                _tell(self.players[by], f"Not allowed: {exc}.")
                continue
            # the pair ruled on: the used word the table named, or the judge's when the
            # table rules "no repeat" (saved as a ruling like a match: docs/judge.md)
            pair = used if used is not None else group.verdict.matched
            if pair:
                self.save_ruling(HouseRuling(pair, group.word, repeats, self.ruling_level), by)

    def save_ruling(self, ruling: HouseRuling, by: int) -> None:
        """Append the table's ruling to its house-rules file (the next games apply it)."""
        if self.house_rules is None:
            return
        try:
            self.house_rules.add(ruling)
        except (OSError, HouseRulesError) as exc:
            _tell(
                self.players[by],
                f"The ruling counts in this game but could not be saved to "
                f"{self.house_rules.path}: {exc}",
            )


def _ask_at_once(
    players: Sequence[KiekPlayer], seats: Sequence[int], ask: Callable[[int], _T]
) -> dict[int, _T]:
    """``ask(seat)`` for every seat; people at once, each in its own thread, bots in turn.

    Rulebook "A Turn": the guessers write at the same time. Bots are asked in this thread
    in seating order (so a seeded game repeats exactly) while people answer. The first
    error of a seat (in seating order) is raised here once everyone has answered; Ctrl-C
    in this thread stops waiting at once (the people's threads are daemons).
    """
    results: dict[int, _T] = {}
    errors: dict[int, BaseException] = {}

    def run(seat: int) -> None:
        try:
            results[seat] = ask(seat)
        except BaseException as exc:  # re-raised in the caller's thread
            errors[seat] = exc

    threads = []
    for seat in seats:
        if players[seat].is_human:
            thread = threading.Thread(
                target=run, args=(seat,), name=f"kiek-seat-{seat}", daemon=True
            )
            thread.start()
            threads.append(thread)
    for seat in seats:
        if not players[seat].is_human:
            run(seat)
            if seat in errors:
                break
    for thread in threads:
        while thread.is_alive():
            thread.join(0.1)
    for seat in seats:
        if seat in errors:
            raise errors[seat]
    return results


def _tell(player: KiekPlayer, message: str) -> None:
    """Tell a person ``message`` (bots are told nothing)."""
    if player.is_human:
        cast(HumanKiekPlayer, player).tell(message)


def _retrying(player: KiekPlayer, action: Callable[[], None]) -> None:
    """Run ``action``; a human whose answer the engine refuses is told why and asked again."""
    for attempt in range(HUMAN_RETRIES):
        try:
            action()
            return
        except IllegalAction as exc:
            if not player.is_human or attempt == HUMAN_RETRIES - 1:
                raise
            _tell(player, f"Not allowed: {exc}. Try again.")


class EventPrinter:
    """Prints game events for people watching (and for :func:`replay`).

    Cards are named as people see them (the log header's ``card_names``: the label, or
    what the perception sees, or "photo N"), never by file name. All text that came from
    outside (names, words, reasons) goes through :func:`kiekai.display.safe_text`.

    Args:
        console: where to print.
        reasons_shown: the people at this console have already read each verdict with the
            judge's reason (the terminal lists them when it asks "Overrule a verdict?"), so
            the verdict lines give the outcome and the points without repeating the reason.
            False for replays, bots-only games and the web table's log.
    """

    def __init__(self, console: Console, reasons_shown: bool = False) -> None:
        self.console = console
        self.reasons_shown = reasons_shown
        self.names: list[str] = []
        self.card_names: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self._revealed: dict[int, str] = {}

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

    def _who(self, seat: int | None) -> str:
        """The player's name, safe for Rich markup."""
        return safe_text(self._name(seat))

    def _whose(self, seat: int | None, start: bool = False) -> str:
        """Possessive of the player's name: "your" for "You", else "Bot 1's"."""
        name = self._name(seat)
        if name == "You":
            return "Your" if start else "your"
        return safe_text(name) + "'s"

    def _card(self, card_id: str) -> str:
        name = self.card_names.get(card_id) or self.labels.get(card_id) or "a photo"
        return safe_text(name)

    def _say(self, text: str) -> None:
        self.console.print(text, highlight=False)

    # -- handlers
    def _on_header(self, event: Event) -> None:
        data = event.data
        self.names = [str(p.get("name", "")) for p in data.get("players", [])]
        self.card_names = {str(k): str(v) for k, v in dict(data.get("card_names") or {}).items()}
        parts = [f"seed {data.get('seed')}", f"{len(self.names)} players: {', '.join(self.names)}"]
        for key in ("deck", "perception", "strictness", "level"):
            if data.get(key):
                parts.append(f"{key} {data[key]}")
        self._say("[bold]Kiek[/bold] · " + safe_text(" · ".join(str(p) for p in parts)))

    def _on_setup(self, event: Event) -> None:
        data = event.data
        self.labels = {str(k): str(v) for k, v in dict(data.get("labels", {})).items()}
        how = "chosen by the seed" if data.get("first_active_by") == "seed" else "the first human"
        rounds = data.get("rounds")
        self._say(
            f"Dealt 4 cards to each player, 3 face up on the table, {data.get('aside', 0)} set "
            f"aside. {rounds} round{'s' if rounds != 1 else ''}; first active player: "
            f"{self._who(data.get('first_active'))} ({how})."
        )

    def _on_turn(self, event: Event) -> None:
        data = event.data
        extra = " (extra round)" if data.get("extra_round") else ""
        self._revealed = {}
        self.console.rule(
            f"Turn {event.turn + 1} · round {data.get('round')}{extra} · stake x{data.get('stake')}"
            f" · {self._who(event.player)} {'are' if self._name(event.player) == 'You' else 'is'} active"
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
        who = self._who(event.player)
        three = ", ".join(self._card(c) for c in data.get("three", []))
        two = ", ".join(self._card(c) for c in data.get("two", []))
        if data.get("forfeited"):
            self._say(
                f"[yellow]{who} chose no cards in time: the first two cards of "
                f"{self._whose(event.player)} hand were played for "
                f"{'you' if self._name(event.player) == 'You' else 'them'} and the five split "
                "in table order.[/yellow]"
            )
        else:
            self._say(f"{who} played {len(data.get('played', []))} cards and split the five:")
        self._say(f"  three: {three}")
        self._say(f"  two:   {two}")
        if not data.get("wrote_word"):
            self._say(
                f"[yellow]Turn forfeited: {self._whose(event.player)} word was not written in "
                "time, so there is nothing to guess. The guessers are not asked and nobody "
                "scores this turn (docs/rules.md, settled reading 11).[/yellow]"
            )

    def _on_time_up(self, event: Event) -> None:
        what = event.data.get("what", "word")
        who = self._who(event.player)
        if what == "word":
            return  # the play event says what the rulebook reading makes of it
        if what == "guess":
            self._say(f"[yellow]{who} ran out of time: no guess written this turn.[/yellow]")
        elif what == "keep":
            self._say(
                f"[yellow]{who} did not choose in time: the first card on offer stays.[/yellow]"
            )
        else:
            self._say(f"[yellow]{who} ran out of time ({safe_text(what)}).[/yellow]")

    def _on_reveal(self, event: Event) -> None:
        words = event.data.get("words", [])
        self._revealed = dict(enumerate(words))
        parts = []
        for seat, word in enumerate(words):
            role = " (active)" if seat == event.player else ""
            shown = f"'{safe_text(word)}'" if word else "[dim]nothing[/dim]"
            parts.append(f"{self._who(seat)}{role}: {shown}")
        self._say("Words: " + "; ".join(parts))

    def _writers(self, seats: Sequence[int]) -> str:
        """'your', "Bot 1's" or "Bot 1's and your" for the seats that wrote one word."""
        names = [self._whose(int(s)) for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def _on_overrule(self, event: Event) -> None:
        data = event.data
        seats = data.get("guessers") or [data.get("guesser")]
        ruling = "a match" if data.get("accepted") else "no match"
        guess = f"{self._writers(seats)} '{safe_text(data.get('guess', ''))}'"
        if data.get("withdrawn"):
            self._say(
                f"{self._who(event.player)} withdrew the ruling on {guess}: the judge's "
                "verdict stands."
            )
            return
        self._say(
            f"[magenta]Overruled by {self._who(event.player)}:[/magenta] {guess} for "
            f"'{safe_text(data.get('secret', ''))}' is {ruling} at this table "
            "(saved as a house rule)."
        )

    def _on_overrule_repeat(self, event: Event) -> None:
        data = event.data
        word = f"{self._writers(data.get('writers') or [])} '{safe_text(data.get('word', ''))}'"
        used = safe_text(data.get("used", ""))
        if data.get("withdrawn"):
            self._say(
                f"{self._who(event.player)} withdrew the ruling on {word}: the judge's "
                "verdict on ne bis in idem stands."
            )
            return
        ruling = f"repeats '{used}'" if data.get("repeats") else f"does not repeat '{used}'"
        self._say(
            f"[magenta]Overruled by {self._who(event.player)}:[/magenta] {word} {ruling} at "
            "this table (saved as a house rule)."
        )

    def _on_call(self, event: Event) -> None:
        data = event.data
        names = [self._who(s) for s in data.get("callers", [])]
        callers = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
        if not data.get("right"):
            by_table = " (the table's ruling)" if data.get("ruled") else ""
            self._say(
                f"Ne bis in idem! called by {callers}: wrong, no word repeats{by_table}. No points."
            )
            return
        ruled = data.get("ruled") or {}
        repeats = "; ".join(
            f"{self._whose(int(s))} word repeats '{safe_text(w)}'"
            + (" by the table's ruling" if s in ruled else "")
            for s, w in data.get("repeats", {}).items()
        )
        credited = data.get("credited")
        gain = (
            f"{self._who(credited)} {'score' if self._name(credited) == 'You' else 'scores'} "
            f"{data.get('points', 1)}"
            if credited is not None
            else "nobody scores the call"
        )
        self._say(f"Ne bis in idem! called by {callers}: right ({repeats}); {gain}.")

    def _on_verdict(self, event: Event) -> None:
        data = event.data
        mark = "[green]match[/green]" if data.get("accepted") else "[red]no match[/red]"
        gain = f" +{data['scored']} each" if data.get("scored") else ""
        overruled = " [magenta](the table's ruling)[/magenta]" if data.get("overruled") else ""
        why = (
            ""
            if self.reasons_shown
            else f" [dim]({safe_text(data.get('relation'))}: {safe_text(data.get('reason'))})[/dim]"
        )
        self._say(
            f"  {self._who(event.player)}: '{safe_text(data.get('guess'))}' vs "
            f"'{safe_text(data.get('secret'))}': {mark}{gain}{overruled}{why}"
        )

    def _on_score(self, event: Event) -> None:
        data = event.data
        note = str(data.get("note") or "")
        if note and not note.startswith("no word written"):
            self._say(f"  [dim]{safe_text(note)}[/dim]")
        points, totals = data.get("points", []), data.get("totals", [])
        parts = [
            f"{self._who(s)} {totals[s]}" + (f" (+{points[s]})" if points[s] else "")
            for s in range(len(totals))
        ]
        self._say("Scores: " + ", ".join(parts))

    def _on_discard(self, event: Event) -> None:
        table = ", ".join(self._card(c) for c in event.data.get("table", []))
        self._say(f"Kept on the table: {table}")

    def _on_aborted(self, event: Event) -> None:
        self._say(
            f"[red]Game stopped at turn {event.turn + 1}: {safe_text(event.data.get('reason', ''))}[/red]"
        )

    def _on_game_over(self, event: Event) -> None:
        data = event.data
        scores = data.get("scores", [])
        last = data.get("last_active_turn", [])
        table = Table(title=f"Final scores ({safe_text(data.get('reason', ''))})")
        table.add_column("Place", justify="right")
        table.add_column("Player")
        table.add_column("Points", justify="right")
        table.add_column("Last active turn", justify="right")
        for place, seat in enumerate(data.get("ranking", []), start=1):
            table.add_row(
                str(place),
                self._who(seat),
                str(scores[seat]),
                str(last[seat] + 1) if seat < len(last) and last[seat] >= 0 else "-",
            )
        self.console.print(table)
        winner = data.get("winner")
        note = (
            " (tie broken in favour of the player who played last)"
            if data.get("tie_broken_by_last_active")
            else ""
        )
        self._say(
            f"[bold]{self._who(winner)} {'win' if self._name(winner) == 'You' else 'wins'}{note}.[/bold]"
        )


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
    shown through :func:`kiekai.display.safe_text` (:class:`EventPrinter`).

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
            if event.type != "header" or event.data.get("game") != "kiek":
                raise ValueError(
                    f"{log_path} is not a Kiek game log: the first line should be a 'header' "
                    "event written by `kiekai play`"
                )
            header_seen = True
        printer(event)
        count += 1
        last = event
        finished = finished or event.type in ("game-over", "aborted")
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
