"""The judge API in several worker processes on one port (``kiekai serve --workers N``).

How it runs (:func:`kiekai.commands.serve.serve` puts it together):

1. The parent process checks its options, then runs the one-time builds
   (:func:`prepare`: the WordNet index, the embedding table of common words) in a child
   process of its own, under the cross-process build locks (:func:`kiekai.locks.build_lock`).
   A build loads torch and the sentence model (about 1 GB); done in a process that exits
   afterwards, that memory is given back, and no worker ever holds it for a build.
2. uvicorn's supervisor (:func:`kiekai.serving.run_workers`) binds the port once and
   spawns N workers. Each calls :func:`worker_app`, which reads its settings from the
   environment (:data:`SETTINGS_ENV`, JSON of :class:`WorkerSettings`) and returns the app;
   the app's lifespan opens the tables the parent built and loads the judges without the
   sentence model (when the embedding table is there), so a worker at rest holds no torch.
   The first word outside the tables loads it in that worker only.
3. Shared state is read per request, never kept per worker, so a ruling written through
   one worker holds in the others from their next request on: the tables' rulings come
   from the rulings store (:mod:`kiekai.judge.store`), which the parent opens and migrates
   once and closes before the workers start, and which each worker opens again at the URL
   in its settings (a store's connections must not be shared across processes); the
   server's own house rulings come from a
   :class:`~kiekai.judge.server.rulings.RulingsSource` (the ``--house-rules`` file, read
   again when it changes).

Why uvicorn's own workers and not gunicorn with uvicorn workers: uvicorn's supervisor
comes with the server kiekai already runs (no new dependency), works on Windows (spawn,
where gunicorn does not run at all), replaces a worker that dies and restarts them one at
a time on SIGHUP, and keeps kiekai's own protocol class (request timeouts, the header
limit) without gunicorn's worker-class indirection. gunicorn's pre-fork with
``preload_app`` would share copy-on-write pages of a loaded judge, but CPython's reference
counts dirty those pages within minutes, and the judge's memory at rest is small once the
sentence model stays out (docs/judge.md, "Several workers").
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

#: The environment variable that carries :class:`WorkerSettings` (JSON) to the workers.
SETTINGS_ENV = "KIEKAI_SERVE_WORKER"
#: The import string of the workers' app factory.
APP_FACTORY = "kiekai.judge.server.workers:worker_app"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerSettings:
    """What every worker process needs to build its app.

    Attributes:
        house_rules: the ``--house-rules`` file (read again when it changes), or ``None``.
        store: the rulings store's URL (:func:`kiekai.judge.store.engine_url`), password
            included, which every worker opens on its own; ``None``: a store in memory per
            worker (only for tests: tables would not be shared).
    """

    house_rules: str | None = None
    store: str | None = None

    def to_env(self) -> str:
        """These settings as the value of :data:`SETTINGS_ENV`."""
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> WorkerSettings:
        """The settings in :data:`SETTINGS_ENV` (defaults when it is not set).

        Raises:
            ValueError: the variable is not a JSON object of known settings.
        """
        raw = (os.environ if environ is None else environ).get(SETTINGS_ENV, "").strip()
        if not raw:
            return cls()
        try:
            values = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{SETTINGS_ENV} is not JSON ({exc}); unset it") from None
        known = {f.name for f in fields(cls)}
        if not isinstance(values, dict) or not set(values) <= known:
            raise ValueError(
                f"{SETTINGS_ENV} must be a JSON object with keys among {sorted(known)}, "
                f"got {raw[:200]!r}"
            )
        return cls(**values)


def _say(line: str) -> None:
    print(f"[worker {os.getpid()}] {line}", file=sys.stderr, flush=True)


def prepare(embedding_table: bool = True) -> None:
    """The one-time builds every worker reads: the WordNet index and, when
    ``embedding_table``, the embedding table of common words (each built only when missing
    from kiekai's cache, under its build lock, so concurrent starts build it once).

    Meant to run in a child process that exits afterwards (:func:`prepare_in_child`),
    because a build loads torch and the sentence model.

    Raises:
        RuntimeError, OSError: a model is missing or the cache cannot be written.
    """
    from kiekai.judge import wordnet_index
    from kiekai.judge.resources import Resources

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    wordnet_index.open_index(build=True, report=say)
    if embedding_table:
        Resources().load_embedding_table(build=True, report=say)


def _prepare_entry(embedding_table: bool) -> None:  # the child's target: exit 1 on failure
    try:
        prepare(embedding_table)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        print(f"error: the one-time builds failed: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


def prepare_in_child(embedding_table: bool = True) -> int:
    """Run :func:`prepare` in a spawned child process and wait for it; returns its exit
    status (0: everything built or found in the cache)."""
    import multiprocessing

    child = multiprocessing.get_context("spawn").Process(
        target=_prepare_entry, args=(embedding_table,), name="kiekai-prepare"
    )
    child.start()
    try:
        child.join()
    except KeyboardInterrupt:
        child.terminate()
        child.join(30)
        raise
    return child.exitcode if child.exitcode is not None else 1


def load_worker_judges() -> dict[Any, Any]:
    """The judges of one worker: the tables from kiekai's cache (built by the parent), and
    the sentence model only when there is no embedding table (then almost every word needs
    it)."""
    from kiekai.judge.resources import default_resources
    from kiekai.judge.server.service import load_judges

    resources = default_resources()  # the one the judge thread and the loader read
    resources.report = _say
    resources.embedding_table()  # one in the cache is used; none is built here
    if not resources.embedding_table_loaded():
        _say("no embedding table in the cache: the sentence model is loaded now")
    return load_judges(load_encoder=not resources.embedding_table_loaded())


def worker_app() -> Any:
    """The app one worker serves (uvicorn calls this factory in each worker process).

    Reads :class:`WorkerSettings` from :data:`SETTINGS_ENV`; the judges load and the
    rulings store opens in the app's lifespan (:func:`load_worker_judges`), before the
    worker accepts connections.

    Raises:
        ValueError: the settings variable is malformed.
    """
    from kiekai.judge.server.app import create_app
    from kiekai.judge.server.rulings import FileRulings

    settings = WorkerSettings.from_env()
    rulings = None
    if settings.house_rules is not None:
        # the parent checked the file; a worker (re)started while it is malformed logs a
        # warning and serves without it until it is fixed, rather than failing to start
        rulings = FileRulings(Path(settings.house_rules))
        rulings.snapshot()
    return create_app(load_worker_judges, store=settings.store, rulings=rulings)
