"""What ``kiekai replay`` reports when a game log contradicts the rules, for both games.

The Kiek audit (:mod:`kiekai.kiek.audit`) and the Kismet audit (:mod:`kiekai.kismet.audit`)
play a logged game again through its engine and compare each logged event with the one the
engine writes (:func:`compare_events`); the first line that differs is a
:class:`Contradiction`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kiekai.events import Event, EventData


@dataclass(frozen=True)
class Contradiction:
    """The first line of a log that the rules or the log's own arithmetic contradict.

    Attributes:
        line: 1-based line number in the log.
        message: what is wrong, e.g. ``"score: 'totals' is [1003, 0, 2] but the rules give
            [3, 0, 2]"``.
    """

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class LogContradicted(Exception):
    """Raised inside the audit at the first contradiction (caught by :func:`audit_kiek`)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.contradiction = Contradiction(line, message)


def _plain(value: object) -> object:
    """A field's value for comparing and showing: models as dicts, NaN kept visible."""
    if isinstance(value, EventData):
        return value.model_dump(by_alias=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def compare_events(logged: Event, rebuilt: Event, skip: frozenset[str] = frozenset()) -> str | None:
    """The first difference between a logged event and the one the rules give, in words.

    Compares the type, the record's ``turn`` and ``player`` and every field of the model
    that the logged line holds and does not leave null, except the fields named in
    ``skip`` (prose, which the rules do not decide).

    Returns:
        ``None`` when they agree, else a sentence such as ``"'totals' is [9, 0, 0] but the
        rules give [3, 0, 0]"``.
    """
    if logged.type != rebuilt.type:
        return f"the log has a {logged.type!r} event where the rules give {rebuilt.type!r}"
    if logged.turn != rebuilt.turn:
        return f"it is marked turn {logged.turn} but the rules give turn {rebuilt.turn}"
    if logged.player != rebuilt.player:
        return f"it names seat {logged.player} but the rules give seat {rebuilt.player}"
    ours, theirs = logged.payload, rebuilt.payload
    if ours is None or theirs is None:  # pragma: no cover - both come checked
        return None
    for name, info in type(ours).model_fields.items():
        if name in skip or name not in ours.model_fields_set:
            continue
        mine = getattr(ours, name)
        if mine is None:
            continue
        mine, right = _plain(mine), _plain(getattr(theirs, name))
        if mine != right:
            if isinstance(mine, dict) and isinstance(right, dict):  # the keys that differ
                keys = sorted({*mine, *right}, key=str)
                keys = [k for k in keys if mine.get(k) != right.get(k)][:3]
                mine, right = {k: mine.get(k) for k in keys}, {k: right.get(k) for k in keys}
            return f"{info.alias or name!r} is {_shown(mine)} but the rules give {_shown(right)}"
    return None


#: Longest value a contradiction shows (a deck's labels would fill the terminal).
MAX_SHOWN = 200


def _shown(value: object) -> str:
    """``repr(value)``, cut to :data:`MAX_SHOWN` characters."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
