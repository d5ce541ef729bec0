"""The rulings store: every table's house rules in one database (SQLite or PostgreSQL).

A *table* is a group of players with a name; its *rulings* (:class:`HouseRuling`: a pair
of words, the level, the verdict, who ruled and when) are the decisions it made against the
judge (rulebook "Imperfect Guesses": each group decides which guess is correct). The judge
applies a table's rulings before its own evidence. Rulings of two tables never mix.

- **Where.** SQLite by default, one file beside the old ``house-rules.tsv``:
  :func:`default_url` (``<user data dir>/house-rules.sqlite3``; Linux
  ``~/.local/share/kiekai/house-rules.sqlite3``), or the URL in ``$KIEKAI_STORE``. A
  ``postgresql://user:password@host/db`` URL uses PostgreSQL through psycopg 3, so that
  servers on several machines share the rulings.
- **Library.** SQLAlchemy Core 2.x for the connection and the queries (the same code for
  both databases), Alembic for the schema's versioned migrations
  (``kiekai/judge/migrations/``): :func:`migrate` brings a store up to date on open, inside
  one write transaction (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: an advisory lock), so
  processes starting together migrate once. Alembic is imported only when the schema is not
  current (:data:`HEAD_REVISION`).
- **Several processes.** SQLite runs in WAL mode with a busy timeout
  (:data:`BUSY_TIMEOUT_S`); every write is one ``BEGIN IMMEDIATE`` transaction, so writers
  take turns instead of failing. PostgreSQL writes lock the table's row (``SELECT ... FOR
  UPDATE``) so the per-table bound holds. A ruling is one upsert: a later ruling on the same
  pair and level replaces the earlier one.
- **Keys.** :meth:`RulingStore.create_table` makes a random key, returns it once and keeps
  only its scrypt hash (``hashlib.scrypt``, random salt). Writing a table's rulings over the
  API needs that key (:meth:`RulingStore.check_key`). The :data:`DEFAULT_TABLE` and the
  tables ``kiekai play --table`` creates have no key: only local tools write them.
- **Bounds.** :data:`MAX_TABLE_RULINGS` rulings per table, :data:`MAX_TABLES` tables.
- **The old file.** On first open of the default store, an existing ``house-rules.tsv`` is
  imported once into the default table (a marker in ``kiekai_meta``). The TSV format stays
  for import and export (:mod:`kiekai.judge.house_rules`).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from kiekai.judge.house_rules import (
    ANY_LEVEL,
    DEFAULT_TABLE,
    MAX_RULED_BY_CHARS,
    MAX_TABLE_RULINGS,
    TABLE_NAME_PATTERN,
    HouseRules,
    HouseRulesError,
    HouseRuling,
    dump,
    parse_text,
    read_text,
)
from kiekai.judge.normalize import normalise

#: Most tables in one store.
MAX_TABLES = 100_000
#: How long a SQLite writer waits for another process's write, in seconds.
BUSY_TIMEOUT_S = 30.0
#: The schema version this code reads and writes (the newest Alembic revision).
HEAD_REVISION = "0001"
#: Environment variable naming the store's URL when none is given.
STORE_ENV = "KIEKAI_STORE"

_NAME = re.compile(TABLE_NAME_PATTERN)
# scrypt parameters: 16 MiB and about 50 ms per hash; the key itself is 192 random bits
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
_IN_CHUNK = 400  # more distinct words than this: read the table whole and filter here

_metadata = sa.MetaData()
tables_t = sa.Table(
    "kiekai_tables",
    _metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("key_hash", sa.String(200), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
rulings_t = sa.Table(
    "kiekai_rulings",
    _metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
    sa.Column("table_name", sa.String(64), sa.ForeignKey("kiekai_tables.name"), nullable=False),
    sa.Column("secret_key", sa.String(400), nullable=False),
    sa.Column("guess_key", sa.String(400), nullable=False),
    sa.Column("level", sa.String(8), nullable=False),
    sa.Column("secret", sa.String(400), nullable=False),
    sa.Column("guess", sa.String(400), nullable=False),
    sa.Column("accepted", sa.Boolean(), nullable=False),
    sa.Column("ruled_by", sa.String(80), nullable=True),
    sa.Column("ruled_at", sa.DateTime(timezone=True), nullable=False),
)
meta_t = sa.Table(
    "kiekai_meta",
    _metadata,
    sa.Column("key", sa.String(400), primary_key=True),
    sa.Column("value", sa.Text(), nullable=False),
)


class StoreError(ValueError):
    """A store request cannot be done; the message names the table and the fix.

    Attributes:
        code: a short machine-readable code (the API's ``error`` field).
        status: the HTTP status the API answers with.
    """

    code = "store-error"
    status = 422


class TableNameError(StoreError):
    """A table name does not match :data:`TABLE_NAME_PATTERN`."""

    code = "invalid-table-name"
    status = 422


class TableNotFoundError(StoreError):
    """No table of that name."""

    code = "table-not-found"
    status = 404


class TableExistsError(StoreError):
    """A table of that name exists already."""

    code = "table-exists"
    status = 409


class TableFullError(StoreError):
    """The table holds :data:`MAX_TABLE_RULINGS` rulings, or the store :data:`MAX_TABLES`."""

    code = "table-full"
    status = 409


class TableKeyError(StoreError):
    """A write came without the table's key (``status`` 401) or with a wrong one (403)."""

    code = "table-key-refused"
    status = 403

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


def check_table_name(name: str) -> str:
    """``name`` when it is a valid table name.

    Raises:
        TableNameError: it does not match :data:`TABLE_NAME_PATTERN`.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise TableNameError(
            f"table name {str(name)[:80]!r} is not valid; use 1 to 64 lowercase letters, "
            "digits, '-' or '_', starting with a letter or digit (e.g. 'friday-games')"
        )
    return name


def hash_key(key: str) -> str:
    """``key``'s salted scrypt hash, as ``scrypt$n$r$p$<salt>$<hash>`` (base64)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        key.encode("utf-8"), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32
    )
    b64 = base64.b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def key_matches(key: str, stored: str) -> bool:
    """Whether ``key`` hashes to ``stored`` (from :func:`hash_key`); constant-time compare."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(
            key.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=32,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


def default_url() -> str:
    """The default store: ``$KIEKAI_STORE`` when set, else a SQLite file beside the old
    house-rules file (``<user data dir>/house-rules.sqlite3``)."""
    env = os.environ.get(STORE_ENV, "").strip()
    if env:
        return env
    from kiekai.judge.house_rules import default_path

    return f"sqlite:///{default_path().with_name('house-rules.sqlite3')}"


def engine_url(url: str | os.PathLike[str]) -> sa.URL:
    """A store location as SQLAlchemy URL: ``sqlite:///PATH``, ``sqlite://`` (in memory),
    ``postgresql://...`` (driven by psycopg 3) or a plain file path (SQLite).

    Raises:
        StoreError: another kind of URL, naming the ones accepted.
    """
    text = os.fspath(url).strip()
    if "://" not in text:
        return sa.make_url(f"sqlite:///{Path(text).expanduser()}")
    try:
        parsed = sa.make_url(text)
    except sa.exc.ArgumentError:
        raise StoreError(f"store URL {text[:80]!r} cannot be read") from None
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        return parsed
    raise StoreError(
        f"store URL {parsed.render_as_string()!r} is not supported; give sqlite:///PATH, a "
        "file path, or postgresql://user:password@host:port/database"
    )


def _utc(when: datetime | None) -> datetime:
    """``when`` as an aware UTC time (SQLite returns naive ones; None: now)."""
    if when is None:
        return datetime.now(UTC)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _sqlite_engine(url: sa.URL) -> tuple[Engine, bool]:
    """A SQLite engine in WAL mode with a busy timeout; each write transaction starts with
    ``BEGIN IMMEDIATE`` (SQLAlchemy's pysqlite recipe), reads with a plain ``BEGIN``.
    Returns the engine and whether the database is in memory (one shared connection)."""
    memory = url.database in (None, "", ":memory:")
    if memory:
        engine = sa.create_engine(
            url, poolclass=sa.pool.StaticPool, connect_args={"check_same_thread": False}
        )
    else:
        Path(url.database or "").parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions begun below, not by pysqlite
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        if not memory:
            _enter_wal(cursor, url.database or "")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("kiekai_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine, memory


def _enter_wal(cursor: Any, database: str) -> None:
    """Put a SQLite file in WAL mode (a setting kept in the file), retrying while another
    process holds a lock, for at most :data:`BUSY_TIMEOUT_S` seconds.

    SQLite answers ``PRAGMA journal_mode = WAL`` with SQLITE_BUSY at once, without calling
    the busy handler, when another connection is changing the journal mode or writing the
    first schema (the upgrade from a shared lock would deadlock; sqlite.org "File Locking
    And Concurrency", section 5), so several processes opening a new store together need
    this retry.

    Raises:
        StoreError: still locked after :data:`BUSY_TIMEOUT_S` seconds, naming the file.
    """
    if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"the store {database!r} stayed locked by another process for "
                    f"{BUSY_TIMEOUT_S:.0f} s while it was being opened; close the other "
                    "kiekai processes using it, or point $KIEKAI_STORE at another file"
                ) from error
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _current_revision(conn: Connection) -> str | None:
    """The schema revision recorded in the store (None for a new store)."""
    if not sa.inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def migrate(engine: Engine) -> str | None:
    """Bring the store's schema to :data:`HEAD_REVISION` with Alembic (its migrations are
    in ``kiekai/judge/migrations/``), once across processes: the upgrade runs inside one
    write transaction (SQLite ``BEGIN IMMEDIATE``; PostgreSQL
    ``pg_advisory_xact_lock``), and a process that waited finds the schema current.

    Returns:
        the revision found before (None for a new store).
    """
    with engine.connect() as conn:
        before = _current_revision(conn)
    if before == HEAD_REVISION:
        return before
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    with engine.execution_options(kiekai_write=True).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(2026120217)"))
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
    return before


class RulingStore:
    """Every table's rulings in one database (module docstring: where, keys, bounds).

    Safe to use from several threads and processes; open it once per process
    (:func:`open_store`) and share it.

    Args:
        url: see :func:`engine_url` (default: :func:`default_url`).

    Raises:
        StoreError: the URL is not supported.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """

    def __init__(self, url: str | os.PathLike[str] | None = None) -> None:
        self.url = engine_url(url if url is not None else default_url())
        if self.url.get_backend_name() == "sqlite":
            self.engine, memory = _sqlite_engine(self.url)
        else:
            self.engine, memory = sa.create_engine(self.url, pool_pre_ping=True), False
        # one shared connection in memory: the store's own lock serialises its use
        self._lock: Any = threading.RLock() if memory else contextlib.nullcontext()
        self._writer = self.engine.execution_options(kiekai_write=True)
        self._verified: dict[tuple[str, str, str], bool] = {}
        with self._lock:
            migrate(self.engine)
            self.ensure_table(DEFAULT_TABLE)

    def __repr__(self) -> str:
        return f"RulingStore({self.display_url!r})"

    @property
    def display_url(self) -> str:
        """The store's URL with any password hidden."""
        return self.url.render_as_string(hide_password=True)

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.engine.dialect.name

    def close(self) -> None:
        """Close the store's connections."""
        self.engine.dispose()

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._lock, self.engine.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._lock, self._writer.begin() as conn:
            yield conn

    # ------------------------------------------------------------------ tables

    def _table_row(self, conn: Connection, name: str, *, lock: bool = False) -> Any:
        query = sa.select(tables_t).where(tables_t.c.name == name)
        if lock and conn.dialect.name == "postgresql":
            query = query.with_for_update()
        row = conn.execute(query).first()
        if row is None:
            raise TableNotFoundError(
                f"no table named {name!r}; create it with POST /v1/tables (kiekai play "
                "--table creates its own)"
            )
        return row

    def has_table(self, name: str) -> bool:
        """Whether a table named ``name`` exists."""
        with self._read() as conn:
            query = sa.select(tables_t.c.name).where(tables_t.c.name == name)
            return conn.execute(query).first() is not None

    def create_table(self, name: str) -> str:
        """Create table ``name`` and return its key (shown once; only its hash is kept).

        Raises:
            TableNameError: the name is not valid.
            TableExistsError: the table exists.
            TableFullError: the store holds :data:`MAX_TABLES` tables.
        """
        check_table_name(name)
        key = "kt_" + secrets.token_urlsafe(24)
        self._insert_table(name, hash_key(key))
        return key

    def ensure_table(self, name: str) -> bool:
        """Create table ``name`` without a key when missing (the default table, a local
        game's table). Returns whether it was created.

        Raises:
            TableNameError: the name is not valid.
        """
        check_table_name(name)
        try:
            self._insert_table(name, None)
        except TableExistsError:
            return False
        return True

    def _insert_table(self, name: str, key_hash: str | None) -> None:
        with self._write() as conn:
            exists = conn.execute(sa.select(tables_t.c.name).where(tables_t.c.name == name))
            if exists.first() is not None:
                raise TableExistsError(
                    f"a table named {name!r} exists already; choose another name"
                )
            count = conn.execute(sa.select(sa.func.count()).select_from(tables_t)).scalar_one()
            if count >= MAX_TABLES:
                raise TableFullError(f"the store holds {MAX_TABLES} tables; no more can be made")
            insert = _dialect_insert(conn)(tables_t).values(
                name=name, key_hash=key_hash, created_at=datetime.now(UTC)
            )
            result = conn.execute(insert.on_conflict_do_nothing(index_elements=["name"]))
            if result.rowcount == 0:  # made meanwhile by another process (PostgreSQL)
                raise TableExistsError(
                    f"a table named {name!r} exists already; choose another name"
                )

    def check_key(self, name: str, key: str | None) -> None:
        """Allow a write to table ``name`` with ``key``, or refuse it.

        A key once verified in this process is remembered (by its SHA-256) so that a
        client's writes do not each pay for scrypt.

        Raises:
            TableNotFoundError: no such table.
            TableKeyError: no key given (status 401), the table has no key, or the key is
                wrong (403).
        """
        with self._read() as conn:
            stored = self._table_row(conn, name).key_hash
        if not key:
            raise TableKeyError(
                f"writing table {name!r} needs its key: send 'Authorization: Bearer <key>' "
                "or 'X-Table-Key: <key>' (the key POST /v1/tables returned)",
                status=401,
            )
        if stored is None:
            raise TableKeyError(
                f"table {name!r} has no key, so it cannot be written over the API (its "
                "rulings come from kiekai play and --house-rules); create a table of your "
                "own with POST /v1/tables"
            )
        memo = (name, stored, hashlib.sha256(key.encode("utf-8")).hexdigest())
        if self._verified.get(memo):
            return
        if not key_matches(key, stored):
            raise TableKeyError(f"the key is not the key of table {name!r}")
        if len(self._verified) > 4096:
            self._verified.clear()
        self._verified[memo] = True

    # ----------------------------------------------------------------- rulings

    def add_ruling(self, table: str, ruling: HouseRuling) -> HouseRuling:
        """Record ``ruling`` in ``table`` (replacing one on the same pair and level); its
        ``ruled_at`` is now when not given. Returns the ruling as stored.

        Raises:
            TableNotFoundError: no such table.
            TableFullError: the table holds :data:`MAX_TABLE_RULINGS` other rulings.
        """
        return self.add_rulings(table, [ruling])[0]

    def add_rulings(self, table: str, rulings: Sequence[HouseRuling]) -> list[HouseRuling]:
        """Record several rulings in one transaction (see :meth:`add_ruling`); a later one
        on the same pair and level replaces an earlier one."""
        stored = [replace(r, ruled_at=_utc(r.ruled_at), source=None) for r in rulings]
        with self._write() as conn:
            self._table_row(conn, table, lock=True)
            self._insert_rulings(conn, table, stored)
        return stored

    def _insert_rulings(self, conn: Connection, table: str, rulings: Sequence[HouseRuling]) -> None:
        if not rulings:
            return
        count = self._count(conn, table)
        rows = {}
        for r in rulings:
            secret_key, guess_key = r.key
            rows[(secret_key, guess_key, r.level)] = {
                "table_name": table,
                "secret_key": secret_key,
                "guess_key": guess_key,
                "level": r.level,
                "secret": r.secret,
                "guess": r.guess,
                "accepted": r.accepted,
                "ruled_by": r.ruled_by,
                "ruled_at": r.ruled_at,
            }
        if count + len(rows) > MAX_TABLE_RULINGS:
            new = [k for k in rows if not self._exists(conn, table, k)]
            if count + len(new) > MAX_TABLE_RULINGS:
                raise TableFullError(
                    f"table {table!r} holds {count} rulings and may hold at most "
                    f"{MAX_TABLE_RULINGS}; remove some (DELETE /v1/tables/{table}/rulings)"
                )
        insert = _dialect_insert(conn)(rulings_t)
        upsert = insert.on_conflict_do_update(
            index_elements=["table_name", "secret_key", "guess_key", "level"],
            set_={
                c: insert.excluded[c]
                for c in ("secret", "guess", "accepted", "ruled_by", "ruled_at")
            },
        )
        conn.execute(upsert, list(rows.values()))

    def _exists(self, conn: Connection, table: str, key: tuple[str, str, str]) -> bool:
        c = rulings_t.c
        query = sa.select(c.id).where(
            c.table_name == table, c.secret_key == key[0], c.guess_key == key[1], c.level == key[2]
        )
        return conn.execute(query).first() is not None

    def _count(self, conn: Connection, table: str) -> int:
        query = sa.select(sa.func.count()).where(rulings_t.c.table_name == table)
        return int(conn.execute(query).scalar_one())

    def remove_ruling(self, table: str, secret: str, guess: str, level: str | None = None) -> int:
        """Remove ``table``'s rulings on the pair (this order only) at ``level`` (None: at
        every level). Returns how many were removed.

        Raises:
            TableNotFoundError: no such table.
        """
        c = rulings_t.c
        a, b = normalise(secret), normalise(guess)
        where = [c.table_name == table, c.secret_key == a, c.guess_key == b]
        if level is not None:
            where.append(c.level == level)
        with self._write() as conn:
            self._table_row(conn, table, lock=True)
            return int(conn.execute(sa.delete(rulings_t).where(*where)).rowcount)

    def count(self, table: str) -> int:
        """How many rulings ``table`` holds (0 for a table that does not exist)."""
        with self._read() as conn:
            return self._count(conn, table)

    def rulings(
        self, table: str, *, limit: int | None = None, offset: int = 0
    ) -> list[HouseRuling]:
        """``table``'s rulings in the order they were first made, from ``offset``, at most
        ``limit`` (None: all).

        Raises:
            TableNotFoundError: no such table.
        """
        query = (
            sa.select(rulings_t)
            .where(rulings_t.c.table_name == table)
            .order_by(rulings_t.c.id)
            .offset(offset)
            .limit(limit)
        )
        with self._read() as conn:
            self._table_row(conn, table)
            return [_ruling(row) for row in conn.execute(query)]

    def lookup(self, table: str, secret: str, guess: str, level: str) -> HouseRuling | None:
        """``table``'s ruling that decides ``guess`` for ``secret`` at ``level`` (the
        order of :meth:`HouseRules.lookup`), or None."""
        a, b = normalise(secret), normalise(guess)
        if not a or not b:
            return None
        return self.rules_for(table, [a, b]).lookup(a, b, level)

    def rules_for(self, table: str, words: Iterable[str]) -> HouseRules:
        """``table``'s rulings between any two of ``words`` (both orders, every level) as
        an in-memory :class:`HouseRules`, each ruling's ``source`` naming the table; empty
        for a table that does not exist. One query per request: the judge then looks up
        pairs in memory."""
        keys = sorted({k for k in (normalise(w) for w in words if isinstance(w, str)) if k})
        rules = HouseRules(label=_label(table))
        if not keys:
            return rules
        c = rulings_t.c
        query = sa.select(rulings_t).where(c.table_name == table)
        if len(keys) <= _IN_CHUNK:
            query = query.where(c.secret_key.in_(keys), c.guess_key.in_(keys))
        with self._read() as conn:
            rows = list(conn.execute(query.order_by(c.id)))
        wanted = set(keys)
        for row in rows:
            if row.secret_key in wanted and row.guess_key in wanted:
                rules._put(replace(_ruling(row), source=_label(table)))
        return rules

    # ----------------------------------------------------------- import, export

    def import_tsv(
        self,
        table: str,
        path: str | os.PathLike[str],
        *,
        once: bool = False,
        warn: Callable[[str], None] | None = None,
    ) -> int | None:
        """Read a house-rules file into ``table`` (created without a key when missing).

        Args:
            once: import the file only if it was not imported before (a marker naming its
                resolved path is kept in the store, set in the same transaction); a missing
                file then imports nothing and sets no marker.
            warn: told about lines left out (a torn last line).

        Returns:
            the number of rulings read, or None when ``once`` and already imported (or the
            file is missing).

        Raises:
            HouseRulesError: the file is malformed (naming the line); nothing is imported.
            TableFullError: the rulings do not fit in the table.
        """
        p = Path(path)
        marker = f"imported-tsv:{table}:{p.expanduser().resolve()}"
        if once and (self._marker(marker) is not None or not p.exists()):
            return None
        rulings = parse_text(read_text(p), source=str(p), warn=warn)
        self.ensure_table(table)
        stamped = [replace(r, ruled_at=_utc(r.ruled_at)) for r in rulings]
        with self._write() as conn:
            if once:
                insert = _dialect_insert(conn)(meta_t).values(
                    key=marker, value=datetime.now(UTC).isoformat()
                )
                done = conn.execute(insert.on_conflict_do_nothing(index_elements=["key"]))
                if done.rowcount == 0:  # another process imported it meanwhile
                    return None
            self._table_row(conn, table, lock=True)
            self._insert_rulings(conn, table, stamped)
        return len(rulings)

    def _marker(self, key: str) -> str | None:
        with self._read() as conn:
            return conn.execute(sa.select(meta_t.c.value).where(meta_t.c.key == key)).scalar()

    def export_tsv(self, table: str) -> str:
        """``table``'s rulings as the text of a house-rules file (with ``ruled_by`` and
        ``ruled_at``), readable by :meth:`import_tsv` and ``--house-rules``."""
        return dump(self.rulings(table))

    def table_rules(self, table: str) -> StoreTableRules:
        """``table``'s rulings as a live :class:`HouseRules` for a judge and a game (see
        :class:`StoreTableRules`)."""
        return StoreTableRules(self, table)


def _label(table: str) -> str:
    return f"house rule of table {table!r}"


def _ruling(row: Any) -> HouseRuling:
    return HouseRuling(
        row.secret,
        row.guess,
        bool(row.accepted),
        row.level,
        ruled_by=row.ruled_by,
        ruled_at=_utc(row.ruled_at),
    )


def _dialect_insert(conn: Connection) -> Any:
    """The ``insert`` of the connection's dialect (it has ``on_conflict_do_update``)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


class StoreTableRules(HouseRules):
    """One table of a :class:`RulingStore` behind the judge's house-rules seam: what
    :class:`kiekai.judge.Judge` (``house_rules=``) and the game runner (``add``) use.

    Every :meth:`lookup` reads the store, so a ruling written by another process (another
    server worker, another game at the same table) holds from the next verdict on; every
    :meth:`add` writes it at once. ``path`` is None.
    """

    def __init__(self, store: RulingStore, table: str) -> None:
        super().__init__(label=_label(table))
        self.store = store
        self.table = check_table_name(table)

    def __repr__(self) -> str:
        return f"StoreTableRules(table={self.table!r}, store={self.store.display_url!r})"

    def __len__(self) -> int:
        return self.store.count(self.table)

    def __iter__(self) -> Iterator[HouseRuling]:
        return iter(self.store.rulings(self.table))

    def ruled_by(self, ruling: HouseRuling) -> str | None:
        """Who made the table's ruling on ``ruling``'s pair and level, or ``None``."""
        c = rulings_t.c
        secret, guess = ruling.key
        query = sa.select(c.ruled_by).where(
            c.table_name == self.table,
            c.secret_key == secret,
            c.guess_key == guess,
            c.level == ruling.level,
        )
        with self.store._read() as conn:
            return conn.execute(query).scalar()

    def lookup(self, secret: str, guess: str, level: str) -> HouseRuling | None:
        """The table's ruling for the pair at ``level`` (order as :meth:`HouseRules.lookup`)."""
        found = self.store.lookup(self.table, secret, guess, level)
        return None if found is None else replace(found, source=self.where)

    def add(self, ruling: HouseRuling, *, ruled_by: str | None = None) -> None:
        """Write ``ruling`` to the table now; ``ruled_by`` (who made it) replaces
        ``ruling.ruled_by`` when given.

        Raises:
            HouseRulesError: the table is full or gone (the message says which).
        """
        if ruled_by:
            ruling = replace(ruling, ruled_by=" ".join(ruled_by.split())[:MAX_RULED_BY_CHARS])
        try:
            self.store.add_ruling(self.table, ruling)
        except StoreError as exc:
            raise HouseRulesError(str(exc)) from None


def open_store(
    url: str | os.PathLike[str] | None = None,
    *,
    import_legacy: bool | None = None,
    warn: Callable[[str], None] | None = None,
) -> RulingStore:
    """Open (creating and migrating when needed) the store at ``url``.

    Args:
        url: see :func:`engine_url`; None: :func:`default_url`.
        import_legacy: import the user's old ``house-rules.tsv``
            (:func:`kiekai.judge.house_rules.default_path`) into the default table, once;
            default: only when ``url`` is None and ``$KIEKAI_STORE`` is unset (the
            user's own store).
        warn: told about lines of that file left out.

    Raises:
        StoreError: the URL is not supported.
        HouseRulesError: the old file is malformed (nothing is imported; the next open
            tries again).
        sqlalchemy.exc.SQLAlchemyError: the database cannot be reached or read.
    """
    if import_legacy is None:
        import_legacy = url is None and not os.environ.get(STORE_ENV, "").strip()
    store = RulingStore(url)
    if import_legacy:
        from kiekai.judge.house_rules import default_path

        store.import_tsv(DEFAULT_TABLE, default_path(), once=True, warn=warn)
    return store


__all__ = [
    "ANY_LEVEL",
    "BUSY_TIMEOUT_S",
    "DEFAULT_TABLE",
    "HEAD_REVISION",
    "MAX_TABLES",
    "MAX_TABLE_RULINGS",
    "RulingStore",
    "STORE_ENV",
    "StoreError",
    "StoreTableRules",
    "TABLE_NAME_PATTERN",
    "TableExistsError",
    "TableFullError",
    "TableKeyError",
    "TableNameError",
    "TableNotFoundError",
    "check_table_name",
    "default_url",
    "engine_url",
    "migrate",
    "open_store",
]
