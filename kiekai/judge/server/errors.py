"""Errors of the judge's HTTP API and the exception handlers that turn them into JSON bodies.

Every 4xx and 503 answer has the body :class:`~kiekai.judge.server.schemas.ErrorResponse`
(``{"error", "message", "errors": [{"field", "problem"}]}``). The handlers are registered
once on the app (:func:`register_error_handlers`), and the API's routes use
:class:`JudgeRoute`, which turns any unexpected error of a route into a logged 503
(``server-error``), so no route has a try/except of its own and the server never answers
500. Client-controlled text echoed in a body is escaped and shortened (:func:`safe_text`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from kiekai.judge.server.schemas import MAX_WORD_CHARS, ErrorItem, ErrorResponse

log = logging.getLogger(__name__)

#: Longest text of a field name or message echoed back in an error body, in characters.
MAX_ECHO_CHARS = 80


class JudgeError(Exception):
    """The judge failed on a request.

    Attributes:
        status_code: 422 when the judge rejected the input (it raised ``ValueError``),
            503 when it could not answer (any other error); the table routes' own
            statuses (401, 403, 404, 409) for the rulings store.
        message: what happened, for the client.
        headers: extra response headers (``WWW-Authenticate`` on a 401).
    """

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def safe_text(text: Any, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` as printable, UTF-8-encodable, shortened text for an error body.

    Client-controlled text (e.g. an unknown field name) may hold lone surrogates or be
    megabytes long; both are escaped or cut here so the error itself never fails.
    """
    shown = str(text)
    if len(shown) > limit:
        shown = shown[:limit] + "..."
    return shown.encode("utf-8", "backslashreplace").decode("utf-8")


def _field_path(loc: Sequence[Any]) -> str:
    """``("body", "pairs", 3, "guess")`` -> ``"body.pairs[3].guess"``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += ("." if path else "") + safe_text(part)
    return path or "body"


def _problem(error: Mapping[str, Any]) -> str:
    """A clear sentence for one Pydantic error (never echoes the input value)."""
    kind = error.get("type", "")
    message = safe_text(error.get("msg", "invalid value"), limit=300)
    if kind == "json_invalid":
        detail = (error.get("ctx") or {}).get("error", "")
        loc = error.get("loc", ())
        where = f" at character {loc[-1]}" if loc and isinstance(loc[-1], int) else ""
        return safe_text(f"the body is not valid JSON ({detail}{where}); send a JSON object", 300)
    if kind == "string_unicode":
        return "not valid Unicode text (e.g. a lone surrogate such as \\ud800); send UTF-8 text"
    if kind == "missing":
        return "this field is required"
    if kind == "extra_forbidden":
        return "unknown field; remove it (check its spelling against the API schema)"
    if kind in ("model_attributes_type", "model_type", "dict_type"):
        if tuple(error.get("loc", ())) == ("body",):
            return "expected a JSON object sent with Content-Type: application/json"
        return "expected a JSON object"
    if kind.startswith("string_too_long"):
        return f"too long: a word has at most {MAX_WORD_CHARS} characters"
    if kind == "too_long":
        return safe_text(f"too many items: {message}", 300)
    if kind == "value_error":
        return message.removeprefix("Value error, ")
    return message


def error_response(
    status_code: int, code: str, message: str, errors: Sequence[ErrorItem] = ()
) -> JSONResponse:
    """A JSON answer with ``status_code`` and the body :class:`ErrorResponse` (``code``,
    ``message`` and the problems ``errors``)."""
    body = ErrorResponse(error=code, message=message, errors=list(errors))
    return JSONResponse(status_code=status_code, content=body.model_dump())


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError | ValidationError)
    raw = exc.errors()
    items = [
        ErrorItem(
            field="body" if e.get("type") == "json_invalid" else _field_path(e.get("loc", ())),
            problem=_problem(e),
        )
        for e in raw
    ]
    if (
        len(raw) == 1
        and tuple(raw[0].get("loc", ())) == ("body",)
        and raw[0].get("type") == "missing"
    ):
        # no body, or one not sent as JSON: FastAPI reads only application/json bodies
        items = [
            ErrorItem(
                field="body", problem="send a JSON object with Content-Type: application/json"
            )
        ]
    shown = items[:20]
    first = f"{shown[0].field}: {shown[0].problem}" if shown else "invalid request"
    more = f" (and {len(items) - 1} more problems)" if len(items) > 1 else ""
    return error_response(422, "invalid-request", f"invalid request: {first}{more}", shown)


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    codes = {
        400: "bad-request",
        404: "not-found",
        405: "method-not-allowed",
    }
    code = codes.get(exc.status_code, "http-error")
    message = safe_text(exc.detail, limit=300)
    if exc.status_code == 404:
        message = "no such endpoint; see /docs or /openapi.json for the API"
    elif exc.status_code == 400 and "parsing the body" in message:
        message = (
            "the body could not be parsed as JSON (invalid UTF-8, nesting too deep or a "
            "number too long); send a JSON object with Content-Type: application/json"
        )
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed here; see /docs for each endpoint's method"
    response = error_response(exc.status_code, code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _on_judge_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, JudgeError)
    response = error_response(exc.status_code, exc.code, exc.message)
    response.headers.update(exc.headers)
    return response


async def _on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    error = JudgeError(
        503,
        "server-error",
        f"the server could not answer ({type(exc).__name__}); the error is in the server log",
    )
    return error_response(error.status_code, error.code, error.message)


def unexpected_error(exc: Exception) -> JudgeError:
    """Any other failure while answering: logged, then reported as a 503."""
    log.exception("unexpected error answering a request", exc_info=exc)
    return JudgeError(
        503,
        "server-error",
        f"the server could not answer ({type(exc).__name__}); the error is in the server log",
    )


class JudgeRoute(APIRoute):
    """A route of the judge API whose unexpected errors become a logged 503.

    :class:`JudgeError`, request validation errors and HTTP errors pass through to their
    handlers (:func:`register_error_handlers`); any other exception raised while answering
    (a judge returning no verdict, a response that cannot be built) is logged with its
    traceback and answered as a 503 ``server-error``, never a 500. This is FastAPI's
    custom ``APIRoute`` class, set once on the router instead of a try/except per route.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The route's handler, wrapped so that unexpected errors become :class:`JudgeError`."""
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except (JudgeError, RequestValidationError, StarletteHTTPException):
                raise
            except Exception as exc:
                raise unexpected_error(exc) from exc

        return answer


def register_error_handlers(app: FastAPI) -> None:
    """Register the API's exception handlers on ``app``: validation errors (422
    ``invalid-request``), HTTP errors (400, 404, 405, ...), :class:`JudgeError` (its own
    status and code) and, as a last resort, any other exception (503 ``server-error``)."""
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(ValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(JudgeError, _on_judge_error)
    # last resort: Starlette's ServerErrorMiddleware sends this instead of a plain 500
    # (and still logs the traceback) for an error no other handler caught
    app.add_exception_handler(Exception, _on_unexpected_error)
