"""The state of a Kiek table played in browsers, and the people's seats at it.

One :class:`WebTable` is shared by the game thread (the runner, :func:`kiekai.kiek.runner.play_game`)
and the web server's threads (:mod:`kiekai.web.app`). The game asks a person's seat, a
:class:`WebHumanPlayer` (the same :class:`~kiekai.kiek.players.HumanKiekPlayer` protocol as
the terminal's person), for a decision; the seat posts a :class:`Pending` question on the table
and waits on the table's condition variable until the person's browser answers through the
server, or the hourglass runs out. Every change bumps :attr:`WebTable.version`, which the
server pushes to the browsers (server-sent events) so each page fetches its new state.

What each person sees is decided here (:meth:`WebTable.seat_state`): their own hand only,
and nobody's word before the words are read aloud (words come from the engine's ``reveal``
event, never from ``guess`` events). Timing follows the rulebook ("A Turn": two minutes) and
the runner's hourglass: it is turned when the person's browser reports the cards on screen,
or :data:`SHOW_GRACE` seconds after the question was posted when no browser reports (a
closed browser), so a silent seat runs out of time like a silent player. Decisions the
rulebook does not time (the reveal, keeping a card) wait at most :data:`UNTIMED_WAIT`
seconds, or :data:`GONE_GRACE` seconds once no browser of the seat is connected; then the
default answer is taken (no call, no overrule, the first card on offer) and the page says so.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as with_fields
from typing import TYPE_CHECKING, Any

from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.events import (
    Event,
    KiekAborted,
    KiekCall,
    KiekGameOver,
    KiekOverrule,
    KiekOverruleRepeat,
    KiekPlay,
    KiekReveal,
    KiekScore,
    KiekTimeUp,
    KiekTurn,
    KiekVerdict,
    typed,
)
from kiekai.kiek import players
from kiekai.kiek.describe import Describer, Line
from kiekai.kiek.engine import KiekEngine, Phase, TableSnapshot
from kiekai.kiek.players import (
    Hourglass,
    TimeUp,
)
from kiekai.kiek.seat import refuse_word, time_up_keep, time_up_play
from kiekai.web.photos import DealtPhotos, Encoder

if TYPE_CHECKING:
    from kiekai.judge.protocol import JudgeLike

#: Seconds after a timed question is posted before the hourglass is turned anyway when no
#: browser of the seat reported the cards on screen (a closed or very slow browser).
SHOW_GRACE = 10.0
#: Longest wait, in seconds, for an untimed decision (the reveal, keeping a card).
UNTIMED_WAIT = 300.0
#: Seconds an untimed decision still waits once no browser of the seat is connected.
GONE_GRACE = 20.0
#: Lines of the table's log kept for the pages.
LOG_LINES = 60
#: Questions every person at the table answers together, sharing the table's rulings.
SHARED_KINDS = ("reveal", "repeats")


class TableClosed(RuntimeError):
    """The table closed (the game stopped) while a seat was waiting for its person."""


@dataclass
class Pending:
    """A question the game waits for a person to answer.

    Attributes:
        id: short random id; answers must name it (a stale page's answer is refused).
        kind: ``"play"``, ``"guess"``, ``"reveal"``, ``"repeats"`` (after a ne bis in idem
            call: the table may overrule the judge's repeat verdicts) or ``"keep"``.
        view: the engine's view for the decision (ActiveView, GuessView, RevealView,
            CallView, KeepView).
        hourglass: the timed decisions' hourglass (play, guess), else ``None``.
        posted: clock time the question was posted.
        step: for ``play``: 1 = choose two hand cards, 2 = the three and the word.
        played: for ``play``: the two hand cards chosen in step 1.
        error: why the last answer was refused (shown on the page), or "".
        answer: the answer once given (ActivePlay, str, int index, True for reveal).
        call: for ``reveal``: this person says "ne bis in idem".
        wrote: for ``guess``: the word written (shown to its writer while waiting).
        defaulted: the person did not answer in time; the default was taken.
        draft_cards: for ``play`` (step 2): the indices of the three cards of the last
            refused answer, shown chosen again so that a refused word loses nothing.
        draft_word: for ``play`` and ``guess``: the word of the last refused answer, shown
            in the word box again.
    """

    id: str
    kind: str
    view: Any
    hourglass: Hourglass | None
    posted: float
    step: int = 1
    played: tuple[str, ...] = ()
    error: str = ""
    answer: Any = None
    call: bool = False
    wrote: str = ""
    defaulted: bool = False
    draft_cards: tuple[int, ...] = ()
    draft_word: str = ""

    @property
    def answered(self) -> bool:
        """Whether an answer (or the default) is in."""
        return self.answer is not None or self.defaulted


@dataclass
class WebSeat:
    """One seat at the web table.

    Attributes:
        index: the seat number (0-based, clockwise; people first, then bots).
        name: the player's name.
        token: the secret in the seat's link (``None`` for a bot seat).
        joined: a person opened the link (only seats with a token can be joined).
        streams: live connections (open pages) of this seat.
        stream_id: id of the newest connection; older ones are told to stop.
        gone_since: clock time the last connection closed, or ``None``.
        pending: the question the game waits for, or ``None``.
        notices: recent messages for the person (refused answers, defaults taken).
        by_bot: a bot plays this person's seat: nobody had opened its link when the game
            started. Opening the link later shows the table to watch; it never joins.
    """

    index: int
    name: str
    token: str | None
    joined: bool = False
    streams: int = 0
    stream_id: int = 0
    gone_since: float | None = None
    pending: Pending | None = None
    notices: deque[str] = field(default_factory=lambda: deque(maxlen=4))
    last_guess: str = ""
    by_bot: bool = False
    #: ids of the cards this seat has held (it may see their photos for the whole game)
    held: set[str] = field(default_factory=set)
    #: the person pressed "Leave the table" after the game
    left: bool = False

    @property
    def human(self) -> bool:
        """Whether a person may take this seat (it has a link)."""
        return self.token is not None


@dataclass
class TurnRecord:
    """What was said aloud in one turn, for the pages (public only)."""

    turn: int
    active: int
    stake: int = 1
    three: tuple[str, ...] = ()
    two: tuple[str, ...] = ()
    forfeited: bool = False
    wrote_word: bool = True
    words: tuple[str, ...] = ()
    #: guesser's seat -> the judge's (or the table's) verdict on the guess
    verdicts: dict[int, KiekVerdict] = field(default_factory=dict)
    #: (the seat that asked, the ruling) for each ruling on a guess, in order
    rulings: list[tuple[int, KiekOverrule]] = field(default_factory=list)
    #: (the seat that asked, the ruling) for each ruling on a repeat, in order
    repeat_rulings: list[tuple[int, KiekOverruleRepeat]] = field(default_factory=list)
    call: KiekCall | None = None
    points: tuple[int, ...] = ()
    time_ups: list[tuple[int, str]] = field(default_factory=list)
    scored: bool = False


@dataclass(frozen=True)
class SharedRuling:
    """A ruling made on the page at the reveal, shared by every person at the table.

    Attributes:
        word: the word ruled on, as written.
        value: for a guess, whether it is a match; after a ne bis in idem call, the used
            word it repeats, or ``None`` for no repeat.
        by: the seat of the person who pressed the overrule button.
        agreed: the seats of the other people who pressed "Agree".
        scored: the seats the ruling can give points to this turn
            (:func:`~kiekai.kiek.players.scored_by_guess_ruling`); a ruling that would
            score its ruler needs another person's agreement.
    """

    word: str
    value: Any
    by: int
    agreed: tuple[int, ...] = ()
    scored: frozenset[int] = frozenset()

    def report(self) -> players.TableRuling[Any]:
        """The ruling as a :class:`~kiekai.kiek.players.TableRuling` for the runner."""
        return players.TableRuling(self.value, self.by, self.agreed)


def _record_turn(record: TurnRecord, seat: int, data: object) -> None:
    """Add to this turn's ``record`` what an event of ``seat`` says aloud (its typed data)."""
    if isinstance(data, KiekPlay):
        record.three, record.two = tuple(data.three), tuple(data.two)
        record.forfeited, record.wrote_word = data.forfeited, data.wrote_word
    elif isinstance(data, KiekTimeUp):
        record.time_ups.append((seat, data.what))
    elif isinstance(data, KiekReveal):
        record.words = tuple(data.words)
    elif isinstance(data, KiekOverrule):
        record.rulings.append((seat, data))
    elif isinstance(data, KiekOverruleRepeat):
        record.repeat_rulings.append((seat, data))
    elif isinstance(data, KiekVerdict):
        record.verdicts[seat] = data
    elif isinstance(data, KiekCall):
        record.call = data
    elif isinstance(data, KiekScore):
        record.points = tuple(data.points)
        record.scored = True


class WebTable:
    """The shared state of one web game; thread-safe (one condition variable).

    Args:
        names: player names by seat.
        human_seats: seats that get a link (people); the others are bots from the start.
        cards: the deck (photos are served by content hash, only of these cards).
        card_names: card id -> the name shown.
        judge: the one-word check for words typed in the browser (the engine checks again).
        clock: time source for hourglasses and waits.
        show_grace, untimed_wait, gone_grace: see the module constants.
        encode_photo: card -> JPEG bytes for the pages (default
            :func:`kiekai.web.photos.encode_photo`); called for every dealt card when the
            game deals (:meth:`attach`), never while answering a request.
    """

    def __init__(
        self,
        names: Sequence[str],
        human_seats: Sequence[int],
        cards: Sequence[Card],
        card_names: Mapping[str, str],
        judge: JudgeLike,
        *,
        clock: Clock | None = None,
        show_grace: float = SHOW_GRACE,
        untimed_wait: float = UNTIMED_WAIT,
        gone_grace: float = GONE_GRACE,
        encode_photo: Encoder | None = None,
    ) -> None:
        if not human_seats:
            raise ValueError("a web table needs at least one seat for a person")
        self.clock = clock or MonotonicClock()
        self.judge = judge
        self.show_grace = show_grace
        self.untimed_wait = untimed_wait
        self.gone_grace = gone_grace
        self.cond = threading.Condition()
        self.version = 0
        self.state = "lobby"  # lobby -> playing -> over | stopped
        #: set when the server shuts down: live connections say "closed" and end
        self.closing = False
        self.seats = [
            WebSeat(i, str(name), secrets.token_urlsafe(18) if i in set(human_seats) else None)
            for i, name in enumerate(names)
        ]
        self.cards = {card.id: card for card in cards}
        #: the deal's photos as JPEGs, encoded once for everyone when the game deals
        self.photos = DealtPhotos(encode_photo)
        self._card_of_photo = {card.sha256: card.id for card in cards}
        #: ids of every card that has been face up on the table (everyone saw it)
        self.public_cards: set[str] = set()
        self.card_names = dict(card_names)
        self.started = threading.Event()
        self.engine: KiekEngine | None = None
        #: the engine's table as the pages show it (:meth:`KiekEngine.snapshot`), once attached
        self.snapshot: TableSnapshot | None = None
        self.turns: list[TurnRecord] = []
        #: the table log's newest lines (:class:`~kiekai.kiek.describe.Describer`'s)
        self.log_lines: deque[Line] = deque(maxlen=LOG_LINES)
        self.final: KiekGameOver | None = None
        self.stop_reason = ""
        #: this turn's rulings on guesses: word key -> the ruling (value: match?)
        self.rulings: dict[str, SharedRuling] = {}
        #: after a call: word key -> the ruling (value: the used word it repeats or None)
        self.repeat_rulings: dict[str, SharedRuling] = {}
        #: seats played by a WebHumanPlayer (asked at every reveal)
        self.web_seats: set[int] = set()
        #: this turn's shared questions ("reveal", "repeats"): kind -> seat -> question
        self.rounds: dict[str, dict[int, Pending]] = {}
        self.log_path: str | None = None
        self._ids = itertools.count(1)
        self._describer = Describer()

    # ------------------------------------------------------------------ seats

    def seat_for(self, token: str) -> WebSeat | None:
        """The seat whose link holds ``token`` (constant-time comparison), or ``None``."""
        found = None
        for seat in self.seats:
            if seat.token is not None and secrets.compare_digest(seat.token, str(token)):
                found = seat
        return found

    def join(self, seat: WebSeat) -> None:
        """A person opened the seat's link; the game starts when every seat is joined.
        A seat a bot plays (:attr:`WebSeat.by_bot`) is not joined: its page is to watch."""
        with self.cond:
            if not seat.joined and not seat.by_bot:
                seat.joined = True
                self.mark_changed()
            if self.state == "lobby" and all(s.joined for s in self.seats if s.human):
                self.start()

    def start(self) -> None:
        """Start the game now (seats nobody joined are played by bots)."""
        with self.cond:
            if self.state != "lobby":
                return
            self.state = "playing"
            self.mark_changed()
        self.started.set()

    def stop(self, reason: str) -> None:
        """The game stopped (Ctrl-C, an error): waiting seats give up, pages say why (the
        first reason given: the game thread's own error comes after it)."""
        with self.cond:
            if self.state not in ("over", "stopped"):
                self.state = "stopped"
                self.stop_reason = reason
            self.mark_changed()
        self.started.set()

    def connect(self, seat: WebSeat) -> int:
        """A page of ``seat`` opened its live connection; returns the connection id."""
        with self.cond:
            seat.streams += 1
            seat.stream_id += 1
            seat.gone_since = None
            self.mark_changed()
            return seat.stream_id

    def disconnect(self, seat: WebSeat) -> None:
        """A live connection of ``seat`` closed."""
        with self.cond:
            seat.streams = max(0, seat.streams - 1)
            if seat.streams == 0:
                seat.gone_since = self.clock.now()
            self.cond.notify_all()

    def leave(self, seat: WebSeat) -> None:
        """The person at ``seat`` leaves the table after the game (their page keeps the
        final scores); the table closes when every person has left
        (:meth:`wait_everyone_left`)."""
        with self.cond:
            seat.left = True
            self.mark_changed()

    def wait_everyone_left(self, timeout: float) -> str:
        """After the game: wait until every person at the table has left (pressed "Leave
        the table", or no page of theirs has been open for :attr:`gone_grace` seconds), at
        most ``timeout`` seconds; returns why the wait ended, in words."""
        end = self.clock.now() + timeout
        with self.cond:
            while True:
                now = self.clock.now()
                people = [s for s in self.seats if s.index in self.web_seats]
                if all(s.left for s in people):
                    return "everyone left the table"
                if all(
                    s.left
                    or s.streams == 0
                    and s.gone_since is not None
                    and now - s.gone_since >= self.gone_grace
                    for s in people
                ):
                    return "every page of the table was closed"
                if now >= end:
                    return f"the table closed {timeout:g} s after the game"
                self.cond.wait(min(0.5, max(0.01, end - now)))

    def player(self, seat: int) -> WebHumanPlayer:
        """The :class:`WebHumanPlayer` for a person's seat."""
        with self.cond:
            self.web_seats.add(seat)
        return WebHumanPlayer(self, seat)

    # ------------------------------------------------------------------ the game's side

    def attach(self, engine: KiekEngine) -> None:
        """Called once by the runner with the engine (read, never acted on), right after
        the deal: every card the game can show (the hands and the table; a redeal deals
        only discarded cards) is encoded for the pages now, before any question is asked
        (:class:`~kiekai.web.photos.DealtPhotos`), outside the lock so pages still load."""
        dealt = engine.snapshot()
        ids = [*dealt.table, *(c for hand in dealt.hands for c in hand)]
        self.photos.prepare(self.cards[i] for i in ids if i in self.cards)
        with self.cond:
            self.engine = engine
            self._take_snapshot()
            self.mark_changed()

    def on_event(self, event: Event) -> None:
        """Called by the runner (game thread) with every event as it is logged."""
        with self.cond:
            self.log_lines.extend(self._describer.describe(event))
            self._record(event)
            if self.engine is not None:
                self._take_snapshot(after=event)
            self.mark_changed()

    def _record(self, event: Event) -> None:
        """Keep what ``event`` says aloud for the pages: a new turn's record, the end, or
        a part of the current turn (:meth:`_record_turn`)."""
        data = typed(event, "kiek")
        if isinstance(data, KiekTurn):
            self.turns.append(
                TurnRecord(turn=event.turn, active=int(event.player or 0), stake=data.stake)
            )
            self.rulings = {}
            self.repeat_rulings = {}
            self.rounds = {}
            for seat in self.seats:
                seat.last_guess = ""
        elif isinstance(data, KiekGameOver):
            self.final = data
            self.state = "over"
        elif isinstance(data, KiekAborted):
            self.state = "stopped"
            self.stop_reason = data.reason
        elif self.turns and self.turns[-1].turn == event.turn:
            _record_turn(self.turns[-1], int(event.player or 0), data)

    def _take_snapshot(self, after: Event | None = None) -> None:
        """Take the engine's :meth:`~KiekEngine.snapshot` for the pages (under the lock).

        Args:
            after: the event being logged, if any. The engine logs ``play`` (with a word)
                before it moves to GUESS and ``reveal`` before it moves to CALL, and the
                runner then waits for people or the judge with no event in between; the
                snapshot takes the phase those events lead to, so that the pages do not say
                "choosing cards" while the others guess, or "guessing" while the words are
                read aloud.
        """
        engine = self.engine
        assert engine is not None
        snapshot = engine.snapshot()
        data = None if after is None else typed(after, "kiek")
        if isinstance(data, KiekPlay) and data.wrote_word and snapshot.phase == Phase.PLAY:
            snapshot = with_fields(snapshot, phase=Phase.GUESS.value)
        elif isinstance(data, KiekReveal) and snapshot.phase == Phase.GUESS:
            snapshot = with_fields(snapshot, phase=Phase.CALL.value)
        self.snapshot = snapshot
        self.public_cards.update(snapshot.table)
        for seat, hand in zip(self.seats, snapshot.hands, strict=False):
            seat.held.update(hand)

    def may_see(self, seat: WebSeat, sha256: str) -> bool:
        """Whether the person at ``seat`` may fetch the photo with this content hash: a
        card of its own hand (now or earlier) or one that has been face up on the table
        (the three, the played two, the cards on offer). Another seat's hand is not, and
        a hash of no card at this table is answered the same way."""
        with self.cond:
            card = self._card_of_photo.get(sha256)
            return card is not None and (card in self.public_cards or card in seat.held)

    def mark_changed(self) -> None:
        """Count one change of the table (:attr:`version`) and wake everything waiting on
        :attr:`cond`: the pages' live streams send the new version, the game thread sees
        answers. The caller holds ``cond``."""
        self.version += 1
        self.cond.notify_all()

    # ------------------------------------------------------------------ questions

    def post(self, seat: int, kind: str, view: Any, hourglass: Hourglass | None) -> Pending:
        """Post a question for the person at ``seat`` (game side)."""
        with self.cond:
            if self.state == "stopped":
                raise TableClosed(self.stop_reason or "the game stopped")
            pending = Pending(
                id=f"q{next(self._ids)}-{secrets.token_hex(3)}",
                kind=kind,
                view=view,
                hourglass=hourglass,
                posted=self.clock.now(),
            )
            self.seats[seat].pending = pending
            if kind in SHARED_KINDS:
                self.rounds.setdefault(kind, {})[seat] = pending
            if self.engine is not None:  # the engine has moved on to this question
                self._take_snapshot()
            self.mark_changed()
            return pending

    def wait_timed(self, seat: int, pending: Pending) -> Any:
        """Wait for the answer to a timed question; raises TimeUp when the hourglass runs
        out (turned by the browser, or :attr:`show_grace` seconds after posting)."""
        glass = pending.hourglass
        assert glass is not None
        with self.cond:
            try:
                while not pending.answered:
                    if self.state == "stopped":
                        raise TableClosed(self.stop_reason or "the game stopped")
                    now = self.clock.now()
                    if not glass.started and now - pending.posted >= self.show_grace:
                        glass.start(at=pending.posted + self.show_grace)
                    if glass.started and glass.ran_out():
                        pending.defaulted = True
                        raise TimeUp()
                    wait = (
                        glass.left() if glass.started else self.show_grace - (now - pending.posted)
                    )
                    self.cond.wait(min(0.5, max(0.01, wait)))
                return pending.answer
            finally:
                self._finish(seat, pending)

    def wait_untimed(self, seat: int, pending: Pending) -> Any:
        """Wait for an untimed answer; ``None`` when the person is gone or took too long."""
        person = self.seats[seat]
        with self.cond:
            try:
                while not pending.answered:
                    if self.state == "stopped":
                        raise TableClosed(self.stop_reason or "the game stopped")
                    now = self.clock.now()
                    gone = person.streams == 0 and (
                        person.gone_since is None
                        and now - pending.posted >= self.gone_grace
                        or person.gone_since is not None
                        and now - person.gone_since >= self.gone_grace
                    )
                    if gone or now - pending.posted >= self.untimed_wait:
                        pending.defaulted = True
                        return None
                    self.cond.wait(0.5)
                return pending.answer
            finally:
                self._finish(seat, pending)

    def _finish(self, seat: int, pending: Pending) -> None:
        person = self.seats[seat]
        if pending.defaulted and pending.kind in ("keep", *SHARED_KINDS):
            what = "kept the first card on offer" if pending.kind == "keep" else "went on"
            person.notices.append(f"You did not answer in time: the table {what} for you.")
        if person.pending is pending and pending.kind not in SHARED_KINDS:
            person.pending = None
        self.mark_changed()

    def round_finished(self, kind: str, turn: int) -> bool:
        """Whether every person's seat has answered this turn's shared question ``kind``
        (``"reveal"`` or ``"repeats"``), or been defaulted."""
        asked = self.rounds.get(kind, {})
        return all(
            seat in asked and asked[seat].view.turn == turn and asked[seat].answered
            for seat in self.web_seats
        )

    def round_waiting(self, kind: str, turn: int) -> list[str]:
        """Names of the people not done with this turn's shared question ``kind``."""
        asked = self.rounds.get(kind, {})
        return [
            self.seats[s].name
            for s in sorted(self.web_seats)
            if not (s in asked and asked[s].answered and asked[s].view.turn == turn)
        ]

    # ------------------------------------------------------------------ answers (server side)

    def notify(self, seat: WebSeat, message: str) -> None:
        """Show ``message`` to the person at ``seat``."""
        with self.cond:
            seat.notices.append(message)
            self.mark_changed()

    def check_word(self, word: str) -> str:
        """Why ``word`` cannot be written ("" when it is one word): the seat's rule,
        :func:`kiekai.kiek.seat.refuse_word` (at most :data:`~kiekai.kiek.seat.MAX_WORD`
        characters, one word by the judge)."""
        return refuse_word(self.judge, word)


class WebHumanPlayer:
    """A person's seat played in a browser (implements ``HumanKiekPlayer``).

    Each decision posts a question on the :class:`WebTable` and waits for the person's
    browser. Timed decisions raise :class:`~kiekai.kiek.players.TimeUp` when the hourglass
    runs out; untimed ones take the default answer when the person is gone.
    """

    is_human = True

    def __init__(self, table: WebTable, seat: int) -> None:
        self.table = table
        self.seat = seat
        self.name = table.seats[seat].name

    def tell(self, message: str) -> None:
        """Show ``message`` on the person's page."""
        self.table.notify(self.table.seats[self.seat], message)

    def play_turn(self, view: players.ActiveView) -> players.ActivePlay:
        """Post the active player's question; the page asks for two cards, then the three
        and the word. When time runs out, what the person chose is kept (the two cards,
        and the three of a refused answer) and the rest filled in by the rules, with no
        word (:func:`kiekai.kiek.seat.time_up_play`); with no cards chosen,
        :class:`TimeUp` (the engine plays its default)."""
        glass = view.hourglass or Hourglass(self.table.clock, view.time_limit)
        pending = self.table.post(self.seat, "play", view, glass)
        try:
            answer: players.ActivePlay = self.table.wait_timed(self.seat, pending)
            return answer
        except TimeUp:
            with self.table.cond:
                played, drafted = pending.played, pending.draft_cards
            five = [c.id for c in view.table] + list(played)
            three = tuple(five[i] for i in drafted) if played else ()
            timed_out = time_up_play(view, played, three)
            if timed_out is None:
                raise
            return timed_out

    def guess(self, view: players.GuessView) -> str:
        """Post a guess question; ``""`` when the hourglass runs out."""
        glass = view.hourglass or Hourglass(self.table.clock, view.time_limit)
        pending = self.table.post(self.seat, "guess", view, glass)
        try:
            return str(self.table.wait_timed(self.seat, pending))
        except TimeUp:
            return ""

    def _shared(self, kind: str, view: players.RevealView | players.CallView) -> Pending:
        """This turn's shared question ``kind`` (``"reveal"`` or ``"repeats"``, posted once
        a seat), answered or defaulted, after every person asked is done (so all return
        the same rulings)."""
        table = self.table
        with table.cond:
            pending = table.rounds.get(kind, {}).get(self.seat)
            if pending is not None and pending.view.turn != view.turn:
                pending = None
        if pending is None:
            pending = table.post(self.seat, kind, view, None)
        if not pending.answered:
            table.wait_untimed(self.seat, pending)
        with table.cond:
            while not table.round_finished(kind, view.turn):
                if table.state == "stopped":
                    raise TableClosed(table.stop_reason or "the game stopped")
                table.cond.wait(0.5)
        return pending

    def overrule(self, view: players.RevealView) -> dict[str, players.TableRuling[bool]]:
        """The table's rulings at this reveal (the page's overrule buttons, shared by every
        person at the table: one a word), once every person has said they are done; each
        names the person who made it and those who agreed (every seat reports the same
        rulings, so the runner credits the ruler, not the reporting seat)."""
        self._shared("reveal", view)
        with self.table.cond:
            return {r.word: r.report() for r in self.table.rulings.values()}

    def call_repeat(self, view: players.RevealView) -> bool:
        """Whether this person pressed "ne bis in idem" at the reveal."""
        pending = self._shared("reveal", view)
        self._release(pending)
        return bool(pending.call) and not pending.defaulted

    def stop(self, reason: str) -> None:
        """The game stopped: every page says why, and waiting seats give up."""
        self.table.stop(reason)

    def overrule_repeats(
        self, view: players.CallView
    ) -> dict[str, players.TableRuling[str | None]]:
        """After a ne bis in idem call: the table's rulings on the judge's repeat verdicts
        (shared by every person at the table), once every person has said they are done."""
        pending = self._shared("repeats", view)
        self._release(pending)
        with self.table.cond:
            return {r.word: r.report() for r in self.table.repeat_rulings.values()}

    def _release(self, pending: Pending) -> None:
        """The shared question is over for this seat: its page stops showing it."""
        with self.table.cond:
            if self.table.seats[self.seat].pending is pending:
                self.table.seats[self.seat].pending = None
                self.table.mark_changed()

    def keep_card(self, view: players.KeepView) -> str:
        """Post the keep question; the rules' default (:func:`kiekai.kiek.seat.time_up_keep`,
        the first card on offer) when the person is gone or does not answer."""
        pending = self.table.post(self.seat, "keep", view, None)
        answer = self.table.wait_untimed(self.seat, pending)
        if answer is None:
            return time_up_keep(view)
        return str(answer)
