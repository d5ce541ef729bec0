"""The Kiek game runner: drives the engine with players, the clock and the game log.

:func:`play_game` asks each seat (bot or human, through the
:class:`kiekai.kiek.players.KiekPlayer` protocol) for its decisions, enforces the
two-minute turn through a :class:`kiekai.clock.Clock`, and writes every event to a
JSON-lines :class:`kiekai.events.EventLog` (flushed per event, so a crash or Ctrl-C keeps
the log). The log starts with a ``header`` event (seed, players, deck, perception,
strictness, versions), so :func:`kiekai.kiek.replay.replay` can print the whole game from
the log alone.
"""

from __future__ import annotations

import platform
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.events import Event, EventLog, KiekAborted, KiekHeader
from kiekai.judge.house_rules import (
    HouseRules,
    HouseRulesError,
    HouseRuling,
)
from kiekai.judge.protocol import JudgeLike
from kiekai.kiek.engine import (
    IllegalAction,
    KiekEngine,
    Phase,
    ruling_key,
)
from kiekai.kiek.players import (
    ActivePlay,
    Hourglass,
    HumanKiekPlayer,
    KiekPlayer,
    TableRuling,
    TimeUp,
    needs_agreement,
    scored_by_guess_ruling,
    scored_by_repeat_ruling,
)
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
    contradicts is applied (:meth:`KiekEngine.overrule`), credited to the person who made
    it (the event's ``player``, with ``agreed``), and, with ``house_rules``, saved with
    that person's name to the table's house-rules file at the judge's level
    (``judge.strictness``) for the next games
    (:meth:`~kiekai.judge.house_rules.HouseRules.add`). A ruling that would score the
    person making it needs another person's agreement when another person is at the
    table (docs/rules.md, "Who rules"); without it the judge's verdict stands. Applying the table's rulings is
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
    header_event = Event.of(
        KiekHeader.model_validate(
            {
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
            }
        )
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
            Event.of(KiekAborted(reason=reason, scores=list(engine.scores)), turn=engine.turn)
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
        engine = self.engine
        glass = Hourglass(self.clock, engine.time_limit)
        _retrying(self.players[engine.active], lambda: self.ask_play(glass))
        if engine.phase is not Phase.GUESS:
            return
        left = max(0.0, engine.time_limit - glass.elapsed())
        guessers = list(engine.guessers)
        words = _ask_at_once(self.players, guessers, lambda seat: self.ask_guess(seat, left))
        for guesser in guessers:
            word = words[guesser]
            if word is None:
                engine.note_time_up(guesser, "guess")
                word = ""
            engine.guess(guesser, word)

    def ask_play(self, glass: Hourglass) -> None:
        """Ask the active player for the play on ``glass``; a play that comes too late, a
        :class:`TimeUp`, or no word counts as nothing written (``time-up`` logged)."""
        engine = self.engine
        seat = engine.active
        try:
            play: ActivePlay | None = self.players[seat].play_turn(
                replace(engine.active_view(), hourglass=glass)
            )
        except TimeUp:
            play = None
        if play is None or glass.ran_out() or not play.word.strip():
            engine.note_time_up(seat, "word")
            if play is not None:
                play = ActivePlay(play.played, play.three, play.two, "")
        engine.play(play)

    def ask_guess(self, guesser: int, left: float) -> str | None:
        """Ask ``guesser`` for a word in the ``left`` seconds of the turn; ``None`` when
        time ran out or nothing was written. A person whose word the engine refuses is told
        why and asked again (:data:`HUMAN_RETRIES` tries)."""
        engine = self.engine
        player = self.players[guesser]
        if left <= 0:
            return None
        hourglass = Hourglass(self.clock, left)
        for attempt in range(HUMAN_RETRIES):
            try:
                word = player.guess(replace(engine.guess_view(guesser, left), hourglass=hourglass))
            except TimeUp:
                return None
            if word is None or not word.strip() or hourglass.ran_out():
                return None
            try:
                engine.check_guess(guesser, word)
                return word
            except IllegalAction as exc:
                if not player.is_human or attempt == HUMAN_RETRIES - 1:
                    raise
                _tell(player, f"Not allowed: {exc}. Try again.")
        return None  # pragma: no cover - the loop returns or raises

    def reveal(self) -> None:
        """The words read aloud: people may overrule verdicts; anyone may call a repeat;
        after a call, people may overrule the judge's repeat verdicts."""
        engine = self.engine
        seats = engine.to_move()
        views = {seat: engine.reveal_view(seat) for seat in seats}

        def ask(seat: int) -> tuple[Mapping[str, bool | TableRuling[bool]], bool]:
            player = self.players[seat]
            rulings: Mapping[str, bool | TableRuling[bool]] = {}
            if player.is_human and views[seat].guesses:
                rulings = cast(HumanKiekPlayer, player).overrule(views[seat])
            return rulings, bool(player.call_repeat(views[seat]))

        answers = _ask_at_once(self.players, seats, ask)
        secret = views[seats[0]].words.get(engine.active, "")
        proposed = _proposals(seats, {seat: answers[seat][0] for seat in seats}, bool)
        for group in engine.distinct_guesses():
            found = proposed.get(ruling_key(group.word))
            if found is None:
                continue  # no ruling, or people at the table disagree: the judge's verdict stands
            accepted, ruler, agreed = bool(found[0]), found[1], found[2]
            if accepted == group.verdict.accepted:
                continue
            scored = scored_by_guess_ruling(engine.active, group.seats, accepted)
            if not self.agreed_enough(group.word, ruler, scored, agreed):
                continue
            engine.overrule(group.word, accepted, by=ruler, agreed=agreed)
            self.save_ruling(HouseRuling(secret, group.word, accepted, self.ruling_level), ruler)
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

        def ask(seat: int) -> Mapping[str, str | None | TableRuling[str | None]]:
            return cast(HumanKiekPlayer, self.players[seat]).overrule_repeats(views[seat])

        answers = _ask_at_once(self.players, people, ask)
        proposed = _proposals(people, answers, lambda used: used is not None)
        for group in engine.distinct_repeats():
            found = proposed.get(ruling_key(group.word))
            if found is None:
                continue  # no ruling, or people disagree: the judge's verdict stands
            used = None if found[0] is None else str(found[0])
            by, agreed = found[1], found[2]
            repeats = used is not None
            if repeats == group.verdict.accepted:
                continue
            scored = scored_by_repeat_ruling(engine.active, group.seats, callers, repeats)
            if not self.agreed_enough(group.word, by, scored, agreed):
                continue
            try:
                engine.overrule_repeat(group.word, used, by=by, agreed=agreed)
            except IllegalAction as exc:
                _tell(self.players[by], f"Not allowed: {exc}.")
                continue
            # the pair ruled on: the used word the table named, or the judge's when the
            # table rules "no repeat" (saved as a ruling like a match: docs/judge.md)
            pair = used if used is not None else group.verdict.matched
            if pair:
                self.save_ruling(HouseRuling(pair, group.word, repeats, self.ruling_level), by)

    def agreed_enough(
        self, word: str, ruler: int, scored: frozenset[int], agreed: Sequence[int]
    ) -> bool:
        """Whether a ruling by ``ruler`` on ``word`` may be applied: one that would score
        its ruler (``scored``) needs another person's agreement when another person is at
        the table (:func:`~kiekai.kiek.players.needs_agreement`; docs/rules.md, "Who
        rules"). A ruling without it is not applied, and its ruler is told why."""
        people = [s for s, player in enumerate(self.players) if player.is_human]
        if not needs_agreement(ruler, scored, people):
            return True
        if any(seat != ruler and seat in people for seat in agreed):
            return True
        _tell(
            self.players[ruler],
            f"Your ruling on {word!r} was not applied: it would score you, so another "
            "person at the table has to agree to it.",
        )
        return False

    def save_ruling(self, ruling: HouseRuling, by: int) -> None:
        """Append the table's ruling to its house-rules file (the next games apply it),
        with the name of the person who made it (``ruled_by``)."""
        if self.house_rules is None:
            return
        try:
            self.house_rules.add(ruling, ruled_by=self.players[by].name)
        except (OSError, HouseRulesError) as exc:
            where = self.house_rules.path or self.house_rules.where
            _tell(
                self.players[by],
                f"The ruling counts in this game but could not be saved to {where}: {exc}",
            )


def _proposals(
    seats: Sequence[int],
    answers: Mapping[int, Mapping[str, Any]],
    kind: Callable[[Any], bool],
) -> dict[str, tuple[Any, int, tuple[int, ...]]]:
    """The table's rulings from every person's answer (``overrule`` or
    ``overrule_repeats``): ruling key -> (the ruling, the seat that made it, the seats that
    agreed), for the words on which no two people rule differently (``kind``: the side a
    ruling takes, match or repeat).

    A plain value is the ruling of the seat that answered it; a
    :class:`~kiekai.kiek.players.TableRuling` names its ruler and who agreed (a front end
    shared by several people reports the same ruling from every seat). When several
    people make the same ruling, the first in ``seats`` order made it and the others agreed.
    """
    found: dict[str, list[tuple[Any, int, tuple[int, ...]]]] = {}
    for seat in seats:
        for word, answer in dict(answers.get(seat, {})).items():
            if isinstance(answer, TableRuling):
                report = (answer.value, int(answer.by), tuple(answer.agreed))
            else:
                report = (answer, seat, ())
            found.setdefault(ruling_key(str(word)), []).append(report)
    rulings: dict[str, tuple[Any, int, tuple[int, ...]]] = {}
    for key, reports in found.items():
        if len({kind(value) for value, _, _ in reports}) != 1:
            continue  # people at the table disagree
        value, ruler, _ = reports[0]
        agreed: list[int] = []
        for _, by, also in reports:
            for seat in (by, *also):
                if seat != ruler and seat not in agreed:
                    agreed.append(seat)
        rulings[key] = (value, ruler, tuple(sorted(agreed)))
    return rulings


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
