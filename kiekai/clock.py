"""Injectable clocks: all game time comes through one of these.

Real-time play uses :class:`MonotonicClock`; tests, headless games and replays use
:class:`VirtualClock`, so a seeded game repeats exactly. Times are seconds (float).
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """A source of time in seconds; only differences between readings are meaningful."""

    def now(self) -> float:
        """Current time in seconds."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (real clocks block; virtual clocks advance at once)."""
        ...


class MonotonicClock:
    """Wall time from :func:`time.monotonic` (seconds); never goes backwards.

    Args:
        origin: a :func:`time.monotonic` reading that this clock counts from (its 0 s), e.g.
            the moment a game was set up, so that the game's log counts from 0 instead of
            from the machine's boot. Default 0: the raw monotonic reading.
    """

    def __init__(self, origin: float = 0.0) -> None:
        self.origin = float(origin)

    @classmethod
    def from_now(cls) -> MonotonicClock:
        """A clock that reads 0 s now and counts on from there."""
        return cls(time.monotonic())

    def now(self) -> float:
        """Seconds from :func:`time.monotonic`, less :attr:`origin`."""
        return time.monotonic() - self.origin

    def stamp(self, monotonic: float) -> float:
        """A raw :func:`time.monotonic` reading (e.g. a Textual key event's ``time``) on
        this clock's scale (seconds after :attr:`origin`)."""
        return monotonic - self.origin

    def sleep(self, seconds: float) -> None:
        """Block for ``seconds`` (negative values are treated as 0)."""
        time.sleep(max(0.0, seconds))


class VirtualClock:
    """A clock that only moves when told to: :meth:`sleep` and :meth:`advance` add seconds.

    Raises:
        ValueError: from :meth:`advance` when asked to move backwards.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        """The current virtual time in seconds."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` (>= 0) and return the new time."""
        if seconds < 0:
            raise ValueError(f"a virtual clock cannot go back ({seconds} s)")
        self._now += seconds
        return self._now

    def sleep(self, seconds: float) -> None:
        """Advance by ``max(0, seconds)`` without blocking."""
        self.advance(max(0.0, seconds))
