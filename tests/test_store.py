"""The rulings store (kiekai.judge.store): tables, keys, concurrent writers, the old TSV file,
and the judge API's table routes, against a real SQLite file and a real PostgreSQL server.

The PostgreSQL server is Debian's (``/usr/lib/postgresql/*/bin``), started once per test
session in a temporary folder on a free port (as the ``postgres`` user when running as
root: initdb refuses root) and stopped at the end. Without those binaries the PostgreSQL
cases skip with the reason, except under CI=true, where they fail (``.ci/run`` installs
``postgresql``).
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from kiekai.judge.house_rules import HouseRules, HouseRuling, parse_text
from kiekai.judge.store import (
    DEFAULT_TABLE,
    HEAD_REVISION,
    RulingStore,
    StoreError,
    TableExistsError,
    TableFullError,
    TableKeyError,
    TableNameError,
    TableNotFoundError,
    open_store,
)

IN_CI = os.environ.get("CI", "").lower() == "true"


# ----------------------------------------------------------------- a real PostgreSQL


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """``postgresql://postgres@127.0.0.1:PORT/postgres`` of a throwaway cluster."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        message = (
            "PostgreSQL's server binaries (/usr/lib/postgresql/*/bin/initdb) are not installed "
            "(apt-get install postgresql)"
        )
        if IN_CI:
            pytest.fail(message + " and CI=true requires them")
        pytest.skip(message)
    bin_dir = Path(found[-1]).parent
    root = Path(tempfile.mkdtemp(prefix="kiekai-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to 'postgres'
        shutil.chown(root, "postgres", "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", _free_port()

    def run(*args: str) -> None:
        done = subprocess.run(
            [*run_as, *args], capture_output=True, text=True, timeout=180, cwd=root
        )
        if done.returncode != 0:
            pytest.fail(f"{args[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
        "--no-sync")  # fmt: skip
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "server.log"), "-w",
        "-t", "120", "-o", options, "start")  # fmt: skip
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*run_as, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"],
            capture_output=True,
            timeout=120,
            cwd=root,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture()
def pg_database(postgres_url: str) -> Iterator[str]:
    """A fresh database of the session's cluster, dropped after the test."""
    import psycopg

    name = f"kiekai_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield postgres_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty store: a SQLite file, or a database of the real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    return request.getfixturevalue("pg_database")


@pytest.fixture()
def store(store_url: str) -> Iterator[RulingStore]:
    opened = RulingStore(store_url)
    try:
        yield opened
    finally:
        opened.close()


# ------------------------------------------------------------------------ the store


def test_a_new_store_is_migrated_to_head_with_a_default_table(store: RulingStore) -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import kiekai.judge.store as module

    config = Config()
    config.set_main_option("script_location", str(Path(module.__file__).with_name("migrations")))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD_REVISION
    with store.engine.connect() as conn:
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    assert version == HEAD_REVISION
    assert store.has_table(DEFAULT_TABLE) and store.count(DEFAULT_TABLE) == 0
    again = RulingStore(
        store.url.render_as_string(hide_password=False)
    )  # reopening migrates nothing
    assert again.has_table(DEFAULT_TABLE)
    again.close()


def test_two_tables_never_mix(store: RulingStore) -> None:
    store.create_table("cafe")
    store.create_table("club")
    store.add_ruling("cafe", HouseRuling("sofa", "couch", False, "*", ruled_by="Ann"))
    store.add_ruling("club", HouseRuling("sofa", "couch", True, "standard", ruled_by="Bo"))
    store.add_ruling("club", HouseRuling("dog", "cat", True, "*"))
    cafe = store.rules_for("cafe", ["sofa", "couch", "dog", "cat"])
    club = store.rules_for("club", ["sofa", "couch", "dog", "cat"])
    assert cafe.lookup("sofa", "couch", "standard").accepted is False
    assert club.lookup("couch", "Sofa", "standard").accepted is True  # both orders
    assert cafe.lookup("dog", "cat", "standard") is None
    assert club.lookup("dog", "cat", "lenient").accepted is True
    assert "table 'club'" in club.lookup("dog", "cat", "strict").source
    assert [r.ruled_by for r in store.rulings("cafe")] == ["Ann"]
    assert {(r.secret, r.guess, r.ruled_by) for r in store.rulings("club")} == {
        ("sofa", "couch", "Bo"),
        ("dog", "cat", None),
    }
    assert store.count(DEFAULT_TABLE) == 0
    assert store.remove_ruling("cafe", "sofa", "couch") == 1
    assert store.count("cafe") == 0 and store.count("club") == 2  # the other table kept its own
    # a later ruling on the same pair and level replaces the earlier one, in that table only
    store.add_ruling("club", HouseRuling("dog", "cat", False, "*", ruled_by="Cy"))
    assert store.count("club") == 2 and store.lookup("club", "cat", "dog", "*").accepted is False
    assert store.rules_for("nope", ["dog", "cat"]).lookup("dog", "cat", "*") is None


def test_keys_are_returned_once_stored_hashed_and_needed(store: RulingStore) -> None:
    key = store.create_table("cafe")
    other = store.create_table("club")
    with store.engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT key_hash FROM kiekai_tables WHERE name = 'cafe'"))
        hashed = stored.scalar()
    assert key.startswith("kt_") and len(key) > 30
    assert hashed.startswith("scrypt$") and key not in hashed
    store.check_key("cafe", key)
    with pytest.raises(TableKeyError) as no_key:
        store.check_key("cafe", None)
    assert no_key.value.status == 401 and "Authorization: Bearer" in str(no_key.value)
    with pytest.raises(TableKeyError) as wrong:
        store.check_key("cafe", other)  # another table's key
    assert wrong.value.status == 403
    with pytest.raises(TableKeyError, match="has no key"):
        store.check_key(DEFAULT_TABLE, key)
    with pytest.raises(TableNotFoundError):
        store.check_key("nope", key)
    with pytest.raises(TableExistsError):
        store.create_table("cafe")
    for bad in ("", "Cafe", "-x", "a" * 65, "tab le", "café"):
        with pytest.raises(TableNameError, match="lowercase"):
            store.create_table(bad)


def test_a_table_holds_a_bounded_number_of_rulings(store: RulingStore, monkeypatch) -> None:
    import kiekai.judge.store as module

    monkeypatch.setattr(module, "MAX_TABLE_RULINGS", 3)
    store.create_table("small")
    for word in ("a1", "a2", "a3"):
        store.add_ruling("small", HouseRuling("x", word, True))
    store.add_ruling("small", HouseRuling("x", "a3", False))  # replacing one is allowed
    with pytest.raises(TableFullError, match="at most 3"):
        store.add_ruling("small", HouseRuling("x", "a4", True))
    assert store.count("small") == 3
    with pytest.raises(TableNotFoundError):
        store.add_ruling("nope", HouseRuling("x", "y", True))


WRITES_PER_PROCESS = 1000


def _write_many(url: str, worker: int, start: object) -> None:
    """One writer process: 1,000 rulings, one transaction each, after ``start`` is set."""
    store = RulingStore(url)
    start.wait()  # type: ignore[attr-defined]
    for i in range(WRITES_PER_PROCESS):
        store.add_ruling("shared", HouseRuling(f"w{worker}", f"g{i}", i % 2 == 0, "*"))
    store.close()


def test_three_processes_writing_at_once_lose_nothing(store: RulingStore, store_url: str) -> None:
    """3 processes x 1,000 writes to one table, at the same time: every ruling reads back."""
    store.create_table("shared")
    context = multiprocessing.get_context("fork")  # the children open their own store
    start = context.Event()
    writers = [context.Process(target=_write_many, args=(store_url, w, start)) for w in range(3)]
    for process in writers:
        process.start()
    time.sleep(0.5)  # all three connected and waiting
    start.set()
    for process in writers:
        process.join(timeout=600)
    assert [p.exitcode for p in writers] == [0, 0, 0]
    rulings = store.rulings("shared")
    assert len(rulings) == store.count("shared") == 3 * WRITES_PER_PROCESS
    assert {(r.secret, r.guess) for r in rulings} == {
        (f"w{w}", f"g{i}") for w in range(3) for i in range(WRITES_PER_PROCESS)
    }
    assert all(r.accepted == (int(r.guess[1:]) % 2 == 0) for r in rulings)


def _open_new(url: str, worker: int, start: object) -> None:
    """One process opening a store that does not exist yet, then writing to it."""
    start.wait()  # type: ignore[attr-defined]
    store = RulingStore(url)
    store.ensure_table("new")
    store.add_ruling("new", HouseRuling(f"p{worker}", "x", True))
    store.close()


def test_processes_opening_a_new_store_at_once_migrate_it_once(store_url: str) -> None:
    context = multiprocessing.get_context("fork")
    start = context.Event()
    openers = [context.Process(target=_open_new, args=(store_url, w, start)) for w in range(3)]
    for process in openers:
        process.start()
    start.set()
    for process in openers:
        process.join(timeout=300)
    assert [p.exitcode for p in openers] == [0, 0, 0]
    store = RulingStore(store_url)
    assert sorted(r.secret for r in store.rulings("new")) == ["p0", "p1", "p2"]
    with store.engine.connect() as conn:
        versions = conn.execute(sa.text("SELECT version_num FROM alembic_version")).all()
    assert [v[0] for v in versions] == [HEAD_REVISION]
    store.close()


def _lock_new_sqlite_file(path: Path) -> sqlite3.Connection:
    """A plain (rollback-journal) SQLite file with a write transaction held open: the
    state in which ``PRAGMA journal_mode = WAL`` is refused at once, busy timeout or not."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE held (x)")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO held VALUES (1)")
    return holder


def test_a_store_opened_while_another_process_holds_the_file_waits_for_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.sqlite3"
    holder = _lock_new_sqlite_file(path)
    release = threading.Timer(0.3, holder.commit)
    release.start()
    try:
        store = RulingStore(f"sqlite:///{path}")
    finally:
        release.join()
        holder.close()
    store.ensure_table("late")
    store.add_ruling("late", HouseRuling("sofa", "couch", True))
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert [r.guess for r in store.rulings("late")] == ["couch"]
    store.close()


def test_a_store_locked_past_the_busy_timeout_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite3"
    holder = _lock_new_sqlite_file(path)
    monkeypatch.setattr("kiekai.judge.store.BUSY_TIMEOUT_S", 0.2)
    try:
        with pytest.raises(StoreError, match="store.sqlite3.*stayed locked.*KIEKAI_STORE"):
            RulingStore(f"sqlite:///{path}")
    finally:
        holder.close()
    monkeypatch.undo()
    store = RulingStore(f"sqlite:///{path}")  # once the other process is gone it opens
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM held").scalar() == 0
    store.close()


# ------------------------------------------------------------------- the TSV file

TSV = (
    "\ufeff# our table\n"
    "secret\tguess\taccepted\tlevel\n"
    "sofa\tcouch\tno\tstandard\n"
    "dog\tcat\tyes\t*\n"
    "tree\toak\tye"  # torn: the writer stopped mid-line
)


def test_a_torn_last_line_loads_the_rest_with_a_warning_and_a_bom_is_accepted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "house-rules.tsv"
    path.write_text(TSV, encoding="utf-8")
    warned: list[str] = []
    rules = HouseRules.load(path, warn=warned.append)
    assert len(rules) == 2 and rules.lookup("cat", "dog", "strict").accepted is True
    assert len(warned) == 1 and "line 5" in warned[0] and "cut short" in warned[0]
    with pytest.warns(UserWarning, match="line 5"):
        HouseRules.load(path)
    # the same line torn in the middle of the file is an error, not a warning
    path.write_text(TSV + "\nsun\tstar\tyes\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 5: accepted must be yes or no"):
        HouseRules.load(path)
    # a last line without a line break that reads is kept (files written by hand)
    assert len(parse_text("sofa\tcouch\tyes")) == 1


def test_written_words_that_look_like_comments_read_back(tmp_path: Path) -> None:
    path = tmp_path / "rules.tsv"
    rules = HouseRules(path=path)
    rules.add(HouseRuling("#hashtag", "tag", True, "lenient", ruled_by="Ann"))
    rules.add(HouseRuling("quote", 'say "hi"', False, "*"))
    again = HouseRules.load(path)
    assert again.lookup("#hashtag", "tag", "lenient").accepted is True
    assert again.lookup("quote", 'say "hi"', "strict").accepted is False
    assert [r.ruled_by for r in again] == ["Ann", None]
    assert '"#hashtag"\ttag' in path.read_text(encoding="utf-8")


def test_old_files_without_the_new_columns_still_read() -> None:
    rulings = parse_text("sofa\tcouch\tyes\ndog\tcat\tno\tlenient\nx\ty\tyes\t*\tAnn\n")
    assert [(r.level, r.ruled_by) for r in rulings] == [
        ("standard", None),
        ("lenient", None),
        ("*", "Ann"),
    ]


def test_an_existing_house_rules_file_is_imported_once(
    store_url: str, tmp_path: Path, monkeypatch
) -> None:
    import kiekai.judge.house_rules as house_rules

    legacy = tmp_path / "house-rules.tsv"
    legacy.write_text(TSV, encoding="utf-8")
    monkeypatch.setattr(house_rules, "default_path", lambda: legacy)
    warned: list[str] = []
    first = open_store(store_url, import_legacy=True, warn=warned.append)
    assert first.count(DEFAULT_TABLE) == 2 and "line 5" in warned[0]
    assert first.lookup(DEFAULT_TABLE, "couch", "sofa", "standard").accepted is False
    first.remove_ruling(DEFAULT_TABLE, "dog", "cat")  # the table moves on ...
    legacy.write_text(TSV.replace("tree\toak\tye", "sun\tstar\tyes\n"), encoding="utf-8")
    first.close()
    second = open_store(store_url, import_legacy=True)  # ... and the file is not read again
    assert second.count(DEFAULT_TABLE) == 1
    assert second.lookup(DEFAULT_TABLE, "sun", "star", "standard") is None
    # export writes a file that imports back, with who ruled
    second.add_ruling(DEFAULT_TABLE, HouseRuling("#x", "y", True, "*", ruled_by="Ann"))
    exported = tmp_path / "export.tsv"
    exported.write_text(second.export_tsv(DEFAULT_TABLE), encoding="utf-8")
    assert second.import_tsv("copy", exported) == 2
    assert {(r.secret, r.ruled_by) for r in second.rulings("copy")} == {
        ("sofa", None),
        ("#x", "Ann"),
    }
    second.close()


def test_a_table_of_the_store_is_the_judges_house_rules(store: RulingStore) -> None:
    """The judge reads a store table through its house-rules seam (``house_rules=``), and
    a ruling written by another handle on the same store holds from the next verdict."""
    from kiekai.judge import Judge

    store.ensure_table("home")
    rules = store.table_rules("home")
    judge = Judge("standard", house_rules=rules, lexicon=None)
    assert not judge.match("dog", "cat").accepted
    other = RulingStore(store.url.render_as_string(hide_password=False))  # another process
    other.add_ruling("home", HouseRuling("cat", "dog", True, "standard", ruled_by="Ann"))
    other.close()
    verdict = judge.match("dog", "cat")
    assert verdict.accepted and verdict.relation == "house-rule"
    assert "table 'home'" in verdict.reason
    assert judge.is_repeat("cat", ["sky", "dog"]).matched == "dog"
    rules.add(HouseRuling("sofa", "couch", False, "standard"))  # the game's runner saves
    assert not judge.match("sofa", "couch").accepted and len(rules) == 2


# ------------------------------------------------------------------------- the API


@pytest.fixture(scope="module")
def judges():
    from kiekai.judge import Judge, Strictness

    return {level: Judge(level, lexicon=None) for level in Strictness}


@pytest.fixture()
def api(judges, store: RulingStore):
    from fastapi.testclient import TestClient

    from kiekai.judge.server import create_app

    with TestClient(create_app(judges, store=store)) as client:
        yield client


def test_api_tables_apply_their_own_rulings(api, judges, store: RulingStore) -> None:
    made = api.post("/v1/tables", json={"name": "cafe"})
    assert made.status_code == 201 and made.json()["name"] == "cafe"
    key = made.json()["key"]
    club_key = api.post("/v1/tables", json={"name": "club"}).json()["key"]
    ruling = {"secret": "dog", "guess": "cat", "accepted": True, "level": "*", "ruled_by": "Ann"}
    added = api.post("/v1/tables/cafe/rulings", json=ruling, headers={"X-Table-Key": key})
    assert added.status_code == 201, added.text
    assert added.json()["ruled_by"] == "Ann" and added.json()["ruled_at"]
    body = {"secret": "dog", "guess": "cat"}
    assert api.post("/v1/judge", json=body).json()["accepted"] is False  # default table
    v = api.post("/v1/judge", json={**body, "table": "cafe"}).json()
    assert v["accepted"] is True and v["relation"] == "house-rule" and "table 'cafe'" in v["reason"]
    assert v["details"]["ruled_by"] == "Ann" and v["details"]["house_rule"].endswith("'cafe'")
    assert api.post("/v1/judge", json={**body, "table": "club"}).json()["accepted"] is False
    batch = api.post(
        "/v1/judge/batch",
        json={"pairs": [body, {"secret": "mice", "guess": "mouse"}], "table": "cafe"},
    ).json()
    assert [a["relation"] for a in batch] == ["house-rule", "same-lemma"]
    repeat = api.post("/v1/repeat", json={"candidate": "cat", "used": ["dog"], "table": "cafe"})
    assert repeat.json()["accepted"] is True and repeat.json()["matched"] == "dog"
    # the request's own rulings come before the table's
    mine = [{"secret": "dog", "guess": "cat", "accepted": False}]
    v = api.post("/v1/judge", json={**body, "table": "cafe", "house_rules": mine}).json()
    assert v["accepted"] is False and "sent with this request" in v["reason"]
    # a second front end on the same store (another worker) applies the ruling too
    from fastapi.testclient import TestClient

    from kiekai.judge.server import create_app

    # (given the store's URL, the app opens its own connections, as a worker process must)
    url = store.url.render_as_string(hide_password=False)
    with TestClient(create_app(judges, store=url)) as other:
        assert other.post("/v1/judge", json={**body, "table": "cafe"}).json()["accepted"]
        bearer = {"Authorization": f"Bearer {club_key}"}
        r = other.post("/v1/tables/club/rulings", json=ruling, headers=bearer)
        assert r.status_code == 201
    assert api.post("/v1/judge", json={**body, "table": "club"}).json()["accepted"] is True
    removed = api.delete(
        "/v1/tables/cafe/rulings",
        params={"secret": "dog", "guess": "cat"},
        headers={"X-Table-Key": key},
    )
    assert removed.json() == {"table": "cafe", "removed": 1}
    assert api.post("/v1/judge", json={**body, "table": "cafe"}).json()["accepted"] is False


def test_api_writes_need_the_tables_key(api) -> None:
    key = api.post("/v1/tables", json={"name": "cafe"}).json()["key"]
    other = api.post("/v1/tables", json={"name": "club"}).json()["key"]
    ruling = {"secret": "dog", "guess": "cat", "accepted": True}
    none = api.post("/v1/tables/cafe/rulings", json=ruling)
    assert none.status_code == 401 and none.json()["error"] == "table-key-refused"
    assert none.headers["www-authenticate"] == "Bearer"
    wrong = api.post("/v1/tables/cafe/rulings", json=ruling, headers={"X-Table-Key": other})
    assert wrong.status_code == 403 and "not the key" in wrong.json()["message"]
    delete = api.delete(
        "/v1/tables/cafe/rulings",
        params={"secret": "dog", "guess": "cat"},
        headers={"Authorization": "Bearer kt_guess"},
    )
    assert delete.status_code == 403
    default = api.post("/v1/tables/default/rulings", json=ruling, headers={"X-Table-Key": key})
    assert default.status_code == 403 and "has no key" in default.json()["message"]
    assert api.get("/v1/tables/cafe/rulings").json()["total"] == 0  # nothing was written
    missing = api.post("/v1/tables/nope/rulings", json=ruling, headers={"X-Table-Key": key})
    assert missing.status_code == 404 and missing.json()["error"] == "table-not-found"
    taken = api.post("/v1/tables", json={"name": "cafe"})
    assert taken.status_code == 409 and taken.json()["error"] == "table-exists"


def test_api_validates_and_pages(api) -> None:
    bad = api.post("/v1/tables", json={"name": "Not OK"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "body.name"
    assert (
        api.post("/v1/judge", json={"secret": "a", "guess": "b", "table": "A!"}).status_code == 422
    )
    unknown = api.post("/v1/judge", json={"secret": "a", "guess": "b", "table": "nope"})
    assert unknown.status_code == 404 and unknown.json()["error"] == "table-not-found"
    key = api.post("/v1/tables", json={"name": "cafe"}).json()["key"]
    for word in ("a", "b", "c"):
        ruling = {"secret": "x", "guess": word, "accepted": True, "level": "lenient"}
        assert (
            api.post(
                "/v1/tables/cafe/rulings", json=ruling, headers={"X-Table-Key": key}
            ).status_code
            == 201
        )
    long_name = {"secret": "x", "guess": "y", "accepted": True, "ruled_by": "n" * 81}
    r = api.post("/v1/tables/cafe/rulings", json=long_name, headers={"X-Table-Key": key})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "body.ruled_by"
    page = api.get("/v1/tables/cafe/rulings", params={"limit": 2}).json()
    assert page["total"] == 3 and [r["guess"] for r in page["rulings"]] == ["a", "b"]
    assert page["next_offset"] == 2
    rest = api.get("/v1/tables/cafe/rulings", params={"offset": 2, "limit": 2}).json()
    assert [r["guess"] for r in rest["rulings"]] == ["c"] and rest["next_offset"] is None
    exported = api.get("/v1/tables/cafe/rulings.tsv")
    assert exported.headers["content-type"].startswith("text/tab-separated-values")
    assert [(r.guess, r.level) for r in parse_text(exported.text)] == [
        ("a", "lenient"),
        ("b", "lenient"),
        ("c", "lenient"),
    ]
    assert api.get("/v1/tables/cafe/rulings", params={"limit": 501}).status_code == 422
    assert api.get("/v1/tables/nope/rulings").status_code == 404


def test_api_schema_documents_the_table_routes(api) -> None:
    schema = api.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths["/v1/tables/{name}/rulings"]) == {"get", "post", "delete"}
    assert "post" in paths["/v1/tables"]
    post = paths["/v1/tables/{name}/rulings"]["post"]
    assert {"401", "403", "404", "409"} <= set(post["responses"])
    schemes = schema["components"]["securitySchemes"]
    assert (
        schemes["HTTPBearer"]["scheme"] == "bearer"
        and schemes["APIKeyHeader"]["name"] == "X-Table-Key"
    )
    for name in ("JudgeRequest", "BatchRequest", "RepeatRequest"):
        assert "table" in schema["components"]["schemas"][name]["properties"]
    limit = next(
        p for p in paths["/v1/tables/{name}/rulings"]["get"]["parameters"] if p["name"] == "limit"
    )
    assert limit["schema"]["maximum"] == 500


# ------------------------------------------------------------------ kiekai play


def test_a_game_saves_its_rulings_with_who_ruled_and_the_next_game_applies_them(
    store: RulingStore,
) -> None:
    """``kiekai play``'s tables: a person overrules the judge at the reveal ('puppy' for
    'dog'); the ruling is saved to the store's table with the person's name, and the next
    game on that table (through another handle, as another process would) applies it."""
    from kiek_helpers import ScriptedPlayer, make_cards
    from test_kiek_game import OverrulingHuman

    from kiekai.clock import VirtualClock
    from kiekai.judge import Judge
    from kiekai.kiek.game import play_game
    from kiekai.kiek.settings import GameSettings

    def game(rules, human):
        players = [
            human,
            ScriptedPlayer("Bot 1", ["cat"], guesses=["puppy"]),
            ScriptedPlayer("Bot 2", ["sea"]),
        ]
        return play_game(
            players, make_cards(30), judge=Judge("standard", house_rules=rules),
            settings=GameSettings(seed=2, rounds=1), clock=VirtualClock(), house_rules=rules,
        )  # fmt: skip

    store.ensure_table("home")
    game(store.table_rules("home"), OverrulingHuman("You", ["dog"], guesser=1))
    [saved] = store.rulings("home")
    assert (saved.secret, saved.guess, saved.accepted, saved.level, saved.ruled_by) == (
        "dog",
        "puppy",
        True,
        "standard",
        "You",
    )
    assert store.count(DEFAULT_TABLE) == 0  # another table's games are untouched
    second = RulingStore(store.url.render_as_string(hide_password=False))
    outcome = game(second.table_rules("home"), ScriptedPlayer("You", ["dog"], human=True))
    second.close()
    verdict = next(e for e in outcome.events if e.type == "verdict" and e.data["guess"] == "puppy")
    assert verdict.data["accepted"] and "house rule of table 'home'" in verdict.data["reason"]


def test_play_opens_the_named_table_of_the_store(tmp_path: Path, monkeypatch) -> None:
    import io

    import typer
    from rich.console import Console

    from kiekai.commands.play import _house_rules
    from kiekai.judge.store import StoreTableRules

    url = f"sqlite:///{tmp_path / 'mine.sqlite3'}"
    monkeypatch.setenv("KIEKAI_STORE", url)
    err = Console(file=io.StringIO())
    rules, where = _house_rules(err, None, "friday")
    assert isinstance(rules, StoreTableRules) and rules.table == "friday"
    assert "table 'friday'" in where and "mine.sqlite3" in where
    default, _ = _house_rules(err, None, None)
    assert default.table == DEFAULT_TABLE  # type: ignore[attr-defined]
    with pytest.raises(typer.Exit):
        _house_rules(err, tmp_path / "rules.tsv", "friday")
    with pytest.raises(typer.Exit):
        _house_rules(err, None, "Not A Name")
    assert "lowercase" in err.file.getvalue()  # type: ignore[attr-defined]
    file_rules, where = _house_rules(err, tmp_path / "rules.tsv", None)
    assert file_rules.path == tmp_path / "rules.tsv" and where.endswith("rules.tsv")


def test_serve_refuses_a_store_it_cannot_open(tmp_path: Path) -> None:
    import sys

    from test_api_server import free_port

    repo = Path(__file__).resolve().parents[1]
    for store, code, needle in (
        ("mysql://x@y/z", 2, "not supported"),
        (f"postgresql://nobody@127.0.0.1:{free_port()}/none", 1, "cannot be opened"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "kiekai", "serve", "--port", str(free_port()), "--store", store],
            cwd=repo, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert result.returncode == code, result.stderr
        assert needle in result.stderr


def test_api_table_routes_never_answer_5xx(judges) -> None:
    """Arbitrary names, words and keys on the table routes: a 2xx or a 4xx, never a 5xx."""
    from urllib.parse import quote

    from fastapi.testclient import TestClient
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from kiekai.judge.server import create_app

    text = st.text(max_size=90)
    with TestClient(create_app(judges)) as client:  # a store in memory
        key = client.post("/v1/tables", json={"name": "cafe"}).json()["key"]

        header = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=60)

        @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
        @given(name=text, secret=text, guess=text, by=st.one_of(st.none(), text), wrong=header)
        def check(name: str, secret: str, guess: str, by: str | None, wrong: str) -> None:
            ruling = {"secret": secret, "guess": guess, "accepted": True, "ruled_by": by}
            answers = [
                client.post("/v1/tables", json={"name": name}),
                client.get(f"/v1/tables/{quote(name, safe='')}/rulings"),
                client.post("/v1/tables/cafe/rulings", json=ruling, headers={"X-Table-Key": key}),
                client.post(
                    "/v1/tables/cafe/rulings",
                    json=ruling,
                    headers={"X-Table-Key": wrong},
                ),
                client.delete(
                    "/v1/tables/cafe/rulings",
                    params={"secret": secret, "guess": guess},
                    headers={"Authorization": f"Bearer {key}"},
                ),
                client.post("/v1/judge", json={"secret": secret, "guess": guess, "table": name}),
            ]
            assert all(a.status_code < 500 for a in answers), [
                (a.request.url, a.status_code, a.text[:200]) for a in answers
            ]

        check()
