#!/usr/bin/env python
"""Benchmark the synonym judge: latency (warm and new words) and HTTP throughput.

Prints Markdown tables (the ``## Speed`` section of ``docs/judge.md`` is this output):

1. **Judge latency** of ``Judge(strictness).match(secret, guess)`` in milliseconds, p50
   and p99 (nearest-rank percentiles), in this process:

   - *warm*: pairs already judged once, so every per-word cache (lemmas, WordNet senses,
     embeddings) and the judge's per-pair cache are filled;
   - *seen words, new pair*: words judged before, met in a pair not judged before (the
     per-word caches are filled, the pair is not);
   - *new words in the embedding table*: pairs of words this process has never judged,
     drawn from the wordfreq English list (Speer et al., ``wordfreq``, frequency ranks
     3,000-40,000, fixed seed), all in the judge's embedding table (MiniLM vectors of the
     common words, ``kiekai.judge.resources.load_embedding_table``), so each call fills
     the per-word WordNet caches of two words and looks their embeddings up;
   - *new words outside the table*: pairs of a rare word (wordfreq ranks 60,000-200,000)
     and a misspelling of a common word (two neighbouring letters swapped), neither in
     the table, so both are encoded by MiniLM (in one batch of two);
   - *new words, table switched off*: more in-table pairs judged with the table off
     (every word encoded), as the judge ran before the table existed.

   The table is read from kiekai's cache, or built there when missing (``--rebuild-table``
   builds it anew, to time the build); its size and build time are printed. WordNet is
   read from the judge's index on demand, as in ``kiekai serve`` (no preloading).

2. **HTTP requests per second** against a real uvicorn server on 127.0.0.1 in a separate
   process (``python -m kiekai serve``), driven by a load generator in a third process (a
   pool of asyncio keep-alive connections writing HTTP/1.1 by hand, which costs far less
   CPU per request than an httpx client, so the generator is less of a bottleneck on a
   2-core machine), compared in the same run with a bare FastAPI app that answers the
   same ``POST /v1/judge`` with a constant JSON under the same uvicorn settings. Rounds
   alternate judge / bare so drift in machine load hits both; the ratio reported is the
   median over rounds of judge req/s / bare req/s.

3. **Cold command line**: ``kiekai judge people humans`` and ``kiekai repeat stones
   --used rocks,trees`` (words in the judge's tables), each run ``--cold-runs`` times in
   a fresh process (``python -m kiekai``): wall time, CPU time (user + system) and peak
   resident memory (``ru_maxrss`` from ``wait4``), medians. ``--cold-python PATH``
   times another installation too (e.g. ``/work/main/.venv/bin/python`` for figures
   before a change), in the same run.

4. **Fairness**: ten ``/v1/repeat`` requests with 500 made-up used words each, at once,
   and plain ``/v1/judge`` requests meanwhile (``--fair-python`` serves another
   installation, for figures before a change).

Aims (issue "Synonym judge", item 5, and issue 10, item 5): warm p99 < 5 ms, new word
< 30 ms (p99), HTTP rate at least half the bare endpoint's (ratio >= 0.5), one verdict
from the command line in < 1 s and < 400 MB.

Every loop is bounded by a count and a time limit; all traffic stays on 127.0.0.1.

Usage::

    .venv/bin/python scripts/bench_judge.py                 # full run, about 3 minutes
    .venv/bin/python scripts/bench_judge.py --quick         # smaller counts, ~90 s
    .venv/bin/python scripts/bench_judge.py --skip-http --profile   # where new words spend time
    .venv/bin/python scripts/bench_judge.py --rebuild-table         # also time the table build
    .venv/bin/python scripts/bench_judge.py --skip-latency --skip-http   # cold CLI only

Internal modes (started by the script itself): ``--serve-bare PORT`` runs the bare app,
``--load URL`` runs the load generator and prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"

#: Pairs judged in the warm and HTTP loops: rulebook examples and everyday words.
WARM_PAIRS = [
    ("people", "humans"),
    ("people", "persons"),
    ("person", "faces"),
    ("black", "white"),
    ("mice", "mouse"),
    ("dog", "puppy"),
    ("dog", "cat"),
    ("boat", "ship"),
    ("table", "desk"),
    ("sun", "sunny"),
    ("river", "creek"),
    ("teeth", "tooth"),
    ("colour", "color"),
    ("ice cream", "icecream"),
    ("three", "3"),
    ("coffee", "tea"),
]


# ----------------------------------------------------------------------------- statistics


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0..100) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def machine() -> str:
    """One line describing the CPU, core count and Python (for the results table)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cores} cores ({model}), Python {platform.python_version()}, {platform.system()}"


