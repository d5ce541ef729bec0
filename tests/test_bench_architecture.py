"""Tests of the two-tree benchmark (kiekai/eval/benchmark.py, kiekai/eval/bench_probe.py,
scripts/bench_architecture.py): the probe times only the outermost protocol calls, the cold
cache leaves the perceptions' feature caches behind, the table's ratios and verdicts, and a
real run of the command line against this tree through the probe.
"""

from __future__ import annotations

import json
import math
import sys
import types
from pathlib import Path

import pytest

from kiekai.eval import bench_probe
from kiekai.eval import benchmark as bench

REPO = Path(__file__).resolve().parents[1]


def _module_with_classes() -> types.ModuleType:
    module = types.ModuleType("kiekai.fake_players")

    class LoudBot:
        def play_turn(self, view: object) -> object:
            return self.guess(view)

        def guess(self, view: object) -> str:
            return "word"

        def keep_card(self, view: object) -> str:
            return "card"

    class Inner:
        def prepare(self, cards: list[int]) -> list[int]:
            return []

        def scores(self, cards: list[int], words: list[str]) -> int:
            return len(cards) * len(words)

    class Outer(Inner):
        def __init__(self) -> None:
            self.part = Inner()

        def prepare(self, cards: list[int]) -> list[int]:
            self.part.prepare(cards)
            return self.part.prepare(cards)

    class Helper:  # neither a bot nor a perception: left alone
        def guess(self) -> str:
            return "x"

    for cls in (LoudBot, Inner, Outer, Helper):
        cls.__module__ = module.__name__
        setattr(module, cls.__name__, cls)
    return module


def test_probe_times_outermost_protocol_calls_only() -> None:
    recorder = bench_probe.Recorder()
    module = _module_with_classes()
    recorder.instrument(module)
    recorder.instrument(module)  # a second pass does not wrap twice
    bot = module.LoudBot()
    bot.play_turn(None)
    bot.guess(None)
    outer = module.Outer()
    outer.prepare([1, 2])
    assert outer.scores([1, 2], ["a"]) == 2
    assert module.Helper().guess() == "x"
    assert len(recorder.decisions["play_turn"]) == 1
    # the guess inside play_turn is its own kind, so it counts once; the direct one again
    assert len(recorder.decisions["guess"]) == 2
    assert recorder.decisions["keep_card"] == []
    # Outer.prepare calls Inner.prepare twice: one outermost call
    assert len(recorder.perception["prepare"]) == 1
    assert len(recorder.perception["scores"]) == 1
    assert all(s >= 0 for s in recorder.perception["prepare"])
    assert len(recorder.cpu["perception"]["prepare"]) == 1
    assert len(recorder.cpu["decisions"]["guess"]) == 2


