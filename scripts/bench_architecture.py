#!/usr/bin/env python3
"""Compare the architecture step's speed with the commit before it, in the same run.

    python scripts/bench_architecture.py [--ref 7d931ee] [--repeats 5] [--kismet-rounds 300]
        [--only verdict kiek-labels kiek-pixels kiek-labels-later kiek-pixels-later kismet]

Checks ``--ref`` out in a temporary ``git worktree`` and times, in new processes with
``PYTHONPATH`` set to each tree, interleaved (reference, current, reference, current, ...)
after compiling both trees' bytecode and one untimed warm-up run of each command
(``--no-warmup``: none): a cold ``kiekai judge`` verdict; a bot-only Kiek game
(3 bots, seed 1, three rounds) on the golden logs' 30-photo dev deck with labels and with pixels
only, each on a cold perception cache, timing the perception's ``prepare`` and ``scores``
and every bot decision (their median, and all of them added up; :mod:`kiekai.eval.bench_probe`);
the same two games played six times in one process (``-later``: the bots' thinking in
games 2-6, once every model is loaded); a headless Kismet variant game.
After each repeat prints a Markdown table of the medians so far: figure, reference,
current, current / reference, whether that is within 5 %, and the ratio of the fastest runs
(the steadiest on a shared machine: other work only ever slows a run). Only the command line and the player and perception protocols
are used, so the two trees may lay out their modules differently. The logic lives in
:mod:`kiekai.eval.benchmark`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kiekai.eval import benchmark as bench  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="7d931ee", help="reference commit (default 7d931ee)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per tree and command")
    parser.add_argument("--kismet-rounds", type=int, default=300, help="rounds of the Kismet game")
    parser.add_argument(
        "--no-warmup", action="store_true", help="skip the untimed first run of each command"
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter for both trees")
    parser.add_argument("--quiet", action="store_true", help="print the table only")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=[c.key for c in bench.default_commands()],
        help="run only these commands (and print only their figures)",
    )
    args = parser.parse_args(argv)
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip() or "HEAD"  # fmt: skip
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    current = f"{head}{' + changes' if dirty else ''}"
    echo = (lambda _line: None) if args.quiet else (lambda line: print(line, file=sys.stderr))

    def table(done: int, results: dict[str, list[list[bench.RunResult]]]) -> None:
        print(f"## after {done} of {args.repeats} repeat(s)\n")
        figures = [f for f in bench.default_figures() if f.command in results]
        print(bench.ratio_table(bench.compare(figures, results), args.ref, current))
        print(
            f"\nmedians of {done} interleaved run(s) per tree; {os.cpu_count()} CPUs, "
            f"load average (1 min) {os.getloadavg()[0]:.2f} now\n",
            flush=True,
        )

    with bench.reference_worktree(args.ref, REPO) as tree, tempfile.TemporaryDirectory() as tmp:
        workdir = bench.prepare_workdir(Path(tmp))
        bench.compare_trees(
            [tree, REPO],
            [
                c
                for c in bench.default_commands(args.kismet_rounds)
                if c.key in (args.only or [c.key])
            ],
            workdir,
            repeats=args.repeats,
            warmup=not args.no_warmup,
            python=args.python,
            echo=echo,
            after_repeat=table,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
