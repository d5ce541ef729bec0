"""Run one ``kiekai`` command in this process and time the bots' decisions and perception.

    python -P kiekai/eval/bench_probe.py OUT.json [--games N] -- play --bots 3 --humans 0 ...

Started by :func:`kiekai.eval.benchmark.compare_trees` with ``PYTHONPATH`` naming the tree
under test (``-P``: this file's folder is not put on ``sys.path``), so it must work against
any version of kiekai, whatever its internal module layout: it imports only the standard
library at the top and reaches kiekai through ``python -m kiekai`` (:func:`runpy.run_module`)
and the method names of two public protocols:

* the Kiek player protocol (``KiekPlayer``: ``play_turn``, ``guess``, ``call_repeat``,
  ``keep_card``), timed on every class of a ``kiekai.*`` module whose name ends in ``Bot``;
* the perception protocol (``Perception``: ``prepare``, ``scores``), timed on every class of
  a ``kiekai.*`` module that defines both.

An import hook wraps those methods when their module has been executed. Only the outermost
call of each kind counts (a composite perception calling its parts, or a bot calling its
perception, is not counted twice in the same kind), per thread. ``OUT.json`` gets::

    {"exit": 0, "seconds": float, "decisions": {"play_turn": [s, ...], ...},
     "perception": {"prepare": [s, ...], "scores": [s, ...]},
     "cpu": {"decisions": {...}, "perception": {...}},
     "imports": {"decisions": {...}, "perception": {...},
                 "cpu": {"decisions": {...}, "perception": {...}}},
     "games": [{"exit": 0, "seconds": float, "decisions": {...}, "cpu": {"decisions": {...}},
                "imports": {"decisions": {...}, "cpu": {"decisions": {...}}}}, ...]}

where the top-level figures are the first run's, ``games`` has one entry per run (``--games
N`` runs the command N times in this process, the log file renamed per run by
:func:`game_args`), ``seconds`` is a run's wall time (the first run's imports included),
``decisions`` and ``perception`` hold wall seconds (``time.perf_counter``) and ``cpu`` the
same calls' CPU seconds of the whole process (``time.process_time``: every thread, so a
torch forward's worker threads count; on a busy machine it moves less than wall time), and
``imports`` the part of each of those calls (same order) spent importing modules not
imported before, in the calling thread (the outermost ``importlib._bootstrap._find_and_load``,
which every ``import`` statement and :func:`importlib.import_module` goes through): a
library that one tree imports before the game and another only on a bot's first decision
shows here.
"""

from __future__ import annotations

import contextlib
import functools
import importlib._bootstrap as _bootstrap
import importlib.abc
import importlib.machinery
import inspect
import json
import runpy
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

#: Kiek player protocol methods timed on bots (seconds per call).
DECISIONS = ("play_turn", "guess", "call_repeat", "keep_card")
#: Perception protocol methods timed on perceptions (seconds per call).
PERCEPTION = ("prepare", "scores")


class Recorder:
    """Seconds of the outermost call of each timed method, per thread.

    Attributes:
        decisions: method name -> wall seconds of each outermost call on a bot.
        perception: method name -> wall seconds of each outermost call on a perception.
        cpu: ``decisions`` / ``perception`` -> method name -> the same calls' process CPU
            seconds.
        imports: ``decisions`` / ``perception`` -> method name -> wall seconds of each of
            those calls spent in imports (in its thread); ``imports["cpu"]`` the same in CPU
            seconds. Counted inside :meth:`counting_imports`.
    """

    def __init__(self) -> None:
        self.decisions: dict[str, list[float]] = {m: [] for m in DECISIONS}
        self.perception: dict[str, list[float]] = {m: [] for m in PERCEPTION}
        self.cpu: dict[str, dict[str, list[float]]] = {
            "decisions": {m: [] for m in DECISIONS},
            "perception": {m: [] for m in PERCEPTION},
        }
        self.imports: dict[str, Any] = {
            "decisions": {m: [] for m in DECISIONS},
            "perception": {m: [] for m in PERCEPTION},
            "cpu": {"decisions": {m: [] for m in DECISIONS}, "perception": {m: [] for m in PERCEPTION}},
        }  # fmt: skip
        self._depth = threading.local()
        #: per thread: ``importing`` (depth of imports), ``seconds`` / ``cpu`` (their totals)
        self._imported = threading.local()

    def _import_seconds(self) -> tuple[float, float]:
        """(wall, CPU) seconds this thread has spent in outermost imports so far."""
        return getattr(self._imported, "seconds", 0.0), getattr(self._imported, "cpu", 0.0)

    @contextlib.contextmanager
    def counting_imports(self) -> Iterator[None]:
        """Time every outermost import while in the block, per thread (see :attr:`imports`):
        wraps ``importlib._bootstrap._find_and_load``, which the interpreter looks up on each
        import of a module not in ``sys.modules``; put back on leaving."""
        names = vars(_bootstrap)  # the private loader, not in the module's type stubs
        find_and_load = names["_find_and_load"]
        local = self._imported

        def timed_import(name: str, import_: Any) -> Any:
            depth = getattr(local, "importing", 0)
            local.importing = depth + 1
            start, cpu_start = time.perf_counter(), time.process_time()
            try:
                return find_and_load(name, import_)
            finally:
                local.importing = depth
                if depth == 0:
                    local.seconds = getattr(local, "seconds", 0.0) + time.perf_counter() - start
                    local.cpu = getattr(local, "cpu", 0.0) + time.process_time() - cpu_start

        names["_find_and_load"] = timed_import
        try:
            yield
        finally:
            names["_find_and_load"] = find_and_load

    def wrap(self, function: Callable[..., Any], kind: str, name: str) -> Callable[..., Any]:
        """``function`` timed into ``self.<kind>[name]`` and ``self.cpu[kind][name]``, its
        imports into ``self.imports`` (outermost calls only)."""
        store, cpu_store = getattr(self, kind)[name], self.cpu[kind][name]
        import_store, import_cpu = self.imports[kind][name], self.imports["cpu"][kind][name]
        key = f"{kind}.{name}"

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(self._depth, key, 0)
            setattr(self._depth, key, depth + 1)
            imported, imported_cpu = self._import_seconds()
            start, cpu_start = time.perf_counter(), time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                setattr(self._depth, key, depth)
                if depth == 0:
                    store.append(time.perf_counter() - start)
                    cpu_store.append(time.process_time() - cpu_start)
                    now, now_cpu = self._import_seconds()
                    import_store.append(now - imported)
                    import_cpu.append(now_cpu - imported_cpu)

        timed.__bench_probe__ = True  # type: ignore[attr-defined]
        return timed

    def instrument(self, module: ModuleType) -> None:
        """Wrap the protocol methods of the classes defined in ``module``."""
        for cls in list(vars(module).values()):
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            if cls.__name__.endswith("Bot"):
                self._wrap_class(cls, "decisions", DECISIONS)
            if all(callable(getattr(cls, m, None)) for m in PERCEPTION):
                self._wrap_class(cls, "perception", PERCEPTION)

    def _wrap_class(self, cls: type, kind: str, names: Sequence[str]) -> None:
        for name in names:
            own = cls.__dict__.get(name)
            if callable(own) and not getattr(own, "__bench_probe__", False):
                setattr(cls, name, self.wrap(own, kind, name))