def test_probe_counts_the_imports_inside_a_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision that imports a module not imported before has that import's seconds in
    ``imports``; one that imports nothing new, and an import in another thread, add 0; the
    interpreter's loader is put back after the block."""
    import importlib._bootstrap as bootstrap
    import threading

    for name in ("slow_a", "slow_b"):
        (tmp_path / f"{name}.py").write_text("import time\ntime.sleep(0.05)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = types.ModuleType("kiekai.fake_importing")

    class ImportingBot:
        def guess(self, view: object) -> str:
            __import__("slow_a")
            return "word"

        def keep_card(self, view: object) -> str:
            thread = threading.Thread(target=__import__, args=("slow_b",))
            thread.start()
            thread.join()
            return "card"

    ImportingBot.__module__ = module.__name__
    module.ImportingBot = ImportingBot  # type: ignore[attr-defined]
    recorder = bench_probe.Recorder()
    recorder.instrument(module)
    loader = vars(bootstrap)["_find_and_load"]
    with recorder.counting_imports():
        assert vars(bootstrap)["_find_and_load"] is not loader
        bot = ImportingBot()
        bot.guess(None)
        bot.guess(None)  # imported already: nothing to count
        bot.keep_card(None)
    assert vars(bootstrap)["_find_and_load"] is loader
    first, again = recorder.imports["decisions"]["guess"]
    assert 0.05 <= first <= recorder.decisions["guess"][0]
    assert again == 0.0
    assert recorder.imports["decisions"]["keep_card"] == [0.0]
    assert recorder.decisions["keep_card"][0] >= 0.05  # the wait is the decision's own time
    assert len(recorder.imports["cpu"]["decisions"]["guess"]) == 2
    run = bench.RunResult(
        1.0,
        {
            "decisions": {"guess": [2.0, 1.0]},
            "cpu": {"decisions": {"guess": [1.5]}},
            "imports": {"decisions": {"guess": [1.5, 0.0]}, "cpu": {"decisions": {"guess": [1.0]}}},
        },
    )
    assert bench.decision_total_without_imports(run) == 1.5
    assert bench.decision_total_without_imports(run, cpu=True) == 0.5


def test_probe_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_probe.main(["out.json", "play"]) == 2
    assert "usage" in capsys.readouterr().err


def test_cold_cache_copy_leaves_feature_caches_behind(tmp_path: Path) -> None:
    source = tmp_path / "cache"
    (source / "wordnet-index").mkdir(parents=True)
    (source / "wordnet-index" / "index.sqlite").write_text("db")
    (source / "embeddings" / "classifier-logits_x").mkdir(parents=True)
    (source / "embeddings" / "classifier-logits_x" / "a.npy").write_text("f")
    (source / "embeddings" / "minilm-texts.npz").write_text("t")
    (source / "file-hashes.json").write_text("{}")
    target = bench.cold_cache_copy(source, tmp_path / "cold")
    assert (target / "wordnet-index").is_symlink()
    assert (target / "wordnet-index" / "index.sqlite").read_text() == "db"
    assert (target / "file-hashes.json").read_text() == "{}"
    assert not (target / "file-hashes.json").is_symlink()
    assert [p.name for p in (target / "embeddings").iterdir()] == ["minilm-texts.npz"]
    # writing to the cold copy leaves the source alone
    (target / "embeddings" / "minilm-texts.npz").write_text("changed")
    assert (source / "embeddings" / "minilm-texts.npz").read_text() == "t"


def test_comparison_ratio_and_verdict() -> None:
    assert bench.Comparison("a", 2.0, 2.08).verdict == "yes"
    assert bench.Comparison("a", 2.0, 2.2).verdict == "NO (slower)"
    assert bench.Comparison("a", 2.0, 1.5).verdict == "faster"
    assert bench.Comparison("a", 2.0, 1.5).ratio == pytest.approx(0.75)
    assert bench.Comparison("a", 2.0, 2.2, 1.0, 0.9).min_ratio == pytest.approx(0.9)
    table = bench.ratio_table(
        [
            bench.Comparison("cold verdict", 0.4, 0.42, 0.38, 0.38),
            bench.Comparison("game", 10.0, 12.0),
        ],
        "ref",
        "cur",
    )
    lines = table.splitlines()
    assert lines[0].startswith("| figure | reference (ref) | current (cur) | ratio |")
    assert lines[0].endswith("| ratio of the fastest runs |")
    assert lines[2] == "| cold verdict | 400.0 ms | 420.0 ms | 1.050 | yes | 1.000 |"
    assert lines[3] == "| game | 10.00 s | 12.00 s | 1.200 | NO (slower) | nan |"


def test_figures_read_medians() -> None:
    runs = [
        bench.RunResult(1.0, {"decisions": {"play_turn": [3.0], "guess": [1.0, 2.0]}}),
        bench.RunResult(3.0, {"decisions": {"play_turn": [5.0], "keep_card": [4.0, 6.0]}}),
        bench.RunResult(2.0, {"perception": {"prepare": [1.0], "scores": [0.5, 0.25]}}),
    ]
    assert bench.decision_median(runs[0]) == 2.0
    assert bench.decision_median(runs[0], kind="guess") == 1.5
    assert bench.decision_median(runs[1], kind="keep_card") == 5.0
    assert bench.decision_total(runs[0]) == 6.0
    timed_bots = bench.RunResult(
        1.0, {"decisions": {"guess": [1.0]}, "cpu": {"decisions": {"guess": [0.5, 0.25]}}}
    )
    assert bench.decision_total(timed_bots, cpu=True) == 0.75
    assert bench.perception_seconds(runs[2]) == 1.75
    timed = bench.RunResult(1.0, {"cpu": {"perception": {"scores": [0.5]}}}, cpu=0.8)
    assert bench.perception_seconds(timed, cpu=True) == 0.5
    assert bench.perception_seconds(timed) == 0.0
    figures = [bench.Figure("wall", "x", lambda r: r.wall)]
    [comparison] = bench.compare(figures, {"x": [runs[:2], runs]})
    assert (comparison.reference, comparison.current) == (2.0, 2.0)
    assert (comparison.reference_min, comparison.current_min) == (1.0, 1.0)


def test_probe_names_a_log_per_game_and_refuses_a_bad_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["play", "--log", "/tmp/run/log.jsonl", "--seed", "1"]
    assert bench_probe.game_args(args, 0) == args
    assert bench_probe.game_args(args, 2)[2] == "/tmp/run/log-g2.jsonl"
    assert bench_probe.game_args(["play", "--log", "plain"], 1)[2] == "plain-g1"
    assert bench_probe.game_args(["play", "--log"], 1) == ["play", "--log"]
    assert bench_probe.main(["out.json", "--games", "0", "--", "play"]) == 2
    assert "whole number" in capsys.readouterr().err


def test_later_game_thinking_is_the_median_total_after_the_first_game() -> None:
    def game(*seconds: float) -> dict[str, object]:
        return {"decisions": {"guess": list(seconds)}, "cpu": {"decisions": {"guess": [0.1]}}}

    run = bench.RunResult(
        1.0, {"games": [game(9.0), game(1.0, 1.0), game(3.0), game(0.5, 0.25, 0.25)]}
    )
    assert bench.later_game_thinking(run) == 2.0  # totals 2, 3, 1 after the first game's 9
    assert bench.later_game_thinking(run, cpu=True) == pytest.approx(0.1)
    assert math.isnan(bench.later_game_thinking(bench.RunResult(1.0, {"games": [game(9.0)]})))


@pytest.mark.slow
def test_probe_runs_a_command_several_times_in_one_process(tmp_path: Path) -> None:
    command = bench.BenchCommand("verdict", ("judge", "people", "humans"), probe=True, games=3)
    result = bench.run_command(REPO, command, tmp_path, sys.executable)
    games = result.probe["games"]
    assert [g["exit"] for g in games] == [0, 0, 0]
    # the later runs find everything loaded
    assert games[0]["seconds"] > max(g["seconds"] for g in games[1:])
    assert result.probe["seconds"] == games[0]["seconds"]


@pytest.mark.slow
def test_run_command_through_probe(tmp_path: Path) -> None:
    command = bench.BenchCommand("verdict", ("judge", "people", "humans"), probe=True)
    result = bench.run_command(REPO, command, tmp_path, sys.executable)
    assert result.probe["exit"] == 0
    assert result.wall >= result.probe["seconds"] > 0
    assert 0 < result.cpu
    assert set(result.probe["decisions"]) == set(bench_probe.DECISIONS)
    failing = bench.BenchCommand("bad", ("judge",))
    with pytest.raises(RuntimeError, match="bad in"):
        bench.run_command(REPO, failing, tmp_path, sys.executable)
    json.dumps(result.probe)


@pytest.mark.slow
def test_compare_trees_interleaves_and_reports_each_repeat(tmp_path: Path) -> None:
    lines: list[str] = []
    seen: list[int] = []
    command = bench.BenchCommand("help", ("--help",))
    results = bench.compare_trees(
        [REPO, REPO], [command], tmp_path, repeats=2, warmup=False, python=sys.executable,
        echo=lines.append, after_repeat=lambda n, _results: seen.append(n),
    )  # fmt: skip
    assert seen == [1, 2]
    assert [len(per_tree) for per_tree in results["help"]] == [2, 2]
    assert [line.split(":")[0] for line in lines] == [
        f"repeat {n}/2 help {REPO}" for n in (1, 1, 2, 2)
    ]
    [comparison] = bench.compare([bench.Figure("help", "help", lambda r: r.wall)], results)
    assert comparison.reference > 0 and comparison.current > 0


def test_raw_stream_rate_times_whole_passes_after_one_warm_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a fake clock: each item of a batch takes 10 ms, except during the third pass (slower)
    now = [0.0]
    calls: list[int] = []

    def step(batch: list[int]) -> None:
        calls.append(len(batch))
        now[0] += len(batch) * (0.02 if len(calls) > 7 else 0.01)

    monkeypatch.setattr(bench.time, "perf_counter", lambda: now[0])
    rate = bench.raw_stream_rate(step, [[1, 2], [3, 4, 5], [6, 7, 8, 9]], repeats=3)
    # one warm-up call on the first batch, then three passes over all three batches
    assert calls == [2] + [2, 3, 4] * 3
    # 9 items in the fastest pass (0.09 s), not the slow third one
    assert rate == pytest.approx(100.0)


def test_raw_stream_rate_refuses_nothing_to_time() -> None:
    with pytest.raises(ValueError, match="at least one batch"):
        bench.raw_stream_rate(lambda batch: None, [])
    with pytest.raises(ValueError, match="one repeat"):
        bench.raw_stream_rate(lambda batch: None, [[1]], repeats=0)
