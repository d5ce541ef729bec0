"""How kiekai runs its HTTP servers with uvicorn: timeouts and limits.

Both servers run under these settings: ``kiekai serve`` (the judge API, :func:`run`)
and the Kiek web table of ``kiekai play --web`` (:mod:`kiekai.web.server`, through
:func:`serve_in_thread`).

uvicorn closes a kept-alive connection that stays idle for ``timeout_keep_alive``
seconds after a response, but it has no timeout for receiving a request: a connection
that sends nothing, half a request header, or a body shorter than its
``Content-Length`` stays open for ever (uvicorn issue #157 lists
``--timeout-request-start`` and ``--timeout-request-complete`` as not implemented; pull
request #1685 was closed unmerged). ASGI middleware cannot help with headers, which are
parsed before the app is called. So the server runs uvicorn's own h11 protocol with one
addition, :class:`RequestTimeoutH11Protocol`: a request must arrive whole (headers and
body) within :data:`REQUEST_TIMEOUT_S` of its first byte (or of the connection's
opening); otherwise the connection is closed, with ``408 Request Timeout`` when part of
a request header had arrived. Judging time is not limited here (the API bounds it per
request, see :data:`kiekai.judge.server.REQUEST_DEADLINE_S`).

Limits (documented in ``docs/judge.md``, "HTTP API limits"):

- :data:`REQUEST_TIMEOUT_S` = 10 s to receive a whole request;
- :data:`KEEP_ALIVE_TIMEOUT_S` = 5 s idle between requests on a kept-alive connection
  (uvicorn's ``timeout_keep_alive``, its default);
- :data:`MAX_HEADER_BYTES` = 16 KiB of request line and headers (longer: ``431 Request
  Header Fields Too Large`` and the connection is closed). h11 enforces its
  ``max_incomplete_event_size`` only while a header is still incomplete: a larger header
  that arrives whole in one read (one ``send`` of 70 KB on a local socket) was parsed and
  answered 200. :class:`HeadLimitConnection` also measures every parsed request head,
  however it arrived (one read, many reads, pipelined behind another request);
- bodies over :data:`kiekai.judge.server.MAX_BODY_BYTES` get 413 (the app's ``BodyLimit``);
- :data:`GRACEFUL_SHUTDOWN_S` = 10 s for requests in progress to finish after SIGTERM.

Long-lived responses are not cut: the receipt timer stops once a request is in, and the
keep-alive timer only runs between responses, so the web table's event stream
(``text/event-stream``, open for a whole game) streams for as long as it lasts.

Several workers (``kiekai serve --workers N``, :func:`run_workers`) are uvicorn's own
supervisor: the parent binds the socket once and starts N processes with
``multiprocessing``'s *spawn* method, each of which builds the app from an import string
(the config is pickled to them, so the protocol class with its timeout pickles by value:
:func:`protocol_with_timeout`). The operating system spreads new connections over the
processes accepting on the shared socket; a kept-alive connection stays with one process.
The supervisor replaces a worker that dies and restarts all of them, one at a time, on
``SIGHUP``.

No ``limit_concurrency``: uvicorn answers 503 to every new request once that many
connections are open, so slow clients holding connections would shut everyone else
out; the receipt timeout frees their connections instead.
"""

from __future__ import annotations

import asyncio
import copyreg
import socket
import threading
import time
from typing import Any, Literal, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send one whole request (headers and body), counted from its
#: first byte, or from the opening of a connection that has sent nothing yet.
REQUEST_TIMEOUT_S = 10.0
#: Seconds a kept-alive connection may stay idle between requests (uvicorn's default).
KEEP_ALIVE_TIMEOUT_S = 5
#: Most bytes of request line and headers (h11's default, set explicitly).
MAX_HEADER_BYTES = 16 * 1024
#: Seconds requests in progress get to finish after SIGTERM before they are cancelled.
GRACEFUL_SHUTDOWN_S = 10

_TIMEOUT_BODY = b"no complete request within the server's request timeout\n"
_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\n"
    b"content-length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n\r\n" + _TIMEOUT_BODY
)


_TOO_LARGE_BODY = (
    f"request line and headers over {MAX_HEADER_BYTES // 1024} KiB; send fewer or shorter headers\n"
).encode()


def head_bytes(request: h11.Request) -> int:
    """The size in bytes of ``request``'s request line and headers as sent, at least:
    ``METHOD SP target SP HTTP/x.y CRLF``, ``name: value CRLF`` per header and the blank
    line (h11 drops optional whitespace, so the count never exceeds what arrived)."""
    size = len(request.method) + len(request.target) + len(b"HTTP/") + len(request.http_version)
    size += 4  # two spaces, CRLF
    for name, value in request.headers.raw_items():
        size += len(name) + len(value) + 4  # ": " and CRLF
    return size + 2


