"""The one thread every judge call of the HTTP API runs on (:class:`JudgeWorker`).

The judge's readers are not safe to use from two threads at once, and a single thread keeps
the event loop free (``/healthz`` answers while a long batch runs). The thread takes the
most urgent task first; :class:`kiekai.judge.server.service.JudgeService` decides the
priorities (small requests before the chunks of large ones).
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

#: A queued task: priority, submission number, its future, the function and its
#: arguments; ``close`` queues one with no future and no function.
_Task = tuple[
    tuple[int, ...], int, "Future[Any] | None", "Callable[..., Any] | None", tuple[Any, ...]
]


class JudgeWorker:
    """The one thread every judge call runs on, taking the most urgent task first.

    A task's priority is a tuple, smallest first: small requests are ``(0, 0)``, the
    chunks of large requests ``(1, k)`` for their ``k``-th chunk, so a small request
    waits for at most the task running now (a chunk is sized to take about
    :data:`kiekai.judge.server.service.CHUNK_TARGET_S`), and large requests share the thread round-robin, chunk by
    chunk, instead of one after the other. Equal priorities run in submission order.

    The judge's readers are not safe from two threads at once and the machine has few
    cores, so one thread that never idles while work waits is as fast as a pool and
    lets the scheduling be decided here. A task whose future is cancelled before it
    starts (its client went away, its request timed out) is skipped.
    """

    def __init__(self, name: str = "kiekai-judge") -> None:
        self._queue: queue.PriorityQueue[_Task] = queue.PriorityQueue()
        self._order = itertools.count()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(
        self, priority: tuple[int, ...], function: Callable[..., T], *args: Any
    ) -> Future[T]:
        """Queue ``function(*args)``; returns a :class:`concurrent.futures.Future`."""
        future: Future[T] = Future()
        self._queue.put((priority, next(self._order), future, function, args))
        return future

    def _run(self) -> None:
        while True:
            _, _, future, function, args = self._queue.get()
            if function is None or future is None:  # close()
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting request
                future.set_exception(exc)

    def close(self, timeout_s: float = 30.0) -> None:
        """Cancel the tasks not started, let the running one finish (at most
        ``timeout_s``), stop the thread."""
        while True:
            try:
                _, _, future, function, _ = self._queue.get_nowait()
            except queue.Empty:
                break
            if function is not None and future is not None:
                future.cancel()
        self._queue.put(((-1,), -1, None, None, ()))
        self._thread.join(timeout_s)


def timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``function(*args)`` and the seconds it took (measured on the judge thread)."""
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start
