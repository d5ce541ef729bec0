"""Game events and the JSON-lines game log shared by the Kiek and Kismet engines.

An :class:`Event` is a small frozen record appended by an engine; an :class:`EventLog`
writes each event as one JSON line and flushes it at once, so a crash or Ctrl-C keeps
everything that happened up to that moment. A game can be replayed from its log alone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO


@dataclass(frozen=True)
class Event:
    """One thing that happened in a game.

    Attributes:
        type: what happened, e.g. ``"setup"``, ``"word"``, ``"guess"``, ``"score"``.
        turn: 0-based turn index (Kiek) or round index (Kismet); -1 for game-level events.
        player: seat index of the player it concerns, or ``None`` for table events.
        data: JSON-serialisable payload (card ids, words, points, seconds ...).
    """

    type: str
    turn: int = -1
    player: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """Return the event as one line of JSON (no trailing newline)."""
        return json.dumps(
            {"type": self.type, "turn": self.turn, "player": self.player, "data": dict(self.data)},
            ensure_ascii=False,
            sort_keys=False,
        )

    @classmethod
    def from_json(cls, line: str) -> Event:
        """Parse one JSON line written by :meth:`to_json`.

        Raises:
            ValueError: the line is not JSON or lacks the ``type`` key.
        """
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON event line: {line[:80]!r} ({exc})") from exc
        if not isinstance(raw, dict) or "type" not in raw:
            raise ValueError(f"event line has no 'type': {line[:80]!r}")
        return cls(
            type=str(raw["type"]),
            turn=int(raw.get("turn", -1)),
            player=raw.get("player"),
            data=raw.get("data") or {},
        )


class EventLog:
    """Append-only JSON-lines log: every :meth:`append` writes one line and flushes it.

    ``EventLog(None)`` keeps events in memory only. Use as a context manager or call
    :meth:`close`.

    Raises:
        OSError: the log file cannot be opened for appending (permission, missing dir).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.events: list[Event] = []
        self._fh: TextIO | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115

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


def read_log(path: str | os.PathLike[str]) -> Iterator[Event]:
    """Yield the events of a JSON-lines game log in order.

    Blank lines are skipped. A truncated last line (a game killed mid-write) is skipped too.

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: a line other than the last is not a valid event (names the line number).
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield Event.from_json(line)
        except ValueError as exc:
            if number == len(lines):
                return
            raise ValueError(f"{path}: line {number}: {exc}") from exc
