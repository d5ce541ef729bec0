"""Run a game of Kiek at a table in the browser: the server, the lobby and the game thread.

:func:`start_server` starts the web server (uvicorn under :mod:`kiekai.serving`'s
timeouts and limits, in a background thread, on a socket bound before it starts so that
port 0 gives a free port), where each person's seat has a link with a secret token;
:func:`run_web_game` waits in the lobby until every person has opened their link or one of
them presses "Start now" (bots take the seats nobody took), then plays the game with the
same runner, engine, bots and judge as the terminal (:func:`kiekai.kiek.game.play_game`),
and writes the same event log. The game runs in the calling thread, so Ctrl-C stops it and
keeps the log. After the game the table stays up with its final page (the scores, every
turn's words) until everyone has left it (:meth:`TableServer.close_after_game`).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kiekai import serving
from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.events import Event, EventLog
from kiekai.judge.house_rules import HouseRules
from kiekai.judge.protocol import JudgeLike
from kiekai.kiek.game import GameAborted, GameOutcome, play_game
from kiekai.kiek.players import KiekPlayer
from kiekai.kiek.settings import GameSettings
from kiekai.web.table import WebTable

#: Seconds the pages have to hear that the table closes before the server stops.
LINGER_SECONDS = 3.0
#: Longest time, in seconds, the table stays open after the game for its final page, when
#: neither every person leaves nor every page closes before.
AFTER_GAME_SECONDS = 900.0


@dataclass
class TableServer:
    """A running web server of one table.

    Attributes:
        table: the table it serves.
        host: the address it was asked to listen on (``--host``).
        port: the port it listens on.
    """

    table: WebTable
    host: str
    port: int
    _server: Any
    _thread: threading.Thread
    _socket_address: str = "127.0.0.1"

    @property
    def address(self) -> str:
        """The address the socket is bound to, as the system reports it (``--host 0``,
        ``""`` and ``0x0`` are all ``0.0.0.0``; ``localhost`` is ``127.0.0.1``)."""
        return str(self._socket_address)

    @property
    def everywhere(self) -> bool:
        """Whether it listens on every address of the machine (0.0.0.0 or ::, however written)."""
        return ipaddress.ip_address(self.address.split("%")[0]).is_unspecified

    @property
    def reachable_from_network(self) -> bool:
        """Whether devices other than this machine can connect: any address but loopback."""
        return not ipaddress.ip_address(self.address.split("%")[0]).is_loopback

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` for links (the machine's name when bound to every address)."""
        host = self.host
        if self.everywhere:
            host = socket.gethostname()
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def seat_url(self, seat: int) -> str:
        """The secret link of a person's seat."""
        token = self.table.seats[seat].token
        if token is None:
            raise ValueError(f"seat {seat} is a bot's seat and has no link")
        return f"{self.base_url}/seat/{token}"

    def close_after_game(
        self, timeout: float = AFTER_GAME_SECONDS, linger: float = LINGER_SECONDS
    ) -> str:
        """Keep the table open after the game for its final page (the scores, the game's
        words) until every person has pressed "Leave the table" or closed their page, or
        ``timeout`` seconds pass, or Ctrl-C; then stop the server (the pages say the table
        closed and keep the final scores). Returns why it closed.

        Raises:
            KeyboardInterrupt: never; Ctrl-C closes the table and returns.
        """
        try:
            why = self.table.wait_everyone_left(timeout)
        except KeyboardInterrupt:
            why = "closed with Ctrl-C"
        self.stop(linger=linger)
        return why

    def stop(self, linger: float = 0.0) -> None:
        """Tell the pages the table closes, wait ``linger`` seconds, stop the server."""
        self.table.closing = True
        time.sleep(max(0.3, linger))
        self._server.should_exit = True
        self._thread.join(timeout=10)