class HeadLimitConnection(h11.Connection):
    """h11's server connection, refusing a request head over ``max_incomplete_event_size``
    bytes however it arrived.

    h11 checks its limit only while the head is incomplete (``NEED_DATA`` with more bytes
    buffered than the limit), so a longer head that came whole in one read went through.
    This one measures each parsed :class:`h11.Request` (:func:`head_bytes`) too and raises
    :class:`h11.RemoteProtocolError` with ``error_status_hint`` 431 for either case;
    :attr:`head_too_large` tells the protocol to answer 431 instead of uvicorn's 400.
    """

    def __init__(self, our_role: Any, max_incomplete_event_size: int = MAX_HEADER_BYTES) -> None:
        super().__init__(our_role, max_incomplete_event_size=max_incomplete_event_size)
        self.max_head_bytes = max_incomplete_event_size
        self.head_too_large = False

    def next_event(self) -> Any:
        """h11's next event; raises :class:`h11.RemoteProtocolError` (hint 431) for a
        request head over :attr:`max_head_bytes`."""
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            if exc.error_status_hint == 431:  # h11's own check: an incomplete head too long
                self.head_too_large = True
            raise
        if isinstance(event, h11.Request) and head_bytes(event) > self.max_head_bytes:
            self.head_too_large = True
            raise h11.RemoteProtocolError(
                f"request head of {head_bytes(event)} bytes over {self.max_head_bytes}",
                error_status_hint=431,
            )
        return event


class _PicklableByTimeout(type):
    """Metaclass of the protocol classes: pickled as ``protocol_with_timeout(seconds)``, so
    a uvicorn config holding one can be sent to spawned worker processes (a class made at
    run time cannot be pickled by name)."""


