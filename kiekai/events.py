"""Game events, the JSON-lines game log shared by the Kiek and Kismet engines, and checking
a log read back.

An :class:`Event` is a small frozen record appended by an engine, built from the pydantic
model of its type (:meth:`Event.of`; the model stays on the event as
:attr:`Event.payload`, which readers dispatch on); an :class:`EventLog` writes each event as
one JSON line and flushes it at once, so a crash or Ctrl-C keeps everything that happened up
to that moment. A game can be replayed from its log alone.

A log read back is outside input (edited, cut short, or not a log at all), so
:func:`read_log` reads only regular files, with a size and a line-length bound
(:mod:`kiekai.files`), and checks every line: the record itself (``type`` a string, ``turn`` an
integer, ``player`` an integer or null, ``data`` an object) and, for a game whose event types
are registered, ``data`` against the pydantic model of its type. A bad line is reported with
its line number (``on_problem``) and reading goes on.

Adding an event type is one change here: a pydantic model of its ``data``, registered with
:func:`event_data` for its game and type, e.g.::

    @event_data("kiek", "overrule")
    class OverruleData(EventData):
        seat: Seat
        accepted: bool

From then on :func:`read_log` checks it (and ``kiekai replay`` no longer reports it as
unknown); to show it, :class:`kiekai.kiek.describe.Describer` needs a method for it.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, TextIO, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kiekai.files import FileRefusedError, file_kind, iter_lines

#: Largest game log :func:`read_log` reads, in bytes (256 MiB). A Kiek game of 8 players and
#: the most rounds ``kiekai play`` allows (100) writes about 800 turns of some 12 events of at
#: most a few hundred bytes: under 5 MB; a Kismet match of 1000 rounds about 100 MB.
MAX_LOG_BYTES: int = 256 * 1024 * 1024
#: Longest line :func:`read_log` reads, in bytes (16 MiB): the longest event is Kiek's
#: ``setup``, which lists every card id and label of the deck (about 100 bytes a photo, so
#: over 100,000 photos fit).
MAX_LINE_BYTES: int = 16 * 1024 * 1024
#: Deepest nesting of JSON arrays and objects in an event line. Events written by kiekai nest
#: at most 4 deep (``data.players[0].name``); a line nested deeper is not an event (and a
#: very deep one would exhaust Python's recursion limit).
MAX_DEPTH: int = 16
#: Most seats a list of seats may hold: Kiek is for 3 to 8 players (rulebook box;
#: :data:`kiekai.kiek.engine.MAX_PLAYERS`), Kismet for 2 to 8.
MAX_SEATS: int = 8


#: The JSON encoders of :meth:`Event.to_json`, made once: ``json.dumps`` with any option
#: builds a new encoder on every call, a third of the cost of writing a small event.
_TEXT_ENCODER = json.JSONEncoder(ensure_ascii=False)
_ASCII_ENCODER = json.JSONEncoder(ensure_ascii=True)


@dataclass(frozen=True, init=False)
class Event:
    """One thing that happened in a game.

    Attributes:
        type: what happened, e.g. ``"setup"``, ``"word"``, ``"guess"``, ``"score"``.
        turn: 0-based turn index (Kiek) or round index (Kismet); -1 for game-level events.
        player: seat index of the player it concerns, or ``None`` for table events.
        data: JSON-serialisable payload (card ids, words, points, seconds ...).
        payload: the typed model of ``data`` (:class:`EventData` registered for ``type``), or
            ``None`` for an event built from a bare dict and not checked
            (:func:`check_event` adds it). Not compared: two events are equal when their
            type, turn, player and data are.

    An event made by :meth:`of` holds its ``data`` only and builds ``payload`` back from it
    each time it is asked (the model was checked when the engine made it, and ``data`` is
    its dump, so the rebuilt model equals it; about 5 microseconds). A game keeps every
    event it wrote in memory: one plain dict an event, instead of a dict and a model with
    its own field dict and set, keeps a long game's garbage collections as short as with
    untyped events (a 300-round Kismet game: one full collection instead of four, 0.1 s of
    collecting instead of 0.5 s). An event given its ``payload`` (:func:`check_event`,
    :func:`read_log`) keeps it.
    """

    type: str
    turn: int = -1
    player: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        type: str,
        turn: int = -1,
        player: int | None = None,
        data: Mapping[str, Any] | None = None,
        payload: EventData | None = None,
    ) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "data", {} if data is None else data)
        object.__setattr__(self, "_payload", payload)
        object.__setattr__(self, "_model", None)

    @property
    def payload(self) -> EventData | None:
        """The typed model of :attr:`data` (see the class: for an event made by :meth:`of`, a
        new model on each call), or ``None``."""
        payload: EventData | None = self._payload  # type: ignore[attr-defined]
        model: type[EventData] | None = self._model  # type: ignore[attr-defined]
        if payload is None and model is not None:
            payload = model.model_validate(self.data)
        return payload

    @classmethod
    def of(cls, payload: EventData, *, turn: int = -1, player: int | None = None) -> Event:
        """The event of a typed ``payload``: its type is the one ``payload``'s class was
        registered for (:func:`event_data`), its ``data`` is ``payload.model_dump()`` by
        alias, of the fields the writer set (a field left at its default is not written, so
        a log holds what the engine said and reads back to the same model).

        Raises:
            TypeError: ``payload``'s class is not a registered event model.
            ValueError: ``payload`` holds a field its model does not name (a misspelt or
                renamed field), unless its model takes free fields (:attr:`EventData.open`).
        """
        model = type(payload)
        kind = EVENT_TYPES.get(model)
        if kind is None:
            raise TypeError(f"{model.__name__} is not a registered event model")
        extra = payload.__pydantic_extra__
        if extra and not payload.open:
            raise ValueError(
                f"{kind[1]!r} event: {model.__name__} has no field {sorted(extra)[0]!r}"
            )
        data = payload.model_dump(by_alias=True, exclude_unset=True)
        event = cls(kind[1], turn, player, data)
        object.__setattr__(event, "_model", model)
        return event

    def to_json(self) -> str:
        """Return the event as one line of JSON (no trailing newline), always UTF-8-encodable.

        Text is written as itself (``"Ñandú"``), except in an event holding a lone surrogate
        (``"\\udce9"``: Python's stand-in for a byte of a file name that is not UTF-8, e.g. a
        Latin-1 ``café.jpg`` in a deck): that line is written with JSON ``\\u`` escapes
        throughout, which is valid JSON, reads back to the same text, and can be written to
        a UTF-8 log (a lone surrogate cannot).
        """
        record = {
            "type": self.type,
            "turn": self.turn,
            "player": self.player,
            "data": dict(self.data),
        }
        line = _TEXT_ENCODER.encode(record)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            line = _ASCII_ENCODER.encode(record)
        return line

    @classmethod
    def from_json(cls, line: str) -> Event:
        """Parse one JSON line written by :meth:`to_json` and check its record.

        The record must be a JSON object with ``type`` (a non-empty string); ``turn`` (an
        integer from -1, default -1), ``player`` (an integer from 0, or null) and ``data`` (an
        object; null counts as ``{}``) are optional. ``data`` is not checked against its type
        here (see :func:`check_event`).

        Raises:
            ValueError: the line is not JSON, is nested deeper than :data:`MAX_DEPTH`, or its
                record is not as above; the message says which field and why.
        """
        try:
            raw = json.loads(line)
        except RecursionError:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels: not an event") from None
        except ValueError as exc:  # JSONDecodeError, or an integer of over 4300 digits
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(raw, dict):
            raise ValueError(f"not an event: a JSON {_json_kind(raw)}, not an object")
        if _depth_over(raw, MAX_DEPTH):
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels: not an event")
        if raw.get("data", {}) is None:
            raw = {**raw, "data": {}}
        try:
            record = _Record.model_validate(raw)
        except ValidationError as exc:
            raise ValueError(_describe(exc)) from None
        return cls(type=record.type, turn=record.turn, player=record.player, data=record.data)


class _Record(BaseModel):
    """The fields every event line has (:meth:`Event.from_json`)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    type: Annotated[str, Field(min_length=1, max_length=64)]
    turn: Annotated[int, Field(ge=-1)] = -1
    player: Annotated[int, Field(ge=0)] | None = None
    data: dict[str, Any] = Field(default_factory=dict)


