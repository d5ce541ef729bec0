"""``kiekai serve --workers 2`` as real processes on one port (issue 20, point 2): a ruling
written while both workers serve applies through each of them on its next request, each
worker at rest holds no torch and little memory, and the 16 KiB header limit holds.

A kept-alive connection stays with the worker that accepted it, and ``/healthz`` names
that worker's pid (``worker_pid``), so the test opens connections until it holds one to
each worker, then asks through both (the server runs with a long keep-alive timeout, so
an idle connection is not closed and reopened to another worker). Every word judged is
in the small embedding table of the test's cache (:mod:`judge_tables`), so no worker
needs the sentence model. Rulings reach the workers two ways, both tested: a table's
ruling is written through one worker by ``POST /v1/tables/{name}/rulings`` (with the
table's key) into the SQLite store file the workers share (``--store``, each worker with
its own connections), and must apply through the other worker too, though both judged
and cached the pair before; the server's own ruling is written to the ``--house-rules``
file the way ``kiekai play`` writes one (:meth:`HouseRules.add`).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from judge_tables import small_table_cache

from kiekai.judge.house_rules import HouseRules, HouseRuling

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 300.0
#: Memory at rest a worker must stay under, in MB (issue 20: aim < 300 MB).
REST_LIMIT_MB = 300


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Workers:
    def __init__(self, process: subprocess.Popen, port: int, log: Path) -> None:
        self.process, self.port, self.log_path = process, port, log
        self.url = f"http://{HOST}:{port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "house-rules.tsv"
    HouseRules(path=path).add(HouseRuling("coffee", "tea", True, "*"))
    return path


@pytest.fixture(scope="module")
def store_file(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("store") / "rulings.sqlite3"


@pytest.fixture(scope="module")
def workers(tmp_path_factory, rules_file, store_file) -> Iterator[Workers]:
    cache = small_table_cache(tmp_path_factory.mktemp("cache"))
    port = free_port()
    log = Path(tempfile.NamedTemporaryFile(prefix="kiekai-workers-", delete=False).name)
    command = [
        sys.executable, "-m", "kiekai", "serve", "--port", str(port), "--workers", "2",
        "--no-embedding-table", "--no-access-log", "--house-rules", str(rules_file),
        "--store", f"sqlite:///{store_file}",
        "--keep-alive-timeout", "600",  # a test's connections stay with their workers
    ]  # fmt: skip
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, KIEKAI_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1"),
        )
    handle = Workers(process, port, log)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"kiekai serve --workers 2 exited with {process.returncode}:\n"
                            f"{handle.log()}")  # fmt: skip
            try:
                if httpx.get(handle.url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"not ready in {STARTUP_TIMEOUT_S} s:\n{handle.log()}")
            time.sleep(0.25)
        yield handle
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        log.unlink(missing_ok=True)


def one_client_per_worker(url: str, workers: int = 2, tries: int = 200) -> dict[int, httpx.Client]:
    """Kept-alive clients, one connected to each worker (keyed by its pid); the others
    opened on the way are closed. Fails when ``tries`` connections reach fewer workers."""
    found: dict[int, httpx.Client] = {}
    for _ in range(tries):
        client = httpx.Client(base_url=url, timeout=120.0)
        pid = client.get("/healthz").json()["worker_pid"]
        if pid in found:
            client.close()
        else:
            found[pid] = client
        if len(found) == workers:
            return found
        # all workers' accept queues are fed by the kernel; a pause lets the other take one
        time.sleep(0.05)
    for client in found.values():
        client.close()
    pytest.fail(f"{tries} connections reached only the workers {sorted(found)}")


def test_two_workers_answer_on_one_port(workers) -> None:
    clients = one_client_per_worker(workers.url)
    try:
        pids = set(clients)
        assert len(pids) == 2 and workers.process.pid not in pids
        for pid, client in clients.items():
            assert client.get("/healthz").json()["worker_pid"] == pid  # the connection stays
    finally:
        for client in clients.values():
            client.close()


def test_a_ruling_written_while_serving_applies_through_every_worker(workers, rules_file) -> None:
    clients = one_client_per_worker(workers.url)
    try:
        ask = {"secret": "dog", "guess": "cat"}
        for client in clients.values():  # both judge (and cache) the pair first
            first = client.post("/v1/judge", json=ask).json()
            assert first["accepted"] is False and first["relation"] != "house-rule", first
            ruled = client.post("/v1/judge", json={"secret": "coffee", "guess": "tea"}).json()
            assert ruled["accepted"] is True and ruled["relation"] == "house-rule"
        HouseRules(path=rules_file).add(HouseRuling("dog", "cat", True, "*"))
        for pid, client in clients.items():
            answer = client.post("/v1/judge", json=ask).json()
            assert answer["accepted"] is True and answer["relation"] == "house-rule", (pid, answer)
            batch = client.post(
                "/v1/judge/batch", json={"pairs": [ask], "strictness": "strict"}
            ).json()
            assert batch[0]["accepted"] is True, (pid, batch)
            repeat = client.post("/v1/repeat", json={"candidate": "cat", "used": ["dog"]}).json()
            assert repeat["accepted"] is True and repeat["matched"] == "dog", (pid, repeat)
            assert client.get("/healthz").json()["worker_pid"] == pid
        HouseRules(path=rules_file).add(HouseRuling("dog", "cat", False, "*"))  # overruled
        for pid, client in clients.items():
            assert client.post("/v1/judge", json=ask).json()["accepted"] is False, pid
    finally:
        for client in clients.values():
            client.close()


def test_a_table_ruling_written_through_one_worker_applies_through_the_other(
    workers, store_file
) -> None:
    clients = one_client_per_worker(workers.url)
    try:
        (writer_pid, writer), (reader_pid, reader) = clients.items()
        made = writer.post("/v1/tables", json={"name": "cafe"})
        assert made.status_code == 201, made.text
        key = {"Authorization": f"Bearer {made.json()['key']}"}
        ask = {"secret": "dog", "guess": "cat", "table": "cafe"}
        for pid, client in clients.items():  # both judge (and cache) the pair first
            first = client.post("/v1/judge", json=ask).json()
            assert first["accepted"] is False, (pid, first)
        ruling = {"secret": "dog", "guess": "cat", "accepted": True, "level": "*"}
        written = writer.post("/v1/tables/cafe/rulings", json=ruling, headers=key)
        assert written.status_code == 201, written.text
        assert store_file.is_file()  # the workers share the file given with --store
        for pid, client in ((reader_pid, reader), (writer_pid, writer)):
            assert client.get("/healthz").json()["worker_pid"] == pid
            answer = client.post("/v1/judge", json=ask).json()
            assert answer["accepted"] is True and answer["relation"] == "house-rule", (pid, answer)
            assert "table 'cafe'" in answer["reason"], (pid, answer)
            pair = {"secret": "dog", "guess": "cat"}
            batch = client.post("/v1/judge/batch", json={"pairs": [pair], "table": "cafe"}).json()
            assert batch[0]["accepted"] is True, (pid, batch)
            repeat = client.post(
                "/v1/repeat", json={"candidate": "cat", "used": ["dog"], "table": "cafe"}
            ).json()
            assert repeat["accepted"] is True and repeat["matched"] == "dog", (pid, repeat)
            listed = client.get("/v1/tables/cafe/rulings").json()
            assert listed["total"] == 1, (pid, listed)
            # the default table (no `table` in the request) has no such ruling
            plain = client.post("/v1/judge", json={"secret": "dog", "guess": "cat"}).json()
            assert plain["reason"].find("table 'cafe'") == -1, (pid, plain)
        overruled = reader.post(
            "/v1/tables/cafe/rulings", json={**ruling, "accepted": False}, headers=key
        )
        assert overruled.status_code == 201, overruled.text
        for pid, client in clients.items():  # the reader's write holds in the writer too
            assert client.post("/v1/judge", json=ask).json()["accepted"] is False, pid
        removed = writer.delete(
            "/v1/tables/cafe/rulings", params={"secret": "dog", "guess": "cat"}, headers=key
        )
        assert removed.json() == {"table": "cafe", "removed": 1}
        for pid, client in clients.items():
            answer = client.post("/v1/judge", json=ask).json()
            assert "table 'cafe'" not in answer["reason"], (pid, answer)
    finally:
        for client in clients.values():
            client.close()


def test_each_worker_at_rest_holds_no_torch_and_little_memory(workers) -> None:
    clients = one_client_per_worker(workers.url)
    try:
        for pid, client in clients.items():
            for secret, guess in (("dog", "puppy"), ("people", "humans"), ("stones", "rocks")):
                assert client.post("/v1/judge", json={"secret": secret, "guess": guess}).is_success
            health = client.get("/healthz").json()
            assert health["models"]["all-MiniLM-L6-v2"] is False, (pid, health["models"])
            assert health["models"]["embedding table"] is True
            assert health["memory_mb"] < REST_LIMIT_MB, (pid, health["memory_mb"])
    finally:
        for client in clients.values():
            client.close()


def test_a_70_kb_header_in_one_write_gets_431(workers) -> None:
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
    with socket.create_connection((HOST, workers.port), timeout=20) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 431 "), data[:80]


def test_workers_refuse_a_store_in_memory_before_building_anything(tmp_path) -> None:
    """Each worker would open its own empty store in memory: a table made through one
    would be missing in the others, so ``--workers 2 --store sqlite://`` exits 2 at once."""
    from typer.testing import CliRunner

    from kiekai.cli import app

    result = CliRunner().invoke(
        app, ["serve", "--port", str(free_port()), "--workers", "2", "--store", "sqlite://"]
    )
    assert result.exit_code == 2, result.output
    assert "cannot be shared by several workers" in result.stderr
    assert "preparing the judge's tables" not in result.stderr