# ---------------------------------------------------------------------------- judge latency


def new_word_pairs(count: int, seen: set[str], seed: int = 0, table=None) -> list[tuple[str, str]]:
    """``count`` pairs of distinct English words absent from ``seen`` (wordfreq ranks
    3,000-40,000, shuffled with ``seed``; only words of ``table`` when one is given); the
    words are added to ``seen``."""
    from wordfreq import top_n_list

    words = [
        w
        for w in top_n_list("en", 40_000)[3_000:]
        if w.isalpha() and w not in seen and (table is None or w in table)
    ]
    random.Random(seed).shuffle(words)
    words = words[: 2 * count]
    seen.update(words)
    return list(zip(words[0::2], words[1::2], strict=False))


def misspelling(word: str, rng: random.Random) -> str:
    """``word`` with two neighbouring letters swapped (not the first letter): the most
    common kind of typing error (Damerau 1964)."""
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def outside_table_pairs(count: int, seen: set[str], table, seed: int = 1) -> list[tuple[str, str]]:
    """``count`` pairs (rare word, misspelling) with neither word in ``table`` nor in
    ``seen``: rare words are alphabetic wordfreq words of ranks 60,000-200,000 in their
    normalised form; misspellings swap two letters of a common word (ranks 3,000-40,000,
    at least 5 letters) and are kept only when the result is no word of wordfreq's top
    200,000. Shuffled with ``seed``; the words are added to ``seen``."""
    from wordfreq import top_n_list

    from kiekai.judge.normalize import normalise

    rng = random.Random(seed)
    known = top_n_list("en", 200_000)
    vocabulary = set(known)
    tabled = table if table is not None else ()
    rare = [
        w
        for w in known[60_000:]
        if w.isalpha() and normalise(w) == w and w not in tabled and w not in seen
    ]
    rng.shuffle(rare)
    common = [w for w in known[3_000:40_000] if w.isalpha() and len(w) >= 5]
    rng.shuffle(common)
    typos: list[str] = []
    for w in common:
        typo = misspelling(w, rng)
        if typo not in vocabulary and typo not in tabled and typo not in seen and typo != w:
            typos.append(typo)
            if len(typos) == count:
                break
    pairs = list(zip(rare[:count], typos, strict=False))
    seen.update(w for pair in pairs for w in pair)
    return pairs


def _timed_matches(judge, pairs, limit_s: float, profiler=None) -> tuple[list, list]:
    """Time ``judge.match`` over ``pairs`` (ms each) until done or ``limit_s`` seconds
    pass; returns (latencies, pairs judged)."""
    times: list[float] = []
    judged: list[tuple[str, str]] = []
    deadline = time.perf_counter() + limit_s
    for secret, guess in pairs:
        if time.perf_counter() > deadline:
            break
        if profiler:
            profiler.enable()
        start = time.perf_counter_ns()
        judge.match(secret, guess)
        times.append((time.perf_counter_ns() - start) / 1e6)
        if profiler:
            profiler.disable()
        judged.append((secret, guess))
    return times, judged


def _print_profile(profiler: cProfile.Profile, title: str) -> None:
    print(f"\n=== cProfile: {title} ===", file=sys.stderr)
    stats = pstats.Stats(profiler, stream=sys.stderr)
    stats.sort_stats("cumulative").print_stats(r"kiekai|encode|wordnet\.py", 20)


