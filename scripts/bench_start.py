#!/usr/bin/env python3
"""How fast kiekai starts and sees (issue 22), beside a reference checkout, in one run.

    python scripts/bench_start.py [--ref /tmp/ref-main] [--photos 400] [--repeats 1]
                                  [--no-perception]

Make the reference once with ``git -C /work/main worktree add --detach /tmp/ref-main main``
(any checkout of kiekai will do; ``--ref ''`` measures this tree alone). Each figure runs
this tree and the reference in new processes, interleaved, ``--repeats`` times (medians):

1. ``kiekai --help`` (target < 0.3 s);
2. a cold ``kiekai judge dog puppy`` verdict (a new process; no slower than the reference);
3. ``kiekai play`` on the embedded default deck up to its first prompt, caches warm
   (target < 3 s): the time from starting the process to the prompt ``Which 2 cards of
   your hand`` on its output (it then gets end of input and stops);
4. the same on ``--photos`` unlabelled photos never seen before: the first photos of
   ``../shared/decks/imagenet-dev`` re-encoded as JPEG with a comment unique to the run
   and the tree, so no photo cache entry matches (target < 15 s and <= 0.25x the
   reference); the WordNet index and embedding table are the user cache's;
5. unless ``--no-perception``: ``scripts/bench_perception.py`` of each tree on the same
   photos (the first perception pass against the summed raw speeds of its models, the
   classifier's batched forward and the colour features on ready pixels, target >= 0.8x;
   each model's own ratio too; ``scores()`` of the classifier+colour perception, first call after the pass,
   target < 1 s for 400 x 1,006; the disk cache's second run, target >= 100x).

Timings depend on the machine and its load; the ratios of one run are what to compare.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kiekai.paths import shared_dir  # noqa: E402

DEV_DECK = shared_dir() / "decks" / "imagenet-dev"
PROMPT = b"Which 2 cards of your hand"
PYTHON = sys.executable


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "KIEKAI_OFFLINE": "1", "COLUMNS": "120"}


def _wall(tree: Path, args: list[str], timeout: float = 300) -> float:
    """Seconds a ``python -m kiekai ARGS`` process of ``tree`` runs (any exit status)."""
    start = time.perf_counter()
    subprocess.run(
        [PYTHON, "-m", "kiekai", *args], cwd=tree, env=_env(tree), capture_output=True,
        timeout=timeout, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - start


def first_prompt(tree: Path, args: list[str], timeout: float = 900) -> float:
    """Seconds from starting ``kiekai play ARGS`` (of ``tree``) to its first prompt.

    Raises:
        RuntimeError: the process ended, or ``timeout`` passed, before the prompt (the
            tail of its output in the message).
    """
    with tempfile.TemporaryDirectory(prefix="kiekai-start-") as tmp:
        line = [PYTHON, "-m", "kiekai", "play", "--seed", "1", "--log", f"{tmp}/g.jsonl", *args]
        start = time.perf_counter()
        process = subprocess.Popen(
            line, cwd=tree, env=_env(tree), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        assert process.stdout is not None
        seen = b""
        try:
            while time.perf_counter() - start < timeout:
                ready, _, _ = select.select([process.stdout], [], [], 1.0)
                if not ready:
                    continue
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    break
                seen += chunk
                if PROMPT in seen:
                    return time.perf_counter() - start
            raise RuntimeError(f"no first prompt from {' '.join(line)}:\n{seen[-1500:]!r}")
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def fresh_deck(target: Path, count: int, tag: str) -> Path:
    """``count`` photos of the dev deck re-encoded as JPEG (quality 95) with the comment
    ``tag``, so that their content hashes are new; no labels.csv."""
    from PIL import Image

    target.mkdir(parents=True)
    sources = sorted(p for p in (DEV_DECK / "photos").iterdir() if p.is_file())[:count]
    for source in sources:
        with Image.open(source) as image:
            buffer = io.BytesIO()
            image.convert("RGB").save(buffer, "JPEG", quality=95, comment=tag.encode())
        (target / f"{source.stem}.jpg").write_bytes(buffer.getvalue())
    return target


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def perception_figures(tree: Path, photos: int) -> dict[str, str]:
    """The figures of ``scripts/bench_perception.py`` of ``tree`` (its own photos copy and
    empty cache), as printed: pass/raw ratio, scores() first call, cache speed-up."""
    done = subprocess.run(
        [PYTHON, str(tree / "scripts" / "bench_perception.py"), "--photos", str(photos)],
        cwd=tree, env=_env(tree), capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    text = done.stdout
    found: dict[str, str] = {}
    patterns = {
        "classifier pass / its raw forward": r"first-pass classifier rate / raw forward rate: ([\d.]+)",
        "colour pass / its raw features": r"first-pass colour rate / colour features on ready pixels: ([\d.]+)",
        "whole pass / summed raw (target >= 0.8)": r"first pass, both / summed raw [^:]*: ([\d.]+)",
        "first pass, both (photos/s)": r"\| first pass, both \| [^|]+\| ([\d.]+) \|",
        "raw forward (photos/s)": r"raw batched forward[^|]*\| - \| ([\d.]+) \|",
        "scores() first / again": r"\| scores\([^|]*\), first call / again \| ([^|]+) \|",
        "cache second run speed-up": r"second run is (\d+)x faster",
        "classifier top-1 / top-5": r"top-1 ([\d.]+ %), top-5 ([\d.]+ %)",
    }
    for name, pattern in patterns.items():
        match = re.search(pattern, text)
        if match:
            found[name] = " / ".join(match.groups()).strip()
    if done.returncode != 0:
        found["error"] = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "?"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="/tmp/ref-main", help="reference checkout ('' = none)")
    parser.add_argument("--photos", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-perception", action="store_true")
    args = parser.parse_args(argv)
    trees = {"this tree": REPO}
    if args.ref:
        ref = Path(args.ref)
        if not (ref / "kiekai" / "cli.py").is_file():
            print(f"error: no kiekai checkout at {ref}; make one with `git -C {REPO} worktree "
                  f"add --detach {ref} main` or pass --ref ''", file=sys.stderr)  # fmt: skip
            return 2
        trees["reference"] = ref
    load = os.getloadavg()[0]
    print(f"# Start-up benchmark ({os.cpu_count()} CPUs, load average {load:.1f} at start)")
    for name, tree in trees.items():
        head = subprocess.run(
            ["git", "-C", str(tree), "log", "-1", "--format=%h %s"],
            capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        print(f"{name}: {tree} ({head[:70]})")
    rows: list[tuple[str, dict[str, float], str]] = []

    def measure(label: str, target: str, run) -> None:
        values: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.repeats):
            for name, tree in trees.items():
                values[name].append(run(name, tree))
        medians = {name: _median(v) for name, v in values.items()}
        rows.append((label, medians, target))
        shown = ", ".join(f"{n} {m:.2f} s" for n, m in medians.items())
        print(f"  {label}: {shown}", flush=True)

    measure("kiekai --help", "< 0.3 s", lambda n, t: _wall(t, ["--help"]))
    measure(
        "cold `kiekai judge dog puppy`", "no slower than the reference",
        lambda n, t: _wall(t, ["judge", "dog", "puppy"]),
    )  # fmt: skip
    for tree in trees.values():  # warm every cache the default deck uses
        first_prompt(tree, [])
    measure("first prompt, default deck, caches warm", "< 3 s", lambda n, t: first_prompt(t, []))
    with tempfile.TemporaryDirectory(prefix="kiekai-fresh-") as tmp:

        def fresh(name: str, tree: Path) -> float:
            tag = f"kiekai bench {uuid.uuid4()}"
            deck = fresh_deck(Path(tmp) / uuid.uuid4().hex, args.photos, tag)
            return first_prompt(tree, ["--deck", str(deck)])

        measure(
            f"first prompt, {args.photos} unlabelled photos never seen", "< 15 s, <= 0.25x", fresh
        )
    print()
    names = list(trees)
    print(
        "| figure | " + " | ".join(names) + (" | ratio |" if len(names) > 1 else " |") + " target |"
    )
    print("| --- " * (len(names) + (3 if len(names) > 1 else 2)) + "|")
    for label, medians, target in rows:
        cells = [f"{medians[n]:.2f} s" for n in names]
        if len(names) > 1:
            cells.append(f"{medians[names[0]] / medians[names[1]]:.2f}x")
        print(f"| {label} | " + " | ".join(cells) + f" | {target} |")
    if not args.no_perception:
        print()
        found = {name: perception_figures(tree, args.photos) for name, tree in trees.items()}
        keys = list(dict.fromkeys(k for f in found.values() for k in f))
        print("| perception (scripts/bench_perception.py) | " + " | ".join(names) + " |")
        print("| --- " * (len(names) + 1) + "|")
        for key in keys:
            print(f"| {key} | " + " | ".join(found[n].get(key, "-") for n in names) + " |")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
