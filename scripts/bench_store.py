"""Measure the rulings store (kiekai/judge/store.py): writes per second from 1 and 3
processes at once, and the one read a verdict request makes (a table's rulings between its
words), on a SQLite file or a PostgreSQL URL.

Usage::

    python scripts/bench_store.py                       # a SQLite file in a temporary folder
    python scripts/bench_store.py --url postgresql://postgres@127.0.0.1:5432/bench

Prints one line per figure and the ratio of 3-process to 1-process write throughput. Each
write is one transaction (SQLite: ``BEGIN IMMEDIATE`` ... ``COMMIT`` in WAL mode; PostgreSQL:
the table's row locked ``FOR UPDATE``), as the API and the game make them.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

from kiekai.judge.house_rules import HouseRuling
from kiekai.judge.store import RulingStore


def _writer(url: str, table: str, worker: int, count: int, start, out) -> None:
    store = RulingStore(url)
    start.wait()
    began = time.perf_counter()
    for i in range(count):
        store.add_ruling(table, HouseRuling(f"w{worker}", f"g{i}", True, "*"))
    out.put(time.perf_counter() - began)
    store.close()


def writes_per_second(url: str, table: str, processes: int, count: int) -> float:
    """Rulings written per second by ``processes`` processes of ``count`` writes each."""
    context = multiprocessing.get_context("fork")
    start, out = context.Event(), context.Queue()
    workers = [
        context.Process(target=_writer, args=(url, table, w, count, start, out))
        for w in range(processes)
    ]
    for p in workers:
        p.start()
    time.sleep(1.0)
    began = time.perf_counter()
    start.set()
    for p in workers:
        p.join()
    wall = time.perf_counter() - began
    assert all(p.exitcode == 0 for p in workers)
    return processes * count / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="store URL (default: a SQLite file in a temporary folder)")
    parser.add_argument("--writes", type=int, default=1000, help="writes per process")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="kiekai-bench-store-")
    url = args.url or f"sqlite:///{Path(folder) / 'store.sqlite3'}"
    store = RulingStore(url)
    tag = str(int(time.time()))
    print(f"store: {store.display_url}")
    for name in (f"one-{tag}", f"three-{tag}"):
        store.ensure_table(name)
    one = writes_per_second(url, f"one-{tag}", 1, args.writes)
    three = writes_per_second(url, f"three-{tag}", 3, args.writes)
    print(f"writes/s, 1 process:  {one:8.0f}")
    print(f"writes/s, 3 processes: {three:8.0f}  (ratio 3:1 = {three / one:.2f})")
    words = ["w0", *[f"g{i}" for i in range(0, 40, 2)]]  # a batch request's 21 words
    times = []
    for _ in range(200):
        began = time.perf_counter()
        store.rules_for(f"three-{tag}", words)
        times.append(time.perf_counter() - began)
    print(
        f"rules_for (21 words, table of {3 * args.writes}): median {statistics.median(times) * 1e3:.2f} ms"
    )
    store.close()


if __name__ == "__main__":
    main()