def judge_latency(
    strictness: str,
    warm_calls: int,
    new_pairs: int,
    limit_s: float,
    profile: bool = False,
    rebuild_table: bool = False,
    table_top_n: int | None = None,
) -> dict:
    """Time ``Judge.match`` on warm pairs and on pairs of new words (milliseconds).

    The embedding table is loaded first (built when missing, or anew with
    ``rebuild_table``; of wordfreq's top ``table_top_n`` words, default
    :data:`kiekai.judge.resources.TABLE_TOP_N`), then the judge is warmed up as
    ``kiekai serve`` does. With ``profile``, the new-word loops run under cProfile and
    the judge's and the embedding model's functions with the most cumulative time are
    printed (stderr).
    """
    from kiekai.judge import Judge, resources

    top_n = table_top_n or resources.TABLE_TOP_N
    t0 = time.perf_counter()
    table = resources.load_embedding_table(
        top_n,
        build=True,
        rebuild=rebuild_table,
        report=lambda line: print(line, file=sys.stderr),
    )
    table_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    judge = Judge(strictness)
    judge.warm_up()  # WordNet index, the embedding model, the inflection tables
    load_s = time.perf_counter() - t0
    preload_s = 0.0  # kiekai serve reads WordNet's index on demand

    for secret, guess in WARM_PAIRS:
        judge.match(secret, guess)
    warm: list[float] = []
    deadline = time.perf_counter() + limit_s
    while len(warm) < warm_calls and time.perf_counter() < deadline:
        secret, guess = WARM_PAIRS[len(warm) % len(WARM_PAIRS)]
        start = time.perf_counter_ns()
        judge.match(secret, guess)
        warm.append((time.perf_counter_ns() - start) / 1e6)

    seen = {w for pair in WARM_PAIRS for w in pair}
    in_pairs = new_word_pairs(new_pairs, seen, table=table)
    out_pairs = outside_table_pairs(new_pairs, seen, table)
    off_pairs = new_word_pairs(new_pairs, seen, seed=2, table=table)

    profiler = cProfile.Profile() if profile else None
    cold, judged = _timed_matches(judge, in_pairs, limit_s, profiler)
    if profiler:
        _print_profile(profiler, f"{len(cold)} pairs of new words in the embedding table")
    profiler = cProfile.Profile() if profile else None
    outside, _ = _timed_matches(judge, out_pairs, limit_s, profiler)
    if profiler:
        _print_profile(profiler, f"{len(outside)} pairs of new words outside the table")

    # words judged above, in pairs not judged before: per-word caches full, pair cache empty
    rotated = [(s, g) for (s, _), (_, g) in zip(judged, judged[1:] + judged[:1], strict=True)]
    known, _ = _timed_matches(judge, rotated, limit_s)

    # the same kind of words with the table switched off: every word encoded
    resources.use_embedding_table(None)
    try:
        off, _ = _timed_matches(judge, off_pairs, limit_s)
    finally:
        resources.use_embedding_table(table)
    return {
        "load_s": load_s,
        "preload_s": preload_s,
        "table_s": table_s,
        "table": table,
        "table_top_n": top_n,
        "warm": warm,
        "known": known,
        "cold": cold,
        "outside": outside,
        "off": off,
    }


# ------------------------------------------------------------------------------- cold CLI

#: One-shot commands timed from a fresh process; every word is in the embedding table.
COLD_COMMANDS = (
    ("kiekai judge people humans", ("judge", "people", "humans")),
    ("kiekai repeat stones --used rocks,trees", ("repeat", "stones", "--used", "rocks,trees")),
)


