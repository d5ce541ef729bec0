"""Measure the Kismet reflex bots' reaction times and the real-time loop's timing error.

Prints, and with ``--write`` puts into ``docs/kismet.md`` (between the ``measure`` markers):

1. per bot level, the reaction-time distribution in seconds:
   * *model*: samples of the ex-Gaussian at the base game's typical load (11 cards to scan,
     3 sums to form, the most valuable of 2 matches sought);
   * *in play*: time from the roll to each bot's cover in bots-only base games on a virtual
     clock (4 bots of that level; this includes re-searching after being beaten to a card);
   median, interquartile range (p25–p75) and standard deviation;
2. the event loop's timing error: for every scheduled action in a real run on the monotonic
   clock, actual minus scheduled time, p50 / p99 / max in milliseconds; once for the bare
   asyncio driver (:func:`kiekai.kismet.table.run_realtime`) and once inside the Textual app
   (headless, drawing after every step), the way a person plays.

Usage::

    .venv/bin/python scripts/measure_kismet.py [--seconds 20] [--samples 20000] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import re
import statistics
from pathlib import Path

from kiekai.clock import MonotonicClock, VirtualClock
from kiekai.kismet.bots import LEVELS, ReactionTimeModel
from kiekai.kismet.table import make_table, run_headless, run_realtime

DOC = Path(__file__).resolve().parents[1] / "docs" / "kismet.md"
START, END = "<!-- measure:start -->", "<!-- measure:end -->"


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs`` by linear interpolation."""
    return statistics.quantiles(xs, n=1000, method="inclusive")[
        max(0, min(998, round(q * 1000) - 1))
    ]


def summary(xs: list[float]) -> str:
    """``median | p25–p75 | sd`` of seconds, as a Markdown row fragment."""
    return (
        f"{statistics.median(xs):.2f} | {quantile(xs, 0.25):.2f}–{quantile(xs, 0.75):.2f} | "
        f"{statistics.pstdev(xs):.2f}"
    )


def model_samples(level: str, n: int) -> list[float]:
    """``n`` reaction times (s) from the level's model at load 11 cards, 3 sums, 2 compared."""
    rng = random.Random(0)
    model = ReactionTimeModel(level)
    return [model.sample(rng, 11, 3, 2) for _ in range(n)]


def in_play_samples(level: str, games: int = 40) -> list[float]:
    """Roll-to-cover times (s) of bots in ``games`` bots-only 4-player base games."""
    out: list[float] = []
    for seed in range(games):
        clock = VirtualClock()
        table = make_table(4, variant=False, seed=seed, clock=clock, level=level)
        run_headless(table, clock)
        rolled = 0.0
        for e in table.game.log.events:
            if e.type == "roll":
                rolled = e.data["t"]
            elif e.type == "cover":
                out.append(e.data["t"] - rolled)
    return out


async def loop_lags(seconds: float) -> list[float]:
    """Timing errors (s) of the bare asyncio driver playing expert bots for ``seconds``."""
    lags: list[float] = []
    end = asyncio.get_running_loop().time() + seconds
    seed = 0
    while asyncio.get_running_loop().time() < end:
        table = make_table(
            4, variant=seed % 2 == 1, seed=seed, clock=MonotonicClock(), level="expert", pause=0.2
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
    """Timing errors (s) inside the Textual app (headless) with expert bots for ``seconds``."""
    from kiekai.ui.kismet_app import KismetApp

    table = make_table(6, variant=False, seed=1, clock=MonotonicClock(), level="expert", pause=0.2)
    app = KismetApp(table, realtime=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await asyncio.sleep(seconds)
        await pilot.press("q")
    return list(table.scheduler.lags)


def lag_row(name: str, lags: list[float]) -> str:
    """A Markdown row: how many actions and p50 / p99 / max timing error in ms."""
    ms = [1000 * x for x in lags]
    return (
        f"| {name} | {len(ms)} | {quantile(ms, 0.50):.2f} | {quantile(ms, 0.99):.2f} | "
        f"{max(ms):.2f} |"
    )


def main() -> None:
    """Run the measurements, print the tables and optionally write them into docs/kismet.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="real time per loop run (s)")
    parser.add_argument("--samples", type=int, default=20000, help="model samples per level")
    parser.add_argument("--write", action="store_true", help="write the tables into docs/kismet.md")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    lines = [
        "Reaction times in seconds: median | interquartile range | standard deviation.",
        "",
        "| level | model median (s) | model p25–p75 (s) | model sd (s) | in-play median (s) | in-play p25–p75 (s) | in-play sd (s) | error rate |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for level in LEVELS:
        m = model_samples(level, args.samples)
        p = in_play_samples(level)
        lines.append(f"| {level} | {summary(m)} | {summary(p)} | {LEVELS[level].error_rate:.2f} |")
        print(lines[-1], flush=True)
    loop = asyncio.run(loop_lags(args.seconds))
    app = asyncio.run(app_lags(args.seconds))
    lines += [
        "",
        "Event-loop timing error (actual − scheduled time of each bot or table action), ms:",
        "",
        "| driver | actions | p50 (ms) | p99 (ms) | max (ms) |",
        "| --- | --- | --- | --- | --- |",
        lag_row("asyncio driver (run_realtime)", loop),
        lag_row("inside the Textual app (headless)", app),
        "",
        f"Measured on {platform.machine()} ({os.cpu_count()} CPUs, load average "
        f"{load_before:.1f} before / {os.getloadavg()[0]:.1f} after; other work on the machine "
        f"shows in the tail) / Python {platform.python_version()} with "
        f"`.venv/bin/python scripts/measure_kismet.py --seconds {args.seconds:g} "
        f"--samples {args.samples}{' --write' if args.write else ''}`.",
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
