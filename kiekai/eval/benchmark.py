"""Timing perception and the bots' thinking (used by ``scripts/bench_perception.py``).

Speed targets live in a benchmark script that prints measured figures compared as ratios in
the same run, never in timed tests. This module holds the pieces, so that other scripts (the
bots' evaluation) can time the same way:

* :func:`copy_unlabelled` makes a photo folder without labels.csv (nothing can come from
  labels; a fresh cache folder makes the first pass really first);
* :func:`raw_forward_rate` times the classifier's batched forward alone on one batch
  (photos/s, a peak) and :func:`raw_stream_rate` any model's work over every batch of a pass;
* :class:`TimedPlayer` wraps any :class:`kiekai.kiek.players.KiekPlayer` and records how long
  each decision takes; :func:`time_bot_game` plays a bot-only game with timed bots and
  returns the seconds per active turn, guess, keep and repeat call;
* :func:`compare_trees` measures the same figures against two source trees (a reference
  commit checked out by :func:`reference_worktree`, and the current tree) in fresh
  processes, interleaved, and :func:`ratio_table` prints them as ratios
  (``scripts/bench_architecture.py``). It reaches each tree only through its command line
  (``python -m kiekai``) and :mod:`kiekai.eval.bench_probe`, so the two trees may lay out
  their modules differently.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiekai.deck import PHOTO_SUFFIXES, Card


def copy_unlabelled(source: Path, target: Path, count: int) -> list[Path]:
    """Copy the first ``count`` photos of ``source`` (by sorted relative path, sub-folders
    included; labels.csv and other files left behind) into the folder ``target``.

    Returns:
        The copied files.

    Raises:
        FileNotFoundError: ``source`` is not a folder or holds no photos.
    """
    if not source.is_dir():
        raise FileNotFoundError(f"{source} is not a folder of photos")
    photos = sorted(
        p for p in source.rglob("*") if p.is_file() and p.suffix.lower() in PHOTO_SUFFIXES
    )[:count]
    if not photos:
        raise FileNotFoundError(f"{source} holds no photos (.jpg, .png, .webp, .gif)")
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for photo in photos:
        destination = target / photo.relative_to(source).as_posix().replace("/", "__")
        shutil.copyfile(photo, destination)
        copied.append(destination)
    return copied


def raw_forward_rate(model: Any, batch: Any, repeats: int = 3) -> float:
    """Photos per second of ``model``'s forward pass alone on a ready tensor.

    Args:
        model: a ``torch.nn.Module`` in eval mode.
        batch: float32 tensor [B, 3, H, W] (already decoded and preprocessed).
        repeats: forward passes timed after one warm-up pass; the fastest counts (the least
            disturbed by other processes on a shared machine).

    Returns:
        ``B / fastest_seconds``.
    """
    import torch

    with torch.inference_mode():
        return raw_stream_rate(model, [batch], repeats)  # len(tensor) is B


def raw_stream_rate(step: Callable[[Any], Any], batches: Sequence[Any], repeats: int = 2) -> float:
    """Items per second of ``step`` alone over every batch of a pass, on ready input.

    The raw speed a first pass is compared with: the same batches the pass read, already
    decoded and preprocessed, each given once to ``step`` in order. A single batch repeated
    (:func:`raw_forward_rate`) runs faster than a stream of different batches on this machine
    (about 36 against 31 photos/s for the classifier), so it is a peak, not the model's speed
    on the photos; both are printed by ``scripts/bench_perception.py``.

    Args:
        step: the model's work on one batch (e.g. ``lambda x: model(x)`` under
            ``torch.inference_mode()``); its result is discarded.
        batches: the ready batches; each has a ``len()`` (items in it).
        repeats: whole passes timed after one warm-up call on the first batch; the fastest
            counts (the least disturbed by other processes).

    Returns:
        ``sum(len(batch)) / fastest_seconds``.

    Raises:
        ValueError: ``batches`` is empty or ``repeats`` < 1.
    """
    if not batches or repeats < 1:
        raise ValueError("raw_stream_rate needs at least one batch and one repeat")
    step(batches[0])
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for batch in batches:
            step(batch)
        best = min(best, time.perf_counter() - start)
    return sum(len(batch) for batch in batches) / best


@dataclass
class TimedPlayer:
    """A :class:`kiekai.kiek.players.KiekPlayer` that records the seconds of each decision
    of the player it wraps (``time.perf_counter``).

    Attributes:
        inner: the wrapped player.
        seconds: decision name (``play_turn``, ``guess``, ``keep_card``, ``call_repeat``) ->
            seconds of each call.
    """

    inner: Any
    seconds: dict[str, list[float]] = field(
        default_factory=lambda: {"play_turn": [], "guess": [], "keep_card": [], "call_repeat": []}
    )

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def is_human(self) -> bool:
        return bool(self.inner.is_human)

    def _timed(self, method: str, view: Any) -> Any:
        start = time.perf_counter()
        try:
            return getattr(self.inner, method)(view)
        finally:
            self.seconds[method].append(time.perf_counter() - start)

    def play_turn(self, view: Any) -> Any:
        return self._timed("play_turn", view)

    def guess(self, view: Any) -> str:
        return self._timed("guess", view)

    def call_repeat(self, view: Any) -> bool:
        return self._timed("call_repeat", view)

    def keep_card(self, view: Any) -> str:
        return self._timed("keep_card", view)


def time_bot_game(
    make_bot: Callable[[str, int], Any],
    cards: Sequence[Card],
    *,
    judge: Any,
    bots: int = 3,
    seed: int = 1,
    rounds: int = 1,
) -> dict[str, list[float]]:
    """Play a bot-only game of Kiek with timed bots; return the seconds of every decision.

    Args:
        make_bot: ``make_bot(name, seed) -> KiekPlayer`` (e.g. a ``KiekBot`` with the
            perception under test), called once per seat.
        cards: the deck.
        judge: the game's judge.
        bots: players (3 to 8).
        seed: the game's seed (bot ``i`` gets ``seed * 100 + i + 1``, as ``kiekai play``).
        rounds: rounds to play (each bot is active once a round).

    Returns:
        decision name -> seconds of each call, all bots together.
    """
    from kiekai.clock import VirtualClock
    from kiekai.kiek.game import play_game
    from kiekai.kiek.settings import GameSettings

    players = [TimedPlayer(make_bot(f"Bot {i + 1}", seed * 100 + i + 1)) for i in range(bots)]
    play_game(
        players,
        cards,
        judge=judge,
        settings=GameSettings(seed=seed, rounds=rounds),
        clock=VirtualClock(),
    )
    out: dict[str, list[float]] = {}
    for player in players:
        for method, values in player.seconds.items():
            out.setdefault(method, []).extend(values)
    return out


# --------------------------------------------------------------- two trees, same figures

#: The probe that runs a ``kiekai`` command with the bots' decisions and perception timed.
PROBE = Path(__file__).with_name("bench_probe.py")
#: Largest slow-down (current / reference - 1) that counts as "the same speed".
TOLERANCE = 0.05


@dataclass(frozen=True)
class BenchCommand:
    """One ``kiekai`` command line timed against each tree.

    Attributes:
        key: the command's name in the figures (:attr:`Figure.command`).
        args: the arguments after ``kiekai``; ``{deck-labels}``, ``{deck-pixels}``,
            ``{rules}`` and ``{log}`` are replaced by paths of the run's work folder.
        probe: run it through :mod:`kiekai.eval.bench_probe` (the bots' decisions and
            perception timed) instead of ``python -m kiekai``.
        cold_cache: give it a new kiekai cache folder (``KIEKAI_CACHE_DIR``) in which the
            perceptions' feature caches are empty (see :func:`cold_cache_copy`).
        games: with ``probe``, how many times the probe runs the command in one process
            (``bench_probe.py --games``): the runs after the first find every model loaded.
    """

    key: str
    args: tuple[str, ...]
    probe: bool = False
    cold_cache: bool = False
    games: int = 1


@dataclass(frozen=True)
class RunResult:
    """What one run of a :class:`BenchCommand` gave.

    Attributes:
        wall: seconds from starting the process to its end (imports included).
        probe: the probe's JSON (see :mod:`kiekai.eval.bench_probe`), or ``{}``.
        cpu: the process's CPU seconds (user + system, its own children included, from
            ``getrusage(RUSAGE_CHILDREN)``); on a busy machine it moves less than ``wall``.
    """

    wall: float
    probe: Mapping[str, Any]
    cpu: float = float("nan")


@dataclass(frozen=True)
class Figure:
    """One figure read from the runs of a command.

    Attributes:
        name: its row label.
        command: the :attr:`BenchCommand.key` it is read from.
        read: ``RunResult -> seconds``.
    """

    name: str
    command: str
    read: Callable[[RunResult], float]


#: Rounds of the timed bot-only Kiek games: three give about 50 bot decisions a game (one
#: gives about 15, whose median jumps between the kinds' typical times from run to run).
KIEK_BENCH_ROUNDS = 3
#: Games of the "later game" commands: the first loads the models, the other five time the
#: bots' thinking alone (:func:`later_game_thinking` takes their median).
KIEK_LATER_GAMES = 6


def _kiek_args(perception: str, deck: str) -> tuple[str, ...]:
    return (
        "play", "--bots", "3", "--humans", "0", "--seed", "1", "--rounds", str(KIEK_BENCH_ROUNDS),
        "--perception", perception, "--deck", deck, "--house-rules", "{rules}", "--log", "{log}",
    )  # fmt: skip


def default_commands(kismet_rounds: int = 300) -> tuple[BenchCommand, ...]:
    """The commands behind :func:`default_figures`: a cold verdict, a bot-only Kiek game
    (3 bots, seed 1, :data:`KIEK_BENCH_ROUNDS` rounds, the golden logs' 30-photo deck) with
    labels and with pixels only (the classifier and colours) on a cold perception cache,
    the same games played :data:`KIEK_LATER_GAMES` times in one process (``-later``), and a
    headless Kismet variant game of ``kismet_rounds`` rounds (4 bots, seed 1, virtual
    clock)."""
    return (
        BenchCommand("verdict", ("judge", "people", "humans")),
        BenchCommand("kiek-labels", _kiek_args("labels", "{deck-labels}"), True, True),
        BenchCommand("kiek-pixels", _kiek_args("classifier", "{deck-pixels}"), True, True),
        BenchCommand(
            "kiek-labels-later", _kiek_args("labels", "{deck-labels}"), True, True, KIEK_LATER_GAMES
        ),
        BenchCommand(
            "kiek-pixels-later",
            _kiek_args("classifier", "{deck-pixels}"),
            True,
            True,
            KIEK_LATER_GAMES,
        ),
        BenchCommand(
            "kismet",
            (
                "kismet",
                "--humans",
                "0",
                "--bots",
                "4",
                "--seed",
                "1",
                "--variant",
                "--rounds",
                str(kismet_rounds),
                "--log",
                "{log}",
            ),
        ),  # fmt: skip
    )


def perception_seconds(run: RunResult, cpu: bool = False) -> float:
    """Seconds in the perception's outermost ``prepare`` and ``scores`` calls of a run (wall
    time, or with ``cpu`` the process's CPU time in them)."""
    calls = (run.probe.get("cpu", {}) if cpu else run.probe).get("perception", {})
    return float(sum(calls.get("prepare", [])) + sum(calls.get("scores", [])))


def _decision_calls(
    record: Mapping[str, Any], cpu: bool, imports: bool = False
) -> Mapping[str, list[float]]:
    """Decision name -> seconds of each call, from a probe record (the whole run's or one
    game's entry of ``games``): wall seconds, or with ``cpu`` the CPU seconds; with
    ``imports`` the part of each spent importing modules (the record's ``imports``)."""
    if imports:
        record = record.get("imports", {})
    return (record.get("cpu", {}) if cpu else record).get("decisions", {})


def _decisions_added(record: Mapping[str, Any], cpu: bool, imports: bool = False) -> float:
    """Every decision's seconds in a probe record added up (see :func:`_decision_calls`)."""
    calls = _decision_calls(record, cpu, imports)
    return float(sum(sum(values) for values in calls.values()))


def decision_median(run: RunResult, cpu: bool = False, kind: str | None = None) -> float:
    """Median seconds of one bot decision in a run (wall time, or with ``cpu`` the process's
    CPU time): of one ``kind`` (``"play_turn"``, ``"guess"`` or ``"keep_card"``), or with
    ``kind=None`` of those three pooled (the repeat calls, which are nearly free, left out).

    The pooled median sits where the kept cards' cluster (about 2 ms) meets the guesses'
    (about 5 ms), so it jumps between them from run to run; the figures use one kind each."""
    calls = _decision_calls(run.probe, cpu)
    kinds = (kind,) if kind else ("play_turn", "guess", "keep_card")
    values = [v for k in kinds for v in calls.get(k, [])]
    return statistics.median(values) if values else float("nan")


def decision_total(run: RunResult, cpu: bool = False) -> float:
    """Seconds of every bot decision of a run added up (active turns, guesses, kept cards and
    repeat calls; wall time, or with ``cpu`` the process's CPU time): how long the bots keep
    the table waiting over the game, one-time loads on a first decision included."""
    return _decisions_added(run.probe, cpu)


def decision_total_without_imports(run: RunResult, cpu: bool = False) -> float:
    """:func:`decision_total` less the seconds those decisions spent importing modules not
    imported before (the probe's ``imports``): the one-time loads of a first game without
    the library imports, which one tree may do before the game (at start-up) and another
    on a bot's first decision (on first use)."""
    return _decisions_added(run.probe, cpu) - _decisions_added(run.probe, cpu, imports=True)


def later_game_thinking(run: RunResult, cpu: bool = False) -> float:
    """Seconds of every bot decision of one game added up, the median over the games after
    the first of a ``--games`` run (wall time, or with ``cpu`` the process's CPU time): the
    bots' thinking once the models, WordNet and imports are loaded, which a game's first
    decisions also pay for (:func:`decision_total` counts those loads)."""
    totals = [_decisions_added(game, cpu) for game in list(run.probe.get("games", []))[1:]]
    return statistics.median(totals) if totals else float("nan")


def _wall(run: RunResult) -> float:
    return run.wall


def _cpu(run: RunResult) -> float:
    return run.cpu


def _perception_cpu(run: RunResult) -> float:
    return perception_seconds(run, cpu=True)


#: The decisions timed per kind, as the figures name them.
DECISION_KINDS = (("play_turn", "active turn"), ("guess", "guess"), ("keep_card", "kept card"))


def default_figures() -> tuple[Figure, ...]:
    """The figures the architecture step must keep (issue "One game, one set of rules, one
    event model", Done when): cold verdict, perception, bot thinking time, Kismet timing;
    each as wall time and as CPU time (which a busy machine disturbs less)."""
    return (
        Figure("cold `kiekai judge people humans`, wall (new process)", "verdict", _wall),
        Figure("cold `kiekai judge people humans`, CPU", "verdict", _cpu),
        Figure("perception, labels: prepare + scores, wall (cold cache)", "kiek-labels", perception_seconds),
        Figure("perception, labels: prepare + scores, CPU", "kiek-labels", _perception_cpu),
        Figure("perception, pixels only: prepare + scores, wall (cold cache)", "kiek-pixels", perception_seconds),
        Figure("perception, pixels only: prepare + scores, CPU", "kiek-pixels", _perception_cpu),
        *(
            Figure(f"bot decision, {label}, median, {clock} ({game} game)", f"kiek-{game}", functools.partial(decision_median, cpu=clock == "CPU", kind=kind))
            for game in ("labels", "pixels")
            for kind, label in DECISION_KINDS
            for clock in ("wall", "CPU")
        ),
        Figure("bot thinking, all decisions added, wall (labels game)", "kiek-labels", decision_total),
        Figure("bot thinking, all decisions added, CPU (labels game)", "kiek-labels", functools.partial(decision_total, cpu=True)),
        Figure("bot thinking, all decisions added, wall (pixels game)", "kiek-pixels", decision_total),
        Figure("bot thinking, all decisions added, CPU (pixels game)", "kiek-pixels", functools.partial(decision_total, cpu=True)),
        *(
            Figure(f"bot thinking, all decisions added, imports excluded, {clock} ({game} game)", f"kiek-{game}", functools.partial(decision_total_without_imports, cpu=clock == "CPU"))
            for game in ("labels", "pixels")
            for clock in ("wall", "CPU")
        ),
        *(
            Figure(f"bot thinking, a later game in the process (median of games 2-{KIEK_LATER_GAMES}), {clock} ({game} game)", f"kiek-{game}-later", functools.partial(later_game_thinking, cpu=clock == "CPU"))
            for game in ("labels", "pixels")
            for clock in ("wall", "CPU")
        ),
        Figure("bot-only Kiek game, labels, wall (whole process)", "kiek-labels", _wall),
        Figure("bot-only Kiek game, labels, CPU", "kiek-labels", _cpu),
        Figure("bot-only Kiek game, pixels only, wall (whole process)", "kiek-pixels", _wall),
        Figure("bot-only Kiek game, pixels only, CPU", "kiek-pixels", _cpu),
        Figure("headless Kismet variant game, wall (whole process)", "kismet", _wall),
        Figure("headless Kismet variant game, CPU", "kismet", _cpu),
    )  # fmt: skip


@contextlib.contextmanager
def reference_worktree(ref: str, repo: Path) -> Iterator[Path]:
    """A temporary ``git worktree`` of commit ``ref`` of the repository ``repo`` (detached,
    removed again on exit).

    Raises:
        subprocess.CalledProcessError: git could not check ``ref`` out.
    """
    with tempfile.TemporaryDirectory(prefix="kiekai-ref-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", str(repo), "worktree", "add", "--detach", str(tree), ref],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        try:
            yield tree
        finally:
            subprocess.run(
                ["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)],
                capture_output=True, text=True,
            )  # fmt: skip


def cold_cache_copy(source: Path, target: Path) -> Path:
    """Make ``target`` a kiekai cache folder like ``source`` whose perception caches are
    empty: its sub-folders are symbolic links to ``source``'s (models, NLTK data, the
    WordNet index), its files are copies, and ``embeddings/`` holds copies of ``source``'s
    embedding *files* only (the judge's text embeddings and specificity tables), not its
    sub-folders (the perceptions' per-photo feature caches). Returns ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()) if source.is_dir() else []:
        if entry.name == "embeddings" and entry.is_dir():
            (target / "embeddings").mkdir(exist_ok=True)
            for item in entry.iterdir():
                if item.is_file():
                    shutil.copy2(item, target / "embeddings" / item.name)
        elif entry.is_dir():
            (target / entry.name).symlink_to(entry.resolve(), target_is_directory=True)
        elif entry.is_file():
            shutil.copy2(entry, target / entry.name)
    (target / "embeddings").mkdir(exist_ok=True)
    return target


def _user_cache() -> Path:
    from kiekai.models import cache_dir

    return cache_dir()


def run_command(
    tree: Path, command: BenchCommand, workdir: Path, python: str = sys.executable
) -> RunResult:
    """Run ``command`` once against the source tree ``tree`` (``PYTHONPATH=tree``, in
    ``tree``, offline) in a new process; returns its wall time and the probe's figures.

    Args:
        tree: a checkout of kiekai (the folder holding ``kiekai/``).
        command: what to run; its placeholders name files under ``workdir`` (the decks
            and house-rules file made by :func:`prepare_workdir`).
        workdir: the run's folder (a new log and, for a cold cache, a new cache folder).
        python: the interpreter (one with kiekai's dependencies).

    Raises:
        RuntimeError: the command failed (its output's tail in the message).
    """
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=workdir))
    places = {
        "{deck-labels}": str(workdir / "deck-labels"),
        "{deck-pixels}": str(workdir / "deck-pixels"),
        "{rules}": str(workdir / "house-rules.tsv"),
        "{log}": str(run_dir / "log.jsonl"),
    }
    args = [places.get(a, a) for a in command.args]
    env = {**os.environ, "PYTHONPATH": str(tree), "KIEKAI_OFFLINE": "1", "COLUMNS": "120"}
    if command.cold_cache:
        env["KIEKAI_CACHE_DIR"] = str(cold_cache_copy(_user_cache(), run_dir / "cache"))
    out = run_dir / "probe.json"
    games = ["--games", str(command.games)] if command.games > 1 else []
    line = [python, "-P", str(PROBE), str(out), *games, "--", *args] if command.probe else None
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        line or [python, "-m", "kiekai", *args], cwd=tree, env=env, capture_output=True,
        text=True, timeout=900,
    )  # fmt: skip
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(
            f"{command.key} in {tree}: exit {done.returncode}\n{done.stderr[-2000:]}"
        )
    probe = json.loads(out.read_text(encoding="utf-8")) if command.probe else {}
    shutil.rmtree(run_dir, ignore_errors=True)
    return RunResult(wall, probe, cpu)


def prepare_workdir(workdir: Path) -> Path:
    """The decks (the golden logs' 30-photo dev deck with and without labels.csv, see
    :func:`kiekai.eval.golden.make_deck`) and an empty house-rules file in ``workdir``."""
    from kiekai.eval.golden import make_deck

    make_deck(workdir / "deck-labels", "labels")
    make_deck(workdir / "deck-pixels", "pixels")
    (workdir / "house-rules.tsv").touch()
    return workdir


def compare_trees(
    trees: Sequence[Path],
    commands: Sequence[BenchCommand],
    workdir: Path,
    *,
    repeats: int = 5,
    warmup: bool = True,
    python: str = sys.executable,
    echo: Callable[[str], object] = print,
    after_repeat: Callable[[int, dict[str, list[list[RunResult]]]], object] | None = None,
) -> dict[str, list[list[RunResult]]]:
    """Run every command against every tree, interleaved: after compiling each tree's
    bytecode (``compileall``, so neither tree pays for it in a timed run) and, with
    ``warmup``, one untimed run of each command on each tree (files in the page cache),
    ``repeats`` times the sequence command 1 on tree A, on tree B, command 2 on A, on B, ...
    so that a change in the machine's load falls on both trees alike. ``after_repeat(n,
    results)`` is called after each repeat with the results so far (a long run on a busy
    machine leaves usable figures when it is stopped).

    Returns:
        command key -> per tree (in ``trees`` order) its ``repeats`` results.

    Raises:
        RuntimeError: a command failed.
        subprocess.CalledProcessError: a tree's bytecode could not be compiled.
    """
    results: dict[str, list[list[RunResult]]] = {c.key: [[] for _ in trees] for c in commands}
    for tree in trees:
        subprocess.run(
            [python, "-m", "compileall", "-q", str(tree / "kiekai")], check=True,
            capture_output=True,
        )  # fmt: skip
    for command in commands if warmup else ():
        for tree in trees:
            run_command(tree, command, workdir, python)
    for repeat in range(repeats):
        for command in commands:
            for i, tree in enumerate(trees):
                result = run_command(tree, command, workdir, python)
                results[command.key][i].append(result)
                echo(f"repeat {repeat + 1}/{repeats} {command.key} {tree}: {result.wall:.2f} s")
        if after_repeat is not None:
            after_repeat(repeat + 1, results)
    return results


@dataclass(frozen=True)
class Comparison:
    """One figure's medians (and fastest runs) on the reference and the current tree.

    Attributes:
        name: the figure's label.
        reference: median seconds on the reference tree.
        current: median seconds on the current tree.
        reference_min: the reference tree's fastest run, in seconds (NaN: not given).
        current_min: the current tree's fastest run, in seconds (NaN: not given).
    """

    name: str
    reference: float
    current: float
    reference_min: float = float("nan")
    current_min: float = float("nan")

    @property
    def ratio(self) -> float:
        """current / reference (below 1: the current tree is faster)."""
        return self.current / self.reference if self.reference else float("nan")

    @property
    def min_ratio(self) -> float:
        """current_min / reference_min: the fastest runs compared. A run is slowed, never
        sped up, by other work on the machine, so the fastest of several runs is the
        steadiest estimate of what the code costs (the reasoning of Python's ``timeit``,
        which reports the minimum)."""
        return self.current_min / self.reference_min if self.reference_min else float("nan")

    @property
    def verdict(self) -> str:
        """``yes`` within :data:`TOLERANCE` either way, ``faster`` below it, ``NO`` above
        (of the medians' :attr:`ratio`)."""
        if self.ratio > 1 + TOLERANCE:
            return "NO (slower)"
        return "faster" if self.ratio < 1 - TOLERANCE else "yes"


def compare(
    figures: Sequence[Figure], results: Mapping[str, Sequence[Sequence[RunResult]]]
) -> list[Comparison]:
    """Each figure's median and minimum over the repeats on the first tree (the reference)
    and the second (current)."""
    out = []
    for figure in figures:
        reference, current = results[figure.command][:2]
        ref_values = [figure.read(r) for r in reference]
        cur_values = [figure.read(r) for r in current]
        out.append(
            Comparison(
                figure.name,
                statistics.median(ref_values),
                statistics.median(cur_values),
                min(ref_values),
                min(cur_values),
            )
        )
    return out


def _seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def ratio_table(comparisons: Sequence[Comparison], reference: str, current: str) -> str:
    """A Markdown table: figure, reference, current, ratio (current / reference), whether
    it is within :data:`TOLERANCE` (medians), and the ratio of the fastest runs
    (:attr:`Comparison.min_ratio`)."""
    lines = [
        f"| figure | reference ({reference}) | current ({current}) | ratio | within 5 % "
        "| ratio of the fastest runs |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for c in comparisons:
        lines.append(
            f"| {c.name} | {_seconds(c.reference)} | {_seconds(c.current)} | "
            f"{c.ratio:.3f} | {c.verdict} | {c.min_ratio:.3f} |"
        )
    return "\n".join(lines)
