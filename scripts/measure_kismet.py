"""Measure the Kismet reflex bots' reaction times and the real-time loop's timing error.

Prints, and with ``--write`` puts into ``docs/kismet.md`` (between the ``measure`` markers):

1. per bot level, from bots-only games on a virtual clock (40 base games and 40 variant
   matches of 2 rounds, 4 bots of that level): the roll-to-cover time of every cover
   (median and fastest 1 %), the wrong-cover share (wrong reveals / all reveals), the
   knock reaction time (median, fastest 1 %), and the model's median at the base game's
   typical load (11 cards, 3 sums, the most valuable of 2 matches sought);
2. per kind of bot action, its floor (``kiekai.kismet.bots.FLOORS``), the fastest reaction
   seen over all levels and how many came faster than the floor (must be 0), and the fastest
   knock after a roller's lay measured from the log alone;
3. the event loop's timing error: for every scheduled action in a real run on the monotonic
   clock, actual minus scheduled time, p50 / p99 / max in milliseconds; once for the bare
   asyncio driver (:func:`kiekai.kismet.drivers.run_realtime`) and once inside the Textual
   app (headless, started by a key as a person starts it), with the machine's load average
   before and after, the process's nice value and the CPUs it may run on.

On a shared machine other programs' work shows in the tail. ``--isolate CPU`` adds a run
with the measuring thread alone on that CPU at real-time priority (``SCHED_FIFO``; needs
root or CAP_SYS_NICE), ahead of every ordinary process: what a quiet machine would show.
Each row says how it ran and the load average around it.

Usage::

    .venv/bin/python scripts/measure_kismet.py [--seconds 20] [--samples 20000]
        [--only bots|timing] [--isolate CPU] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import re
import statistics
from collections import defaultdict
from pathlib import Path

from kiekai.clock import MonotonicClock, VirtualClock
from kiekai.kismet.bots import FLOORS, LEVELS, ReactionTimeModel
from kiekai.kismet.drivers import run_headless, run_realtime
from kiekai.kismet.table import Reaction, make_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "kismet.md"
START, END = "<!-- measure:start -->", "<!-- measure:end -->"


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs`` by linear interpolation."""
    return statistics.quantiles(xs, n=1000, method="inclusive")[
        max(0, min(998, round(q * 1000) - 1))
    ]


def model_median(level: str, n: int) -> float:
    """Median of ``n`` reaction times (s) from the level's model at 11 cards, 3 sums, 2
    compared."""
    rng = random.Random(0)
    model = ReactionTimeModel(level)
    return statistics.median(model.sample(rng, 11, 3, 2) for _ in range(n))


def play_level(level: str, games: int = 40) -> dict[str, object]:
    """Bots-only base games and variant matches of one level on a virtual clock.

    Returns:
        ``covers`` (roll-to-cover seconds), ``wrong`` and ``reveals`` (counts),
        ``knocks`` (knock reaction seconds), ``reactions`` (every
        :class:`~kiekai.kismet.table.Reaction`) and ``after_lay`` (seconds from each
        roller's lay to the next knock, from the log).
    """
    covers: list[float] = []
    knocks: list[float] = []
    after_lay: list[float] = []
    reactions: list[Reaction] = []
    wrong = reveals = wrong_knocks = all_knocks = 0
    for seed in range(games):
        clock = VirtualClock()
        table = make_table(4, variant=False, seed=seed, clock=clock, level=level)
        run_headless(table, clock)
        reactions += table.reactions
        rolled = 0.0
        for e in table.game.log.events:
            if e.type == "roll":
                rolled = e.data["t"]
            elif e.type == "cover":
                covers.append(e.data["t"] - rolled)
            elif e.type == "reveal":
                reveals += 1
                wrong += not e.data["correct"]
        clock = VirtualClock()
        table = make_table(4, variant=True, seed=seed, clock=clock, level=level, rounds=2)
        run_headless(table, clock)
        reactions += table.reactions
        knocks += [r.seconds for r in table.reactions if r.kind == "knock"]
        lay_at = None
        for e in table.game.log.events:
            if e.type == "knock":
                all_knocks += 1
                wrong_knocks += not e.data["valid"]
            if e.type in ("roll", "pass"):
                lay_at = None
            elif e.type == "lay":
                lay_at = e.data["t"]
            elif e.type == "knock" and lay_at is not None:
                after_lay.append(e.data["t"] - lay_at)
    return {
        "covers": covers,
        "knocks": knocks,
        "wrong": wrong,
        "reveals": reveals,
        "wrong_knocks": wrong_knocks,
        "all_knocks": all_knocks,
        "reactions": reactions,
        "after_lay": after_lay,
    }


