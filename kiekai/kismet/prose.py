"""Kismet events as text: one line per event, and the printed game of a bots-only table.

:func:`describe` gives one line (the terminal UI's event list); :func:`printout` the printed
game of ``kiekai kismet --humans 0``: the circle and the dice at every roll, the cards in
front of every player in the variant, round results as small tables, so that a printed
game can be checked against the rulebook (/work/shared/rules/) line by line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kiekai.events import (
    Event,
    EventData,
    KismetClear,
    KismetCover,
    KismetDisplaced,
    KismetGameOver,
    KismetKnock,
    KismetLay,
    KismetPass,
    KismetPreLay,
    KismetReveal,
    KismetRoll,
    KismetRoundOver,
    KismetRoundStart,
    KismetSetup,
    typed,
)
from kiekai.kismet.engine import KismetCard
from kiekai.kismet.rules import DEFAULT_RULES, Rules, slot_name


def plural(n: int, word: str) -> str:
    """``"1 card"``, ``"2 cards"``, ``"0 cards"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _join(values: Iterable[object], last: str = "and") -> str:
    """``[5, 7, 8]`` → ``"5, 7 and 8"``."""
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def wrong_knock_why(why: str, values: Sequence[int], roller: str, knocker: str = "you") -> str:
    """Why a knock was wrong, in a few words (Variant, "Knocking").

    Args:
        why: :attr:`~kiekai.kismet.engine.KnockOutcome.why` (``"roller_can_lay"`` or
            ``"cannot_lay"``).
        values: :attr:`~kiekai.kismet.engine.KnockOutcome.values`.
        roller: the roller's name; ``knocker``: the knocker's (``"you"`` reads as "you have").

    Returns:
        e.g. ``"bot1 still has a 7 or 8"`` or ``"you have no 5, 6 or 9"``; ``""`` for an
        unknown ``why`` (logs written before the reason was logged).
    """
    either = _join(values, "or")
    if why == "roller_can_lay":
        has = "have" if roller == YOU else "has"
        return f"{roller} still {has} {'an' if values and values[0] in (8, 11) else 'a'} {either}"
    if why == "cannot_lay":
        return f"{knocker} {'have' if knocker == 'you' else 'has'} no {either}"
    return ""


#: The name of the person at the terminal (:func:`kiekai.kismet.table.seat_names`): lines
#: about this seat read "you cover", "you pass", "your time ran out".
YOU = "you"


def verb(who: str, third: str, second: str) -> str:
    """``who`` and the verb agreeing with it: ``bot1 covers``, ``you cover`` (the person is
    :data:`YOU`)."""
    return f"{who} {second if who == YOU else third}"


def _possessive(who: str) -> str:
    """``bot1's``, ``your``."""
    return "your" if who == YOU else f"{who}'s"


def _value(card_id: str) -> int:
    return KismetCard.from_id(card_id).value


