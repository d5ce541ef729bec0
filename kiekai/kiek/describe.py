"""What a Kiek game event says to the people watching, as plain lines with style tags.

:class:`Describer` turns each event of a game (:mod:`kiekai.events`, the typed models the
engine writes) into :class:`Line` objects: text in :class:`Span` pieces, each with a style
tag (``"bold"``, ``"dim"``, ``"yellow"``, ``"green"``, ``"red"``, ``"magenta"`` or none), and
a kind that says how a front end sets it (a text line, a turn's heading rule, a table's title
and its rows). The same lines feed the terminal's Rich printer
(:class:`kiekai.kiek.printer.EventPrinter`), the web table's log panel
(:class:`kiekai.web.table.WebTable`) and ``kiekai replay``, so every front end says the same
thing and none of them reads a field by its name in a dict.

Cards are named as people see them (the header's ``card_names``, else the deck label, else
"a photo"), never by file name. Text that came from outside (names, words, reasons) goes
through :func:`kiekai.display.printable` (control and bidi characters escaped); the lines
carry no markup, so a front end shows them as text (Rich ``Text``, an autoescaping template).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kiekai.display import printable
from kiekai.events import (
    Event,
    EventData,
    KiekAborted,
    KiekCall,
    KiekDiscard,
    KiekGameOver,
    KiekHeader,
    KiekOverrule,
    KiekOverruleRepeat,
    KiekPlay,
    KiekRedeal,
    KiekReveal,
    KiekScore,
    KiekSetup,
    KiekTimeUp,
    KiekTurn,
    KiekVerdict,
    typed,
)
from kiekai.kiek.rules import HAND_SIZE, TABLE_SIZE

#: The style tags a :class:`Span` may carry ("" = plain text).
Style = Literal["", "bold", "dim", "yellow", "green", "red", "magenta"]
#: How a :class:`Line` is set: ``text`` a line of its own; ``rule`` a heading across the
#: page (a new turn); ``title`` the title of the table whose ``row`` lines follow (the first
#: row names the columns).
Kind = Literal["text", "rule", "title", "row"]


@dataclass(frozen=True)
class Span:
    """A piece of a line with one style tag (``""`` for plain text)."""

    text: str
    style: Style = ""


@dataclass(frozen=True)
class Line:
    """One line of what an event says.

    Attributes:
        spans: the text in styled pieces.
        kind: how it is set (:data:`Kind`).
        cells: for a ``row``, its cells (the spans hold them joined by two spaces).
    """

    spans: tuple[Span, ...]
    kind: Kind = "text"
    cells: tuple[str, ...] = ()

    @property
    def plain(self) -> str:
        """The line's text without its style tags."""
        return "".join(span.text for span in self.spans)


def _line(*parts: str | Span, kind: Kind = "text") -> Line:
    """A line of plain strings and styled spans (empty pieces are left out)."""
    spans = tuple(p if isinstance(p, Span) else Span(p) for p in parts)
    return Line(tuple(s for s in spans if s.text), kind)


def _row(*cells: str) -> Line:
    return Line((Span("  ".join(cells)),), "row", tuple(cells))


