"""kiekai.locks.build_lock: one-time builds take turns across processes."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from kiekai.locks import BuildLockTimeout, build_lock


def _build_once(target: str, log: str) -> None:
    """What every one-time build does: take the lock, check, build only when missing."""
    path = Path(target)
    with build_lock(path):
        if path.exists():
            return
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("start\n")
        time.sleep(0.3)  # a build that takes a while: the others must wait, not start
        path.write_text("built", encoding="utf-8")
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("end\n")


def test_processes_starting_together_build_once(tmp_path: Path) -> None:
    target, log = tmp_path / "cache" / "index.sqlite", tmp_path / "log.txt"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_build_once, args=(str(target), str(log))) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    assert target.read_text(encoding="utf-8") == "built"
    assert log.read_text(encoding="utf-8") == "start\nend\n"  # one build, never two at once
    # the folder of the builds holds only what was built: the lock lives in ../.locks
    assert [p.name for p in target.parent.iterdir()] == ["index.sqlite"]


def test_a_held_lock_times_out_with_a_message_naming_the_lock(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "table.npy"
    context = multiprocessing.get_context("spawn")
    holder = context.Process(target=_hold, args=(str(target), 3.0))
    holder.start()
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with pytest.raises(BuildLockTimeout, match=r"\.locks/cache-table\.npy\.lock"):
            with build_lock(target, wait_s=0.2):
                pass
    finally:
        holder.join(timeout=30)


def _hold(target: str, seconds: float) -> None:
    with build_lock(Path(target)):
        (Path(target).parent.parent / "started").write_text("", encoding="utf-8")
        time.sleep(seconds)
