#!/usr/bin/env python
"""Benchmark memory: ``kiekai serve`` at rest and after a fixed load, ``kiekai judge
--batch`` at two file sizes, and optionally ``kiekai play`` on a 400-photo deck.

Prints Markdown tables (the "Memory" part of ``docs/judge.md``, "Speed").

1. **Server**: ``python -m kiekai serve`` on a free port of 127.0.0.1, polled on
   ``/healthz``. Resident memory (``VmRSS`` from ``/proc/PID/status``, and the peak
   ``VmHWM``) is read at rest (1 s after ``/healthz`` first answers), after a fixed load of
   words in the judge's tables (``--requests`` ``POST /v1/judge`` with distinct pairs of
   common words, a tenth as many ``/v1/repeat`` with 20 used words, and batches of 100
   pairs; fixed seed), then after 100 requests with made-up words (outside every table,
   so the sentence model loads).
2. **Batch**: TSV files of ``--batch-rows`` rows (pairs of ``--vocabulary`` common words
   of the embedding table, fixed seed) judged by ``kiekai judge --batch FILE`` in a fresh
   process each; peak resident memory from ``wait4`` (``ru_maxrss``) and wall time.
   Memory that stays the same while the rows grow is what streaming means.
3. **Play** (``--play-deck DIR``): ``kiekai play --bots 3 --humans 0`` with labels
   perception on a deck of the first 400 photos of ``DIR`` (its ``labels.csv`` rows),
   peak resident memory.

``--python PATH`` runs another installation's kiekai (e.g. ``/work/main/.venv/bin/python``
for figures before a change) with this script's load.

The judge's tables (WordNet index, embedding table) must be in kiekai's cache; they are
built first when missing (the embedding table takes minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import platform
import random
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of process ``pid`` in MB, from ``/proc/PID/status`` (Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def run_peak(command: list[str], stdout=subprocess.DEVNULL, env=None) -> tuple[int, float, float]:
    """Run ``command``; returns (exit status, wall seconds, peak resident MB from
    ``wait4``'s ``ru_maxrss``, which Linux gives in KB)."""
    start = time.perf_counter()
    # from a neutral folder: `-m kiekai` then imports the installation of the Python given
    process = subprocess.Popen(
        command, cwd=tempfile.gettempdir(), stdout=stdout, stderr=subprocess.PIPE, env=env
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.stderr.write(process.stderr.read().decode(errors="replace")[-2000:])
    process.stderr.close()
    return process.returncode, wall, usage.ru_maxrss / 1024


def table_words(vocabulary: int, seed: int = 0) -> list[str]:
    """``vocabulary`` words of the embedding table, wordfreq ranks 1,000-30,000, shuffled."""
    from wordfreq import top_n_list

    from kiekai.judge import resources

    table = resources.find_embedding_table()
    words = [w for w in top_n_list("en", 30_000)[1_000:] if table is None or w in table]
    random.Random(seed).shuffle(words)
    return words[:vocabulary]


def made_up(count: int, seed: int) -> list[str]:
    """``count`` strings of 8 random letters (in no table)."""
    rng = random.Random(seed)
    return ["".join(rng.choice(string.ascii_lowercase) for _ in range(8)) for _ in range(count)]


# ----------------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


async def _load(url: str, words: list[str], requests: int, outside: int) -> dict[str, int]:
    """The fixed load: distinct pairs of tabled words, repeats, batches; then
    ``outside`` requests with made-up words. Returns counts of answers by status."""
    import httpx

    rng = random.Random(1)
    counts: dict[str, int] = {}

    def count(response) -> None:
        counts[str(response.status_code)] = counts.get(str(response.status_code), 0) + 1

    async with httpx.AsyncClient(base_url=url, timeout=300.0) as client:
        sem = asyncio.Semaphore(8)

        async def post(path: str, body: dict) -> None:
            async with sem:
                count(await client.post(path, json=body))

        jobs = [post("/v1/judge", {"secret": rng.choice(words), "guess": rng.choice(words)})
                for _ in range(requests)]  # fmt: skip
        jobs += [post("/v1/repeat", {"candidate": rng.choice(words),
                                     "used": rng.sample(words, 20)})
                 for _ in range(requests // 10)]  # fmt: skip
        jobs += [post("/v1/judge/batch", {"pairs": [{"secret": rng.choice(words),
                                                      "guess": rng.choice(words)}
                                                     for _ in range(100)]})
                 for _ in range(requests // 100)]  # fmt: skip
        await asyncio.gather(*jobs)
        if outside:
            fake = made_up(2 * outside, 7)
            await asyncio.gather(*(post("/v1/judge", {"secret": a, "guess": b})
                                   for a, b in zip(fake[::2], fake[1::2], strict=True)))  # fmt: skip
    return counts


def bench_server(python: str, words: list[str], requests: int) -> dict:
    """RSS of a real server at rest, after tabled-word load, after made-up words."""
    import httpx

    port = free_port()
    url = f"http://{HOST}:{port}"
    log = tempfile.NamedTemporaryFile(prefix="kiekai-serve-", suffix=".log", delete=False)
    command = [python, "-m", "kiekai", "serve", "--port", str(port), "--log-level", "warning",
               "--no-access-log"]  # fmt: skip
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=tempfile.gettempdir(), stdout=log, stderr=subprocess.STDOUT
    )
    out: dict = {}
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited: {Path(log.name).read_text()[-2000:]}")
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() - start > 900:
                raise RuntimeError("server not ready in 900 s")
            time.sleep(0.2)
        out["ready_s"] = time.perf_counter() - start
        time.sleep(1.0)
        out["rest"] = rss_mb(process.pid)
        out["rest_models"] = httpx.get(url + "/healthz").json().get("models", {})
        t0 = time.perf_counter()
        out["load_counts"] = asyncio.run(_load(url, words, requests, 0))
        out["load_s"] = time.perf_counter() - t0
        out["after_load"] = rss_mb(process.pid)
        t0 = time.perf_counter()
        out["outside_counts"] = asyncio.run(_load(url, words, 0, 100))
        out["outside_s"] = time.perf_counter() - t0
        out["after_outside"] = rss_mb(process.pid)
        out["end_models"] = httpx.get(url + "/healthz").json().get("models", {})
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        Path(log.name).unlink(missing_ok=True)
    return out


# ------------------------------------------------------------------------------------ batch


def bench_batch(python: str, words: list[str], rows: list[int], folder: Path) -> list[dict]:
    """Peak RSS and time of ``kiekai judge --batch`` on files of ``rows`` rows."""
    results = []
    for count in rows:
        path = folder / f"pairs-{count}.tsv"
        rng = random.Random(count)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("secret\tguess\n")
            for _ in range(count):
                fh.write(f"{rng.choice(words)}\t{rng.choice(words)}\n")
        status, wall, peak = run_peak([python, "-m", "kiekai", "judge", "--batch", str(path)])
        results.append(
            {
                "rows": count,
                "bytes": path.stat().st_size,
                "status": status,
                "wall_s": wall,
                "peak_mb": peak,
            }  # fmt: skip
        )
    return results


# ------------------------------------------------------------------------------------- play


def bench_play(python: str, deck: Path, photos: int, folder: Path) -> dict:
    """Peak RSS of a bots-only game on a deck of the first ``photos`` photos of ``deck``."""
    with open(deck / "labels.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [row for row in reader][:photos]
        fields = reader.fieldnames or []
    small = folder / f"deck-{photos}"
    for row in rows:
        target = small / row["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to((deck / row["file"]).resolve())
    with open(small / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    command = [python, "-m", "kiekai", "play", "--deck", str(small), "--bots", "3",
               "--humans", "0", "--seed", "1", "--perception", "labels",
               "--log", str(folder / "game.jsonl")]  # fmt: skip
    status, wall, peak = run_peak(command)
    return {"photos": len(rows), "status": status, "wall_s": wall, "peak_mb": peak}


# ----------------------------------------------------------------------------------- report


def report(args, server: dict | None, batch: list[dict] | None, play: dict | None) -> str:
    load = os.getloadavg()
    lines = [
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, load average "
        f"{load[0]:.1f} at the end. Command: `.venv/bin/python scripts/bench_memory.py"
        f"{''.join(' ' + a for a in args.argv)}` (kiekai run by `{args.python}`).",
        "",
    ]
    if server:
        rest, after, outside = server["rest"], server["after_load"], server["after_outside"]
        lines += [
            "| `kiekai serve` | RSS MB | peak RSS MB | sentence model loaded |",
            "| --- | ---: | ---: | --- |",
            f"| at rest ({server['ready_s']:.0f} s after start) | {rest[0]:.0f} | {rest[1]:.0f} "
            f"| {server['rest_models'].get('all-MiniLM-L6-v2')} |",
            f"| after {sum(server['load_counts'].values())} requests on words in the tables "
            f"({server['load_s']:.0f} s; answers {server['load_counts']}) | {after[0]:.0f} | "
            f"{after[1]:.0f} | - |",
            f"| then after 100 requests with made-up words ({server['outside_s']:.0f} s; answers "
            f"{server['outside_counts']}) | {outside[0]:.0f} | {outside[1]:.0f} | "
            f"{server['end_models'].get('all-MiniLM-L6-v2')} |",
            "",
        ]
    if batch:
        lines += [
            f"| `kiekai judge --batch` (pairs of {args.vocabulary} common words) | file | "
            "wall s | peak RSS MB |",
            "| --- | ---: | ---: | ---: |",
        ]
        for row in batch:
            state = "" if row["status"] == 0 else f" (exit {row['status']})"
            lines.append(
                f"| {row['rows']:,} rows{state} | {row['bytes'] / 1e6:.1f} MB | "
                f"{row['wall_s']:.0f} | {row['peak_mb']:.0f} |"
            )
        lines.append("")
    if play:
        lines += [
            f"`kiekai play --bots 3 --humans 0 --perception labels` on {play['photos']} photos: "
            f"peak RSS {play['peak_mb']:.0f} MB, {play['wall_s']:.0f} s (exit {play['status']}).",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="Python that runs kiekai")
    parser.add_argument("--requests", type=int, default=3000, help="/v1/judge requests")
    parser.add_argument("--batch-rows", default="40000,160000", help="rows of the batch files")
    parser.add_argument("--vocabulary", type=int, default=2000, help="words of the batch files")
    parser.add_argument("--play-deck", type=Path, help="deck folder with labels.csv (400 used)")
    parser.add_argument("--play-photos", type=int, default=400)
    parser.add_argument("--skip-serve", action="store_true")
    parser.add_argument("--skip-batch", action="store_true")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)

    from kiekai.judge import resources, wordnet_index

    report_line = lambda line: print(line, file=sys.stderr)  # noqa: E731
    wordnet_index.open_index(build=True, report=report_line)
    resources.load_embedding_table(build=True, report=report_line)
    words = table_words(max(args.vocabulary, 2000))

    folder = Path(tempfile.mkdtemp(prefix="kiekai-bench-memory-"))
    try:
        server = None if args.skip_serve else bench_server(args.python, words, args.requests)
        batch = None
        if not args.skip_batch:
            rows = [int(r) for r in args.batch_rows.split(",") if r.strip()]
            batch = bench_batch(args.python, words[: args.vocabulary], rows, folder)
        play = None
        if args.play_deck:
            play = bench_play(args.python, args.play_deck, args.play_photos, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(report(args, server, batch, play))
    return 0


if __name__ == "__main__":
    sys.exit(main())
