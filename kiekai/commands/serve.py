"""``kiekai serve``: run the judge's HTTP API (:mod:`kiekai.judge.server`) with uvicorn."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kiekai import serving

if TYPE_CHECKING:
    from kiekai.judge.store import RulingStore

#: Default address: loopback only, because the API has no authentication.
DEFAULT_HOST = "127.0.0.1"
#: Default TCP port.
DEFAULT_PORT = 8765
#: Most worker processes ``--workers`` accepts (each holds its own judges, 150-250 MB).
MAX_WORKERS = 64


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an IP address or name) only accepts connections from this machine.

    ``localhost`` and loopback addresses (127.0.0.0/8, ::1) are; ``0.0.0.0``, ``::``, other
    addresses and other host names are not (a name could resolve anywhere).
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def bind_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (a sentence naming the fix), or ``None``.

    Checked before the judge's models load (tens of seconds), so a taken port or an
    unknown host name fails at once rather than after loading.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        return f"cannot resolve --host {host!r} ({exc}); give an IP address such as 127.0.0.1"
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            sock.bind(address)
        except OSError as exc:
            return (
                f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another "
                "--port or stop the program using it"
            )
    return None


def serve(
    host: str = typer.Option(
        DEFAULT_HOST,
        "--host",
        help="Address to bind. The default accepts connections from this machine only.",
    ),
    port: int = typer.Option(
        DEFAULT_PORT, "--port", min=1, max=65535, help="TCP port to listen on."
    ),
    log_level: str = typer.Option(
        "info",
        "--log-level",
        help="uvicorn log level: critical, error, warning, info, debug or trace.",
    ),
    access_log: bool = typer.Option(
        True, "--access-log/--no-access-log", help="Log one line per request."
    ),
    embedding_table: bool = typer.Option(
        True,
        "--embedding-table/--no-embedding-table",
        help="Build the embedding table of common words in kiekai's cache when missing, in "
        "the background (1-3 minutes on 2 quiet cores, up to 20 under load; once per "
        "model); one in the cache is always used.",
    ),
    request_timeout: float = typer.Option(
        serving.REQUEST_TIMEOUT_S,
        "--request-timeout",
        min=0.1,
        help="Seconds a client has to send a whole request (headers and body); slower "
        "connections are closed (408 when part of a header came).",
    ),
    keep_alive_timeout: int = typer.Option(
        serving.KEEP_ALIVE_TIMEOUT_S,
        "--keep-alive-timeout",
        min=1,
        help="Seconds a kept-alive connection may stay idle between requests.",
    ),
    house_rules: Path | None = typer.Option(
        None,
        "--house-rules",
        help="A table's own rulings every verdict applies before the judge's evidence "
        "(lines 'secret<TAB>guess<TAB>yes|no<TAB>level'); read at start and again whenever "
        "the file changes, by every worker. Requests may also send their own rulings in "
        "'house_rules'.",
    ),
    workers: int = typer.Option(
        1,
        "--workers",
        min=1,
        max=MAX_WORKERS,
        help="Worker processes answering on the one port (uvicorn's supervisor; a worker "
        "that dies is replaced). With more than one, the WordNet index and the embedding "
        "table are built first, once for all, in a process of their own (1-3 minutes on "
        "2 quiet cores when missing), and each worker loads the sentence model only on the "
        "first word outside the tables.",
    ),
    store: str | None = typer.Option(
        None,
        "--store",
        help="Where the tables' rulings are kept: a SQLite file (sqlite:///PATH or a path) "
        "or postgresql://user:password@host:port/db, shared by every server using it. "
        "Default: $KIEKAI_STORE, else house-rules.sqlite3 in the user data dir (an old "
        "house-rules.tsv there is imported once into the 'default' table). With --workers "
        "each worker opens its own connections to it (not sqlite://, in memory).",
        metavar="URL",
    ),
) -> None:
    """Serve the synonym judge over HTTP (POST /v1/judge, /v1/judge/batch, /v1/repeat).

    GET /healthz reports status; the OpenAPI schema is at /openapi.json, docs at /docs.
    The judge's tables (its WordNet index and the embedding table of common words) open
    before connections are accepted, in about a second; the WordNet index is built
    first when missing (15-60 s, once per machine). The sentence model (torch, about
    1 GB of memory) loads only when a request holds a word outside the tables, or at
    start when there is no embedding table, which is then built in the background while
    the server answers (1-3 minutes on 2 quiet cores, up to 20 on a busy machine; not
    with --no-embedding-table). One process serves one judge per strictness level;
    --workers N runs N such processes on the port. Binding an address other than
    loopback prints a warning: the API has no authentication.
    """

    if not is_loopback(host):
        typer.echo(
            f"warning: binding {host!r} exposes the judge API, which has no authentication, "
            "to other machines on the network; use --host 127.0.0.1 to keep it local",
            err=True,
        )
    levels = ("critical", "error", "warning", "info", "debug", "trace")
    if log_level.lower() not in levels:
        typer.echo(
            f"error: unknown --log-level {log_level!r}; use one of {', '.join(levels)}", err=True
        )
        raise typer.Exit(2)
    problem = bind_problem(host, port)
    if problem:
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1)
    rules = None
    if house_rules is not None:  # checked before the models load, like the address
        from kiekai.judge.house_rules import HouseRules, HouseRulesError

        try:
            rules = HouseRules.load(house_rules)
        except HouseRulesError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"house rules: {len(rules)} rulings from {house_rules}", err=True)
    options = {
        "log_level": log_level.lower(),
        "access_log": access_log,
        "request_timeout_s": request_timeout,
        "keep_alive_timeout_s": keep_alive_timeout,
    }
    if workers > 1:
        _serve_workers(host, port, workers, house_rules, store, embedding_table, options)
    else:
        _serve_one(host, port, house_rules, rules, store, embedding_table, options)


def _serve_workers(
    host: str,
    port: int,
    workers: int,
    house_rules: Path | None,
    store: str | None,
    embedding_table: bool,
    options: dict,
) -> None:
    """``kiekai serve --workers N`` (N > 1): the rulings store opened (created, migrated,
    the old house-rules file imported) and closed again here, the one-time builds in a
    child process, then N workers under uvicorn's supervisor
    (:mod:`kiekai.judge.server.workers`), each opening its own connections to the store
    at the URL in its settings."""
    import os

    from kiekai.judge.server import workers as worker_module

    def say(line: str) -> None:
        typer.echo(line, err=True)

    opened = _open_store(store, say)  # before the builds, like the address
    try:
        in_memory = opened.url.database in (None, "", ":memory:")
        if opened.url.get_backend_name() == "sqlite" and in_memory:
            say(
                "error: a store in memory (sqlite://) cannot be shared by several workers; "
                "give --store a file (sqlite:///PATH) or PostgreSQL, or use --workers 1"
            )
            raise typer.Exit(2)
        store_url = opened.url.render_as_string(hide_password=False)
    finally:
        opened.close()  # a store's connections never cross into the workers
    typer.echo(
        "preparing the judge's tables (WordNet index, embedding table) once for all workers ...",
        err=True,
    )
    try:
        status = worker_module.prepare_in_child(embedding_table)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if status != 0:
        typer.echo(
            "error: could not prepare the judge's tables; check the models with "
            "`kiekai models` (or reinstall with `make test`)",
            err=True,
        )
        raise typer.Exit(1)
    settings = worker_module.WorkerSettings(
        house_rules=str(house_rules.resolve()) if house_rules is not None else None,
        store=store_url,
    )
    os.environ[worker_module.SETTINGS_ENV] = settings.to_env()  # the spawned workers read it
    typer.echo(
        f"serving the judge API on http://{host}:{port} with {workers} workers (docs at /docs)",
        err=True,
    )
    serving.run_workers(worker_module.APP_FACTORY, host, port, workers=workers, **options)


def _serve_one(
    host: str,
    port: int,
    house_rules: Path | None,
    rules,
    store: str | None,
    embedding_table: bool,
    options: dict,
) -> None:
    """``kiekai serve`` in this one process: the judges load here, the embedding table is
    built in the background when missing while the server answers."""
    from kiekai.judge.resources import default_resources
    from kiekai.judge.server import create_app, load_judges
    from kiekai.judge.server.rulings import FileRulings

    def say(line: str) -> None:
        typer.echo(line, err=True)

    tables = _open_store(store, say)  # before the models load, like the address

    say("loading the judge (WordNet index, embedding table) ...")
    # the process's default resources, not a command's own: the server's threads (the
    # judge worker, the encoder loader) read the resources in force there, the default
    resources = default_resources()
    resources.report = say  # the index build, the sentence model: one line each
    build_thread = None
    try:  # whatever ends the server, a table build still in torch stops after its batch
        try:
            # MiniLM vectors of common words, so that a word new to this server costs a
            # lookup instead of an encode (docs/judge.md); read from kiekai's cache, or
            # built there in the background meanwhile
            if embedding_table:
                build_thread = resources.build_embedding_table_in_background(report=say)
                if build_thread is not None:
                    say(
                        "the embedding table is not in the cache: it is built in the "
                        "background (1-3 minutes on 2 quiet cores, up to 20 on a busy "
                        "machine); until then every new word is encoded, and the sentence "
                        "model is loaded now"
                    )
            else:
                resources.embedding_table()  # one in the cache is used
            # without a table almost every word needs the sentence model: load it now
            judges = load_judges(
                house_rules=rules, load_encoder=not resources.embedding_table_loaded()
            )
        except KeyboardInterrupt:  # Ctrl-C while loading
            raise typer.Exit(130) from None
        except (OSError, RuntimeError, LookupError, ImportError, ValueError) as exc:
            typer.echo(
                f"error: could not load the judge: {exc}\n"
                "check the models with `kiekai models` (or reinstall with `make test`)",
                err=True,
            )
            raise typer.Exit(1) from None
        source = FileRulings(house_rules, rules) if house_rules is not None else None
        app = create_app(judges, store=tables, rulings=source)
        say(f"serving the judge API on http://{host}:{port} (docs at /docs)")
        serving.run(app, host, port, **options)
    finally:
        resources.stop_background_builds(build_thread)
        tables.close()


def _open_store(url: str | None, say: Callable[[str], None]) -> RulingStore:
    """The rulings store at ``url`` (default: :func:`kiekai.judge.store.default_url`),
    opened and migrated; one line says where.

    Raises:
        typer.Exit: 2 for a URL that is not supported or an old house-rules file that does
            not read, 1 when the database cannot be reached.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from kiekai.judge.house_rules import HouseRulesError
    from kiekai.judge.store import StoreError, open_store

    try:
        opened = open_store(url, warn=lambda line: say(f"warning: {line}"))
    except (StoreError, HouseRulesError) as exc:
        say(f"error: {exc}")
        raise typer.Exit(2) from None
    except (SQLAlchemyError, OSError) as exc:
        say(
            f"error: the rulings store {url or 'default'!r} cannot be opened "
            f"({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); check --store"
        )
        raise typer.Exit(1) from None
    say(f"rulings store: {opened.display_url}")
    return opened


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to the ``kiekai`` Typer app."""
    app.command("serve")(serve)