def _json_kind(value: object) -> str:
    kinds = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


def _depth_over(value: object, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays/objects more than ``limit`` deep (no recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


def _describe(error: ValidationError, prefix: str = "", limit: int = 3) -> str:
    """A pydantic error as one short sentence, fields named from ``prefix``:
    ``'data.players' should be a valid list (got "Bot 1")``."""
    parts = []
    for item in error.errors()[:limit]:
        message = item["msg"].removeprefix("Value error, ").removeprefix("Input ")
        if not item["loc"]:  # a check across fields (model_validator)
            parts.append(f"{prefix.rstrip('.') or 'the event'}: {message}")
            continue
        where = prefix + ".".join(str(p) for p in item["loc"])
        if item["type"] == "missing":
            parts.append(f"'{where}' is missing")
            continue
        message = message[:1].lower() + message[1:]
        got = item.get("input")
        shown = json.dumps(got, ensure_ascii=False) if _is_small(got) else _json_kind(got)
        parts.append(f"'{where}' {message} (got {shown})")
    more = len(error.errors()) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _is_small(value: object) -> bool:
    try:
        return len(json.dumps(value, ensure_ascii=False)) <= 40
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------- event data models


class EventData(BaseModel):
    """Base of every event-data model: strict JSON types; fields it does not name are kept
    (logs of a newer kiekai still read) but not checked."""

    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True)

    #: Whether a writer may put fields the model does not name into this event (a log
    #: header's free settings); for every other model :meth:`Event.of` refuses them.
    open: ClassVar[bool] = False


#: A seat index (0-based).
Seat = Annotated[int, Field(ge=0, lt=MAX_SEATS)]
#: Points, totals and counts: whole numbers from 0.
Count = Annotated[int, Field(ge=0)]
#: A list of seats, at most :data:`MAX_SEATS` long.
SeatList = Annotated[list[Seat], Field(max_length=MAX_SEATS)]
#: One whole number per seat (points, totals, turns), at most :data:`MAX_SEATS` long.
PerSeat = Annotated[list[int], Field(max_length=MAX_SEATS)]
#: Card ids (deck-relative photo paths).
CardIds = list[str]

M = TypeVar("M", bound=type["EventData"])

#: game -> event type -> model of its ``data``; filled by :func:`event_data`.
EVENT_DATA: dict[str, dict[str, type[EventData]]] = {}
#: model of an event's ``data`` -> (game, event type); the other way round of :data:`EVENT_DATA`.
EVENT_TYPES: dict[type[EventData], tuple[str, str]] = {}


def event_data(game: str, event_type: str) -> Callable[[M], M]:
    """Class decorator: register a pydantic model as the ``data`` of ``event_type`` in ``game``.

    Raises:
        ValueError: the type is already registered for that game (one model per type).
    """

    def register(model: M) -> M:
        types = EVENT_DATA.setdefault(game, {})
        if event_type in types and types[event_type] is not model:
            raise ValueError(f"{game} event {event_type!r} already has a data model")
        types[event_type] = model
        EVENT_TYPES[model] = (game, event_type)
        return model

    return register


class KiekPlayerEntry(EventData):
    """One seat of a Kiek ``header``: its index, name and whether a person plays it."""

    seat: Seat
    name: Annotated[str, Field(max_length=200)]
    human: bool = False


@event_data("kiek", "header")
class KiekHeader(EventData):
    """First line of a Kiek log (:func:`kiekai.kiek.runner.play_game`): the game, its seed, seats
    and settings, and the versions that wrote it."""

    open: ClassVar[bool] = True

    game: str
    format: int | None = None
    seed: int | None = None
    rounds: Count | None = None
    time_limit: float | None = None
    players: Annotated[list[KiekPlayerEntry], Field(max_length=MAX_SEATS)] = Field(
        default_factory=list
    )
    deck: str | None = None
    perception: str | None = None
    strictness: str | None = None
    level: str | None = None
    card_names: dict[str, str] = Field(default_factory=dict)
    house_rules: str | None = None


@event_data("kiek", "setup")
class KiekSetup(EventData):
    """The deal (rulebook "Preparations"): hands, the three face-up cards, the first active
    player and every card's label."""

    seed: int | None = None
    n_players: Count | None = None
    rounds: Count | None = None
    first_active: Seat | None = None
    first_active_by: str | None = None
    hands: list[CardIds] = Field(default_factory=list)
    table: CardIds = Field(default_factory=list)
    aside: Count = 0
    deck_size: Count | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    time_limit: float | None = None


@event_data("kiek", "turn")
class KiekTurn(EventData):
    """A turn begins: its round, stake (rulebook "The Next Turn") and the face-up cards."""

    round: Count
    stake: Count
    extra_round: bool = False
    table: CardIds = Field(default_factory=list)
    hand_size: Count | None = None


@event_data("kiek", "redeal")
class KiekRedeal(EventData):
    """Out of cards: the discards are dealt again (rulebook "The Next Turn")."""

    discards: Count
    each: Count
    hands: list[CardIds] = Field(default_factory=list)
    left_discarded: Count | None = None


@event_data("kiek", "play")
class KiekPlay(EventData):
    """The active player's two cards and the split of the five, 3 against 2."""

    played: Annotated[CardIds, Field(max_length=5)]
    three: Annotated[CardIds, Field(max_length=5)]
    two: Annotated[CardIds, Field(max_length=5)]
    stake: Count | None = None
    forfeited: bool = False
    wrote_word: bool = True


@event_data("kiek", "time-up")
class KiekTimeUp(EventData):
    """A player ran out of the two minutes (rulebook "A Turn")."""

    what: Annotated[str, Field(max_length=40)] = "word"
    time_limit: float | None = None


@event_data("kiek", "guess")
class KiekGuess(EventData):
    """A guesser's word."""

    word: str


@event_data("kiek", "reveal")
class KiekReveal(EventData):
    """The words read aloud, by seat (``""``: nothing written)."""

    words: Annotated[list[str], Field(max_length=MAX_SEATS)]
    secret: str | None = None


@event_data("kiek", "overrule")
class KiekOverrule(EventData):
    """The table overrules the judge's verdict on a guess (rulebook "Imperfect Guesses": each
    group decides which guess is correct), or withdraws its ruling; made by the person at the
    seat in ``player``, with the agreement of the people in ``agreed`` (a ruling that
    would score its ruler needs one when another person is at the table: docs/rules.md,
    "Who rules"). One ruling a word: ``guessers`` are every seat that wrote it (``guesser``
    the first)."""

    guesser: Seat
    guessers: SeatList = Field(default_factory=list)
    secret: str = ""
    guess: str = ""
    judge_accepted: bool | None = None
    accepted: bool
    withdrawn: bool = False
    agreed: SeatList = Field(default_factory=list)


@event_data("kiek", "overrule-repeat")
class KiekOverruleRepeat(EventData):
    """After a ne bis in idem call the table overrules the judge's repeat verdict on a word
    (rulebook "Ne Bis in Idem": the call is right if all players agree), or withdraws its
    ruling; made by the person at the seat in ``player``, with the agreement of the people
    in ``agreed``. ``used`` is the used word of the ruling."""

    word: str
    writers: SeatList = Field(default_factory=list)
    used: str = ""
    judge_repeats: bool | None = None
    judge_used: str | None = None
    repeats: bool
    withdrawn: bool = False
    agreed: SeatList = Field(default_factory=list)


@event_data("kiek", "call")
class KiekCall(EventData):
    """Ne bis in idem called (rulebook "Ne Bis in Idem"): by whom, whether rightly, who scores."""

    callers: SeatList
    right: bool
    credited: Seat | None = None
    repeats: dict[Annotated[str, Field(pattern=r"^[0-9]{1,3}$")], str] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    ruled: dict[str, bool] = Field(default_factory=dict)
    points: Count = 0


@event_data("kiek", "verdict")
class KiekVerdict(EventData):
    """The judge's verdict on one guess against the secret word."""

    secret: str
    guess: str
    accepted: bool
    relation: str = ""
    reason: str = ""
    scored: Count = 0
    overruled: bool = False


@event_data("kiek", "score")
class KiekScore(EventData):
    """Points of the turn and running totals, by seat."""

    stake: Count | None = None
    points: PerSeat
    totals: PerSeat
    penalised: SeatList = Field(default_factory=list)
    note: str | None = None

    @model_validator(mode="after")
    def _same_seats(self) -> KiekScore:
        if len(self.points) != len(self.totals):
            raise ValueError(
                f"points has {len(self.points)} seats and totals {len(self.totals)}: one per seat"
            )
        return self


@event_data("kiek", "keep")
class KiekKeep(EventData):
    """A player keeps a card on the table for the next active player."""

    card: str
    for_: Annotated[Seat | None, Field(alias="for")] = None


@event_data("kiek", "discard")
class KiekDiscard(EventData):
    """The cards nobody kept are discarded; the kept ones stay on the table."""

    cards: CardIds = Field(default_factory=list)
    table: Annotated[CardIds, Field(max_length=5)]


@event_data("kiek", "aborted")
class KiekAborted(EventData):
    """The game stopped early (Ctrl-C, end of input)."""

    reason: str = ""
    scores: PerSeat = Field(default_factory=list)


@event_data("kiek", "game-over")
class KiekGameOver(EventData):
    """The end (rulebook "End of the Game"): scores, ranking and the winner."""

    reason: str = ""
    turns_played: Count | None = None
    scores: PerSeat
    ranking: SeatList
    winner: Seat
    tie_broken_by_last_active: bool = False
    last_active_turn: PerSeat = Field(default_factory=list)

    @model_validator(mode="after")
    def _seats_in_range(self) -> KiekGameOver:
        seats = len(self.scores)
        outside = [s for s in [*self.ranking, self.winner] if s >= seats]
        if outside:
            raise ValueError(f"seat {outside[0]} is ranked but scores has {seats} seats")
        return self


# Kismet (kiekai/kismet/engine.py; rulebook ../shared/rules/kismet.txt, readings in
# docs/kismet.md). ``t`` is the table clock's reading in seconds when it happened.

#: A Kismet card id (``"<value>-<copy>"``, :class:`kiekai.kismet.engine.KismetCard`).
KismetCardId = Annotated[str, Field(max_length=16)]
#: The three dice of a throw.
Dice = Annotated[list[int], Field(min_length=3, max_length=3)]


@event_data("kismet", "setup")
class KismetSetup(EventData):
    """A game begins: base game (with the circle) or variant (with the first roller)."""

    game: Annotated[str, Field(pattern=r"^(base|variant)$")]
    players: Annotated[int, Field(ge=1, le=MAX_SEATS)]
    seed: int
    circle: list[KismetCardId | None] | None = None
    first_roller: Seat | None = None
    t: float = 0.0


@event_data("kismet", "roll")
class KismetRoll(EventData):
    """A throw of the dice and the values it makes; the base game shows the circle, the
    variant the cards in front of each player and whether it is a joker throw."""

    dice: Dice
    values: list[int]
    circle: list[KismetCardId | None] | None = None
    joker: bool = False
    fronts: Annotated[list[list[int]], Field(max_length=MAX_SEATS)] | None = None
    #: variant: the person did not take the dice within the front end's time limit and the
    #: table rolled for him (Reading 18, docs/kismet.md); written only when true.
    timed_out: bool = False
    t: float = 0.0


@event_data("kismet", "displaced")
class KismetDisplaced(EventData):
    """Base game: a hand was pushed off a card by a hand that was there first."""

    slot: Count
    by: Seat
    t: float = 0.0


@event_data("kismet", "cover")
class KismetCover(EventData):
    """Base game: a player covers a card of the circle."""

    slot: Count
    t: float = 0.0


@event_data("kismet", "reveal")
class KismetReveal(EventData):
    """Base game: a covered card is turned up; right or wrong, and what was handed back."""

    slot: Count
    card: KismetCardId
    value: int
    correct: bool
    points: int = 0
    handed_back: KismetCardId | None = None
    t: float = 0.0


@event_data("kismet", "clear")
class KismetClear(EventData):
    """Base game: no card of the circle could be taken; they leave the game."""

    removed: list[KismetCardId]
    t: float = 0.0


@event_data("kismet", "refill")
class KismetRefill(EventData):
    """Base game: the circle is filled up again from the draw pile."""

    circle: list[KismetCardId | None]
    t: float = 0.0


@event_data("kismet", "game_over")
class KismetGameOver(EventData):
    """Base game: the draw pile cannot refill the circle; scores and winners."""

    scores: PerSeat
    winners: SeatList
    draw_pile: Count = 0
    needed: Count = 0
    t: float = 0.0


@event_data("kismet", "round_start")
class KismetRoundStart(EventData):
    """Variant: a round begins with its first roller."""

    round: Count
    roller: Seat
    t: float = 0.0


@event_data("kismet", "pre_lay")
class KismetPreLay(EventData):
    """Variant: the cards a player lays down secretly before play, and their chip points."""

    values: list[int]
    points: int = 0
    t: float = 0.0


@event_data("kismet", "lay")
class KismetLay(EventData):
    """Variant: the roller lays a matching card (``extra``: the joker throw's second one)."""

    value: int
    extra: bool = False
    t: float = 0.0


@event_data("kismet", "pass")
class KismetPass(EventData):
    """Variant: the roller passes the dice; ``overlooked``: a matching card was not laid."""

    overlooked: bool
    timed_out: bool = False
    t: float = 0.0


@event_data("kismet", "knock")
class KismetKnock(EventData):
    """Variant: a player knocks into the roller's turn; valid or not, and what followed."""

    valid: bool
    result: str
    card: int | None = None
    roller: Seat | None = None
    t: float = 0.0
    why: str | None = None
    values: list[int] = Field(default_factory=list)


@event_data("kismet", "round_over")
class KismetRoundOver(EventData):
    """Variant: a player laid all cards; minus points, placements and running tallies."""

    round: Count
    minus_points: PerSeat
    placements: PerSeat
    tallies: PerSeat
    t: float = 0.0


def check_event(event: Event, game: str) -> Event:
    """Check ``event.data`` against the model of its type in ``game`` (:data:`EVENT_DATA`).

    Returns:
        The event with ``data`` as the model gives it back (fields left out get their
        defaults, so a reader can rely on every named field being there with its type) and
        the model itself as ``payload`` (what the printer and the other readers dispatch on).

    Raises:
        ValueError: the type is not one of ``game``'s, or ``data`` does not fit its model
            (the message names the field, e.g. ``'data.players' should be a valid list``).
        KeyError: no event types are registered for ``game``.
    """
    models = EVENT_DATA[game]
    model = models.get(event.type)
    if model is None:
        raise ValueError(f"unknown {game} event type {event.type!r}")
    try:
        data = model.model_validate(dict(event.data))
    except ValidationError as exc:
        raise ValueError(_describe(exc, prefix="data.")) from None
    return Event(event.type, event.turn, event.player, data.model_dump(by_alias=True), payload=data)


def typed(event: Event, game: str) -> EventData | None:
    """The typed data of ``event``: its :attr:`~Event.payload`, or, for an event built from
    a bare dict, ``data`` checked against the model of its type in ``game``.

    Returns:
        the model, or ``None`` when the type is not one of ``game``'s or ``data`` does not
        fit its model (a reader then has nothing it can show).
    """
    payload = event.payload
    if payload is not None:
        return payload
    try:
        return check_event(event, game).payload
    except (ValueError, KeyError):
        return None


# --------------------------------------------------------------------------- writing and reading


def _open_append(path: Path) -> TextIO:
    """``path`` opened for appending UTF-8 text, refusing anything but a regular file."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a named pipe nobody reads
            raise FileRefusedError(path, "not a regular file (a named pipe)") from None
        if exc.errno == errno.EISDIR:
            raise FileRefusedError(path, "not a regular file (a folder)") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefusedError(path, f"not a regular file ({file_kind(info.st_mode)})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "a", encoding="utf-8")  # noqa: SIM115
    except BaseException:
        os.close(fd)
        raise


class EventLog:
    """Append-only JSON-lines log: every :meth:`append` writes one line and flushes it.

    ``EventLog(None)`` keeps events in memory only. Use as a context manager or call
    :meth:`close`. The file must be a regular file (created if missing): it is opened without
    blocking and checked on the opened descriptor, so a named pipe given as the log (whose
    plain ``open`` waits for ever for a reader) or a device is refused at once.

    Raises:
        kiekai.files.FileRefusedError: the path is a named pipe, a device, a socket or a
            folder (a ``ValueError``; ``reason`` names what it is).
        OSError: the log file cannot be opened for appending (permission, missing dir).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.events: list[Event] = []
        self._fh: TextIO | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = _open_append(self.path)

    def append(self, event: Event) -> Event:
        """Record ``event`` in memory and, with a file, write and flush it; returns it."""
        self.events.append(event)
        if self._fh is not None:
            self._fh.write(event.to_json() + "\n")
            self._fh.flush()
        return event

    def close(self) -> None:
        """Close the file (idempotent); events stay available in :attr:`events`."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class LogProblem:
    """A line of a game log that :func:`read_log` left out.

    Attributes:
        line: 1-based line number.
        message: why, e.g. ``"'turn' should be a valid integer (got null)"``.
        cut_short: the last line, without its newline (a game stopped mid-write): expected
            after a crash, not a sign of an edited log.
    """

    line: int
    message: str
    cut_short: bool = False

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class ProblemTally:
    """A reader's ``on_problem`` for :func:`read_log`: counts a log's bad lines, remembers
    the first one, passes each on, and stops a file that is not a log at all.

    Call it with each :class:`LogProblem`; then :meth:`check` raises when there were too
    many. A last line cut short (a game stopped mid-write) is noted in :attr:`cut_short`
    and not counted.

    Attributes:
        log_path: the log, named in the error.
        game: the game the log should be of (``"Kiek"``, ``"Kismet"``), named in the error.
        max_problems: most bad lines before :meth:`check` gives up.
        show: gets every problem (the caller's ``on_problem``, or a printer).
        problems: bad lines so far (cut-short last lines not counted).
        first_bad: line number of the first bad line, or ``None``.
        cut_short: whether the last line was cut short.
    """

    log_path: str | os.PathLike[str]
    game: str
    max_problems: int
    show: Callable[[LogProblem], None]
    problems: int = 0
    first_bad: int | None = None
    cut_short: bool = False

    def __call__(self, problem: LogProblem) -> None:
        if problem.cut_short:
            self.cut_short = True
        else:
            self.problems += 1
            self.first_bad = problem.line if self.first_bad is None else self.first_bad
        self.show(problem)

    def check(self) -> None:
        """Raise ``ValueError`` when more than :attr:`max_problems` lines were bad."""
        if self.problems > self.max_problems:
            raise ValueError(
                f"{self.log_path}: stopped after {self.problems} lines that are not valid "
                f"events; this is not a {self.game} game log"
            )


def read_log(
    path: str | os.PathLike[str],
    *,
    game: str | None = None,
    on_problem: Callable[[LogProblem], None] | None = None,
    max_bytes: int = MAX_LOG_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[Event]:
    """Yield the events of a JSON-lines game log in order, each checked.

    Only a regular file is read (a named pipe, a device such as ``/dev/zero`` or a folder is
    refused at once), of at most ``max_bytes``, line by line (memory stays within a line).
    Blank lines are skipped. Every line is checked by :meth:`Event.from_json` and, with
    ``game``, by :func:`check_event`.

    Args:
        path: the log file.
        game: check ``data`` against the event types registered for this game (``"kiek"``);
            ``None`` checks only the record.
        on_problem: called with a :class:`LogProblem` for each line left out, and reading
            goes on; ``None`` raises instead (except for a last line cut short, which is
            always left out quietly: a game killed mid-write).
        max_bytes: largest file read.
        max_line_bytes: longest line read; longer lines are problems.

    Raises:
        FileNotFoundError: no file at ``path`` (other ``OSError``: it cannot be opened).
        kiekai.files.FileRefusedError: not a regular file, or over ``max_bytes`` (a
            ``ValueError``; the message names the path and what it is).
        ValueError: without ``on_problem``, a bad line (the message names the line number).
        KeyError: ``game`` has no registered event types.
    """
    for _, event in read_numbered_log(
        path,
        game=game,
        on_problem=on_problem,
        max_bytes=max_bytes,
        max_line_bytes=max_line_bytes,
    ):
        yield event


def read_numbered_log(
    path: str | os.PathLike[str],
    *,
    game: str | None = None,
    on_problem: Callable[[LogProblem], None] | None = None,
    max_bytes: int = MAX_LOG_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[tuple[int, Event]]:
    """:func:`read_log` with each event's 1-based line number: ``(line, event)`` pairs (what
    ``kiekai replay`` names when an event contradicts the rules). Same arguments and errors
    as :func:`read_log`."""
    if game is not None and game not in EVENT_DATA:
        raise KeyError(f"no event types are registered for the game {game!r}")
    for line in iter_lines(path, max_line_bytes=max_line_bytes, max_bytes=max_bytes):
        if line.text is not None and not line.text.strip():
            continue
        try:
            if line.text is None:
                raise ValueError(line.problem)
            event = Event.from_json(line.text)
            if game is not None:
                event = check_event(event, game)
        except ValueError as exc:
            problem = LogProblem(line.number, str(exc), cut_short=not line.complete)
            if on_problem is not None:
                on_problem(problem)
            elif not problem.cut_short:
                raise ValueError(f"{os.fspath(path)}: {problem}") from None
            continue
        yield line.number, event
