#!/usr/bin/env python
"""Benchmark ``kiekai serve --workers N``: requests/s with 1 and 2 workers in one run (and
their ratio), and each worker's memory at rest and after the load.

Both servers run at once (``--workers 1`` and ``--workers 2``, real processes on free
ports of 127.0.0.1, ``--no-access-log``); load rounds alternate between them, so machine
load (other programs) falls on both alike. Each round drives one server for
``--seconds`` from a separate load process over ``--concurrency`` kept-alive connections
(a small raw HTTP/1.1 client on asyncio: far cheaper per request than the server, so it
measures the server):

- **new pairs**: every ``POST /v1/judge`` is a pair of two random words of the embedding
  table (``--vocabulary`` most common; fixed seed per round, so each request is a
  verdict the server has not cached: the judge's work, which more workers share). Each
  worker keeps its own per-word caches (WordNet lookups, vectors), so before the timed
  rounds every server gets ``--warm-up`` seconds of new pairs of the same words, which
  fills them in each worker; the timed rounds then measure judging a new pair of known
  words;
- **cached**: the same 64 pairs over and over (answered from each worker's verdict
  cache: HTTP and validation cost only).

Memory: resident set (``VmRSS``) and proportional set (``Pss`` from
``/proc/PID/smaps_rollup``: pages shared between workers, such as the memory-mapped
embedding table and WordNet index, counted once per sharer) of every worker, found by
the ``worker_pid`` that ``/healthz`` reports on connections opened until each worker has
answered. "At rest" is after start-up and 20 requests on common words; "after" is after
every round. CPU seconds the server's processes used per request (``/proc/PID/stat``,
all workers together) show what the machine spent. Also whether a worker loaded the sentence model (it should not: every word
is in the tables) and the supervisor's own memory.

The judge's tables (WordNet index, embedding table) must be in kiekai's cache; ``kiekai
serve --workers 2`` builds them first when missing (minutes). Linux only (``/proc``).

    python scripts/bench_serve.py                 # 2 x 3 rounds of 5 s per workload
    python scripts/bench_serve.py --rounds 5 --seconds 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
CACHED_PAIRS = 64


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def memory_mb(pid: int) -> dict[str, float]:
    """``{"rss", "pss"}`` of process ``pid`` in MB (``/proc``; pss 0 when unreadable)."""
    out = {"rss": 0.0, "pss": 0.0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            out["rss"] = int(line.split()[1]) / 1024
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                out["pss"] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return out


def cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by the processes ``pids`` together."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _get(sock: socket.socket, path: str) -> dict:
    """GET ``path`` on a kept-alive raw socket; the JSON body."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return json.loads(body)


def worker_health(port: int, workers: int, tries: int = 400) -> dict[int, dict]:
    """``/healthz`` of each worker, keyed by its pid, from connections opened until
    ``workers`` distinct pids answered (a connection stays with one worker)."""
    found: dict[int, dict] = {}
    for _ in range(tries):
        with socket.create_connection((HOST, port), timeout=30) as sock:
            health = _get(sock, "/healthz")
        found.setdefault(health["worker_pid"], health)
        if len(found) >= workers:
            break
        time.sleep(0.02)
    return found


class Served:
    """One ``kiekai serve --workers N`` process and its port."""

    def __init__(self, workers: int, python: str) -> None:
        self.workers = workers
        self.port = free_port()
        command = [
            python, "-m", "kiekai", "serve", "--port", str(self.port), "--workers", str(workers),
            "--no-access-log", "--log-level", "warning",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, cwd=REPO, env=dict(os.environ, PYTHONUNBUFFERED="1")
        )

    def wait(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"--workers {self.workers} exited with {self.process.returncode}"
                )
            try:
                with socket.create_connection((HOST, self.port), timeout=2) as sock:
                    if _get(sock, "/healthz").get("status") == "ok":
                        return
            except (OSError, ValueError, StopIteration):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"--workers {self.workers} not ready in {timeout_s:.0f} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


# ------------------------------------------------------------------------ load process


