"""The web server of a Kiek table: pages, answers, live updates and photos (FastAPI).

Routes (``{token}`` is a seat's secret, :class:`kiekai.web.table.WebSeat`):

- ``GET /`` — a page that says this is a Kiek table (no seat links on it).
- ``GET /seat/{token}`` — the seat's page (server-rendered Jinja2, autoescaped); opening it
  joins the seat. A reload shows the current state.
- ``GET /seat/{token}/state`` — JSON ``{version, key, status, decision, state}``: the page's
  two panels rendered for this seat (its own hand only; nobody's word before the reveal).
- ``GET /seat/{token}/stream`` — server-sent events: ``version`` whenever the table changes,
  ``replaced`` when the seat was opened in a newer tab, ``closed`` when the table closes.
- ``POST /seat/{token}/{action}`` — a form post (``application/x-www-form-urlencoded``, at
  most :data:`MAX_BODY` bytes and :data:`MAX_FIELDS` fields) answering the seat's question:
  ``start``, ``shown``, ``play``, ``guess``, ``reveal``, ``repeats``, ``keep``. Answers name the question
  (``request``); an answer to a question no longer asked is refused with 409. At the reveal
  a person may also ``agree`` to another person's ruling (one that would score its maker
  needs it: :func:`kiekai.kiek.players.needs_agreement`). ``leave`` (after the game): the
  person leaves the final page; the table closes when everyone has
  (:meth:`kiekai.web.server.TableServer.close_after_game`).
- ``GET /seat/{token}/photo/{sha256}.jpg`` — a photo the seat may see (its own hand, the
  cards that have been face up: :meth:`kiekai.web.table.WebTable.may_see`), looked up by its
  content hash (never by a path from the request), as a JPEG of at most
  :data:`~kiekai.web.photos.PHOTO_SIDE` pixels encoded for everyone at the deal
  (:class:`~kiekai.web.photos.DealtPhotos`): no request decodes anything, so no answer's
  time depends on which photos another seat fetched. Any other name (another seat's card,
  a hash of no card, a malformed name) gets the same 404; a wrong token the same 403
  whatever the photo.

Every refusal is a 4xx with a sentence saying what was wrong and what to do (JSON
``{"error": ...}`` for posts and the state, a small HTML page for pages); no input reaches a
500. The game itself runs in another thread (:mod:`kiekai.web.server`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace as with_fields
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import BaseModel, ConfigDict

from kiekai.events import KiekGameOver
from kiekai.kiek.engine import ruling_key
from kiekai.kiek.players import needs_agreement, scored_by_guess_ruling, scored_by_repeat_ruling
from kiekai.kiek.seat import (
    MAX_WORD,
    choice_problem,
    chosen_play,
    group_named,
    possessive,
    used_word_named,
)
from kiekai.web.photos import PHOTO_DECODES, PHOTO_SIDE
from kiekai.web.table import SHARED_KINDS, Pending, SharedRuling, WebSeat, WebTable

__all__ = ["PHOTO_DECODES", "PHOTO_SIDE", "create_app", "seat_context"]

HERE = Path(__file__).resolve().parent
#: Largest form post accepted, in bytes (a word and a few card numbers need far less).
MAX_BODY = 2048
#: Most fields in one form post.
MAX_FIELDS = 16
#: Seconds between keep-alive comments on the live connection.
PING_SECONDS = 15.0

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
_DIGEST = re.compile(r"([0-9a-f]{64})\.jpg")
_ACTIONS = ("start", "shown", "play", "guess", "reveal", "repeats", "keep", "leave")


#: Headers on every answer. The pages load only their own script, style sheet and photos, with
#: no inline script or style, so a strict Content-Security-Policy costs nothing and is a second
#: wall behind the templates' autoescaping: text from labels.csv or a typed word that slipped
#: through as markup could still not run a script. ``frame-ancestors 'none'`` keeps another
#: site from framing a seat's page; ``no-referrer`` keeps the seat's secret link out of
#: Referer headers.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        b"frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP answer (a plain ASGI
    wrapper, so the live event stream is passed through untouched)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Refused(Exception):
    """An answer the table refuses; ``status`` is the HTTP status, the message says why
    (answered as JSON ``{"error": message}`` by the app's handler)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class NotASeat(Exception):
    """A seat link that names no seat at this table (403). ``page``: answer with an HTML
    page (the seat's page itself) rather than JSON (its state, stream and posts)."""

    def __init__(self, page: bool) -> None:
        super().__init__("not a seat at this table")
        self.page = page


_BAD_LINK = (
    "This seat link is not valid at this table: it may be from an earlier game, or "
    "mistyped. Use the link the table printed when it started."
)


def create_app(table: WebTable) -> FastAPI:
    """The FastAPI app serving ``table`` (routes in the module docstring)."""
    app = FastAPI(title="Kiek table", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(SecurityHeaders)
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["possessive"] = possessive  # the seat's grammar (kiekai.kiek.seat)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    _add_error_handlers(app, env)
    app.include_router(_seat_routes(table, env))
    return app


def _page(env: Environment, status: int, title: str, message: str) -> HTMLResponse:
    """A small HTML page saying ``message`` (``message.html``)."""
    html = env.get_template("message.html").render(title=title, message=message)
    return HTMLResponse(html, status_code=status)


def _add_error_handlers(app: FastAPI, env: Environment) -> None:
    """Answer refusals once for every route: :class:`Refused` and :class:`NotASeat` as JSON
    ``{"error": ...}`` (a page for a seat's page), HTTP errors as a page for a browser's
    page request and as JSON otherwise."""

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
            return _page(env, exc.status_code, "Kiek", str(exc.detail))
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> Response:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(NotASeat)
    async def not_a_seat(request: Request, exc: NotASeat) -> Response:
        if exc.page:
            return _page(env, 403, "Not a seat at this table", _BAD_LINK)
        return JSONResponse({"error": _BAD_LINK}, status_code=403)


def known_action(action: str) -> str:
    """The path's ``action`` when the page posts it (a dependency of the answer route).

    Raises:
        Refused: 404 for any other action.
    """
    if action not in _ACTIONS:
        raise Refused(
            404, f"unknown action {action[:40]!r}; the page posts one of {', '.join(_ACTIONS)}"
        )
    return action


def _seat_for(table: WebTable, token: str, *, page: bool) -> WebSeat:
    """The seat of ``table`` whose secret is ``token``.

    Raises:
        NotASeat: no seat has that token (``page``: answered with a page, else JSON).
    """
    seat = table.seat_for(token) if _TOKEN.fullmatch(token) else None
    if seat is None:
        raise NotASeat(page)
    return seat


def _seat_routes(table: WebTable, env: Environment) -> APIRouter:
    """The routes of a seat (``/``, ``/seat/{token}`` and below) serving ``table``; the seat
    comes from its token once per request through ``Depends`` (dependencies are given as
    defaults: they are local to this app's table, which string annotations cannot name)."""
    router = APIRouter()

    def seat_of(token: str) -> WebSeat:
        return _seat_for(table, token, page=False)

    def page_seat(token: str) -> WebSeat:
        return _seat_for(table, token, page=True)

    @router.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return _page(
            env,
            200,
            "Kiek table",
            "This is a Kiek table. Open the link printed for your seat when the table started.",
        )

    @router.get("/seat/{token}", response_class=HTMLResponse)
    async def seat_page(seat: WebSeat = Depends(page_seat)) -> HTMLResponse:
        table.join(seat)
        context = seat_context(table, seat)
        html = env.get_template("page.html").render(
            **context,
            status_html=env.get_template("_status.html").render(**context),
            decision_html=env.get_template("_decision.html").render(**context),
        )
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    @router.get("/seat/{token}/state")
    async def seat_state(seat: WebSeat = Depends(seat_of)) -> JSONResponse:
        context = seat_context(table, seat)
        return JSONResponse(
            {
                "version": context["version"],
                "key": context["key"],
                "state": context["state"],
                "status": env.get_template("_status.html").render(**context),
                "decision": env.get_template("_decision.html").render(**context),
            },
            headers={"Cache-Control": "no-store"},
        )

    @router.get("/seat/{token}/stream")
    async def seat_stream(request: Request, seat: WebSeat = Depends(seat_of)) -> Response:
        connection = table.connect(seat)
        return StreamingResponse(
            _seat_events(table, seat, connection, request),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @router.post("/seat/{token}/{action}")
    async def seat_post(
        seat: WebSeat = Depends(seat_of),
        action: str = Depends(known_action),
        fields: dict[str, list[str]] = Depends(read_form),
    ) -> JSONResponse:
        answer(table, seat, action, fields)
        return JSONResponse({"ok": True, "version": table.version})

    @router.get("/seat/{token}/photo/{name}")
    def seat_photo(name: str, seat: WebSeat = Depends(seat_of)) -> Response:
        # one answer for every photo this seat may not see, in the deck or not: the same
        # status, text and work (a set lookup), so neither tells what another seat holds
        found = _DIGEST.fullmatch(name)
        if found is None or not table.may_see(seat, found.group(1)):
            raise Refused(404, "no photo you can see at this table has that name")
        data = table.photos.jpeg(found.group(1))
        if data is None:  # dealt and visible, but it cannot be decoded: a 404, not a 500
            raise Refused(404, "this photo cannot be shown")
        return Response(
            data, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=3600"}
        )

    return router


async def _seat_events(
    table: WebTable, seat: WebSeat, connection: int, request: Request
) -> AsyncIterator[str]:
    """The seat's live stream (server-sent events): ``version`` whenever the table changes,
    ``replaced`` when the seat is opened in a newer tab, ``closed`` when the table closes,
    a comment every :data:`PING_SECONDS` to keep the connection open."""
    try:
        yield "retry: 1500\n\n"
        last, quiet = -1, 0.0
        while True:
            if await request.is_disconnected():
                return
            if seat.stream_id != connection:
                yield "event: replaced\ndata: this seat was opened in another tab\n\n"
                return
            if table.closing:
                yield "event: closed\ndata: the table has closed\n\n"
                return
            if table.version != last:
                last = table.version
                quiet = 0.0
                yield f"event: version\ndata: {last}\n\n"
            elif quiet >= PING_SECONDS:
                quiet = 0.0
                yield ": ping\n\n"
            await asyncio.sleep(0.15)
            quiet += 0.15
    finally:
        table.disconnect(seat)


async def read_form(request: Request) -> dict[str, list[str]]:
    """The fields of a small urlencoded form post (a dependency of the answer route).

    Raises:
        Refused: 415 for another content type, 413 for more than :data:`MAX_BODY` bytes,
            400 for text that is not UTF-8 or more than :data:`MAX_FIELDS` fields.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not kind and request.headers.get("content-length", "0") == "0":
        return {}  # an empty post (a button without fields)
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "send the answer as a form (application/x-www-form-urlencoded)")
    length = request.headers.get("content-length", "")
    if length and (not length.isdigit() or int(length) > MAX_BODY):
        raise Refused(
            413,
            f"the answer is larger than {MAX_BODY} bytes; a word and card numbers fit in far less",
        )
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(
                413,
                f"the answer is larger than {MAX_BODY} bytes; a word and card numbers fit in far less",
            )
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS, errors="strict")
    except UnicodeDecodeError:
        raise Refused(400, "the answer is not UTF-8 text") from None
    except ValueError:
        raise Refused(400, f"the answer has more than {MAX_FIELDS} fields") from None
    form: dict[str, list[str]] = {}
    for key, value in pairs:
        form.setdefault(key, []).append(value)
    return form


# ------------------------------------------------------------------------ posted forms


class SeatForm(BaseModel):
    """The fields one kind of answer posts, read from the form's fields by :meth:`read`.

    A ``str`` field is sent once (a default makes it optional), a ``list[str]`` field any
    number of times (the card numbers); fields not declared are ignored.
    """

    model_config = ConfigDict(frozen=True)

    @classmethod
    def read(cls, fields: Mapping[str, list[str]]) -> Self:
        """The form of ``fields`` (as :func:`read_form` returns them).

        Raises:
            Refused: 400 when a field is missing or a single field is sent more than once.
        """
        values: dict[str, Any] = {}
        for name, info in cls.model_fields.items():
            given = fields.get(name)
            if info.annotation == list[str]:
                values[name] = list(given or [])
            elif given:
                if len(given) > 1:
                    raise Refused(400, f"the answer has {len(given)} {name!r} fields; send one")
                values[name] = given[0]
            elif info.is_required():
                raise Refused(400, f"the answer has no {name!r} field")
        return cls.model_validate(values)


class AnswerForm(SeatForm):
    """What every answer posts: the id of the question it answers."""

    request: str


class PlayForm(SeatForm):
    """The active player's play: ``step`` ``cards`` (two cards of the hand), ``back``, or
    ``split`` (three of the five cards and the word)."""

    step: str
    card: list[str] = []
    word: str = ""


class GuessForm(SeatForm):
    """A guesser's word."""

    word: str = ""


class RevealForm(SeatForm):
    """At the reveal: ``do`` ``call``, ``overrule`` (the guess ``word``), ``agree`` (to
    another person's ruling on ``word``) or ``done``."""

    do: str
    word: str | None = None


class RepeatsForm(SeatForm):
    """After a ne bis in idem call: ``do`` ``overrule`` (the ``word``, and the ``used`` word
    it repeats when the judge found none), ``agree`` (to another person's ruling on
    ``word``) or ``done``."""

    do: str
    word: str | None = None
    used: str = ""


class KeepForm(SeatForm):
    """The card on offer a player keeps."""

    card: list[str] = []


def _indices(card: Sequence[str], count: int, size: int, what: str) -> list[int]:
    """The card numbers posted, when they are ``count`` different numbers below ``size``.

    Raises:
        Refused: 400 for numbers that are not whole numbers, 422 for a wrong choice.
    """
    try:
        numbers = [int(v) for v in card]
    except ValueError:
        raise Refused(400, "card numbers must be whole numbers") from None
    if choice_problem(numbers, range(size), count) is not None:
        raise Refused(422, f"choose {count} different {what}")
    return numbers


def _required(value: str | None, name: str) -> str:
    """``value``, a field an answer of this kind must have sent.

    Raises:
        Refused: 400 when it was not sent.
    """
    if value is None:
        raise Refused(400, f"the answer has no {name!r} field")
    return value


def answer(table: WebTable, seat: WebSeat, action: str, fields: Mapping[str, list[str]]) -> None:
    """Apply a person's post to the table.

    Raises:
        Refused: 409 for a question no longer asked (a stale page), 422 for an answer the
            rules refuse (the reason is shown on the page), 400 for a malformed post.
    """
    if action == "start":
        with table.cond:
            if table.state != "lobby":
                raise Refused(409, "the game has already started")
        table.start()
        return
    if action == "leave":
        with table.cond:
            if table.state not in ("over", "stopped"):
                raise Refused(409, "the game is still on; leave the table once it is over")
        table.leave(seat)
        return
    with table.cond:
        pending = _asked(table, seat, fields)
        if action == "shown":
            if pending.hourglass is not None:
                pending.hourglass.start()
            table.mark_changed()
            return
        if action != pending.kind:
            raise Refused(409, f"the table is asking you to {pending.kind}, not to {action}")
        try:
            _ANSWERS[action](table, seat, pending, fields)
        except Refused as exc:
            if exc.status == 422:
                pending.error = exc.message
                table.mark_changed()
            raise
        pending.error = ""
        table.mark_changed()


def _asked(table: WebTable, seat: WebSeat, fields: Mapping[str, list[str]]) -> Pending:
    """The question the post answers: the seat's open question with the posted id (caller
    holds ``table.cond``).

    Raises:
        Refused: 409 when the game is over or the question is no longer asked, 400 when
            the post names no question.
    """
    if table.state in ("over", "stopped"):
        raise Refused(409, "the game is over; nothing more can be answered")
    pending = seat.pending
    request_id = AnswerForm.read(fields).request
    if pending is None or pending.id != request_id or pending.answered:
        raise Refused(
            409,
            "that question is no longer asked (the page was out of date); it has been refreshed",
        )
    return pending


def _answer_play(
    table: WebTable, seat: WebSeat, pending: Pending, fields: Mapping[str, list[str]]
) -> None:
    view = pending.view
    form = PlayForm.read(fields)
    if form.step == "cards":
        hand = [c.id for c in view.hand]
        chosen = _indices(form.card, 2, len(hand), "cards of your hand to play")
        pending.played = tuple(hand[i] for i in chosen)
        pending.step = 2
        return
    if form.step == "back":
        pending.step, pending.played = 1, ()
        pending.draft_cards, pending.draft_word = (), ""
        return
    if form.step != "split" or pending.step != 2:
        raise Refused(409, "choose the two cards of your hand first")
    five = [c.id for c in view.table] + list(pending.played)
    three_ix = _indices(form.card, 3, len(five), "cards for the group of three")
    word = form.word.strip()
    why = table.check_word(word)
    if why:
        pending.draft_cards, pending.draft_word = tuple(three_ix), word[:MAX_WORD]
        raise Refused(422, f"Please write one word ({why}).")
    pending.answer = chosen_play(view, pending.played, [five[i] for i in three_ix], word)


def _answer_guess(
    table: WebTable, seat: WebSeat, pending: Pending, fields: Mapping[str, list[str]]
) -> None:
    word = GuessForm.read(fields).word.strip()
    why = table.check_word(word)
    if why:
        pending.draft_word = word[:MAX_WORD]
        raise Refused(422, f"Please write one word ({why}).")
    pending.wrote = word
    seat.last_guess = word
    pending.answer = word


def _find_word(groups, word: str | None):
    """The group of ``groups`` (:class:`~kiekai.kiek.players.WordVerdict`) the post's
    ``word`` field names (by the table's ruling key), or a 422."""
    found = group_named(groups, _required(word, "word"))
    if found is None:
        raise Refused(422, "that word has no verdict to overrule")
    return found


def _answer_reveal(
    table: WebTable, seat: WebSeat, pending: Pending, fields: Mapping[str, list[str]]
) -> None:
    """At the reveal: call ne bis in idem (a toggle), overrule the judge on a word (or
    take a ruling back: any person may, the judge's verdict then stands), agree to another
    person's ruling, or say done."""
    form = RevealForm.read(fields)
    view = pending.view
    if form.do == "call":
        pending.call = not pending.call
    elif form.do == "overrule":
        group = _find_word(view.guesses, form.word)
        key = ruling_key(group.word)
        if key in table.rulings:
            del table.rulings[key]
        else:
            accepted = not group.verdict.accepted
            table.rulings[key] = SharedRuling(
                group.word,
                accepted,
                seat.index,
                scored=scored_by_guess_ruling(view.active_seat, group.seats, accepted),
            )
    elif form.do == "agree":
        _agree(table.rulings, seat, _find_word(view.guesses, form.word).word)
    elif form.do == "done":
        pending.answer = True
    else:
        raise Refused(400, "do must be call, overrule, agree or done")


def _agree(rulings: dict[str, SharedRuling], seat: WebSeat, word: str) -> None:
    """``seat`` agrees to the ruling on ``word`` (made by another person).

    Raises:
        Refused: 409 when there is no ruling on the word or the seat made it itself.
    """
    key = ruling_key(word)
    ruling = rulings.get(key)
    if ruling is None:
        raise Refused(409, f"nobody has ruled on {word!r}: there is nothing to agree to")
    if ruling.by == seat.index:
        raise Refused(409, "you made this ruling; another person has to agree to it")
    if seat.index not in ruling.agreed:
        rulings[key] = with_fields(ruling, agreed=tuple(sorted((*ruling.agreed, seat.index))))


def _answer_repeats(
    table: WebTable, seat: WebSeat, pending: Pending, fields: Mapping[str, list[str]]
) -> None:
    """After a ne bis in idem call: overrule the judge's repeat verdict on a word (a word
    the judge says repeats: no repeat; a word it says is new: ``used`` names the used word
    it repeats), take a ruling back, agree to another person's ruling, or say done."""
    form = RepeatsForm.read(fields)
    view = pending.view
    if form.do == "overrule":
        group = _find_word(view.repeats, form.word)
        key = ruling_key(group.word)
        if key in table.repeat_rulings:
            del table.repeat_rulings[key]
            return
        used = None
        if not group.verdict.accepted:
            used = used_word_named(form.used, view.used_words, by_number=False)
            if used is None:
                raise Refused(422, "choose the used word it repeats")
        scored = scored_by_repeat_ruling(
            view.active_seat, group.seats, view.callers, used is not None
        )
        table.repeat_rulings[key] = SharedRuling(group.word, used, seat.index, scored=scored)
    elif form.do == "agree":
        _agree(table.repeat_rulings, seat, _find_word(view.repeats, form.word).word)
    elif form.do == "done":
        pending.answer = True
    else:
        raise Refused(400, "do must be overrule, agree or done")


def _answer_keep(
    table: WebTable, seat: WebSeat, pending: Pending, fields: Mapping[str, list[str]]
) -> None:
    (index,) = _indices(KeepForm.read(fields).card, 1, len(pending.view.cards), "card on offer")
    pending.answer = pending.view.cards[index].id


#: The answer of each kind of question (the posted action names the kind).
_ANSWERS: dict[str, Callable[[WebTable, WebSeat, Pending, Mapping[str, list[str]]], None]] = {
    "play": _answer_play,
    "guess": _answer_guess,
    "reveal": _answer_reveal,
    "repeats": _answer_repeats,
    "keep": _answer_keep,
}


# ---------------------------------------------------------------------- what a seat sees


def seat_context(table: WebTable, seat: WebSeat) -> dict[str, Any]:
    """Everything the templates show to ``seat``, as plain values (read under the lock)."""
    with table.cond:
        snap = table.snapshot
        names = [s.name for s in table.seats]

        def card(card_id: str, index: int = 0) -> dict[str, Any]:
            c = table.cards[card_id]
            return {
                "sha": c.sha256,
                "src": f"/seat/{seat.token}/photo/{c.sha256}.jpg",
                "name": table.card_names.get(card_id, "a photo"),
                "index": index,
            }

        scores = snap.scores if snap is not None else (0,) * len(names)
        players = [
            {
                "name": s.name,
                "you": s is seat,
                "bot": not s.human or s.by_bot or (table.state != "lobby" and not s.joined),
                "joined": s.joined,
                "score": scores[s.index] if s.index < len(scores) else 0,
                "active": snap is not None and snap.active == s.index and table.state == "playing",
                "online": s.streams > 0,
            }
            for s in table.seats
        ]
        hands = snap.hands if snap is not None else ()
        hand = [card(c) for c in hands[seat.index]] if seat.index < len(hands) else []
        turns = []
        for record in table.turns[-2:]:
            turns.append(_turn_context(record, names, card, snap))
        current = turns[-1] if turns else None
        previous = turns[-2] if len(turns) > 1 else None
        context: dict[str, Any] = {
            "version": table.version,
            "state": table.state,
            "token": seat.token,
            "me": seat.index,
            "my_name": seat.name,
            "watching": seat.by_bot,
            "names": names,
            "players": players,
            "snap": snap,
            "table_cards": [card(c) for c in snap.table] if snap is not None else [],
            "hand": hand,
            "used_words": list(snap.used_words) if snap is not None else [],
            "log_lines": list(table.log_lines)[-14:],
            "notices": list(seat.notices),
            "current": current,
            "previous": previous,
            "final": _final_context(table.final, names) if table.final else None,
            "game_words": [_words_of(record, names) for record in table.turns]
            if table.state in ("over", "stopped")
            else [],
            "left": seat.left,
            "closing": table.closing,
            "stop_reason": table.stop_reason,
            "waiting_for": [names[i] for i in snap.waiting_for] if snap is not None else [],
            "decision": None,
            "lobby_seats": [
                {"name": s.name, "joined": s.joined, "you": s is seat}
                for s in table.seats
                if s.human
            ],
            "bots_in_lobby": [s.name for s in table.seats if not s.human],
            "log_path": table.log_path,
            "my_guess": seat.last_guess if snap is not None and snap.phase == "guess" else "",
        }
        pending = seat.pending
        if pending is not None and (not pending.answered or pending.kind in SHARED_KINDS):
            context["decision"] = _decision_context(table, seat, pending, card, names)
        key = f"{table.state}:{snap.turn}:{snap.phase}" if snap is not None else f"{table.state}::"
        if table.state in ("over", "stopped"):  # the final page: leaving, the close
            key += f":{seat.left}:{table.closing}"
        if pending is not None and context["decision"] is not None:  # a decision needs pending
            d = context["decision"]
            # not the refusal: the page shows it from the answer and keeps what was typed
            # since (a re-render would drop keys typed while it fetched the new state)
            key = f"{pending.id}:{pending.step}:{d.get('reveal_key', '')}:{pending.answered}"
        elif seat.pending is not None and seat.pending.kind == "guess":
            key += f":wrote:{seat.pending.wrote}"
        context["key"] = key
        return context


def _turn_context(record, names, card, snap) -> dict[str, Any]:
    words = list(record.words)
    verdicts = []
    for seat_index, verdict in sorted(record.verdicts.items()):
        verdicts.append(
            {
                "who": names[seat_index],
                "guess": verdict.guess,
                "accepted": verdict.accepted,
                "scored": verdict.scored,
                "reason": verdict.reason,
                "overruled": verdict.overruled,
            }
        )
    call = None
    if record.call is not None:
        credited = record.call.credited
        call = {
            "callers": [names[s] for s in record.call.callers],
            "right": record.call.right,
            "credited": names[credited] if credited is not None else None,
            "repeats": [{"who": names[int(s)], "word": w} for s, w in record.call.repeats.items()],
        }
    return {
        "turn": record.turn + 1,
        "active": names[record.active],
        "active_seat": record.active,
        "stake": record.stake,
        "three": [card(c) for c in record.three],
        "two": [card(c) for c in record.two],
        "forfeited": record.forfeited,
        "wrote_word": record.wrote_word,
        "words": [
            {"who": names[i], "word": w, "active": i == record.active} for i, w in enumerate(words)
        ],
        "verdicts": verdicts,
        "rulings": [
            {
                "by": names[by],
                "who": ", ".join(names[s] for s in (r.guessers or [r.guesser])),
                "guess": r.guess,
                "accepted": r.accepted,
                "withdrawn": r.withdrawn,
                "agreed": [names[s] for s in r.agreed],
            }
            for by, r in record.rulings
        ],
        "repeat_rulings": [
            {
                "by": names[by],
                "who": ", ".join(names[s] for s in r.writers),
                "word": r.word,
                "used": r.used,
                "repeats": r.repeats,
                "withdrawn": r.withdrawn,
                "agreed": [names[s] for s in r.agreed],
            }
            for by, r in record.repeat_rulings
        ],
        "call": call,
        "points": [{"who": names[i], "points": p} for i, p in enumerate(record.points) if p],
        "scored": record.scored,
        "time_ups": [{"who": names[s], "what": w} for s, w in record.time_ups],
    }


def _words_of(record, names: Sequence[str]) -> dict[str, Any]:
    """One turn of the final page's "The game's words": who was active, the word, and
    each guess with its verdict and points (what was said aloud: public)."""
    words = list(record.words)
    secret = words[record.active] if record.active < len(words) else ""
    guesses = []
    for seat, verdict in sorted(record.verdicts.items()):
        guesses.append(
            {
                "who": names[seat],
                "word": verdict.guess,
                "accepted": verdict.accepted,
                "scored": verdict.scored,
                "overruled": verdict.overruled,
            }
        )
    return {
        "turn": record.turn + 1,
        "active": names[record.active],
        "secret": secret if record.wrote_word else "",
        "stake": record.stake,
        "guesses": guesses,
        "call": bool(record.call and record.call.right),
    }


def _final_context(final: KiekGameOver, names: list[str]) -> dict[str, Any]:
    scores = final.scores
    return {
        "reason": final.reason,
        "rows": [
            {"place": place, "name": names[s], "points": scores[s] if s < len(scores) else 0}
            for place, s in enumerate(final.ranking, start=1)
        ],
        "winner": names[final.winner],
        "tie": final.tie_broken_by_last_active,
    }


def _verdict_row(
    table: WebTable, seat: WebSeat, group, ruling: SharedRuling | None, names: Sequence[str]
) -> dict[str, Any]:
    """The fields a reveal row and a repeats row share: the word, who wrote it, the judge's
    verdict and reason, and the table's ruling with who made it, who agreed, whether it
    still needs another person's agreement (it would score its ruler:
    :func:`~kiekai.kiek.players.needs_agreement`) and whether this seat may give it."""
    needs = ruling is not None and needs_agreement(
        ruling.by, ruling.scored, sorted(table.web_seats)
    )
    return {
        "word": group.word,
        "who": ", ".join(names[s] for s in group.seats),
        "judge": group.verdict.accepted,
        "reason": group.verdict.reason,
        "ruled": ruling is not None,
        "ruled_by": names[ruling.by] if ruling is not None else "",
        "mine": ruling is not None and ruling.by == seat.index,
        "agreed_by": [names[s] for s in ruling.agreed] if ruling is not None else [],
        "needs_agreement": needs and ruling is not None and not ruling.agreed,
        "can_agree": needs
        and ruling is not None
        and ruling.by != seat.index
        and seat.index not in ruling.agreed,
    }


def _decision_context(table, seat, pending: Pending, card, names) -> dict[str, Any]:
    view = pending.view
    glass = pending.hourglass
    d: dict[str, Any] = {
        "id": pending.id,
        "kind": pending.kind,
        "step": pending.step,
        "error": pending.error,
        "timed": glass is not None,
        "left": round(glass.left(), 1) if glass is not None else None,
        "started": bool(glass is not None and glass.started),
        "limit": glass.seconds if glass is not None else None,
        "max_word": MAX_WORD,
        "answered": pending.answered,
        "draft_cards": list(pending.draft_cards),
        "draft_word": pending.draft_word,
    }
    if pending.kind == "play":
        d["stake"] = view.stake
        d["table"] = [card(c.id, i) for i, c in enumerate(view.table)]
        d["hand"] = [card(c.id, i) for i, c in enumerate(view.hand)]
        if pending.step == 2:
            five = [c.id for c in view.table] + list(pending.played)
            d["five"] = [card(c, i) for i, c in enumerate(five)]
    elif pending.kind == "guess":
        d["stake"] = view.stake
        d["active"] = names[view.active_seat]
        d["three"] = [card(c.id) for c in view.three]
        d["two"] = [card(c.id) for c in view.two]
        d["wrote"] = pending.wrote
    elif pending.kind == "keep":
        d["cards"] = [card(c.id, i) for i, c in enumerate(view.cards)]
        d["kept"] = [card(c.id) for c in view.kept]
        d["for"] = names[view.new_active_seat]
    elif pending.kind == "reveal":
        secret = view.words.get(view.active_seat, "")
        rows = []
        for group in view.guesses:
            ruling = table.rulings.get(ruling_key(group.word))
            row = _verdict_row(table, seat, group, ruling, names)
            row["now"] = ruling.value if ruling is not None else group.verdict.accepted
            rows.append(row)
        d["secret"] = secret
        d["active"] = names[view.active_seat]
        d["rows"] = rows
        d["silent"] = [
            names[s] for s, w in sorted(view.words.items()) if not w and s != view.active_seat
        ]
        d["used"] = list(view.used_words)
        d["call"] = pending.call
        d["done"] = pending.answered
        waiting = table.round_waiting("reveal", view.turn)
        d["waiting"] = waiting
        d["reveal_key"] = f"{sorted(table.rulings.items())}:{pending.call}:{waiting}"
    elif pending.kind == "repeats":
        rows = []
        for group in view.repeats:
            ruling = table.repeat_rulings.get(ruling_key(group.word))
            row = _verdict_row(table, seat, group, ruling, names)
            row["judge_used"] = group.verdict.matched or ""
            row["ruled_used"] = (ruling.value or "") if ruling is not None else ""
            rows.append(row)
        d["active"] = names[view.active_seat]
        d["callers"] = [names[s] for s in view.callers]
        d["rows"] = rows
        d["used"] = list(view.used_words)
        d["done"] = pending.answered
        waiting = table.round_waiting("repeats", view.turn)
        d["waiting"] = waiting
        d["reveal_key"] = f"{sorted(table.repeat_rulings.items())}:{waiting}"
    return d