class _Loader(importlib.abc.Loader):
    """A loader that runs another and then lets the recorder instrument the module (every
    other loader method, e.g. ``get_code`` for :mod:`runpy`, is the inner loader's)."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        self.recorder.instrument(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``kiekai.*`` modules as usual and hands them to :class:`_Loader`."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "kiekai" and not fullname.startswith("kiekai."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader, self.recorder)
        return spec


def game_args(args: Sequence[str], game: int) -> list[str]:
    """``args`` for the ``game``-th run of the command (0 for the first): the file after
    ``--log`` gets ``-g<game>`` before its suffix from the second run on (a log holds one
    game), everything else unchanged."""
    out = list(args)
    for i, arg in enumerate(out[:-1]):
        if arg == "--log" and game:
            stem, dot, suffix = out[i + 1].rpartition(".")
            out[i + 1] = f"{stem}-g{game}.{suffix}" if dot else f"{out[i + 1]}-g{game}"
    return out


def _since(calls: dict[str, list[float]], start: dict[str, int]) -> dict[str, list[float]]:
    return {name: values[start.get(name, 0) :] for name, values in calls.items()}


def _run_games(
    recorder: Recorder, args: Sequence[str], games: int
) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """The runs of :func:`run`: (first non-zero exit status or 0, the first run's figures,
    one entry per run)."""
    per_game: list[dict[str, Any]] = []
    status = 0
    first: dict[str, Any] = {}
    for game in range(games):
        # a call's wall and CPU seconds are appended together: one count serves both
        before = {name: len(values) for name, values in recorder.decisions.items()}
        start = time.perf_counter()
        code: Any = 0
        sys.argv = ["kiekai", *game_args(args, game)]
        try:
            runpy.run_module("kiekai", run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            code = exc.code
        seconds = time.perf_counter() - start
        this = code if isinstance(code, int) else (0 if code is None else 1)
        status = status or this
        per_game.append(
            {
                "exit": this,
                "seconds": seconds,
                "decisions": _since(recorder.decisions, before),
                "cpu": {"decisions": _since(recorder.cpu["decisions"], before)},
                "imports": {
                    "decisions": _since(recorder.imports["decisions"], before),
                    "cpu": {"decisions": _since(recorder.imports["cpu"]["decisions"], before)},
                },
            }
        )
        if game == 0:
            first = {
                "exit": this,
                "seconds": seconds,
                "decisions": {k: list(v) for k, v in recorder.decisions.items()},
                "perception": {k: list(v) for k, v in recorder.perception.items()},
                "cpu": {kind: {k: list(v) for k, v in calls.items()} for kind, calls in recorder.cpu.items()},
                "imports": json.loads(json.dumps(recorder.imports)),  # a copy
            }  # fmt: skip
        if this:
            break
    return status, first, per_game


def run(out: str, args: Sequence[str], games: int = 1) -> int:
    """Run ``python -m kiekai ARGS`` here with the hook installed, ``games`` times one after
    another in this process (later runs find the models, WordNet and the imports already
    loaded: their decisions are the bots' thinking without one-time loads); write the
    figures to ``out`` (JSON, see the module docstring) and return the first non-zero exit
    status (0 when every run succeeded)."""
    recorder = Recorder()
    sys.meta_path.insert(0, _Finder(recorder))
    with recorder.counting_imports():
        status, first, per_game = _run_games(recorder, args, games)
    figures = {**first, "exit": status, "games": per_game}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(figures, handle)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``bench_probe.py OUT.json [--games N] -- KIEKAI ARGS...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    games = 1
    if len(argv) >= 3 and argv[1] == "--games":
        if not argv[2].isdigit() or int(argv[2]) < 1:
            print(f"--games takes a whole number >= 1, not {argv[2]!r}", file=sys.stderr)
            return 2
        games = int(argv[2])
        del argv[1:3]
    if len(argv) < 2 or argv[1] != "--":
        print("usage: bench_probe.py OUT.json [--games N] -- KIEKAI-ARGS...", file=sys.stderr)
        return 2
    return run(argv[0], argv[2:], games)


if __name__ == "__main__":
    raise SystemExit(main())
