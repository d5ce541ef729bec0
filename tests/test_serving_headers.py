"""The 16 KiB limit on request line and headers (``kiekai.serving.MAX_HEADER_BYTES``) holds
however a header arrives (issue 20, point 7), and the protocol class pickles for worker
processes.

h11 checks its ``max_incomplete_event_size`` only while a header is incomplete, so a
70 KB header sent in one write was parsed whole and answered 200. These tests run a
trivial ASGI app under kiekai's uvicorn settings (:func:`kiekai.serving.serve_in_thread`,
the same protocol as ``kiekai serve`` and the web table) over real sockets; one test in
``test_api_limits.py`` checks a real ``kiekai serve``.
"""

from __future__ import annotations

import pickle
import socket
from collections.abc import Iterator

import h11
import pytest

from kiekai import serving

HOST = "127.0.0.1"


async def ok_app(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    sock = socket.socket()
    sock.bind((HOST, 0))
    sock.listen()
    server, thread = serving.serve_in_thread(
        ok_app, sock, name="header-test", lifespan="off", log_level="error", access_log=False
    )
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def status_lines(port: int, request: bytes, pieces: int = 1) -> list[bytes]:
    """The status lines the server answers ``request`` with, sent in ``pieces`` writes,
    until it closes the connection."""
    with socket.create_connection((HOST, port), timeout=10) as sock:
        step = -(-len(request) // pieces)
        for start in range(0, len(request), step):
            try:
                sock.sendall(request[start : start + step])
            except OSError:  # closed by the server before the rest was sent
                break
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return [line for line in data.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]


def request_of(head_bytes: int, close: bool = True) -> bytes:
    """A GET whose request line and headers take exactly ``head_bytes`` bytes."""
    start = b"GET / HTTP/1.1\r\nHost: x\r\n" + (b"Connection: close\r\n" if close else b"")
    filler = head_bytes - len(start) - len(b"X-Fill: \r\n\r\n")
    assert filler > 0
    return start + b"X-Fill: " + b"a" * filler + b"\r\n\r\n"


TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large"


def test_a_70_kb_header_in_one_write_gets_431(port) -> None:
    assert status_lines(port, request_of(70_000)) == [TOO_LARGE]


def test_a_70_kb_header_in_many_writes_gets_431(port) -> None:
    assert status_lines(port, request_of(70_000), pieces=40) == [TOO_LARGE]


def test_the_limit_is_exactly_16_kib(port) -> None:
    limit = serving.MAX_HEADER_BYTES
    assert status_lines(port, request_of(limit)) == [b"HTTP/1.1 200 OK"]
    assert status_lines(port, request_of(limit + 1)) == [TOO_LARGE]


def test_a_large_header_pipelined_behind_a_request_gets_431(port) -> None:
    first = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    assert status_lines(port, first + request_of(70_000)) == [b"HTTP/1.1 200 OK", TOO_LARGE]


def test_head_bytes_counts_what_was_sent() -> None:
    raw = request_of(5000)
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(raw)
    event = conn.next_event()
    assert isinstance(event, h11.Request)
    assert serving.head_bytes(event) == len(raw)


@pytest.mark.parametrize("timeout_s", [serving.REQUEST_TIMEOUT_S, 2.5])
def test_the_protocol_and_config_pickle_for_worker_processes(timeout_s) -> None:
    """uvicorn sends its config to spawned workers by pickle; the protocol class made
    for a timeout must survive it with the timeout."""
    config = serving.uvicorn_config(
        "kiekai.judge.server.workers:worker_app",
        HOST,
        1,
        workers=2,
        factory=True,
        request_timeout_s=timeout_s,
    )
    copy = pickle.loads(pickle.dumps(config))
    assert issubclass(copy.http, serving.RequestTimeoutH11Protocol)
    assert copy.http.request_timeout_s == timeout_s
    assert copy.workers == 2 and copy.factory is True
    assert copy.h11_max_incomplete_event_size == serving.MAX_HEADER_BYTES
    base = pickle.loads(pickle.dumps(serving.RequestTimeoutH11Protocol))
    assert base is serving.RequestTimeoutH11Protocol


def test_run_workers_needs_an_import_string() -> None:
    with pytest.raises(ValueError, match="import string"):
        serving.run_workers(ok_app, HOST, 1, workers=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1"):
        serving.run_workers("kiekai.judge.server.workers:worker_app", HOST, 1, workers=0)
