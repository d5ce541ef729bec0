"""The judge's HTTP API as one FastAPI app (:func:`create_app`).

The app puts together the parts of :mod:`kiekai.judge.server`: a lifespan that builds the
:class:`~kiekai.judge.server.service.JudgeService` (loading the judges unless they are
handed in) and hands it to the routes through the lifespan state, the routes
(:data:`kiekai.judge.server.routes.router`), the exception handlers
(:func:`~kiekai.judge.server.errors.register_error_handlers`), the body-size limit
(:class:`BodyLimit`) and the offline API docs (Swagger UI at ``/docs``, ReDoc at
``/redoc``, their assets served from :data:`DOCS_STATIC_URL`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

import kiekai
from kiekai import serving
from kiekai.judge.server.errors import error_response, register_error_handlers
from kiekai.judge.server.routes import SERVICE_STATE, router
from kiekai.judge.server.rulings import RulingsSource
from kiekai.judge.server.schemas import (
    MAX_BATCH_PAIRS,
    MAX_BODY_BYTES,
    MAX_USED_WORDS,
    MAX_WORD_CHARS,
)
from kiekai.judge.server.service import (
    REQUEST_DEADLINE_S,
    JudgeService,
    coerce_judges,
    load_judges,
)

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from kiekai.judge.store import RulingStore

#: Where the Swagger UI and ReDoc assets (``swagger-ui-bundle.js``, ``swagger-ui.css``,
#: ``redoc.standalone.js``, ``favicon.png``) are served from, under this server.
DOCS_STATIC_URL = "/static-offline-docs"


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``max_bytes`` with a JSON 413.

    A ``Content-Length`` over the limit is refused before the body is read; a streamed
    (chunked) body is read up to the limit and refused as soon as it passes it. Bodies
    within the limit are handed to the app unchanged. Written here rather than using
    ``FastAPI(max_body_size=...)`` because that option exists only in recent FastAPI
    releases and older ones ignore it silently.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_large = int(value) > self.max_bytes
                except ValueError:
                    too_large = False  # the server itself rejects a malformed length
                if too_large:
                    await self._refuse(scope, receive, send)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # client went away: nothing to answer
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            413,
            "body-too-large",
            f"request body over {self.max_bytes} bytes; send at most {MAX_BATCH_PAIRS} pairs "
            f"of words of at most {MAX_WORD_CHARS} characters",
        )
        response.headers["connection"] = "close"
        await response(scope, receive, send)


#: The API's description on its docs pages and in ``/openapi.json``.
DESCRIPTION = (
    "The synonym judge for the party game Kiek, as an HTTP API. Verdicts follow the "
    "rulebook sections 'Imperfect Guesses' (synonyms and word forms are allowed, "
    "opposites and different things of the same kind are not) and 'Ne Bis in Idem' "
    "(a word may not repeat a used word). Every verdict carries `accepted`, `score` "
    "(0..1), the `relation` found and a `reason`. Errors are JSON "
    "`{error, message, errors}` with status 4xx, or 503 when the judge cannot answer."
    "\n\n"
    "**Tables.** A table keeps its own house rulings (rulebook 'Imperfect Guesses': each "
    "group decides which guess is correct). `POST /v1/tables` creates one and answers "
    "with its key, once; `POST`/`DELETE /v1/tables/{name}/rulings` write its rulings with "
    "that key (`Authorization: Bearer <key>` or `X-Table-Key`), `GET` lists them. A verdict "
    "request with `table` applies that table's rulings; without it, the `default` table's."
    "\n\n"
    "**Limits.** A word has at most "
    f"{MAX_WORD_CHARS} characters, a batch at most {MAX_BATCH_PAIRS} pairs, a repeat at "
    f"most {MAX_USED_WORDS} used words, a body at most {MAX_BODY_BYTES} bytes (413 "
    "beyond). Requests with few new pairs are judged first; larger ones are judged in "
    f"short chunks, in turn with each other, and get a 503 (`judge-busy`) when not done "
    f"within {REQUEST_DEADLINE_S:.0f} s. Under `kiekai serve` a client has "
    f"{serving.REQUEST_TIMEOUT_S:.0f} s to send a whole request (else 408 and the "
    "connection is closed, or closed alone for a body shorter than its Content-Length), "
    f"an idle kept-alive connection is closed after {serving.KEEP_ALIVE_TIMEOUT_S} s, "
    f"and request line and headers may hold {serving.MAX_HEADER_BYTES // 1024} KiB."
)


def create_app(
    judges: Mapping[Any, Any] | Callable[[], Mapping[Any, Any]] | None = None,
    store: RulingStore | str | None = None,
    *,
    rulings: RulingsSource | None = None,
) -> FastAPI:
    """Build the FastAPI app.

    Args:
        judges: ``{strictness: Judge}`` to serve (keys are :class:`Strictness` or their
            names). ``None`` builds one judge per level at start-up (:func:`load_judges`)
            in the app's lifespan; a function of no arguments is called there instead (on
            a thread: worker processes load their judges so). Passing them in lets a
            caller load models once and report loading errors itself (``kiekai serve``
            does).
        store: the tables' rulings: a :class:`kiekai.judge.store.RulingStore` (the caller
            closes it), or a store URL opened in the app's lifespan and closed with it
            (what each worker process of a multi-process server uses, ``kiekai serve
            --workers N``: a store's connections must not cross a fork). ``None``: a store
            in memory, made and closed with the app (its tables last as long as the app;
            ``kiekai serve`` passes the default store, a file).
        rulings: the server's own house rulings, asked at every request
            (:class:`~kiekai.judge.server.rulings.FileRulings` for ``--house-rules FILE``);
            ``None``: the judges' own ``house_rules``. A table's rulings (``store``) and a
            request's own come before them.

    Returns:
        The app; serve it with uvicorn. Start-up happens in its lifespan, so use it as a
        context manager (``with TestClient(app)``) or through an ASGI server.

    Raises:
        ValueError: a key of ``judges`` is not a strictness level.
    """
    given = coerce_judges(judges) if isinstance(judges, Mapping) else None
    loader = judges if callable(judges) else load_judges

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        loaded = given if given is not None else coerce_judges(await asyncio.to_thread(loader))
        own = store is None or isinstance(store, str)
        if store is None or isinstance(store, str):
            from kiekai.judge.store import open_store

            tables = await asyncio.to_thread(open_store, store or "sqlite://")
        else:
            tables = store
        service = JudgeService(loaded, tables, rulings=rulings)
        try:
            yield {SERVICE_STATE: service}
        finally:
            service.close()
            if own:
                tables.close()

    # FastAPIOffline: a FastAPI app whose /docs and /redoc pages use assets served by this
    # app (DOCS_STATIC_URL) instead of FastAPI's default CDN (cdn.jsdelivr.net).
    # validatorUrl=None: Swagger UI otherwise shows a badge image fetched from
    # validator.swagger.io (with this server's URL) whenever it is not opened on localhost.
    app = FastAPIOffline(
        docs_url="/docs",
        redoc_url="/redoc",
        static_url=DOCS_STATIC_URL,
        swagger_ui_parameters={"validatorUrl": None},
        title="kiekai judge",
        version=kiekai.__version__,
        summary="Is a guess the same word as the secret, and does a word repeat a used one?",
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    register_error_handlers(app)
    app.include_router(router)
    return app
