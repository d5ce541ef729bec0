#!/usr/bin/env python
"""Benchmark the rule check of ``kiekai replay``: how long playing a logged game again
through the engine takes (:func:`kiekai.kiek.audit.audit_kiek`,
:func:`kiekai.kismet.audit.audit_kismet`), per log and per event, on the golden logs
(``tests/golden/``) or the logs given.

Each log is read once (:func:`kiekai.events.read_numbered_log`), then checked ``--repeat``
times; the median time is printed in a Markdown table (the figures of the README's
"Replay" part). Reading and printing the log are not timed.

    python scripts/bench_replay.py              # every golden log
    python scripts/bench_replay.py game.jsonl   # your logs
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kiekai.events import read_numbered_log
from kiekai.kiek.audit import audit_kiek
from kiekai.kiek.replay import kismet_log
from kiekai.kismet.audit import audit_kismet

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"


def main() -> None:
    """Parse the options, time the checks, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="*", type=Path, help="logs (default: the golden logs)")
    parser.add_argument("--repeat", type=int, default=11, help="checks per log (median)")
    args = parser.parse_args()
    logs = args.logs or sorted(GOLDEN.glob("*.jsonl"))
    print("| log | events | check (ms) | per event (µs) | contradiction |")
    print("|---|---:|---:|---:|---|")
    for log in logs:
        kismet = kismet_log(log)
        events = list(read_numbered_log(log, game="kismet" if kismet else "kiek"))
        audit = audit_kismet if kismet else audit_kiek
        times, found = [], None
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            found = audit(events)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"| {log.name} | {len(events)} | {median * 1e3:.1f} | "
            f"{median / max(1, len(events)) * 1e6:.0f} | {found or '-'} |"
        )


if __name__ == "__main__":
    main()