def bot_tables(samples: int) -> list[str]:
    """Markdown tables of the bot measurements (section 1 and 2 of the module docstring)."""
    lines = [
        "Bots-only games on a virtual clock, 4 bots of one level: 40 base games (covers) and "
        "40 variant matches of 2 rounds (knocks). Seconds from the roll (cover) or from what "
        "the bot reacted to (knock).",
        "",
        "| level | cover median (s) | cover fastest 1 % (s) | wrong-cover share | knock median "
        "(s) | knock fastest 1 % (s) | wrong-knock share | model median (s) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    fastest: dict[str, float] = {}
    counts: dict[str, int] = defaultdict(int)
    below: dict[str, int] = defaultdict(int)
    after_lay: list[float] = []
    for level in LEVELS:
        r = play_level(level)
        covers, knocks = r["covers"], r["knocks"]
        share = r["wrong"] / r["reveals"]
        lines.append(
            f"| {level} | {statistics.median(covers):.2f} | {quantile(covers, 0.01):.2f} | "
            f"{share:.1%} ({r['wrong']} of {r['reveals']}) | {statistics.median(knocks):.2f} | "
            f"{quantile(knocks, 0.01):.2f} | {r['wrong_knocks'] / r['all_knocks']:.1%} | "
            f"{model_median(level, samples):.2f} |"
        )
        print(lines[-1], flush=True)
        for reaction in r["reactions"]:
            k = reaction.kind
            counts[k] += 1
            fastest[k] = min(fastest.get(k, float("inf")), reaction.seconds)
            below[k] += reaction.seconds < reaction.floor - 1e-9
        after_lay += r["after_lay"]
    lines += [
        "",
        "Every bot action of those games against its floor (fastest reaction seen, all levels):",
        "",
        "| action | floor (s) | actions | fastest (s) | faster than the floor |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind, floor in FLOORS.items():
        lines.append(
            f"| {kind} | {floor:.2f} | {counts[kind]} | {fastest.get(kind, float('nan')):.2f} | "
            f"{below[kind]} |"
        )
    lines += [
        "",
        f"Knocks after a roller's lay (from the logs): {len(after_lay)}, the fastest "
        f"{min(after_lay):.2f} s after the lay; "
        f"{sum(x < FLOORS['knock'] for x in after_lay)} under the {FLOORS['knock']:.2f} s floor.",
    ]
    return lines


async def loop_lags(seconds: float) -> list[float]:
    """Timing errors (s) of the bare asyncio driver playing 8 expert bots (base games and
    variant matches in turn) for ``seconds``."""
    lags: list[float] = []
    end = asyncio.get_running_loop().time() + seconds
    seed = 0
    while asyncio.get_running_loop().time() < end:
        table = make_table(
            8,
            variant=seed % 2 == 1,
            seed=seed,
            clock=MonotonicClock(),
            level="expert",
            between_rounds=0.2,
        )
        try:
            await asyncio.wait_for(
                run_realtime(table, asyncio.Event()), end - asyncio.get_running_loop().time()
            )
        except TimeoutError:
            pass
        lags.extend(table.scheduler.lags)
        seed += 1
    return lags


async def app_lags(seconds: float) -> list[float]:
    """Timing errors (s) inside the Textual app (headless, 100x40) with 7 expert bots and a
    human seat that does not play, for ``seconds`` after the start countdown."""
    from kiekai.ui.kismet_app import COUNTDOWN_S, KismetApp

    table = make_table(
        8, variant=False, seed=1, clock=MonotonicClock(), level="expert", between_rounds=0.2,
        humans=1,
    )  # fmt: skip
    app = KismetApp(table, realtime=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")  # any key starts, as a person starts a game
        await asyncio.sleep(COUNTDOWN_S + seconds)
        await pilot.press("q")
    return list(table.scheduler.lags)


def lag_row(name: str, lags: list[float]) -> str:
    """A Markdown row: how many actions and p50 / p99 / max timing error in ms."""
    ms = [1000 * x for x in lags]
    return (
        f"| {name} | {len(ms)} | {quantile(ms, 0.50):.2f} | {quantile(ms, 0.99):.2f} | "
        f"{max(ms):.2f} |"
    )


def timing_rows(seconds: float, label: str) -> list[str]:
    """Rows of the timing-error table for both drivers, labelled with the load average
    (1 min) before / after and how the process was scheduled."""
    load = os.getloadavg()[0]
    loop = asyncio.run(loop_lags(seconds))
    app = asyncio.run(app_lags(seconds))
    how = f"{label}, load {load:.1f} / {os.getloadavg()[0]:.1f}"
    return [
        lag_row(f"asyncio driver (run_realtime); {how}", loop),
        lag_row(f"inside the Textual app (headless); {how}", app),
    ]


def isolated(cpu: int) -> dict[str, object]:
    """Run this thread alone on ``cpu`` at real-time priority (``SCHED_FIFO`` 10), ahead of
    every ordinary process, as on a quiet machine; returns what to restore.

    Raises:
        SystemExit: the system refuses (needs root or CAP_SYS_NICE; Linux only).
    """
    try:
        before = {"cpus": os.sched_getaffinity(0), "policy": os.sched_getscheduler(0)}
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (AttributeError, OSError) as exc:
        raise SystemExit(
            f"--isolate {cpu}: cannot run on CPU {cpu} with SCHED_FIFO ({exc}); it needs "
            "Linux and root or CAP_SYS_NICE, and a CPU number from 0 to "
            f"{(os.cpu_count() or 1) - 1}"
        ) from exc
    return before


def timing_tables(seconds: float, isolate: int | None) -> list[str]:
    """The event-loop timing-error table (section 3 of the module docstring); with
    ``isolate`` a second run on that CPU at real-time priority."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    rows = timing_rows(seconds, f"nice {os.nice(0)}, CPUs {cpus}")
    if isolate is not None:
        before = isolated(isolate)
        try:
            rows += timing_rows(seconds, f"isolated: SCHED_FIFO 10 on CPU {isolate}")
        finally:
            os.sched_setscheduler(0, before["policy"], os.sched_param(0))
            os.sched_setaffinity(0, before["cpus"])
    return [
        "Event-loop timing error (actual − scheduled time of each bot or table action), ms; "
        f"{seconds:g} s of play per row, load average (1 min) before / after on "
        f"{os.cpu_count()} CPUs:",
        "",
        "| driver; how it ran | actions | p50 (ms) | p99 (ms) | max (ms) |",
        "| --- | --- | --- | --- | --- |",
        *rows,
    ]


def main() -> None:
    """Run the measurements, print the tables and optionally write them into docs/kismet.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="real time per loop run (s)")
    parser.add_argument("--samples", type=int, default=20000, help="model samples per level")
    parser.add_argument("--only", choices=["bots", "timing"], help="run one part only")
    parser.add_argument(
        "--isolate",
        type=int,
        metavar="CPU",
        help="also measure the timing alone on this CPU at real-time priority (root)",
    )
    parser.add_argument("--write", action="store_true", help="write the tables into docs/kismet.md")
    args = parser.parse_args()
    if args.write and args.only:
        parser.error("--write needs both parts (leave out --only)")

    lines: list[str] = []
    if args.only != "timing":
        lines += bot_tables(args.samples)
    if args.only != "bots":
        lines += ([""] if lines else []) + timing_tables(args.seconds, args.isolate)
    lines += [
        "",
        f"Measured on {platform.machine()} / Python {platform.python_version()} with "
        f"`.venv/bin/python scripts/measure_kismet.py --seconds {args.seconds:g} "
        f"--samples {args.samples}"
        f"{f' --isolate {args.isolate}' if args.isolate is not None else ''}"
        f"{' --write' if args.write else ''}`.",
    ]
    table = "\n".join(lines)
    print(table)
    if args.write:
        text = DOC.read_text(encoding="utf-8")
        if START not in text or END not in text:
            raise SystemExit(
                f"{DOC} lacks the markers {START} / {END}; add them where the table goes"
            )
        new = re.sub(
            re.escape(START) + ".*?" + re.escape(END),
            lambda _: f"{START}\n{table}\n{END}",
            text,
            flags=re.S,
        )
        DOC.write_text(new, encoding="utf-8")
        print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