def listen(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A socket listening on ``host:port`` (port 0: a free port), for :func:`start_server`.

    Binding first is cheap, so ``kiekai play --web`` calls this before it reads the deck and
    loads the judge and a wrong ``--host`` fails at once. An IPv6 address may be written as
    in a URL (``[::1]``).

    Raises:
        OSError: the address cannot be bound (port in use, unknown host); the message names
            the address.
    """
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    return sock


def start_server(
    table: WebTable,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    sock: socket.socket | None = None,
    request_timeout_s: float = serving.REQUEST_TIMEOUT_S,
) -> TableServer:
    """Serve ``table`` on ``host:port`` (port 0: a free port) in a background thread,
    under the same uvicorn settings as ``kiekai serve`` (:mod:`kiekai.serving`: a request
    must arrive whole within ``request_timeout_s``, else 408 and close; 5 s keep-alive;
    16 KiB of headers). The event stream is not cut by these: it is one response.

    Args:
        sock: a socket from :func:`listen` to serve on (then ``host`` only names it in links).
        request_timeout_s: seconds a client has to send a whole request.

    Raises:
        OSError: the address cannot be bound (port in use, unknown host), or the server
            did not start; the message names the address.
    """
    from kiekai.web.app import create_app

    if sock is None:
        sock = listen(host, port)
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    server, thread = serving.serve_in_thread(
        create_app(table),
        sock,
        name="kiek-web-server",
        log_level="warning",
        access_log=False,
        lifespan="off",
        graceful_shutdown_s=2,
        request_timeout_s=request_timeout_s,
    )
    bound = sock.getsockname()
    return TableServer(table, host, int(bound[1]), server, thread, str(bound[0]))


def run_web_game(
    table: WebTable,
    server: TableServer,
    make_bot: Callable[[int, str], KiekPlayer],
    cards: Sequence[Card],
    *,
    judge: JudgeLike,
    settings: GameSettings,
    log: EventLog | None = None,
    header: Mapping[str, Any] | None = None,
    house_rules: HouseRules | None = None,
    on_event: Callable[[Event], None] | None = None,
    clock: Clock | None = None,
    linger: float = LINGER_SECONDS,
    stay_open: bool = True,
) -> GameOutcome:
    """Wait in the lobby, then play a whole game at ``table``; returns the outcome.

    With ``stay_open`` (the default) the server keeps serving the final page after the
    game (the scores, the game's words, "Leave the table"): the caller closes it, with
    :meth:`TableServer.close_after_game` or :meth:`TableServer.stop`. Without it the server
    stops ``linger`` seconds after the game. A stopped game (Ctrl-C, an error) stops the
    server at once either way.

    People's seats nobody opened by the start are played by ``make_bot(seat, name)``
    (their name gets " (bot)"). Bots play server-side through the same player protocol.
    ``judge``, ``settings`` (seed, rounds, seconds a turn), ``log``, ``header``,
    ``house_rules`` and ``on_event`` go to :func:`~kiekai.kiek.game.play_game` as they are
    (``on_event`` after the table's own); ``header`` gains ``front_end: web``.

    Raises:
        GameAborted: Ctrl-C (the log is kept; the pages say the game stopped).
    """
    try:
        while not table.started.wait(0.25):
            pass
    except KeyboardInterrupt:
        table.stop("stopped with Ctrl-C before the game began")
        server.stop()
        raise GameAborted(
            "stopped with Ctrl-C before the game began", log.path if log else None
        ) from None
    players: list[KiekPlayer] = []
    with table.cond:
        for seat in table.seats:
            if seat.human and seat.joined:
                players.append(table.player(seat.index))
            else:
                if seat.human:
                    seat.name = f"{seat.name} (bot)"
                    seat.by_bot = True
                players.append(make_bot(seat.index, seat.name))
        table.mark_changed()

    def both(event: Event) -> None:
        table.on_event(event)
        if on_event is not None:
            on_event(event)

    try:
        outcome = play_game(
            players,
            cards,
            judge=judge,
            settings=settings,
            clock=clock or MonotonicClock(),
            log=log,
            header={**dict(header or {}), "front_end": "web"},
            on_event=both,
            house_rules=house_rules,
            card_names=table.card_names,
            on_engine=table.attach,
        )
    except GameAborted as exc:
        table.stop(exc.reason)
        server.stop()
        raise
    except BaseException:
        table.stop("the game stopped on an error")
        server.stop()
        raise
    if not stay_open:
        server.stop(linger=linger)
    return outcome
