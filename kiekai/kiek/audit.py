"""Checking a Kiek game log against the rules: the game is played again through the engine.

:func:`audit_kiek` rebuilds the game of a log with :class:`~kiekai.kiek.engine.KiekEngine`
from the log alone: the deal from the ``setup`` line and the seed (the deck itself is not
needed: the seeded shuffle is a permutation of the deck's size, so the dealt cards are put
back where the shuffle takes them from), the players' actions (``play``, ``time-up``,
``guess``, ``overrule``, ``overrule-repeat``, ``call``, ``keep``) applied in order, and the
judge's verdicts and repeat verdicts as the log records them (:class:`LoggedJudge`: no
model is loaded). Every event the engine then writes (``setup``, ``turn``, ``reveal``,
``verdict``, ``score``, ``discard``, ``redeal``, ``game-over``) must be the log's next line,
field for field; an action the rules refuse, a line the engine does not write, a score that
does not add up, a winner the ranking does not give, a second game after the end: the first
such line is reported as a :class:`Contradiction` with its line number.

What is compared: the record's ``turn`` and ``player`` and every field of the event's
model that the line holds (a field a line leaves out, or writes as null, is not checked;
fields the model does not name, e.g. from a newer kiekai, are not checked). Prose is not
compared (a verdict's ``relation`` and ``reason``, the call's ``reasons``, the score's
``note``, the end's ``reason``): it comes from the judge and the wording may change.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from kiekai.deck import Card
from kiekai.events import (
    Event,
    EventData,
    EventLog,
    KiekAborted,
    KiekCall,
    KiekGameOver,
    KiekGuess,
    KiekHeader,
    KiekKeep,
    KiekOverrule,
    KiekOverruleRepeat,
    KiekPlay,
    KiekReveal,
    KiekSetup,
    KiekTimeUp,
    KiekVerdict,
)
from kiekai.judge.normalize import hidden_character
from kiekai.judge.verdict import Strictness, Verdict
from kiekai.kiek.engine import IllegalAction, KiekEngine, Phase, ruling_key
from kiekai.kiek.players import (
    ActivePlay,
    needs_agreement,
    scored_by_guess_ruling,
    scored_by_repeat_ruling,
)
from kiekai.kiek.rules import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, TABLE_SIZE
from kiekai.log_check import Contradiction, LogContradicted, compare_events

#: Largest ``deck_size`` a ``setup`` line may claim: the ``setup`` line lists every card's
#: label within :data:`kiekai.events.MAX_LINE_BYTES` (16 MiB), so no deck kiekai deals from
#: is larger; a bigger number is not a deck (and would make the replay shuffle for ever).
MAX_DECK_SIZE = 1_000_000
#: Fields not compared, by event type: prose from the judge or the engine's wording.
PROSE_FIELDS: dict[str, frozenset[str]] = {
    "verdict": frozenset({"relation", "reason"}),
    "call": frozenset({"reasons"}),
    "score": frozenset({"note"}),
    "game-over": frozenset({"reason"}),
    "aborted": frozenset({"reason"}),
}
#: Event types the players' actions are read from (the engine writes the others itself).
ACTIONS = frozenset({"play", "time-up", "guess", "overrule", "overrule-repeat", "call", "keep"})


class LoggedJudge:
    """A judge that answers as the log says the judge answered (no model, no lexicon).

    Built from every event of a log: for each turn, the judge's verdict on each guess (the
    ``verdict`` events; the ``overrule`` event's ``judge_accepted`` where the table ruled
    otherwise) and its repeat verdict on each word (the ``call`` event's ``repeats`` and
    ``ruled``; the ``overrule-repeat`` event's ``judge_repeats`` and ``judge_used``). A word
    the log holds no verdict for is no match and no repeat (a log that stops before the
    verdicts were written). The one-word check is the model-free part of the judge's
    (not empty, no control or invisible characters): words the log holds were checked by
    the judge that wrote it.

    The engine asks during turn :attr:`turn` (set by the audit before each action).
    """

    def __init__(self, events: Sequence[Event], strictness: Strictness) -> None:
        self._strictness = strictness
        self.turn = 0
        self._matches: dict[tuple[int, str], Verdict] = {}
        self._repeats: dict[tuple[int, str], Verdict] = {}
        words: dict[tuple[int, int], str] = {}
        for event in events:
            data = event.payload
            if isinstance(data, KiekReveal):
                for seat, word in enumerate(data.words):
                    words[(event.turn, seat)] = word
        for event in events:
            self._learn(event, words)

    def _learn(self, event: Event, words: dict[tuple[int, int], str]) -> None:
        data, turn = event.payload, event.turn
        if isinstance(data, KiekVerdict):
            key = (turn, ruling_key(data.guess))
            accepted = data.accepted != data.overruled  # an overrule flips the judge's
            self._matches.setdefault(
                key, Verdict(accepted, float(accepted), data.relation, data.reason)
            )
        elif isinstance(data, KiekOverrule) and data.judge_accepted is not None:
            accepted = data.judge_accepted
            self._matches[(turn, ruling_key(data.guess))] = Verdict(
                accepted, float(accepted), "logged", "the judge's verdict, as logged"
            )
        elif isinstance(data, KiekOverruleRepeat) and data.judge_repeats is not None:
            self._repeats[(turn, ruling_key(data.word))] = Verdict(
                data.judge_repeats,
                float(data.judge_repeats),
                "logged",
                "the judge's repeat verdict, as logged",
                matched=data.judge_used,
            )
        elif isinstance(data, KiekCall):
            seats = {int(s) for s in data.repeats} | {int(s) for s in data.ruled}
            for seat in seats:
                word = words.get((turn, seat), "")
                key = (turn, ruling_key(word))
                if not word or key in self._repeats:
                    continue
                ruled = data.ruled.get(str(seat))
                repeats = (not ruled) if ruled is not None else str(seat) in data.repeats
                used = data.repeats.get(str(seat))
                self._repeats[key] = Verdict(
                    repeats,
                    float(repeats),
                    "logged",
                    data.reasons.get(str(seat), "the judge's repeat verdict, as logged"),
                    matched=used if repeats else None,
                )

    @property
    def strictness(self) -> Strictness:
        """The level the log's header names (``standard`` when it names none)."""
        return self._strictness

    def check_word(self, text: str) -> Verdict:
        """One word, as far as can be told without the lexicon: not empty, no control or
        invisible character (rulebook "A Turn": "just one word")."""
        raw = text.strip() if isinstance(text, str) else ""
        if not raw:
            return Verdict(False, 0.0, "empty", "the word is empty")
        hidden = hidden_character(raw)
        if hidden is not None:
            return Verdict(
                False, 0.0, "not-one-word", f"{raw!r} holds a control or invisible character"
            )
        return Verdict(True, 1.0, "one-word", "one word")

    def match(self, secret: str, guess: str) -> Verdict:
        """The logged verdict on ``guess`` this turn (no match when none is logged)."""
        found = self._matches.get((self.turn, ruling_key(guess)))
        return found if found is not None else Verdict(False, 0.0, "unlogged", "not in the log")

    def is_repeat(self, word: str, used_words: Sequence[str]) -> Verdict:
        """The logged repeat verdict on ``word`` this turn (no repeat when none is logged)."""
        found = self._repeats.get((self.turn, ruling_key(word)))
        return found if found is not None else Verdict(False, 0.0, "unlogged", "not in the log")


def _finite(value: float | None, what: str, line: int) -> None:
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise LogContradicted(line, f"{what} is {value!r}: seconds a turn are a positive number")


def check_header(header: KiekHeader, record: Event, line: int = 1) -> int:
    """The header's own facts: seats numbered ``0..n-1`` in order, 3 to 8 of them
    (docs/rules.md), a seed, rounds from 1, a positive finite turn time; the record names
    no seat.

    Returns:
        the number of players.

    Raises:
        LogContradicted: the first fact that does not hold.
    """
    if record.player is not None:
        raise LogContradicted(line, f"the header names seat {record.player}: it is about no seat")
    seats = [p.seat for p in header.players]
    if seats != list(range(len(seats))):
        raise LogContradicted(
            line, f"the header's seats are {seats}: seats are numbered 0 to n-1 in order"
        )
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise LogContradicted(
            line,
            f"the header seats {len(seats)} players: Kiek is for {MIN_PLAYERS} to {MAX_PLAYERS}",
        )
    if header.seed is None:
        raise LogContradicted(line, "the header has no seed: the deal cannot be checked")
    if header.rounds is not None and header.rounds < 1:
        raise LogContradicted(line, f"the header plays {header.rounds} rounds: at least 1")
    _finite(header.time_limit, "the header's time_limit", line)
    return len(seats)


def _deck_from_setup(
    setup: KiekSetup, n_players: int, seed: int, line: int, known: Sequence[str] = ()
) -> list[Card]:
    """A deck that the engine's seeded shuffle deals exactly as ``setup`` says.

    ``known`` is the deck as the header lists it (its ``card_names``, in deck order): when
    it lists the whole deck, the seed must deal ``setup``'s hands from it (the deck check).
    Otherwise the dealt cards are
    put where the shuffle takes them from (the shuffle is a permutation of the deck's size)
    and the cards set aside, which the rules never use, are the other cards the log names
    (then placeholders).

    Raises:
        LogContradicted: the deal is not 4 cards a player and 3 face up, deals a card
            twice, cannot come from a deck of ``deck_size`` cards, or is not what the seed
            deals from the deck the header lists.
    """
    if len(setup.hands) != n_players or any(len(h) != HAND_SIZE for h in setup.hands):
        raise LogContradicted(
            line,
            f"setup: the deal gives {[len(h) for h in setup.hands]} cards to "
            f"{len(setup.hands)} hands; the rules deal {HAND_SIZE} to each of {n_players} "
            "players",
        )
    if len(setup.table) != TABLE_SIZE:
        raise LogContradicted(
            line, f"setup: {len(setup.table)} cards face up; the rules put {TABLE_SIZE}"
        )
    dealt = [card for hand in setup.hands for card in hand] + list(setup.table)
    if len(set(dealt)) != len(dealt):
        twice = sorted({c for c in dealt if dealt.count(c) > 1})
        raise LogContradicted(line, f"setup: card {twice[0]!r} is dealt twice")
    size = setup.deck_size if setup.deck_size is not None else len(dealt) + setup.aside
    if not len(dealt) <= size <= MAX_DECK_SIZE:
        raise LogContradicted(
            line,
            f"setup: a deck of {size} cards cannot deal {len(dealt)} (and kiekai reads no "
            f"deck of over {MAX_DECK_SIZE})",
        )
    order = list(range(size))
    random.Random(seed).shuffle(order)  # the engine's shuffle moves positions, not cards
    ids: list[str | None] = [None] * size
    if len(known) == size and set(dealt) <= set(known):  # the header lists the whole deck
        if [known[order[i]] for i in range(len(dealt))] != dealt:
            raise LogContradicted(
                line,
                f"setup: seed {seed} does not deal these hands from the deck of the header's "
                "card_names (the deck in its order)",
            )
        ids = list(known)
    else:
        for position, card in enumerate(dealt):
            ids[order[position]] = card
        taken = set(dealt)
        others = [c for c in [*setup.labels, *known] if c not in taken]
        spare = iter([*dict.fromkeys(others), *(f"<aside {k}>" for k in range(size))])
        for index, card_id in enumerate(ids):
            if card_id is None:
                ids[index] = next(spare)
    return [
        Card(
            id=str(card_id),
            path=Path(str(card_id)),
            sha256="",
            label=setup.labels.get(str(card_id)),
        )
        for card_id in ids
    ]


class _KiekAudit:
    """One audit of one log (see :func:`audit_kiek`)."""

    def __init__(self, events: Sequence[tuple[int, Event]]) -> None:
        self.events = events
        self.engine: KiekEngine | None = None
        self.pending: deque[Event] = deque()
        self.seen = 0
        self.over_line: int | None = None
        self.header: KiekHeader | None = None
        self.n_players = 0
        self.judge = LoggedJudge([e for _, e in events], Strictness.STANDARD)
        self.secrets: dict[int, str] = {}
        self.callers: dict[int, list[int]] = {}
        for _, event in events:
            data = event.payload
            if isinstance(data, KiekCall):
                self.callers.setdefault(event.turn, list(data.callers))
            if isinstance(data, KiekReveal) and data.secret is not None:
                self.secrets.setdefault(event.turn, data.secret)
            elif isinstance(data, KiekVerdict):
                self.secrets.setdefault(event.turn, data.secret)

    def run(self) -> None:
        for line, event in self.events:
            self.step(line, event)

    def step(self, line: int, event: Event) -> None:
        data = event.payload
        if self.over_line is not None:
            raise LogContradicted(
                line,
                f"a {event.type!r} event after the end of the game (line {self.over_line}): "
                "a log holds one game",
            )
        if self.header is None:
            if not isinstance(data, KiekHeader):  # pragma: no cover - replay checks line 1
                raise LogContradicted(line, "the log does not start with its header")
            self.header = data
            self.n_players = check_header(data, event, line)
            try:
                self.judge._strictness = Strictness(data.strictness or "standard")
            except ValueError:
                pass
            return
        if isinstance(data, KiekHeader):
            raise LogContradicted(line, "a second 'header': a log holds one game")
        if self.engine is None:
            if not isinstance(data, KiekSetup):
                raise LogContradicted(
                    line, f"a {event.type!r} event before the deal: the 'setup' comes first"
                )
            self.build(line, event, data)
        elif isinstance(data, KiekAborted):
            self.aborted(line, event, data)
            return
        elif not self.pending:
            self.act(line, event)
        self.match(line, event)

    def build(self, line: int, event: Event, setup: KiekSetup) -> None:
        header = self.header
        assert header is not None and header.seed is not None
        seed = setup.seed if setup.seed is not None else header.seed
        if seed != header.seed:
            raise LogContradicted(
                line, f"setup: seed {setup.seed} but the header's is {header.seed}"
            )
        if setup.n_players is not None and setup.n_players != self.n_players:
            raise LogContradicted(
                line,
                f"setup: {setup.n_players} players but the header seats {self.n_players}",
            )
        rounds = setup.rounds if setup.rounds is not None else header.rounds or 3
        if header.rounds is not None and rounds != header.rounds:
            raise LogContradicted(
                line, f"setup: {rounds} rounds but the header plays {header.rounds}"
            )
        if rounds < 1:
            raise LogContradicted(line, f"setup: {rounds} rounds: at least 1")
        _finite(setup.time_limit, "setup: time_limit", line)
        time_limit = setup.time_limit or header.time_limit or 120.0
        given = setup.first_active if setup.first_active_by == "given" else None
        if given is not None and given >= self.n_players:
            raise LogContradicted(line, f"setup: seat {given} is not one of {self.n_players}")
        people = [p.seat for p in header.players if p.human]
        if people and setup.first_active_by is not None and given != people[0]:
            raise LogContradicted(
                line,
                f"setup: the first active player is seat {setup.first_active} "
                f"({setup.first_active_by}); at a table with people it is the first person, "
                f"seat {people[0]} (the rulebook's youngest player)",
            )
        cards = _deck_from_setup(setup, self.n_players, seed, line, list(header.card_names))
        log = EventLog(None)
        self.engine = KiekEngine(
            cards,
            self.n_players,
            judge=self.judge,
            seed=seed,
            first_active=given,
            rounds=rounds,
            log=log,
            time_limit=time_limit,
        )
        self.collect()

    def collect(self) -> None:
        engine = self.engine
        assert engine is not None
        new = engine.log.events[self.seen :]
        self.seen = len(engine.log.events)
        self.pending.extend(new)

    def expecting(self) -> str:
        """What the game waits for now, in words (for a line that is not it)."""
        engine = self.engine
        assert engine is not None
        waiting = engine.to_move()
        if engine.phase is Phase.PLAY:
            return f"seat {engine.active} to play"
        if engine.phase is Phase.GUESS:
            return f"a guess from seat {waiting[0]}" if waiting else "the reveal"
        if engine.phase is Phase.CALL:
            return "the call and the scores"
        if engine.phase is Phase.KEEP:
            return f"seat {waiting[0]} to keep a card"
        return "nothing: the game is over"

    def act(self, line: int, event: Event) -> None:
        """Apply the logged action ``event`` to the engine (the rules check it)."""
        engine = self.engine
        assert engine is not None
        data, seat = event.payload, event.player
        if event.type not in ACTIONS and not (
            engine.phase is Phase.CALL and event.type in ("verdict", "score")
        ):
            raise LogContradicted(
                line,
                f"the rules give no {event.type!r} event here: the game waits for "
                f"{self.expecting()}",
            )
        if event.turn != engine.turn:
            raise LogContradicted(
                line,
                f"{event.type}: marked turn {event.turn} but the game is at turn {engine.turn}",
            )
        self.judge.turn = engine.turn
        needs_seat = not isinstance(data, KiekCall) and event.type in ACTIONS
        if needs_seat and (seat is None or seat >= self.n_players):
            raise LogContradicted(
                line, f"{event.type}: seat {seat} is not one of the {self.n_players} at the table"
            )
        try:
            self._apply(event, data, seat)
        except IllegalAction as exc:
            raise LogContradicted(line, f"{event.type}: the rules refuse it: {exc}") from None
        except (ValueError, TypeError, KeyError, RuntimeError) as exc:  # hostile input
            raise LogContradicted(line, f"{event.type}: the game cannot go on: {exc}") from None
        self.collect()

    def _apply(self, event: Event, data: EventData | None, seat: int | None) -> None:
        engine = self.engine
        assert engine is not None
        if isinstance(data, KiekPlay):
            if engine.phase is not Phase.PLAY or seat != engine.active:
                raise IllegalAction(f"the game waits for {self.expecting()}")
            if data.forfeited:
                engine.play(None)
                return
            word = self.secrets.get(event.turn, "?") if data.wrote_word else ""
            engine.play(ActivePlay(tuple(data.played), tuple(data.three), tuple(data.two), word))  # type: ignore[arg-type]
        elif isinstance(data, KiekTimeUp):
            self._time_up(data, int(seat or 0))
        elif isinstance(data, KiekGuess):
            engine.guess(int(seat or 0), data.word)
        elif isinstance(data, KiekOverrule):
            self._overrule(data, int(seat or 0))
        elif isinstance(data, KiekOverruleRepeat):
            self._overrule_repeat(data, int(seat or 0), event.turn)
        elif isinstance(data, KiekCall):
            engine.call(data.callers)
        elif isinstance(data, KiekKeep):
            engine.keep(int(seat or 0), data.card)
        else:  # a verdict or the score of a turn nobody called ne bis in idem in
            engine.call(())

    def _overrule(self, data: KiekOverrule, seat: int) -> None:
        """A ruling on a guess (rulebook "Imperfect Guesses"), agreed as docs/rules.md asks."""
        engine = self.engine
        assert engine is not None
        if not data.withdrawn:
            key = ruling_key(data.guess)
            group = [g for g in engine.distinct_guesses() if ruling_key(g.word) == key]
            if group:
                scored = scored_by_guess_ruling(engine.active, group[0].seats, data.accepted)
                self._agreement(seat, scored, data.agreed)
        engine.overrule(data.guess, data.accepted, by=seat, agreed=data.agreed)

    def _overrule_repeat(self, data: KiekOverruleRepeat, seat: int, turn: int) -> None:
        """A ruling on a repeat after a call (rulebook "Ne Bis in Idem"), agreed likewise."""
        engine = self.engine
        assert engine is not None
        if not data.withdrawn:
            callers = self.callers.get(turn, [])
            scored = scored_by_repeat_ruling(engine.active, data.writers, callers, data.repeats)
            self._agreement(seat, scored, data.agreed)
        used = data.used if data.repeats else None
        engine.overrule_repeat(data.word, used, by=seat, agreed=data.agreed)

    def _agreement(self, ruler: int, scored: frozenset[int], agreed: Sequence[int]) -> None:
        """A ruling that would score its ruler needs another person's agreement when another
        person is at the table (docs/rules.md, "Who rules"; :func:`needs_agreement`)."""
        header = self.header
        assert header is not None
        people = [p.seat for p in header.players if p.human]
        if needs_agreement(ruler, scored, people) and not any(
            s != ruler and s in people for s in agreed
        ):
            raise IllegalAction(
                f"the ruling would score seat {ruler}, who made it, and no other person "
                "agreed (docs/rules.md, 'Who rules')"
            )

    def _time_up(self, data: KiekTimeUp, seat: int) -> None:
        """Two minutes run out (rulebook "A Turn"): the active player's word in PLAY, a
        guesser's word in GUESS."""
        engine = self.engine
        assert engine is not None
        if data.what == "word":
            if engine.phase is not Phase.PLAY or seat != engine.active:
                raise IllegalAction(f"seat {seat} has no word to write now")
        elif data.what == "guess":
            if engine.phase is not Phase.GUESS or seat not in engine.to_move():
                raise IllegalAction(f"seat {seat} has no guess to write now")
        engine.note_time_up(seat, data.what)

    def match(self, line: int, event: Event) -> None:
        """The logged ``event`` must be the next event the rules give."""
        if not self.pending:
            raise LogContradicted(
                line,
                f"the rules give no {event.type!r} event here: the game waits for "
                f"{self.expecting()}",
            )
        rebuilt = self.pending.popleft()
        difference = compare_events(event, rebuilt, PROSE_FIELDS.get(event.type, frozenset()))
        if difference is not None:
            raise LogContradicted(line, f"{event.type}: {difference}")
        if isinstance(rebuilt.payload, KiekGameOver):
            self.over_line = line

    def aborted(self, line: int, event: Event, data: KiekAborted) -> None:
        """The game stopped early: the scores must be the engine's (unless it stopped in
        the middle of writing a turn's events) and nothing may follow."""
        engine = self.engine
        assert engine is not None
        if not self.pending and data.scores and data.scores != engine.scores:
            raise LogContradicted(
                line, f"aborted: 'scores' is {data.scores} but the rules give {engine.scores}"
            )
        self.pending.clear()
        self.over_line = line


def audit_kiek(events: Sequence[tuple[int, Event]]) -> Contradiction | None:
    """Play the game of a Kiek log again through the rules and find its first contradiction.

    Args:
        events: ``(line number, checked event)`` pairs in log order, header first
            (:func:`kiekai.events.read_numbered_log` with ``game="kiek"``); the caller
            passes only the lines up to the first one left out, since a game with a line
            missing cannot be followed further.

    Returns:
        the first :class:`Contradiction`, or ``None`` when every line is what the rules
        give. A log that stops early (Ctrl-C, a crash) is no contradiction.
    """
    audit = _KiekAudit(events)
    try:
        audit.run()
    except LogContradicted as exc:
        return exc.contradiction
    return None
