"""The judge server stays fair and bounded under abuse (issue 11, points 6-8), against
REAL ``kiekai serve`` processes over TCP:

- a small request is answered while large ones run (it does not queue behind them);
- connections that send nothing, half a header or a short body are closed, and idle
  kept-alive ones too (raw sockets);
- at rest, with its words in the judge's tables, the server has not loaded torch and
  holds well under 600 MB; the sentence model loads on the first word outside the
  tables while words in them go on being answered.

Timings are asserted as generous bounds or ratios measured in the same run.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from judge_tables import small_table_cache

from kiekai import serving
from kiekai.judge.server import JudgeWorker

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 240.0
#: Short timeouts for the test server, so the timeout tests take seconds.
REQUEST_TIMEOUT_S = 2.0
KEEP_ALIVE_S = 1


@dataclass
class Server:
    process: subprocess.Popen
    url: str
    port: int
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def rss_mb(self) -> float:
        """Resident memory of the server process in MB (``VmRSS``, Linux)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_server(*extra: str, env: dict | None = None) -> Server:
    port = free_port()
    log_file = tempfile.NamedTemporaryFile(prefix="kiekai-serve-", suffix=".log", delete=False)
    command = [
        sys.executable, "-m", "kiekai", "serve", "--port", str(port), "--log-level", "info",
        "--no-access-log", "--request-timeout", str(REQUEST_TIMEOUT_S),
        "--keep-alive-timeout", str(KEEP_ALIVE_S), *extra,
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        env=dict(env or os.environ, PYTHONUNBUFFERED="1"),
    )
    server = Server(process, f"http://{HOST}:{port}", port, Path(log_file.name))
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        if process.poll() is not None:
            stop_server(server)
            pytest.fail(f"kiekai serve exited with {process.returncode}:\n{server.log()}")
        try:
            if httpx.get(server.url + "/healthz", timeout=2.0).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            log = server.log()
            stop_server(server)
            pytest.fail(f"kiekai serve not ready in {STARTUP_TIMEOUT_S} s:\n{log}")
        time.sleep(0.25)


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)
    server.log_path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A server with the short test timeouts (no table build in the background)."""
    handle = start_server("--no-embedding-table")
    try:
        yield handle
    finally:
        stop_server(handle)


def made_up_words(count: int, seed: int) -> list[str]:
    """``count`` distinct strings of 7-9 random letters: in no table, no cache."""
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(7, 9))))
    return sorted(words)


# ------------------------------------------------------------------------- scheduling


def test_the_judge_thread_runs_urgent_tasks_first_and_large_ones_in_turn() -> None:
    worker = JudgeWorker(name="kiekai-test-judge")
    done: list[str] = []
    gate = __import__("threading").Event()
    try:
        blocker = worker.submit((0, 0), gate.wait, 10)
        futures = [
            worker.submit((1, k, request), done.append, f"large{request}.{k}")
            for request in (1, 2)
            for k in range(3)
        ]
        futures.append(worker.submit((0, 0), done.append, "small"))
        gate.set()
        blocker.result(timeout=10)
        for future in futures:
            future.result(timeout=10)
    finally:
        worker.close()
    assert done == [
        "small", "large1.0", "large2.0", "large1.1", "large2.1", "large1.2", "large2.2",
    ]  # fmt: skip


def test_a_small_request_is_answered_while_large_ones_run(server) -> None:
    """Six concurrent /v1/repeat with 300 made-up used words each (every pair needs the
    sentence model and a full look-up); plain /v1/judge requests sent meanwhile are
    answered long before the large ones finish (issue 11: it waited 24 s)."""
    with httpx.Client(base_url=server.url, timeout=120.0) as client:
        # load the sentence model first: its one-time load is not what is measured here
        warm = client.post("/v1/judge", json={"secret": "qwertzu", "guess": "asdfghj"})
        assert warm.status_code == 200

    small_pairs = [("river", "creek"), ("table", "desk"), ("boat", "ship"), ("coffee", "tea"),
                   ("car", "automobile"), ("sun", "sunny")]  # fmt: skip

    async def run() -> tuple[list[float], list[float], float]:
        async with httpx.AsyncClient(base_url=server.url, timeout=300.0) as client:
            started = time.perf_counter()

            async def large(seed: int) -> float:
                body = {"candidate": made_up_words(1, 1000 + seed)[0],
                        "used": made_up_words(300, seed)}  # fmt: skip
                response = await client.post("/v1/repeat", json=body)
                assert response.status_code == 200, response.text
                return time.perf_counter() - started

            tasks = [asyncio.create_task(large(seed)) for seed in range(6)]
            await asyncio.sleep(1.0)  # the large ones are queued and running
            small: list[float] = []
            for secret, guess in small_pairs:
                t0 = time.perf_counter()
                response = await client.post("/v1/judge", json={"secret": secret, "guess": guess})
                small.append(time.perf_counter() - t0)
                assert response.status_code == 200
                await asyncio.sleep(0.2)
            small_done = time.perf_counter() - started
            large_done = await asyncio.gather(*tasks)
            return small, large_done, small_done

    small, large_done, small_done = asyncio.run(run())
    assert small_done < min(large_done), (small_done, large_done)  # measured under load
    assert max(small) < 2.0, small  # waits at most a chunk or two, not the queue
    assert sorted(small)[len(small) // 2] < 0.1 * min(large_done), (small, large_done)


def test_limits_are_documented_in_the_schema(server) -> None:
    schema = httpx.get(server.url + "/openapi.json").json()
    described = schema["info"]["description"]
    for needle in ("60 s", "408", "10 s"):
        assert needle in described, needle
    repeat = schema["paths"]["/v1/repeat"]["post"]
    assert "503" in repeat["responses"]


# ------------------------------------------------------------------------- timeouts


def _recv_all(sock: socket.socket, limit_s: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection; and when it closed
    (seconds after the call). Fails the test if it stays open ``limit_s`` seconds."""
    start = time.monotonic()
    sock.settimeout(limit_s)
    data = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return data, time.monotonic() - start
            data += chunk
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {limit_s} s (got {data[:80]!r})")
    except ConnectionResetError:
        return data, time.monotonic() - start


