"""The judge's HTTP API against a REAL server process (``python -m kiekai serve``).

One server is started for the module on a free port of 127.0.0.1, polled on ``/healthz``
until ready, and always stopped at the end (SIGTERM, then SIGKILL), even when a test
fails. Requests go over real TCP with httpx.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
#: Seconds to wait for start-up: WordNet and all-MiniLM-L6-v2 load on 2 cores.
STARTUP_TIMEOUT_S = 180.0


@dataclass
class Server:
    """A running ``kiekai serve`` process and where it listens."""

    process: subprocess.Popen
    url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout_s: float = 15.0) -> int:
        """SIGTERM (uvicorn's graceful shutdown), SIGKILL if it hangs; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout_s)
        return self.process.returncode


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_serve(
    *args: str, prefix: str = "kiekai-serve-", timeout_s: float = STARTUP_TIMEOUT_S
) -> Server:
    """Start ``kiekai serve --port FREE *args`` (output to a temporary log file) and wait until
    /healthz answers 200; fails the test, with the log, if it exits or is not ready within
    ``timeout_s`` seconds (the process is stopped then)."""
    port = free_port()
    with tempfile.NamedTemporaryFile(prefix=prefix, suffix=".log", delete=False) as log_file:
        command = [sys.executable, "-m", "kiekai", "serve", "--port", str(port), *args]
        process = subprocess.Popen(
            command,
            cwd=REPO,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
    handle = Server(process, f"http://{HOST}:{port}", Path(log_file.name))
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            pytest.fail(f"kiekai serve exited with {process.returncode}:\n{handle.log()}")
        try:
            if httpx.get(handle.url + "/healthz", timeout=2.0).status_code == 200:
                return handle
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            handle.stop()
            pytest.fail(f"kiekai serve not ready in {timeout_s} s:\n{handle.log()}")
        time.sleep(0.25)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    handle = start_serve(
        "--log-level", "info",
        "--no-embedding-table",  # no 48k-word table build in the background during tests
    )  # fmt: skip
    try:
        yield handle
    finally:
        handle.stop()
        handle.log_path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60.0) as client:
        yield client


def test_serves_on_loopback_without_a_warning(server, http):
    health = http.get("/healthz").json()
    assert health["status"] == "ok"
    assert health["strictness_levels"] == ["strict", "standard", "lenient"]
    assert health["models"]["wordnet"] is True
    assert "warning: binding" not in server.log()


def test_judge_over_tcp(http):
    answer = http.post("/v1/judge", json={"secret": "mice", "guess": "mouse"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["accepted"] is True
    assert answer.json()["strictness"] == "standard"
    black = http.post(
        "/v1/judge", json={"secret": "black", "guess": "white", "strictness": "lenient"}
    )
    assert black.json()["accepted"] is False


def test_batch_and_repeat_over_tcp(http):
    pairs = [{"secret": "mice", "guess": "mouse"}, {"secret": "dog", "guess": "cat"}]
    batch = http.post("/v1/judge/batch", json={"pairs": pairs, "strictness": "strict"})
    assert batch.status_code == 200
    assert [a["accepted"] for a in batch.json()] == [True, False]
    repeat = http.post("/v1/repeat", json={"candidate": "cats", "used": ["dogs", "cat"]})
    assert repeat.status_code == 200
    assert repeat.json()["matched"] == "cat"


def test_bad_input_over_tcp_is_4xx_json(http):
    cases = [
        (b'{"secret": "dog", "guess": "\\ud83d"}', 422, "invalid-request"),  # lone surrogate
        (b'{"secret": "dog"', 422, "invalid-request"),  # truncated
        (b"\xc3\x28", 400, "bad-request"),  # invalid UTF-8
        (b'{"secret": "dog", "guess": "cat", "strictness": []}', 422, "invalid-request"),
    ]
    for body, status, code in cases:
        response = http.post(
            "/v1/judge", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == status, (body, response.text)
        assert response.json()["error"] == code


def test_concurrent_clients_get_the_same_verdicts_as_one_client(server, http):
    pairs = [("people", "humans"), ("dog", "puppy"), ("black", "white"), ("boat", "ship")]
    expected = {
        pair: http.post("/v1/judge", json={"secret": pair[0], "guess": pair[1]}).json()
        for pair in pairs
    }

    async def hammer() -> list[tuple[tuple[str, str], dict]]:
        async with httpx.AsyncClient(base_url=server.url, timeout=60.0) as client:

            async def one(pair: tuple[str, str]) -> tuple[tuple[str, str], dict]:
                response = await client.post(
                    "/v1/judge", json={"secret": pair[0], "guess": pair[1]}
                )
                assert response.status_code == 200
                return pair, response.json()

            big_batch = client.post(
                "/v1/judge/batch",
                json={"pairs": [{"secret": s, "guess": g} for s, g in pairs * 50]},
            )
            results = await asyncio.gather(big_batch, *(one(pairs[i % 4]) for i in range(64)))
            batch_answers = results[0].json()
            assert [a["accepted"] for a in batch_answers] == [
                expected[pair]["accepted"] for pair in pairs * 50
            ]
            return list(results[1:])

    for pair, answer in asyncio.run(hammer()):
        assert answer == expected[pair]


def test_healthz_answers_while_a_long_batch_is_judged(server):
    """Judge calls run off the event loop: health checks complete during a batch of new
    words (each new word costs an embedding, so the batch takes seconds)."""
    from wordfreq import top_n_list

    words = [w for w in top_n_list("en", 30_000)[20_000:] if w.isalpha()][:240]
    pairs = [{"secret": a, "guess": b} for a, b in zip(words[0::2], words[1::2], strict=True)]

    async def run() -> tuple[int, int]:
        async with httpx.AsyncClient(base_url=server.url, timeout=120.0) as client:
            batch = asyncio.create_task(
                client.post("/v1/judge/batch", json={"pairs": pairs, "strictness": "lenient"})
            )
            answered_during_batch = 0
            while not batch.done():
                health = await client.get("/healthz")
                assert health.status_code == 200
                if not batch.done():
                    answered_during_batch += 1
                await asyncio.sleep(0.05)
            response = await batch
            assert response.status_code == 200
            assert len(response.json()) == len(pairs)
            return answered_during_batch, len(response.json())

    answered_during_batch, _ = asyncio.run(run())
    assert answered_during_batch >= 3  # a blocked event loop would answer at most one


def test_sigterm_shuts_down_cleanly(server):
    code = server.stop()
    log = server.log()
    # uvicorn finishes its graceful shutdown, then re-raises the signal it caught
    assert code in (0, -signal.SIGTERM), log
    assert "Traceback" not in log
    assert "Application shutdown complete" in log