class RequestTimeoutH11Protocol(H11Protocol, metaclass=_PicklableByTimeout):
    """uvicorn's h11 protocol, closing connections that do not deliver a whole request in
    :attr:`request_timeout_s` seconds (see the module docstring).

    The timer starts when a connection opens and when the first bytes of a next request
    arrive on a kept-alive one; it stops once headers and body are in (``EndOfMessage``),
    so answering takes as long as it takes. On expiry: ``408 Request Timeout`` and close
    when part of a request header came, close alone for a connection that sent nothing,
    and close for a request whose body stopped short (the app then sees the client
    disconnect and judges nothing).
    """

    request_timeout_s: float = REQUEST_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the same limit as h11's, also for a head that arrives whole (HeadLimitConnection)
        limit = self.config.h11_max_incomplete_event_size
        self.conn = HeadLimitConnection(
            h11.SERVER, limit if limit is not None else MAX_HEADER_BYTES
        )

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a malformed request; ``431 Request Header Fields Too Large``
        when the request head was over the limit (:class:`HeadLimitConnection`)."""
        conn = self.conn
        if not (isinstance(conn, HeadLimitConnection) and conn.head_too_large):
            super().send_400_response(msg)
            return
        self.logger.warning("refused a request: request line and headers over the limit")
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(_TOO_LARGE_BODY)).encode()),
            (b"connection", b"close"),
        ]
        try:
            response = h11.Response(
                status_code=431, headers=headers, reason=b"Request Header Fields Too Large"
            )
            self.transport.write(conn.send(response))
            self.transport.write(conn.send(h11.Data(data=_TOO_LARGE_BODY)))
            self.transport.write(conn.send(h11.EndOfMessage()))
        except h11.LocalProtocolError:  # h11 cannot send a response in this state
            pass
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._receipt: asyncio.TimerHandle | None = None
        self._bytes_seen = False
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        if self._receipt is None:
            self._receipt = self.loop.call_later(self.request_timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._receipt is not None:
            self._receipt.cancel()
            self._receipt = None

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            if self._receipt is None:  # first bytes of the next request on this connection
                self._arm()
            self._bytes_seen = True
        super().data_received(data)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and not cycle.more_body:
            self._disarm()  # the whole request is in
            self._bytes_seen = False

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _expired(self) -> None:
        self._receipt = None
        if self.transport.is_closing():
            return
        if self._between_requests():
            if self._bytes_seen:
                self.transport.write(_TIMEOUT_RESPONSE)
                self.logger.info("closed a connection: no complete request header in time")
        else:
            self.logger.info("closed a connection: the request body stopped short of its length")
        self.transport.close()


def protocol_with_timeout(request_timeout_s: float) -> type[RequestTimeoutH11Protocol]:
    """:class:`RequestTimeoutH11Protocol` with another request timeout (seconds > 0).

    The class pickles as this call (so worker processes rebuild it)."""
    if not request_timeout_s > 0:
        raise ValueError(f"the request timeout must be positive, got {request_timeout_s}")
    made = _PicklableByTimeout(
        "RequestTimeoutH11Protocol",
        (RequestTimeoutH11Protocol,),
        {"request_timeout_s": float(request_timeout_s), "__module__": __name__},
    )
    return cast("type[RequestTimeoutH11Protocol]", made)


def _reduce_protocol(cls: Any) -> Any:
    if cls is RequestTimeoutH11Protocol:
        return cls.__qualname__  # the module's own class: pickled by name
    return protocol_with_timeout, (cls.request_timeout_s,)


copyreg.pickle(_PicklableByTimeout, _reduce_protocol)


def config_options(
    host: str,
    port: int,
    *,
    log_level: str = "info",
    access_log: bool = True,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    keep_alive_timeout_s: int = KEEP_ALIVE_TIMEOUT_S,
    lifespan: Literal["auto", "on", "off"] = "auto",
    graceful_shutdown_s: int = GRACEFUL_SHUTDOWN_S,
    workers: int = 1,
    factory: bool = False,
) -> dict[str, Any]:
    """The keywords of ``uvicorn.Config`` (and ``uvicorn.run``) that kiekai's servers run
    under: ``kiekai serve``, the web table and the benchmark's bare comparison server, so
    all run under the same settings.

    Args:
        lifespan: uvicorn's ``lifespan`` (``"off"`` for an app without start-up work).
        graceful_shutdown_s: seconds requests in progress get to finish on shutdown.
        workers: worker processes (see :func:`run_workers`).
        factory: the app is a function of no arguments that returns the app.

    Raises:
        ValueError: a timeout is not positive.
    """
    if not keep_alive_timeout_s > 0:
        raise ValueError(f"the keep-alive timeout must be positive, got {keep_alive_timeout_s}")
    return {
        "host": host,
        "port": port,
        "log_level": log_level,
        "access_log": access_log,
        "lifespan": lifespan,
        "http": protocol_with_timeout(request_timeout_s),
        "timeout_keep_alive": keep_alive_timeout_s,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "timeout_graceful_shutdown": graceful_shutdown_s,
        "workers": workers,
        "factory": factory,
    }


def uvicorn_config(app: Any, host: str, port: int, **options: Any):
    """The ``uvicorn.Config`` of ``app`` under :func:`config_options` (``options`` are its
    keywords). ``app`` is the ASGI app, or its import string ``"module:name"``.

    Raises:
        ValueError: a timeout is not positive.
    """
    import uvicorn

    return uvicorn.Config(app, **config_options(host, port, **options))


def run(app: Any, host: str, port: int, **options: Any) -> None:
    """Serve ``app`` with uvicorn under :func:`uvicorn_config` until stopped."""
    import uvicorn

    uvicorn.Server(uvicorn_config(app, host, port, **options)).run()


def run_workers(app: str, host: str, port: int, *, workers: int, **options: Any) -> None:
    """Serve the app named by the import string ``app`` (``"module:function"``, a factory
    of no arguments called once in each worker) in ``workers`` processes on one port,
    under :func:`uvicorn_config` (``options`` are its keywords), until stopped.

    uvicorn's supervisor (``uvicorn.supervisors.Multiprocess``) binds the socket here and
    starts the workers with ``multiprocessing``'s *spawn* method; each imports ``app`` and
    runs its lifespan before it accepts connections. Settings the factory needs travel in
    the environment, which spawned processes inherit. A worker that dies is replaced;
    SIGINT or SIGTERM stops them all (each finishes its requests in progress first).
    With ``workers`` = 1 uvicorn serves in this process.

    Raises:
        ValueError: ``workers`` < 1 or ``app`` is not an import string.
    """
    import uvicorn

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if not isinstance(app, str) or ":" not in app:
        raise ValueError(f"workers need the app as an import string 'module:name', got {app!r}")
    # uvicorn.run builds the config, binds the socket and runs its supervisor
    # (uvicorn.supervisors.Multiprocess, whose signature changed between releases)
    uvicorn.run(app, **config_options(host, port, workers=workers, factory=True, **options))


def serve_in_thread(
    app: Any, sock: socket.socket, *, name: str, start_timeout_s: float = 20.0, **options: Any
) -> tuple[Any, threading.Thread]:
    """Serve ``app`` on the listening socket ``sock`` under :func:`uvicorn_config`
    (``options`` are its keywords) in a daemon thread named ``name``; returns the
    ``uvicorn.Server`` (set its ``should_exit`` to stop it) and the thread, once it
    accepts connections.

    Raises:
        OSError: the server did not start within ``start_timeout_s`` seconds.
    """
    import uvicorn

    host, port = sock.getsockname()[:2]
    server = uvicorn.Server(uvicorn_config(app, str(host), int(port), **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        server.should_exit = True
        raise OSError(f"the web server did not start on {host}:{port}")
    return server, thread