def test_a_half_sent_header_is_answered_408_and_closed(server) -> None:
    with socket.create_connection((HOST, server.port)) as sock:
        sock.sendall(b"POST /v1/judge HTTP/1.1\r\nHost: x\r\nContent-Ty")
        data, closed_after = _recv_all(sock, REQUEST_TIMEOUT_S * 5)
    assert data.startswith(b"HTTP/1.1 408 ")
    assert closed_after < REQUEST_TIMEOUT_S * 3


def test_a_silent_connection_is_closed(server) -> None:
    with socket.create_connection((HOST, server.port)) as sock:
        data, closed_after = _recv_all(sock, REQUEST_TIMEOUT_S * 5)
    assert data == b"" and closed_after < REQUEST_TIMEOUT_S * 3


def test_a_body_shorter_than_its_length_is_closed_and_judged_not(server) -> None:
    body = b'{"secret": "dog", "guess": "ca'
    head = (
        b"POST /v1/judge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    with socket.create_connection((HOST, server.port)) as sock:
        sock.sendall(head + body)
        data, closed_after = _recv_all(sock, REQUEST_TIMEOUT_S * 5)
    assert b" 200 " not in data  # nothing was judged from half a body
    assert closed_after < REQUEST_TIMEOUT_S * 3


def test_a_header_trickled_byte_by_byte_is_cut_off(server) -> None:
    """Sending a byte now and then does not keep a request alive (each byte would reset
    a plain idle timer): the whole request must arrive within the request timeout."""
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
    start = time.monotonic()
    closed = False
    with socket.create_connection((HOST, server.port)) as sock:
        for byte in request:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            time.sleep(0.05)
            if time.monotonic() - start > REQUEST_TIMEOUT_S * 4:
                break
        if not closed:
            data, _ = _recv_all(sock, REQUEST_TIMEOUT_S * 5)
            closed = data.startswith(b"HTTP/1.1 408") or data == b""
    assert closed
    assert time.monotonic() - start < REQUEST_TIMEOUT_S * 5


def test_an_idle_kept_alive_connection_is_closed(server) -> None:
    with socket.create_connection((HOST, server.port)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.settimeout(10)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        data, closed_after = _recv_all(sock, KEEP_ALIVE_S * 10 + 5)
    assert closed_after < KEEP_ALIVE_S * 5 + 2


def test_many_slow_connections_are_closed_and_others_served_meanwhile(server) -> None:
    socks = []
    try:
        for _ in range(200):
            sock = socket.create_connection((HOST, server.port))
            sock.sendall(b"POST /v1/judge HTTP/1.1\r\nHost: x\r\n")
            socks.append(sock)
        response = httpx.post(server.url + "/v1/judge", json={"secret": "dog", "guess": "dogs"})
        assert response.status_code == 200 and response.json()["accepted"] is True
        time.sleep(REQUEST_TIMEOUT_S * 2.5)
        still_open = 0
        for sock in socks:
            sock.settimeout(0.5)
            try:
                while sock.recv(4096):
                    pass
            except TimeoutError:
                still_open += 1
            except OSError:
                pass
        assert still_open == 0
    finally:
        for sock in socks:
            sock.close()


def test_timeouts_must_be_positive() -> None:
    with pytest.raises(ValueError, match="request timeout must be positive"):
        serving.protocol_with_timeout(0)


# ---------------------------------------------------------------------------- memory


def test_at_rest_the_server_holds_no_torch_and_loads_it_on_first_need(tmp_path) -> None:
    """With its words in the judge's tables, the server answers without the sentence
    model (issue 11: 1.7 GB at rest); the first word outside the tables loads it, on a
    thread of its own, while words in the tables go on being answered."""
    cache = small_table_cache(tmp_path / "cache")
    server = start_server(
        "--no-embedding-table",  # use the small table in the cache, build no large one
        env=dict(os.environ, KIEKAI_CACHE_DIR=str(cache)),
    )
    try:
        with httpx.Client(base_url=server.url, timeout=120.0) as client:
            for secret, guess in (("dog", "puppy"), ("people", "humans"), ("stones", "rocks")):
                assert (
                    client.post("/v1/judge", json={"secret": secret, "guess": guess}).status_code
                    == 200
                )
            health = client.get("/healthz").json()
            assert health["models"]["all-MiniLM-L6-v2"] is False
            assert health["models"]["embedding table"] is True
            assert health["models"]["wordnet"] is True
            assert server.rss_mb() < 600, server.rss_mb()

        async def run() -> tuple[float, list[float]]:
            async with httpx.AsyncClient(base_url=server.url, timeout=300.0) as client:
                t0 = time.perf_counter()
                outside = asyncio.create_task(
                    client.post("/v1/judge", json={"secret": "zorblat", "guess": "quimby"})
                )
                await asyncio.sleep(0.3)
                inside: list[float] = []
                for secret, guess in (("river", "creek"), ("table", "desk"), ("boat", "ship")):
                    t1 = time.perf_counter()
                    answer = await client.post("/v1/judge", json={"secret": secret, "guess": guess})
                    assert answer.status_code == 200
                    inside.append(time.perf_counter() - t1)
                response = await outside
                assert response.status_code == 200
                return time.perf_counter() - t0, inside

        load_s, inside = asyncio.run(run())
        assert max(inside) < load_s, (inside, load_s)  # answered during the load
        assert httpx.get(server.url + "/healthz").json()["models"]["all-MiniLM-L6-v2"] is True
        assert "loading the sentence model" in server.log()
    finally:
        stop_server(server)