def _bodies(words: list[str], seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    return [
        json.dumps({"secret": a, "guess": b}).encode()
        for a, b in (rng.sample(words, 2) for _ in range(count))
    ]


async def _drive(port: int, bodies: list[bytes], seconds: float, concurrency: int) -> dict:
    """POST ``bodies`` in turn over ``concurrency`` kept-alive connections for ``seconds``;
    each connection first asks ``/healthz`` (which worker holds it)."""
    head = (
        f"POST /v1/judge HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
    ).encode()
    ok = errors = 0
    latencies: list[float] = []
    per_worker: dict[int, int] = {}
    next_body = iter(range(10**12))

    async def connection() -> None:
        nonlocal ok, errors
        reader, writer = await asyncio.open_connection(HOST, port)

        async def exchange(request: bytes) -> tuple[int, bytes]:
            writer.write(request)
            got = await reader.readuntil(b"\r\n\r\n")
            status = int(got.split(b" ", 2)[1])
            length = 0
            for line in got.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            return status, await reader.readexactly(length)

        try:
            _, body = await exchange(f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            pid = json.loads(body)["worker_pid"]
            per_worker[pid] = per_worker.get(pid, 0) + 1
            await start.wait()
            while time.perf_counter() < deadline:
                payload = bodies[next(next_body) % len(bodies)]
                t0 = time.perf_counter()
                status, _ = await exchange(
                    head + b"Content-Length: %d\r\n\r\n" % len(payload) + payload
                )
                latencies.append(time.perf_counter() - t0)
                if status == 200:
                    ok += 1
                else:
                    errors += 1
        finally:
            writer.close()

    start = asyncio.Event()
    deadline = float("inf")
    tasks = [asyncio.create_task(connection()) for _ in range(concurrency)]
    while sum(per_worker.values()) < concurrency and not any(t.done() for t in tasks):
        await asyncio.sleep(0.01)
    began = time.perf_counter()
    deadline = began + seconds
    start.set()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - began
    latencies.sort()
    return {
        "ok": ok,
        "errors": errors,
        "rps": ok / elapsed,
        "p50_ms": latencies[len(latencies) // 2] * 1e3 if latencies else 0.0,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1e3 if latencies else 0.0,
        "connections_per_worker": sorted(per_worker.values(), reverse=True),
    }


def load_main(args: argparse.Namespace) -> int:
    from kiekai.judge.resources import table_words

    words = table_words()[: args.vocabulary]
    if args.workload == "cached":
        bodies = _bodies(words, 12345, CACHED_PAIRS)
    else:
        bodies = _bodies(words, args.seed, 200_000)
    result = asyncio.run(_drive(args.load_port, bodies, args.seconds, args.concurrency))
    print(json.dumps(result))
    return 0


def run_load(
    port: int, workload: str, seed: int, args: argparse.Namespace, seconds: float | None = None
) -> dict:
    seconds = args.seconds if seconds is None else seconds
    command = [
        sys.executable, __file__, "--load-port", str(port), "--workload", workload,
        "--seed", str(seed), "--seconds", str(seconds), "--concurrency",
        str(args.concurrency), "--vocabulary", str(args.vocabulary),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120)
    if done.returncode != 0:
        raise RuntimeError(f"load process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------ report


def warm(port: int) -> None:
    """20 requests on common words on a few connections (the state "at rest" follows)."""
    pairs = [("dog", "puppy"), ("people", "humans"), ("car", "automobile"), ("river", "creek")]
    for i in range(20):
        secret, guess = pairs[i % len(pairs)]
        body = json.dumps({"secret": secret, "guess": guess}).encode()
        with socket.create_connection((HOST, port), timeout=60) as sock:
            sock.sendall(
                b"POST /v1/judge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            )
            while sock.recv(65536):
                pass


def memory_table(servers: list[Served], when: str) -> list[str]:
    lines = []
    for served in servers:
        health = worker_health(served.port, served.workers)
        for pid, h in sorted(health.items()):
            m = memory_mb(pid)
            torch = "yes" if h["models"].get("all-MiniLM-L6-v2") else "no"
            lines.append(
                f"| {served.workers} | {when} | worker {pid} | {m['rss']:.0f} | {m['pss']:.0f} | {torch} |"
            )
        if served.workers > 1:
            m = memory_mb(served.process.pid)
            lines.append(
                f"| {served.workers} | {when} | supervisor {served.process.pid} | {m['rss']:.0f} | {m['pss']:.0f} | no |"
            )
        if len(health) < served.workers:
            lines.append(
                f"| {served.workers} | {when} | only {len(health)} workers answered | | | |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="load rounds per server and workload")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per load round")
    parser.add_argument("--concurrency", type=int, default=16, help="kept-alive connections")
    parser.add_argument("--vocabulary", type=int, default=3_000, help="common words drawn from")
    parser.add_argument(
        "--warm-up", type=float, default=20.0, help="seconds of new pairs per server first"
    )
    parser.add_argument("--python", default=sys.executable, help="the Python that runs kiekai")
    parser.add_argument("--startup-timeout", type=float, default=900.0)
    parser.add_argument("--load-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--workload", default="new", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.load_port:
        return load_main(args)

    load = os.getloadavg()
    print(
        f"# kiekai serve --workers 1 vs 2 on {platform.node()} ({os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {load[0]:.1f} at start)\n"
    )
    servers = [Served(1, args.python), Served(2, args.python)]
    try:
        # one after the other: the second finds the first's one-time builds in the cache
        for served in servers:
            served.wait(args.startup_timeout)
            warm(served.port)
        time.sleep(1.0)
        rest = memory_table(servers, "at rest")
        pids = {s.workers: sorted(worker_health(s.port, s.workers)) for s in servers}
        for served in servers:  # fill each worker's per-word caches (not timed)
            run_load(served.port, "new", 1, args, seconds=args.warm_up)
            run_load(served.port, "cached", 1, args, seconds=1.0)
        results: dict[tuple[int, str], list[dict]] = {}
        seed = 1
        for _ in range(args.rounds):
            for workload in ("new", "cached"):
                for served in servers:
                    seed += 1
                    before = cpu_s(pids[served.workers])
                    run = run_load(served.port, workload, seed, args)
                    run["cpu_ms"] = (cpu_s(pids[served.workers]) - before) * 1e3 / max(1, run["ok"])
                    results.setdefault((served.workers, workload), []).append(run)
        after = memory_table(servers, "after load")
    finally:
        for served in servers:
            served.stop()

    print(f"{args.rounds} alternating rounds of {args.seconds:g} s per server and workload "
          f"after {args.warm_up:g} s of warm-up each, {args.concurrency} kept-alive "
          f"connections, words from the {args.vocabulary:,} most common of the embedding "
          "table\n")  # fmt: skip
    print(
        "| workload | workers | requests/s (median of rounds) | rounds | p50 ms | p99 ms "
        "| server CPU ms per request | errors | connections per worker |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---|")
    for workload in ("new", "cached"):
        for workers in (1, 2):
            runs = results[(workers, workload)]
            rps = [r["rps"] for r in runs]
            spread = ", ".join(f"{x:.0f}" for x in rps)
            print(
                f"| {'new pairs' if workload == 'new' else 'cached'} | {workers} | {median(rps):.0f} | {spread} | "
                f"{median(r['p50_ms'] for r in runs):.1f} | {median(r['p99_ms'] for r in runs):.1f} | "
                f"{median(r['cpu_ms'] for r in runs):.2f} | "
                f"{sum(r['errors'] for r in runs)} | {runs[-1]['connections_per_worker']} |"
            )
    print()
    for workload in ("new", "cached"):
        one = median(r["rps"] for r in results[(1, workload)])
        two = median(r["rps"] for r in results[(2, workload)])
        per_round = [
            b["rps"] / a["rps"]
            for a, b in zip(results[(1, workload)], results[(2, workload)], strict=True)
        ]
        rounds = ", ".join(f"{x:.2f}" for x in per_round)
        name = "new pairs" if workload == "new" else "cached"
        print(f"ratio 2 workers / 1 worker, {name}: {two / one:.2f}x (per round: {rounds})")
    print("\n| workers | when | process | RSS MB | PSS MB | sentence model loaded |")
    print("|---:|---|---|---:|---:|---|")
    for line in rest + after:
        print(line)
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