class Describer:
    """Says what each event of one Kiek game means, in order (it remembers the header's
    names and the deal's labels for the events after them).

    Args:
        reasons_shown: the people reading have already seen each verdict with the judge's
            reason (the terminal lists them when it asks "Overrule a verdict?"), so verdict
            lines give the outcome and the points only. False for replays, bots-only games
            and the web table's log.
    """

    def __init__(self, reasons_shown: bool = False) -> None:
        self.reasons_shown = reasons_shown
        self.names: list[str] = []
        self.card_names: dict[str, str] = {}
        self.labels: dict[str, str] = {}

    def describe(self, event: Event) -> list[Line]:
        """The lines ``event`` says, for a Kiek event of a known type whose data fits its
        model (:func:`kiekai.events.typed`); no lines for any other event."""
        payload = typed(event, "kiek")
        handler = None if payload is None else _HANDLERS.get(type(payload))
        if handler is None:
            return []
        return handler(self, event, payload)

    __call__ = describe

    # -- names
    def name(self, seat: int | None) -> str:
        """The player's name as written (``"the table"`` for no seat)."""
        if seat is None:
            return "the table"
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def _who(self, seat: int | None) -> str:
        return printable(self.name(seat))

    def _is_you(self, seat: int | None) -> bool:
        return self.name(seat) == "You"

    def _verb(self, seat: int | None, you: str, other: str) -> str:
        """The verb for ``seat``'s name: "You are", "Bot 1 is"."""
        return you if self._is_you(seat) else other

    def _whose(self, seat: int | None, start: bool = False) -> str:
        """Possessive of the player's name: "your" for "You", else "Bot 1's"."""
        if self._is_you(seat):
            return "Your" if start else "your"
        return printable(self.name(seat)) + "'s"

    def _writers(self, seats: Sequence[int]) -> str:
        """'your', "Bot 1's" or "Bot 1's and your" for the seats that wrote one word."""
        names = [self._whose(int(s)) for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def _card(self, card_id: str) -> str:
        name = self.card_names.get(card_id) or self.labels.get(card_id) or "a photo"
        return printable(name)

    def _cards(self, card_ids: Sequence[str]) -> str:
        return ", ".join(self._card(c) for c in card_ids)

    # -- events
    def _header(self, event: Event, data: KiekHeader) -> list[Line]:
        self.names = [p.name for p in data.players]
        self.card_names = dict(data.card_names)
        parts = [f"seed {data.seed}", f"{len(self.names)} players: {', '.join(self.names)}"]
        for key, value in (
            ("deck", data.deck),
            ("perception", data.perception),
            ("strictness", data.strictness),
            ("level", data.level),
        ):
            if value:
                parts.append(f"{key} {value}")
        return [_line(Span("Kiek", "bold"), " · " + printable(" · ".join(parts)))]

    def _setup(self, event: Event, data: KiekSetup) -> list[Line]:
        self.labels = dict(data.labels)
        how = "chosen by the seed" if data.first_active_by == "seed" else "the first human"
        rounds = data.rounds
        return [
            _line(
                f"Dealt {HAND_SIZE} cards to each player, {TABLE_SIZE} face up on the table, "
                f"{data.aside} set aside. {rounds} round{'s' if rounds != 1 else ''}; first "
                f"active player: {self._who(data.first_active)} ({how})."
            )
        ]

    def _turn(self, event: Event, data: KiekTurn) -> list[Line]:
        extra = " (extra round)" if data.extra_round else ""
        return [
            _line(
                f"Turn {event.turn + 1} · round {data.round}{extra} · stake x{data.stake} · "
                f"{self._who(event.player)} {self._verb(event.player, 'are', 'is')} active",
                kind="rule",
            )
        ]

    def _redeal(self, event: Event, data: KiekRedeal) -> list[Line]:
        if not data.each:
            return [_line(f"Only {data.discards} discarded cards: too few to deal again.")]
        return [
            _line(
                f"Out of cards: the {data.discards} discarded cards are shuffled and dealt "
                f"again, {data.each} to each player."
            )
        ]

    def _play(self, event: Event, data: KiekPlay) -> list[Line]:
        who, seat = self._who(event.player), event.player
        if data.forfeited:
            first = _line(
                Span(
                    f"{who} chose no cards in time: the first two cards of {self._whose(seat)} "
                    f"hand were played for {self._verb(seat, 'you', 'them')} and the five "
                    "split in table order.",
                    "yellow",
                )
            )
        else:
            first = _line(f"{who} played {len(data.played)} cards and split the five:")
        lines = [
            first,
            _line(f"  three: {self._cards(data.three)}"),
            _line(f"  two:   {self._cards(data.two)}"),
        ]
        if not data.wrote_word:
            lines.append(
                _line(
                    Span(
                        f"Turn forfeited: {self._whose(seat)} word was not written in time, so "
                        "there is nothing to guess. The guessers are not asked and nobody "
                        "scores this turn (docs/rules.md, settled reading 11).",
                        "yellow",
                    )
                )
            )
        return lines

    def _time_up(self, event: Event, data: KiekTimeUp) -> list[Line]:
        who = self._who(event.player)
        if data.what == "word":
            return []  # the play event says what the rulebook reading makes of it
        if data.what == "guess":
            text = f"{who} ran out of time: no guess written this turn."
        elif data.what == "keep":
            text = f"{who} did not choose in time: the first card on offer stays."
        else:
            text = f"{who} ran out of time ({printable(data.what)})."
        return [_line(Span(text, "yellow"))]

    def _reveal(self, event: Event, data: KiekReveal) -> list[Line]:
        parts: list[str | Span] = ["Words: "]
        for seat, word in enumerate(data.words):
            role = " (active)" if seat == event.player else ""
            parts.append(f"{'; ' if seat else ''}{self._who(seat)}{role}: ")
            parts.append(f"'{printable(word)}'" if word else Span("nothing", "dim"))
        return [_line(*parts)]

    def _agreed(self, seats: Sequence[int]) -> str:
        """`` (agreed by NAME, NAME)`` for a ruling others agreed to, else ``""``."""
        if not seats:
            return ""
        return f" (agreed by {', '.join(self._who(s) for s in seats)})"

    def _overrule(self, event: Event, data: KiekOverrule) -> list[Line]:
        seats = data.guessers or [data.guesser]
        guess = f"{self._writers(seats)} '{printable(data.guess)}'"
        by = self._who(event.player)
        if data.withdrawn:
            return [_line(f"{by} withdrew the ruling on {guess}: the judge's verdict stands.")]
        ruling = "a match" if data.accepted else "no match"
        return [
            _line(
                Span(f"Overruled by {by}{self._agreed(data.agreed)}:", "magenta"),
                f" {guess} for '{printable(data.secret)}' is {ruling} at this table "
                "(saved as a house rule).",
            )
        ]

    def _overrule_repeat(self, event: Event, data: KiekOverruleRepeat) -> list[Line]:
        word = f"{self._writers(data.writers)} '{printable(data.word)}'"
        by = self._who(event.player)
        if data.withdrawn:
            return [
                _line(
                    f"{by} withdrew the ruling on {word}: the judge's verdict on ne bis in "
                    "idem stands."
                )
            ]
        used = printable(data.used)
        ruling = f"repeats '{used}'" if data.repeats else f"does not repeat '{used}'"
        return [
            _line(
                Span(f"Overruled by {by}{self._agreed(data.agreed)}:", "magenta"),
                f" {word} {ruling} at this table (saved as a house rule).",
            )
        ]

    def _call(self, event: Event, data: KiekCall) -> list[Line]:
        names = [self._who(s) for s in data.callers]
        callers = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
        if not data.right:
            by_table = " (the table's ruling)" if data.ruled else ""
            return [
                _line(
                    f"Ne bis in idem! called by {callers}: wrong, no word repeats{by_table}. "
                    "No points."
                )
            ]
        repeats = "; ".join(
            f"{self._whose(int(s))} word repeats '{printable(w)}'"
            + (" by the table's ruling" if s in data.ruled else "")
            for s, w in data.repeats.items()
        )
        if data.credited is None:
            gain = "nobody scores the call"
        else:
            gain = (
                f"{self._who(data.credited)} {self._verb(data.credited, 'score', 'scores')} "
                f"{data.points}"
            )
        return [_line(f"Ne bis in idem! called by {callers}: right ({repeats}); {gain}.")]

    def _verdict(self, event: Event, data: KiekVerdict) -> list[Line]:
        parts: list[str | Span] = [
            f"  {self._who(event.player)}: '{printable(data.guess)}' vs "
            f"'{printable(data.secret)}': ",
            Span("match", "green") if data.accepted else Span("no match", "red"),
        ]
        if data.scored:
            parts.append(f" +{data.scored} each")
        if data.overruled:
            parts.append(Span(" (the table's ruling)", "magenta"))
        if not self.reasons_shown and data.reason.strip():
            # the plain reason a player reads (the relation's name stays in the log)
            parts.append(Span(f" ({printable(data.reason)})", "dim"))
        return [_line(*parts)]

    def _score(self, event: Event, data: KiekScore) -> list[Line]:
        lines = []
        note = data.note or ""
        if note and not note.startswith("no word written"):
            lines.append(_line(Span(f"  {printable(note)}", "dim")))
        parts = [
            f"{self._who(s)} {total}" + (f" (+{data.points[s]})" if data.points[s] else "")
            for s, total in enumerate(data.totals)
        ]
        lines.append(_line("Scores: " + ", ".join(parts)))
        return lines

    def _discard(self, event: Event, data: KiekDiscard) -> list[Line]:
        return [_line(f"Kept on the table: {self._cards(data.table)}")]

    def _aborted(self, event: Event, data: KiekAborted) -> list[Line]:
        return [
            _line(Span(f"Game stopped at turn {event.turn + 1}: {printable(data.reason)}", "red"))
        ]

    def _game_over(self, event: Event, data: KiekGameOver) -> list[Line]:
        lines = [
            _line(f"Final scores ({printable(data.reason)})", kind="title"),
            _row("Place", "Player", "Points", "Last active turn"),
        ]
        last = data.last_active_turn
        for place, seat in enumerate(data.ranking, start=1):
            turn = str(last[seat] + 1) if seat < len(last) and last[seat] >= 0 else "-"
            lines.append(_row(str(place), self._who(seat), str(data.scores[seat]), turn))
        note = (
            " (tie broken in favour of the player who played last)"
            if data.tie_broken_by_last_active
            else ""
        )
        winner = data.winner
        lines.append(
            _line(Span(f"{self._who(winner)} {self._verb(winner, 'win', 'wins')}{note}.", "bold"))
        )
        return lines


#: The describing method for each event model (an event of any other type says nothing).
_HANDLERS: dict[type[EventData], Callable[[Describer, Event, Any], list[Line]]] = {
    KiekHeader: Describer._header,
    KiekSetup: Describer._setup,
    KiekTurn: Describer._turn,
    KiekRedeal: Describer._redeal,
    KiekPlay: Describer._play,
    KiekTimeUp: Describer._time_up,
    KiekReveal: Describer._reveal,
    KiekOverrule: Describer._overrule,
    KiekOverruleRepeat: Describer._overrule_repeat,
    KiekCall: Describer._call,
    KiekVerdict: Describer._verdict,
    KiekScore: Describer._score,
    KiekDiscard: Describer._discard,
    KiekAborted: Describer._aborted,
    KiekGameOver: Describer._game_over,
}


def describe(event: Event, describer: Describer | None = None) -> list[Line]:
    """The lines ``event`` says (:meth:`Describer.describe`); without ``describer``, for an
    event read on its own (players and cards are then named by seat and "a photo")."""
    return (describer or Describer()).describe(event)
