"""The scheduler of timed actions that a Kismet table runs on.

Jobs run in order of due time (seconds on the table's clock), then seat, then scheduling
order, so that equal due times are decided the same way every time and a headless game
repeats exactly from its seed. The scheduler holds no rules and reads no clock: the table
passes it the time (:mod:`kiekai.kismet.table`), the drivers decide when to ask
(:mod:`kiekai.kismet.drivers`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(order=True)
class _Job:
    due: float
    seat: int
    seq: int
    tag: str = field(compare=False)
    fn: Callable[[], object] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class Scheduler:
    """Timed actions in order of due time (seconds), then seat, then scheduling order.

    Equal due times are therefore decided by seat and then by order, which keeps headless
    games deterministic. :attr:`lags` collects ``actual - due`` (seconds) of every job run.
    A paused scheduler runs nothing and reports nothing due; :meth:`resume` moves every
    pending job on by the paused time.
    """

    def __init__(self) -> None:
        self._heap: list[_Job] = []
        self._seq = itertools.count()
        self.lags: list[float] = []
        #: due time (s) of the job being run, ``None`` outside :meth:`run_due`.
        self.running: float | None = None
        #: clock reading (s) when :meth:`pause` was called, ``None`` while running.
        self.paused_at: float | None = None

    def at(self, due: float, fn: Callable[[], object], tag: str = "", seat: int = -1) -> _Job:
        """Schedule ``fn`` to run at time ``due`` (seconds); returns a handle for :meth:`cancel`."""
        job = _Job(due, seat, next(self._seq), tag, fn)
        heapq.heappush(self._heap, job)
        return job

    def cancel(self, tag: str) -> None:
        """Cancel every pending job whose tag equals ``tag`` or starts with ``tag + ':'``."""
        for job in self._heap:
            if job.tag == tag or job.tag.startswith(tag + ":"):
                job.cancelled = True

    def pending(self, tag: str) -> bool:
        """True when a job tagged exactly ``tag`` is waiting to run."""
        return any(job.tag == tag and not job.cancelled for job in self._heap)

    def due_of(self, tag: str) -> float | None:
        """Due time (s) of the earliest pending job tagged exactly ``tag``, or ``None``."""
        dues = [job.due for job in self._heap if job.tag == tag and not job.cancelled]
        return min(dues) if dues else None

    @property
    def paused(self) -> bool:
        """True between :meth:`pause` and :meth:`resume`."""
        return self.paused_at is not None

    def pause(self, now: float) -> None:
        """Stop running jobs from ``now`` (seconds) on; a second call changes nothing."""
        if self.paused_at is None:
            self.paused_at = now

    def resume(self, now: float) -> float:
        """Run again from ``now``: every pending job is due later by the paused time.

        Returns:
            The seconds the scheduler stood still (0 when it was not paused).
        """
        if self.paused_at is None:
            return 0.0
        still = max(0.0, now - self.paused_at)
        for job in self._heap:  # the same shift for all keeps the heap ordered
            job.due += still
        self.paused_at = None
        return still

    def next_due(self) -> float | None:
        """Due time of the earliest pending job, or ``None`` when nothing is pending (or the
        scheduler is paused)."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        if self.paused_at is not None:
            return None
        return self._heap[0].due if self._heap else None

    def run_due(self, now: float) -> int:
        """Run every job due at or before ``now`` (including ones they schedule); returns the
        number run (0 while paused)."""
        ran = 0
        while (due := self.next_due()) is not None and due <= now:
            job = heapq.heappop(self._heap)
            self.lags.append(now - job.due)
            self.running = job.due
            try:
                job.fn()
            finally:
                self.running = None
            ran += 1
        return ran