def cold_run(python: str, args: tuple[str, ...]) -> dict:
    """Run ``python -m kiekai ARGS`` once; wall seconds, CPU seconds, peak RSS (MB),
    exit status, stdout's first line and stderr."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # from a neutral folder, so that `-m kiekai` imports the installation of `python`
        # rather than a kiekai folder in the working directory
        process = subprocess.Popen(
            [python, "-m", "kiekai", *args], cwd=tempfile.gettempdir(), stdout=out, stderr=err
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        first = out.read().decode(errors="replace").split("\n", 1)[0]
        stderr = err.read().decode(errors="replace")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "status": process.returncode,
        "first_line": first,
        "stderr": stderr,
    }


def cold_cli(pythons: list[str], runs: int) -> dict:
    """Each of :data:`COLD_COMMANDS` run ``runs`` times by each Python in ``pythons``
    (interleaved, so machine load hits all alike), after one untimed run that lets a
    first run build what it needs (the WordNet index) outside the figures."""
    from kiekai.judge import resources

    table = resources.find_embedding_table()
    words = {w for _, command in COLD_COMMANDS for w in command[1:] if w.isalpha()}
    words |= {"rocks", "trees"}
    missing = sorted(w for w in words if table is None or w not in table)
    results: dict = {"missing": missing, "runs": {}, "load": [os.getloadavg()[0]]}
    for python in pythons:
        for _, command in COLD_COMMANDS:
            cold_run(python, command)  # untimed: page cache, an index built on first use
    for _ in range(runs):
        for python in pythons:
            for label, command in COLD_COMMANDS:
                results["runs"].setdefault((python, label), []).append(cold_run(python, command))
    results["load"].append(os.getloadavg()[0])
    return results


# ------------------------------------------------------------------------------ HTTP bench


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def serve_bare(port: int) -> None:
    """Run the bare comparison app: ``POST /v1/judge`` answers a constant verdict JSON."""
    from fastapi import FastAPI

    app = FastAPI()
    constant = {
        "accepted": True,
        "score": 0.93,
        "relation": "synonym",
        "reason": "constant answer of the bare comparison endpoint",
        "secret": "people",
        "guess": "humans",
        "strictness": "standard",
    }

    @app.post("/v1/judge")
    async def bare() -> dict:
        return constant

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"status": "ok"}

    from kiekai import serving

    # the settings `kiekai serve` runs with (timeouts, header limit, protocol)
    serving.run(app, HOST, port, log_level="warning", access_log=False)


def wait_healthy(url: str, process: subprocess.Popen, timeout_s: float) -> None:
    """Poll ``url``/healthz until it answers 200.

    Raises:
        RuntimeError: the server exited or did not answer within ``timeout_s`` seconds.
    """
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server {url} exited with status {process.returncode}")
        try:
            if httpx.get(url + "/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server {url} did not answer /healthz within {timeout_s:.0f} s")


def stop(process: subprocess.Popen) -> None:
    """Stop a server process: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def _load(
    url: str, bodies: list[bytes], seconds: float, concurrency: int, max_requests: int
) -> dict:
    """Drive ``POST`` requests over ``concurrency`` keep-alive connections for ``seconds``."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host, port, path = parts.hostname, parts.port, parts.path or "/"
    requests = [
        (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        + body
        for body in bodies
    ]
    ok = 0
    errors = 0
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    budget = [max_requests]

    async def worker(index: int) -> None:
        nonlocal ok, errors
        reader, writer = await asyncio.open_connection(host, port)
        i = index
        try:
            while time.perf_counter() < deadline and budget[0] > 0:
                budget[0] -= 1
                start = time.perf_counter()
                writer.write(requests[i % len(requests)])
                i += 1
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - start)
                if status == 200:
                    ok += 1
                else:
                    errors += 1
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    elapsed = time.perf_counter() - started
    return {
        "ok": ok,
        "errors": errors,
        "seconds": elapsed,
        "rps": ok / elapsed,
        "p50_ms": percentile(latencies, 50) * 1e3,
        "p99_ms": percentile(latencies, 99) * 1e3,
    }


def run_load(url: str, seconds: float, concurrency: int, max_requests: int) -> dict:
    """Run the load generator in a separate process; returns its JSON result."""
    command = [
        sys.executable,
        __file__,
        "--load",
        url,
        "--seconds",
        str(seconds),
        "--concurrency",
        str(concurrency),
        "--max-requests",
        str(max_requests),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise RuntimeError(f"load generator failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) used so far by process ``pid``, from
    ``/proc/PID/stat`` (Linux); ``None`` where that file does not exist."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # after the ")" that closes the command name, utime and stime are fields 12 and 13
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def http_bench(seconds: float, rounds: int, concurrency: int, max_requests: int) -> dict:
    """Requests/s of the judge server and the bare server, alternating ``rounds`` times."""
    judge_port, bare_port = free_port(), free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    judge_cmd = [
        sys.executable, "-m", "kiekai", "serve", "--host", HOST, "--port", str(judge_port),
        "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    bare_cmd = [sys.executable, __file__, "--serve-bare", str(bare_port)]
    servers: list[subprocess.Popen] = []
    results: dict[str, list[dict]] = {"judge": [], "bare": []}
    try:
        for command in (judge_cmd, bare_cmd):
            servers.append(subprocess.Popen(command, cwd=REPO, env=env))
        urls = {"judge": f"http://{HOST}:{judge_port}", "bare": f"http://{HOST}:{bare_port}"}
        wait_healthy(urls["judge"], servers[0], timeout_s=180)
        wait_healthy(urls["bare"], servers[1], timeout_s=60)
        for name in ("judge", "bare"):  # warm-up: fill the judge's caches, start the loops
            run_load(urls[name] + "/v1/judge", 1.0, concurrency, max_requests)
        pids = {"judge": servers[0].pid, "bare": servers[1].pid}
        for _ in range(rounds):
            for name in ("judge", "bare"):
                cpu_before = process_cpu_s(pids[name])
                run = run_load(urls[name] + "/v1/judge", seconds, concurrency, max_requests)
                cpu_after = process_cpu_s(pids[name])
                if cpu_before is not None and cpu_after is not None and run["ok"]:
                    run["cpu_ms_per_request"] = (
                        (cpu_after - cpu_before) * 1e3 / (run["ok"] + run["errors"])
                    )
                results[name].append(run)
    finally:
        for server in servers:
            stop(server)
    return results


# ------------------------------------------------------------------------------ fairness


#: Small requests of the fairness scene: common words, pairs not judged before.
FAIR_PAIRS = [("river", "stream"), ("car", "vehicle"), ("house", "home"), ("hill", "mountain"),
              ("cup", "mug"), ("road", "street"), ("shop", "store"), ("baby", "infant")]  # fmt: skip


def _made_up(count: int, seed: int) -> list[str]:
    """``count`` distinct strings of 7-9 random letters (in no table)."""
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < count:
        words.add(
            "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(7, 9)))
        )
    return sorted(words)


def fairness_bench(python: str, large: int, used: int, small: int) -> dict:
    """The scene of issue 11, point 6: ``large`` concurrent ``/v1/repeat`` requests with
    ``used`` made-up used words each, and meanwhile ``small`` plain ``/v1/judge``
    requests (common words, one at a time); against a real ``kiekai serve`` run by
    ``python``. Returns the small requests' latencies and the large ones' durations."""
    import httpx

    port = free_port()
    url = f"http://{HOST}:{port}"
    command = [python, "-m", "kiekai", "serve", "--host", HOST, "--port", str(port),
               "--log-level", "warning", "--no-access-log", "--no-embedding-table"]  # fmt: skip
    server = subprocess.Popen(command, cwd=tempfile.gettempdir())
    try:
        wait_healthy(url, server, timeout_s=900)
        # the sentence model's one-time load is not what is measured
        httpx.post(url + "/v1/judge", json={"secret": "qwertzu", "guess": "asdfgh"}, timeout=300)
        pairs = FAIR_PAIRS[:small]

        async def scene() -> dict:
            async with httpx.AsyncClient(base_url=url, timeout=600.0) as client:
                start = time.perf_counter()

                async def big(seed: int) -> tuple[float, int]:
                    body = {
                        "candidate": _made_up(1, 10_000 + seed)[0],
                        "used": _made_up(used, seed),
                    }
                    response = await client.post("/v1/repeat", json=body)
                    return time.perf_counter() - start, response.status_code

                tasks = [asyncio.create_task(big(seed)) for seed in range(large)]
                await asyncio.sleep(1.0)
                latencies = []
                for secret, guess in pairs:
                    t0 = time.perf_counter()
                    await client.post("/v1/judge", json={"secret": secret, "guess": guess})
                    latencies.append(time.perf_counter() - t0)
                    await asyncio.sleep(0.2)
                done = await asyncio.gather(*tasks)
                return {"small": latencies, "large": [d for d, _ in done],
                        "large_status": sorted({s for _, s in done})}  # fmt: skip

        return asyncio.run(scene())
    finally:
        stop(server)


# ----------------------------------------------------------------------------------- report


def report(
    args: argparse.Namespace,
    latency: dict | None,
    http: dict | None,
    cold: dict | None = None,
    fair: dict | None = None,
) -> str:
    """The Markdown tables of one run."""
    lines = [
        f"Machine: {machine()}.",
        f"Command: `.venv/bin/python scripts/bench_judge.py{''.join(' ' + a for a in args.argv)}`"
        f" (strictness {args.strictness}).",
        "",
    ]
    if latency:
        rows = [
            ("warm (same pairs judged before)", latency["warm"], "p99 < 5 ms", 5.0, 3),
            ("seen words, new pair", latency["known"], "(p99 < 5 ms)", 5.0, 3),
            ("new words in the embedding table (both unseen)", latency["cold"],
             "p99 < 30 ms", 30.0, 2),
            ("new words outside the table (both unseen: rare word + misspelling)",
             latency["outside"], "p99 < 30 ms", 30.0, 2),
            ("new words, table switched off (before the table)", latency["off"],
             "(comparison)", None, 2),
        ]  # fmt: skip
        lines += [
            "| judge latency (`Judge.match`) | calls | p50 ms | p99 ms | aim | met |",
            "| --- | ---: | ---: | ---: | --- | --- |",
        ]
        for label, times, aim, limit, digits in rows:
            p99 = percentile(times, 99)
            met = "-" if limit is None or not times else ("yes" if p99 < limit else "NO")
            lines.append(
                f"| {label} | {len(times)} | {percentile(times, 50):.{digits}f} | "
                f"{p99:.{digits}f} | {aim} | {met} |"
            )
        table = latency["table"]
        if table is None:
            lines += ["", "Embedding table: none (the cache folder cannot be written)."]
        else:
            how = (
                f"built in this run in {table.build_s:.1f} s (encoding only; "
                f"{latency['table_s']:.1f} s with loading the model)"
                if table.built_now
                else f"read from the cache in {latency['table_s']:.2f} s (its build took "
                + (f"{table.build_s:.1f} s" if table.build_s is not None else "an unknown time")
                + " when it was built)"
            )
            lines += [
                "",
                f"Embedding table: {len(table):,} words (the alphabetic, normalised words of "
                f"wordfreq's English top {latency['table_top_n']:,}), float32 "
                f"[{len(table):,}, 384], {table.nbytes / 1e6:.0f} MB; {how}.",
            ]
        lines += [
            "",
            f"Judge start-up after the table (first `Judge(...)` and `warm_up()`: the WordNet "
            f"index, all-MiniLM-L6-v2 and the inflection tables): {latency['load_s']:.1f} s.",
            "",
        ]
    if cold:
        lines += [
            f"| cold command line ({args.cold_runs} fresh processes each; medians) | Python "
            "| wall s | CPU s | peak RSS MB | aim | met |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
        ]
        for (python, label), runs in cold["runs"].items():
            wall = statistics.median(r["wall_s"] for r in runs)
            cpu = statistics.median(r["cpu_s"] for r in runs)
            peak = statistics.median(r["peak_mb"] for r in runs)
            bad = [r for r in runs if r["status"] != 0]
            met = "yes" if wall < 1.0 and peak < 400 and not bad else "NO"
            lines.append(
                f"| `{label}` | `{python}` | {wall:.2f} | {cpu:.2f} | {peak:.0f} "
                f"| < 1 s, < 400 MB | {met}{' (errors)' if bad else ''} |"
            )
        loud = sorted({r["stderr"].strip()[:120] for runs in cold["runs"].values()
                       for r in runs if r["stderr"].strip()})  # fmt: skip
        lines += [
            "",
            f"Load average (1 min) {cold['load'][0]:.1f} before and {cold['load'][1]:.1f} after "
            "the cold runs; wall time grows with it, CPU time much less. Words not in the "
            f"embedding table: {', '.join(cold['missing']) or 'none'}. Lines on stderr: "
            + ("; ".join(repr(line) for line in loud) if loud else "none")
            + ".",
            "",
        ]
    if fair:
        small, large = fair["small"], fair["large"]
        lines += [
            f"Fairness (issue 11, point 6): {args.fair_large} concurrent `/v1/repeat` with "
            f"{args.fair_used} made-up used words each took {min(large):.1f}-{max(large):.1f} s "
            f"(status {fair['large_status']}); meanwhile {len(small)} plain `/v1/judge` "
            f"requests took median {statistics.median(small) * 1e3:.0f} ms, max "
            f"{max(small) * 1e3:.0f} ms (before this change one waited 24 s).",
            "",
        ]
    if http:
        # rounds alternate judge, bare; compare each judge round with the bare round after it
        ratios = sorted(
            j["rps"] / b["rps"] for j, b in zip(http["judge"], http["bare"], strict=True)
        )
        ratio = statistics.median(ratios)
        median = {
            name: sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]
            for name, runs in http.items()
        }
        lines += [
            f"| HTTP `POST /v1/judge` ({args.concurrency} keep-alive connections, "
            f"{args.rounds} rounds of {args.seconds:g} s; median round) | req/s | p50 ms "
            "| p99 ms | server CPU ms / request (median) | errors |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        cpu: dict[str, float] = {}
        for name, label in (("judge", "kiekai judge server"), ("bare", "bare FastAPI constant")):
            run = median[name]
            errors = sum(r["errors"] for r in http[name])
            costs = [r["cpu_ms_per_request"] for r in http[name] if "cpu_ms_per_request" in r]
            cpu[name] = statistics.median(costs) if costs else float("nan")
            lines.append(
                f"| {label} | {run['rps']:.0f} | {run['p50_ms']:.2f} | {run['p99_ms']:.2f} "
                f"| {cpu[name]:.3f} | {errors} |"
            )
        lines += [
            "",
            f"Ratio judge / bare (median of the {len(ratios)} paired rounds): **{ratio:.2f}** "
            f"(aim >= 0.50: {'met' if ratio >= 0.5 else 'NOT met'}). Per round, req/s: judge "
            + ", ".join(f"{r['rps']:.0f}" for r in http["judge"])
            + "; bare "
            + ", ".join(f"{r['rps']:.0f}" for r in http["bare"])
            + "; ratios "
            + ", ".join(f"{r:.2f}" for r in ratios)
            + ".",
            "",
            "Server CPU time per request, which other load on the machine disturbs less than "
            f"wall-clock rates: bare / judge = **{cpu['bare'] / cpu['judge']:.2f}** (the judge "
            "server's rate relative to the bare one if both had a core to themselves).",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the benchmark (or an internal mode); returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strictness", default="standard", help="judge level to time")
    parser.add_argument("--warm-calls", type=int, default=5000)
    parser.add_argument("--new-pairs", type=int, default=400)
    parser.add_argument("--limit-s", type=float, default=60.0, help="time cap per latency loop")
    parser.add_argument("--seconds", type=float, default=4.0, help="HTTP load per round")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-requests", type=int, default=500_000)
    parser.add_argument("--quick", action="store_true", help="smaller counts (~40 s)")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the new-word loop (printed to stderr)"
    )
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument(
        "--rebuild-table", action="store_true", help="build the embedding table anew (timed)"
    )
    parser.add_argument(
        "--table-top-n", type=int, default=None, help="embedding table of wordfreq's top N words"
    )
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh processes per command")
    parser.add_argument(
        "--cold-python",
        action="append",
        default=[],
        metavar="PATH",
        help="also time the cold commands with this Python's kiekai (repeatable)",
    )
    parser.add_argument("--skip-cold", action="store_true")
    parser.add_argument("--skip-fairness", action="store_true")
    parser.add_argument("--fair-large", type=int, default=10, help="large repeats at once")
    parser.add_argument("--fair-used", type=int, default=500, help="used words of each")
    parser.add_argument("--fair-python", default=sys.executable, help="Python serving kiekai")
    parser.add_argument("--serve-bare", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--load", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)

    if args.serve_bare:
        serve_bare(args.serve_bare)
        return 0
    if args.load:
        bodies = [
            json.dumps({"secret": s, "guess": g, "strictness": "standard"}).encode()
            for s, g in WARM_PAIRS
        ]
        result = asyncio.run(
            _load(args.load, bodies, args.seconds, args.concurrency, args.max_requests)
        )
        print(json.dumps(result))
        return 0
    if args.quick:
        args.warm_calls, args.new_pairs, args.seconds, args.rounds = 2000, 100, 3.0, 3

    cold = None
    if not args.skip_cold:
        from kiekai.judge import resources

        resources.load_embedding_table(build=True, report=lambda line: print(line, file=sys.stderr))
        cold = cold_cli([sys.executable, *args.cold_python], args.cold_runs)
    fair = None
    if not args.skip_fairness:
        fair = fairness_bench(args.fair_python, args.fair_large, args.fair_used, 6)
    latency = None
    if not args.skip_latency:
        latency = judge_latency(
            args.strictness,
            args.warm_calls,
            args.new_pairs,
            args.limit_s,
            args.profile,
            args.rebuild_table,
            args.table_top_n,
        )
    http = None
    if not args.skip_http:
        try:
            http = http_bench(args.seconds, args.rounds, args.concurrency, args.max_requests)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(report(args, latency, None, cold, fair))
            print(f"error: HTTP benchmark failed: {exc}", file=sys.stderr)
            return 1
    print(report(args, latency, http, cold, fair))
    return 0


if __name__ == "__main__":
    sys.exit(main())