def table_lines(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A small text table: the first column left-aligned, the others right-aligned."""
    cells = [list(map(str, header))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(parts).rstrip())
    return out


def round_result_lines(event: Event, names: Mapping[int, str]) -> list[str]:
    """A variant ``round_over`` event as a small table: minus points still in front of each
    player this round, the placement (1 = best; equal points share a place) and the running
    total of minus points.

    Raises:
        ValueError: ``event`` is not a Kismet ``round_over`` whose data fits
            :class:`~kiekai.events.KismetRoundOver` (:func:`kiekai.events.typed`), or its
            three lists are not equally long.
    """
    data = typed(event, "kismet")
    if not isinstance(data, KismetRoundOver):
        raise ValueError(f"not a Kismet round_over event: {event.type!r}")
    return _round_table(data, names)


def _round_table(data: KismetRoundOver, names: Mapping[int, str]) -> list[str]:
    """:func:`round_result_lines` of a ``round_over`` event's typed data."""
    rows = [
        (names.get(p, f"seat {p}"), m, place, total)
        for p, (m, place, total) in enumerate(
            zip(data.minus_points, data.placements, data.tallies, strict=True)
        )
    ]
    return table_lines(("player", "minus points", "place", "total"), rows)


def describe(
    event: Event,
    names: Mapping[int, str] | None = None,
    show_values: bool = True,
    origin: float = 0.0,
    show_pre_lay: bool = False,
    rules: Rules | None = DEFAULT_RULES,
) -> str | None:
    """One line of text for an event, or ``None`` for events not worth a line.

    The line is read from the event's typed data (:attr:`~kiekai.events.Event.payload`; an
    event built from a bare dict is checked against its Kismet model first,
    :func:`kiekai.events.typed`): an event whose type is not a Kismet one, whose data does
    not fit its model, or which says nothing worth a line (``refill``) gives ``None``.

    Cards are named by value, circle places by letter (a..k), players by name; points say
    whether they are won or lost. ``show_values=False`` leaves out the values the dice make
    while a round is played (a person playing has to form the sums himself; they are shown
    with the results). Pre-laid cards are secret: unless ``show_pre_lay`` (the printed
    bots-only game), a pre-lay says only that the player has chosen. Times are printed in
    seconds after ``origin`` (seconds on the table's clock; a monotonic clock counts from
    boot, so the UI passes the clock's reading when the game opened), never below 0.
    ``rules`` gives the chip points of a handed-back card (``None``: not shown).
    """
    say = _Speaker(names or {}, show_values, show_pre_lay, rules)
    return _describe(say, event, typed(event, "kismet"), origin)


def _describe(say: _Speaker, event: Event, data: EventData | None, origin: float) -> str | None:
    """:func:`describe` of ``event`` whose typed data is ``data`` (``None``: no line)."""
    line = None if data is None else _LINES.get(type(data))
    if line is None:
        return None
    stamp: float = getattr(data, "t", 0.0)  # every Kismet model has t (default 0.0)
    t = f"{max(0.0, float(stamp) - origin):8.2f}s "
    return t + line(say, event, data, say.name(event.player) if event.player is not None else "")


@dataclass(frozen=True)
class _Speaker:
    """How :func:`describe` words events: the players' names and what it shows."""

    names: Mapping[int, str]
    show_values: bool
    show_pre_lay: bool
    rules: Rules | None

    def name(self, seat: int | None) -> str:
        """The name of ``seat`` (``"seat N"`` for one without a name, ``"seat None"`` for
        no seat)."""
        return self.names.get(seat, f"seat {seat}") if isinstance(seat, int) else f"seat {seat}"


def _setup(say: _Speaker, event: Event, d: KismetSetup, who: str) -> str:
    return f"setup: {d.players} players, seed {d.seed}"


def _roll(say: _Speaker, event: Event, d: KismetRoll, who: str) -> str:
    roller = f"{verb(who, 'rolls', 'roll')} " if event.player is not None else "roll "
    if d.timed_out:  # the person sat idle: the table rolled (Reading 18)
        roller = f"{_possessive(who)} time to take the dice ran out; the table rolls "
    values = f" -> values {_join(d.values, 'or')}" if say.show_values else ""
    joker = (
        " (joker throw: the roller may lay one more card after the matching one)" if d.joker else ""
    )
    return f"{roller}{_join(d.dice)}{values}{joker}"


def _cover(say: _Speaker, event: Event, d: KismetCover, who: str) -> str:
    return f"  {verb(who, 'covers', 'cover')} card {slot_name(d.slot)}"


def _displaced(say: _Speaker, event: Event, d: KismetDisplaced, who: str) -> str:
    return (
        f"  {verb(who, 'is', 'are')} pushed off card {slot_name(d.slot)}: "
        f"{_possessive(say.name(d.by))} hand was there first"
    )


def _reveal(say: _Speaker, event: Event, d: KismetReveal, who: str) -> str:
    where = f" ({slot_name(d.slot)})"
    if d.correct:
        return f"  {verb(who, 'takes', 'take')} the {d.value}{where}: +{plural(d.points, 'point')}"
    if d.handed_back:
        back = _value(d.handed_back)
        lost = f" (-{plural(say.rules.points(back), 'point')})" if say.rules is not None else ""
        hands = "hand" if who == YOU else "hands"
        return f"  {who} covered the {d.value}{where}: wrong, {hands} back the {back}{lost}"
    return f"  {who} covered the {d.value}{where}: wrong; no card won yet to hand back"


def _clear(say: _Speaker, event: Event, d: KismetClear, who: str) -> str:
    return f"  no card could be taken: all {len(d.removed)} cards leave the game"


def _game_over(say: _Speaker, event: Event, d: KismetGameOver, who: str) -> str:
    return "game over: too few cards left to refill the circle"


def _round_start(say: _Speaker, event: Event, d: KismetRoundStart, who: str) -> str:
    return f"round {d.round + 1} starts; {verb(say.name(d.roller), 'rolls', 'roll')} first"


def _pre_lay(say: _Speaker, event: Event, d: KismetPreLay, who: str) -> str:
    if not say.show_pre_lay:
        return f"  {verb(who, 'has', 'have')} chosen cards to pre-lay (face down)"
    if not d.values:
        return f"  {verb(who, 'pre-lays', 'pre-lay')} nothing"
    return (
        f"  {verb(who, 'pre-lays', 'pre-lay')} {_join(d.values)} face down "
        f"(worth {d.points} minus points)"
    )


def _lay(say: _Speaker, event: Event, d: KismetLay, who: str) -> str:
    extra = " (the joker throw's extra card)" if d.extra else ""
    return f"  {verb(who, 'lays', 'lay')} the {d.value}{extra}"


def _pass(say: _Speaker, event: Event, d: KismetPass, who: str) -> str:
    if d.timed_out:
        return f"  {_possessive(who)} time ran out: the turn ends (not an overlook)"
    if d.overlooked and say.show_values:
        # Only the printed game says so. At the table nobody announces an overlook: the
        # others have to see it ("may knock when the player passes on his turn and
        # overlooks that he could lay down a card"; docs/kismet.md, Reading 21).
        return f"  {verb(who, 'passes', 'pass')}, overlooking a card he could lay: others may knock"
    return f"  {verb(who, 'passes', 'pass')}"


def _knock(say: _Speaker, event: Event, d: KismetKnock, who: str) -> str:
    card, roller = d.card, say.name(d.roller)
    text = {
        "lay": f"knocks first and lays the {card}",
        "roller_turns_back": (
            f"knocks first: {roller} turns back the {card}"
            if card is not None
            else f"knocks first: {roller} has no laid-down card to turn back"
        ),
        "too_slow": "knocks rightly, but too late",
        "penalty": f"knocks wrongly and turns the {card} face up again",
        "no_penalty": "knocks wrongly; no laid-down card to turn back, so no penalty",
    }.get(d.result, d.result)
    why = wrong_knock_why(d.why or "", d.values, roller, who)
    if why and d.result == "penalty":  # short enough for an 80-column event list
        text = f"knocks wrongly ({why}), turns the {card} up"
    elif why and d.result == "no_penalty":
        text = f"knocks wrongly ({why}); no cost"
    if who == YOU:
        text = text.replace("knocks", "knock", 1)
        if d.result in ("lay", "penalty"):  # the knocker's own verbs, not the roller's
            text = text.replace(" lays ", " lay ").replace(" turns the", " turn the")
    return f"  {who} {text}"


def _round_over(say: _Speaker, event: Event, d: KismetRoundOver, who: str) -> str:
    return f"round {d.round + 1} over: {who} laid all cards"


#: ``line(speaker, event, data, who)``: the text of one event after its time stamp
#: (``data``: the event's typed data, of the model the line is registered for; ``who``: the
#: name of the event's player, ``""`` for a table event).
_Line = Callable[[_Speaker, Event, Any, str], str]

#: The events :func:`describe` gives a line, by the model of their data (an event of any
#: other model, such as :class:`~kiekai.events.KismetRefill`, gets none).
_LINES: dict[type[EventData], _Line] = {
    KismetSetup: _setup,
    KismetRoll: _roll,
    KismetCover: _cover,
    KismetDisplaced: _displaced,
    KismetReveal: _reveal,
    KismetClear: _clear,
    KismetGameOver: _game_over,
    KismetRoundStart: _round_start,
    KismetPreLay: _pre_lay,
    KismetLay: _lay,
    KismetPass: _pass,
    KismetKnock: _knock,
    KismetRoundOver: _round_over,
}


def printout(
    events: Iterable[Event],
    names: Mapping[int, str] | None = None,
    rules: Rules = DEFAULT_RULES,
) -> Iterator[str]:
    """The printed game of a bots-only table (``kiekai kismet --humans 0``), line by line.

    Every event's :func:`describe` line (with the values the dice make and the pre-laid
    cards), and besides: in the base game the circle at every roll (``a 5  b 7 …``, with
    chip points); in the variant, at every roll, the cards face up in front of each player,
    and each round's results as a small table. Everything a rule check needs is on the page.
    Events are read by their typed data, as :func:`describe` reads them; one that is not a
    Kismet event, or whose data does not fit its model, prints nothing.
    """
    names = names or {}
    say = _Speaker(names, show_values=True, show_pre_lay=True, rules=rules)
    for event in events:
        data = typed(event, "kismet")
        line = _describe(say, event, data, 0.0)
        if line is not None:
            yield line
        pad = " " * 12
        if isinstance(data, KismetRoll) and data.circle is not None:
            cards = [
                f"{slot_name(i)} {_value(c):>2}" if c is not None else f"{slot_name(i)}  -"
                for i, c in enumerate(data.circle)
            ]
            yield f"{pad}circle: " + "  ".join(cards)
        elif isinstance(data, KismetRoll) and data.fronts is not None:
            width = max(len(names.get(p, f"seat {p}")) for p in range(len(data.fronts)))
            for p, front in enumerate(data.fronts):
                shown = " ".join(f"{v:>2}" for v in front) or "(none)"
                minus = sum(rules.points(v) for v in front)
                who = names.get(p, f"seat {p}")
                yield f"{pad}{who:<{width}} in front: {shown}  ({minus} minus points)"
        elif isinstance(data, KismetRoundOver):
            for row in _round_table(data, names):
                yield f"{pad}{row}"
