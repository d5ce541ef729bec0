"""Drivers of a Kismet table: to its end on a virtual clock, or in real time.

:func:`run_headless` plays a bots-only game on a :class:`~kiekai.clock.VirtualClock` (a seed
repeats exactly); :func:`run_realtime` drives a table on a real clock inside an asyncio
loop (the Textual app and ``scripts/measure_kismet.py`` use it), and the timing error of
every scheduled action (actual minus scheduled time, seconds) lands in
:attr:`~kiekai.kismet.scheduler.Scheduler.lags`. A driver needs only what
:class:`Drivable` names, which both tables of :mod:`kiekai.kismet.table` have.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from kiekai.clock import Clock, VirtualClock
from kiekai.kismet.scheduler import Scheduler


class Drivable(Protocol):
    """What a driver uses of a table (:class:`~kiekai.kismet.table.BaseTable`,
    :class:`~kiekai.kismet.table.VariantTable`)."""

    @property
    def started(self) -> bool:
        """True once :meth:`start` was called."""
        ...

    @property
    def done(self) -> bool:
        """True when the game (or match) is over."""
        ...

    @property
    def clock(self) -> Clock:
        """The table's time source."""
        ...

    @property
    def scheduler(self) -> Scheduler:
        """The table's timed actions."""
        ...

    def start(self, delay: float = 0.0) -> None:
        """Schedule the game's first action ``delay`` seconds from now."""
        ...

    def run_due(self, now: float | None = None) -> int:
        """Run the actions due by ``now`` (default: the clock's time); return how many ran."""
        ...


def run_headless(table: Drivable, clock: VirtualClock, max_steps: int = 1_000_000) -> None:
    """Play a table without people to the end on a virtual clock (instant, deterministic).

    Raises:
        RuntimeError: the table waits for a human (nothing is scheduled) or exceeds
            ``max_steps`` jobs.
    """
    if not table.started:
        table.start()
    steps = 0
    while not table.done:
        due = table.scheduler.next_due()
        if due is None:
            raise RuntimeError("the game waits for a human; headless games need bots only")
        if due > clock.now():
            clock.advance(due - clock.now())
        steps += table.run_due(clock.now())
        if steps > max_steps:
            raise RuntimeError(f"game did not end within {max_steps} actions")


async def run_realtime(
    table: Drivable,
    wake: asyncio.Event,
    on_step: Callable[[], None] | None = None,
) -> None:
    """Drive ``table`` on its (real) clock until it is done, inside a running asyncio loop.

    Starts the table unless it was started already (e.g. with a countdown). Sleeps until
    the next job is due or until ``wake`` is set (a human acted, the table was paused or
    resumed), then runs what is due and calls ``on_step``. Timing errors land in
    ``table.scheduler.lags``.
    """
    if not table.started:
        table.start()
    while not table.done:
        due = table.scheduler.next_due()
        timeout = None if due is None else max(0.0, due - table.clock.now())
        if timeout is None or timeout > 0:
            try:
                await asyncio.wait_for(wake.wait(), timeout)
            except TimeoutError:
                pass
        wake.clear()
        if table.run_due() and on_step is not None:
            on_step()
