"""The browser table's server runs under kiekai's shared uvicorn settings
(:mod:`kiekai.serving`, issue 11), tested against a real server on a free port: a client
that sends half a request gets ``408`` and is closed, one that sends nothing is closed,
and the event stream, a response open for a whole game, is not cut by those timeouts."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from kiek_helpers import TableJudge
from PIL import Image

from kiekai import serving
from kiekai.deck import load_deck
from kiekai.display import card_names
from kiekai.web.server import start_server
from kiekai.web.table import WebTable

#: A short receipt timeout so the tests run fast; the same code path as the 10 s default.
TIMEOUT_S = 1.0


@pytest.fixture
def server(tmp_path):
    for i in range(8):
        Image.new("RGB", (80, 60), (i * 37 % 256, 90, 120)).save(tmp_path / f"p{i}.png")
    (tmp_path / "labels.csv").write_text(
        "file,label\n" + "".join(f"p{i}.png,thing {i}\n" for i in range(8)), encoding="utf-8"
    )
    cards = list(load_deck(tmp_path).cards)
    names = ["Player 1", "Bot 1", "Bot 2"]
    table = WebTable(names, [0], cards, card_names(cards), TableJudge())
    running = start_server(table, request_timeout_s=TIMEOUT_S)
    try:
        yield running
    finally:
        running.stop()


def read_until_closed(sock: socket.socket, limit_s: float) -> tuple[bytes, float]:
    """Everything ``sock`` receives until the server closes it; and the seconds it took."""
    sock.settimeout(limit_s)
    start, data = time.monotonic(), b""
    while chunk := sock.recv(4096):
        data += chunk
    return data, time.monotonic() - start


def test_the_table_server_runs_with_the_shared_protocol_and_limits(server):
    config = server._server.config
    assert issubclass(config.http, serving.RequestTimeoutH11Protocol)
    assert config.http.request_timeout_s == TIMEOUT_S
    assert config.timeout_keep_alive == serving.KEEP_ALIVE_TIMEOUT_S
    assert config.h11_max_incomplete_event_size == serving.MAX_HEADER_BYTES


def test_half_a_request_gets_408_and_is_closed(server):
    with socket.create_connection((server.address, server.port), timeout=5) as sock:
        sock.sendall(b"GET /seat/x/state HTTP/1.1\r\nHost: table\r\n")  # no blank line
        data, seconds = read_until_closed(sock, limit_s=TIMEOUT_S + 10)
    assert data.startswith(b"HTTP/1.1 408 Request Timeout"), data[:80]
    assert TIMEOUT_S * 0.9 <= seconds < TIMEOUT_S + 10


def test_a_silent_connection_is_closed(server):
    with socket.create_connection((server.address, server.port), timeout=5) as sock:
        data, seconds = read_until_closed(sock, limit_s=TIMEOUT_S + 10)
    assert data == b"" and TIMEOUT_S * 0.9 <= seconds < TIMEOUT_S + 10


def test_the_event_stream_outlives_the_timeouts_and_keeps_streaming(server):
    """The stream stays open past the receipt and keep-alive timeouts and still carries
    the table's next update."""
    token = server.table.seats[0].token
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        with client.stream("GET", f"/seat/{token}/stream") as stream:
            assert stream.status_code == 200
            lines = stream.iter_lines()
            assert next(lines).startswith("retry:")
            assert next(line for line in lines if line.startswith("event: ")) == "event: version"
            time.sleep(max(TIMEOUT_S, serving.KEEP_ALIVE_TIMEOUT_S) + 1.5)
            with server.table.cond:
                server.table.mark_changed()  # the table changes: the page must hear of it
            event = next(line for line in lines if line.startswith("event: "))
            assert event == "event: version"
        # the connection was not closed under the stream: a next request on a new one works
        assert client.get(f"/seat/{token}/state").status_code == 200
