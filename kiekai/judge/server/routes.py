"""The routes of the judge's HTTP API (``POST /v1/judge``, ``/v1/judge/batch``,
``/v1/repeat``, the tables' ``/v1/tables`` and ``/v1/tables/{name}/rulings``,
``GET``/``HEAD /healthz``) on one :class:`fastapi.APIRouter`.

Each route is a few lines: it receives its validated body (:mod:`.schemas`) and the
:class:`~kiekai.judge.server.service.JudgeService` through ``Depends`` (:func:`judge_service`,
which reads the service that the app's lifespan put in the lifespan state), asks the
service once, and builds its response model. Errors are raised, never caught here: the
router's route class (:class:`~kiekai.judge.server.errors.JudgeRoute`) and the app's
exception handlers turn them into JSON bodies. The questions are the rulebook's
(``../shared/rules/kiek.txt``, "Imperfect Guesses" and "Ne Bis in Idem").
"""

from __future__ import annotations

import math
import os
import platform
import sys
from collections.abc import Mapping
from importlib import metadata
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Security
from fastapi import Path as PathParam
from fastapi.responses import PlainTextResponse, Response
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

import kiekai
from kiekai.judge.house_rules import MAX_TABLE_RULINGS, TABLE_NAME_PATTERN, HouseRuling
from kiekai.judge.server.errors import JudgeError, JudgeRoute
from kiekai.judge.server.schemas import (
    MAX_BATCH_PAIRS,
    MAX_BODY_BYTES,
    MAX_PAGE_RULINGS,
    MAX_WORD_CHARS,
    BatchRequest,
    ErrorResponse,
    HealthResponse,
    JudgeRequest,
    JudgeResponse,
    RemovedOut,
    RepeatRequest,
    RepeatResponse,
    RulingsPage,
    TableCreate,
    TableCreated,
    TableRulingIn,
    TableRulingOut,
    to_house_rules,
)
from kiekai.judge.server.service import REQUEST_DEADLINE_S, JudgeService
from kiekai.judge.verdict import Strictness, Verdict

if TYPE_CHECKING:
    from kiekai.judge.store import RulingStore

#: Version of this HTTP API (the ``/v1`` prefix), reported by ``/healthz``.
API_VERSION = "1"
#: Key of the :class:`JudgeService` in the app's lifespan state (set by
#: :func:`kiekai.judge.server.app.create_app`'s lifespan).
SERVICE_STATE = "judge_service"

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorResponse,
        "description": "The body could not be parsed (invalid UTF-8, nesting too deep, ...).",
    },
    413: {"model": ErrorResponse, "description": f"The body is over {MAX_BODY_BYTES} bytes."},
    422: {"model": ErrorResponse, "description": "The request or one of its words is invalid."},
    503: {
        "model": ErrorResponse,
        "description": "The judge could not answer (`judge-unavailable`), or a large request "
        f"was not judged within {REQUEST_DEADLINE_S:.0f} s (`judge-busy`: retry later or send "
        "fewer words).",
    },
}


def loaded_service(request: Request) -> JudgeService | None:
    """The app's :class:`JudgeService`, or ``None`` while the app's lifespan has not
    started it (the judges are still loading, or the app runs without its lifespan)."""
    service = request.scope.get("state", {}).get(SERVICE_STATE)
    return service if isinstance(service, JudgeService) else None


def judge_service(request: Request) -> JudgeService:
    """The app's :class:`JudgeService` (a ``Depends`` dependency of the judging routes).

    Raises:
        JudgeError: (503 ``judge-unavailable``) the judges are still loading.
    """
    service = loaded_service(request)
    if service is None:
        raise JudgeError(503, "judge-unavailable", "the judges are still loading; retry")
    return service


Service = Annotated[JudgeService, Depends(judge_service)]
LoadedService = Annotated[JudgeService | None, Depends(loaded_service)]

router = APIRouter(route_class=JudgeRoute)


def _verdict_fields(verdict: Verdict) -> dict[str, Any]:
    """Check a judge's verdict and return its fields for a response model.

    Scores a hair outside 0..1 from float rounding are clamped.

    Raises:
        JudgeError: (503) the score is not a finite number.
    """
    score = float(verdict.score)
    if not math.isfinite(score):
        raise JudgeError(
            503, "judge-unavailable", f"the judge returned a non-finite score ({score})"
        )
    return {
        "accepted": bool(verdict.accepted),
        "score": min(1.0, max(0.0, score)),
        "relation": str(verdict.relation),
        "reason": str(verdict.reason),
        "details": _finite(getattr(verdict, "details", None) or {}),
    }


def _finite(details: dict[str, Any]) -> dict[str, Any]:
    """``details`` without non-finite numbers (JSON has none), at any depth."""
    out: dict[str, Any] = {}
    for key, value in details.items():
        if isinstance(value, float) and not math.isfinite(value):
            continue
        out[str(key)] = _finite(value) if isinstance(value, dict) else value
    return out


@router.post(
    "/v1/judge",
    response_model=JudgeResponse,
    responses=_ERRORS,
    summary="Judge one guess against a secret word",
    tags=["judge"],
)
async def judge_one(body: JudgeRequest, service: Service) -> JudgeResponse:
    """Does `guess` name the same thing as `secret` at this strictness?"""
    rulings = await service.rulings(
        body.table, (body.secret, body.guess), to_house_rules(body.house_rules)
    )
    verdict = await service.match(body.strictness, body.secret, body.guess, rulings)
    return JudgeResponse(
        secret=body.secret,
        guess=body.guess,
        strictness=body.strictness,
        **_verdict_fields(verdict),
    )


@router.post(
    "/v1/judge/batch",
    response_model=list[JudgeResponse],
    responses=_ERRORS,
    summary=f"Judge up to {MAX_BATCH_PAIRS} pairs in one request",
    tags=["judge"],
)
async def judge_batch(body: BatchRequest, service: Service) -> list[JudgeResponse]:
    """One verdict per pair, in the order sent, all at the same strictness."""
    pairs = [(p.secret, p.guess) for p in body.pairs]
    words = [w for pair in pairs for w in pair]
    rulings = await service.rulings(body.table, words, to_house_rules(body.house_rules))
    verdicts = await service.match_many(body.strictness, pairs, rulings)
    return [
        JudgeResponse(
            secret=secret,
            guess=guess,
            strictness=body.strictness,
            **_verdict_fields(verdict),
        )
        for (secret, guess), verdict in zip(pairs, verdicts, strict=True)
    ]


@router.post(
    "/v1/repeat",
    response_model=RepeatResponse,
    responses=_ERRORS,
    summary="Does a candidate word repeat a used word? (ne bis in idem)",
    tags=["judge"],
)
async def repeat(body: RepeatRequest, service: Service) -> RepeatResponse:
    """`accepted` is true when `candidate` repeats one of `used`; `matched` names it."""
    rulings = await service.rulings(
        body.table, [body.candidate, *body.used], to_house_rules(body.house_rules)
    )
    verdict = await service.is_repeat(body.strictness, body.candidate, body.used, rulings)
    matched = verdict.matched
    return RepeatResponse(
        candidate=body.candidate,
        strictness=body.strictness,
        matched=None if matched is None else str(matched),
        **_verdict_fields(verdict),
    )


# ------------------------------------------------------------------------------- tables

_bearer = HTTPBearer(
    auto_error=False,
    description="The table's key (from `POST /v1/tables`) as `Authorization: Bearer <key>`.",
)
_key_header = APIKeyHeader(
    name="X-Table-Key",
    auto_error=False,
    description="The table's key (from `POST /v1/tables`), instead of `Authorization`.",
)
TablePath = Annotated[
    str,
    PathParam(
        min_length=1,
        max_length=64,
        pattern=TABLE_NAME_PATTERN,
        description="The table's name.",
        examples=["cafe"],
    ),
]
_TABLE_ERRORS: dict[int | str, dict[str, Any]] = {
    **{k: v for k, v in _ERRORS.items() if k != 413},
    404: {"model": ErrorResponse, "description": "No such table (`table-not-found`)."},
}
_WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    **_TABLE_ERRORS,
    401: {"model": ErrorResponse, "description": "No key sent (`table-key-refused`)."},
    403: {
        "model": ErrorResponse,
        "description": "The key is not the table's, or the table has no key (`table-key-refused`).",
    },
    409: {
        "model": ErrorResponse,
        "description": f"The table holds {MAX_TABLE_RULINGS} rulings (`table-full`).",
    },
}


def table_key(
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    header: Annotated[str | None, Security(_key_header)],
) -> str | None:
    """The key a request sent (``Authorization: Bearer`` or ``X-Table-Key``), or None."""
    if bearer is not None and bearer.scheme.lower() == "bearer" and bearer.credentials:
        return bearer.credentials
    return header or None


TableKey = Annotated[str | None, Depends(table_key)]


def _store(service: JudgeService) -> RulingStore:
    if service.store is None:
        raise JudgeError(
            503, "store-unavailable", "this server has no rulings store; start it with --store"
        )
    return service.store


def _ruling_out(ruling: HouseRuling) -> TableRulingOut:
    assert ruling.ruled_at is not None  # the store stamps every ruling
    return TableRulingOut(
        secret=ruling.secret,
        guess=ruling.guess,
        accepted=ruling.accepted,
        level=ruling.level,
        ruled_by=ruling.ruled_by,
        ruled_at=ruling.ruled_at,
    )


@router.post(
    "/v1/tables",
    status_code=201,
    response_model=TableCreated,
    responses={
        **_TABLE_ERRORS,
        409: {"model": ErrorResponse, "description": "The name is taken (`table-exists`)."},
    },
    summary="Create a table; its key is in the answer, once",
    tags=["tables"],
)
async def create_table(body: TableCreate, service: Service) -> TableCreated:
    """A new table with no rulings. Keep the `key`: writing the table's rulings needs it,
    and the server keeps only its hash."""
    store = _store(service)
    key = await service.store_call(store.create_table, body.name)
    return TableCreated(name=body.name, key=key)


@router.get(
    "/v1/tables/{name}/rulings",
    response_model=RulingsPage,
    responses=_TABLE_ERRORS,
    summary="List a table's rulings, oldest first, a page at a time",
    tags=["tables"],
)
async def list_rulings(
    name: TablePath,
    service: Service,
    offset: Annotated[int, Query(ge=0, le=MAX_TABLE_RULINGS)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_RULINGS)] = 100,
) -> RulingsPage:
    """Reading needs no key: a table's rulings decide the verdicts anyone can ask for."""
    store = _store(service)

    def read() -> tuple[int, list[HouseRuling]]:
        page = store.rulings(name, limit=limit, offset=offset)
        return store.count(name), page

    total, page = await service.store_call(read)
    after = offset + len(page)
    return RulingsPage(
        table=name,
        total=total,
        offset=offset,
        rulings=[_ruling_out(r) for r in page],
        next_offset=after if after < total else None,
    )


@router.get(
    "/v1/tables/{name}/rulings.tsv",
    response_class=PlainTextResponse,
    responses={
        **_TABLE_ERRORS,
        200: {
            "content": {"text/tab-separated-values": {}},
            "description": "The house-rules file (docs/judge.md, 'The file format').",
        },
    },
    summary="Export a table's rulings as a house-rules file",
    tags=["tables"],
)
async def export_rulings(name: TablePath, service: Service) -> PlainTextResponse:
    """Every ruling of the table, as the TSV that `--house-rules FILE` and the store's import
    read (with who ruled and when)."""
    store = _store(service)
    text = await service.store_call(store.export_tsv, name)
    return PlainTextResponse(
        text,
        media_type="text/tab-separated-values; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.tsv"'},
    )


@router.post(
    "/v1/tables/{name}/rulings",
    status_code=201,
    response_model=TableRulingOut,
    responses=_WRITE_ERRORS,
    summary="Add a ruling to a table (its key needed)",
    tags=["tables"],
)
async def add_ruling(
    name: TablePath, body: TableRulingIn, service: Service, key: TableKey
) -> TableRulingOut:
    """The table's ruling on a pair at a level, replacing an earlier one on the same pair
    and level; verdicts with `table` set to this table apply it from the next request on."""
    store = _store(service)
    ruling = HouseRuling(body.secret, body.guess, body.accepted, body.level, ruled_by=body.ruled_by)

    def write() -> HouseRuling:
        store.check_key(name, key)
        return store.add_ruling(name, ruling)

    return _ruling_out(await service.store_call(write))


@router.delete(
    "/v1/tables/{name}/rulings",
    response_model=RemovedOut,
    responses=_WRITE_ERRORS,
    summary="Remove a table's ruling on a pair (its key needed)",
    tags=["tables"],
)
async def remove_ruling(
    name: TablePath,
    service: Service,
    key: TableKey,
    secret: Annotated[str, Query(min_length=1, max_length=MAX_WORD_CHARS)],
    guess: Annotated[str, Query(min_length=1, max_length=MAX_WORD_CHARS)],
    level: Annotated[
        Literal["strict", "standard", "lenient", "*"] | None,
        Query(description="Only the ruling at this level; absent: at every level."),
    ] = None,
) -> RemovedOut:
    """Removes the rulings on (`secret`, `guess`) in that order; `removed` is 0 when the
    table had none."""
    store = _store(service)

    def write() -> int:
        store.check_key(name, key)
        return store.remove_ruling(name, secret, guess, level)

    return RemovedOut(table=name, removed=await service.store_call(write))


@router.head("/healthz", include_in_schema=False)
async def healthz_head() -> Response:
    """``HEAD /healthz``: the probe load balancers and uptime checks send; 200, no body."""
    return Response(status_code=200)


@router.get(
    "/healthz",
    response_model=HealthResponse,
    summary="Is the server up, and which judges and models are loaded?",
    tags=["health"],
)
async def healthz(service: LoadedService) -> HealthResponse:
    """Answers from the event loop without calling the judge, even while a batch runs."""
    judges = service.judges if service is not None else {}
    ready = all(level in judges for level in Strictness)
    return HealthResponse(
        status="ok" if ready else "degraded",
        api_version=API_VERSION,
        versions=_versions(judges),
        strictness_levels=sorted(judges, key=list(Strictness).index),
        models=_models_loaded(),
        judge=_judge_info(judges),
        worker_pid=os.getpid(),
        memory_mb=resident_mb(),
    )


def resident_mb(pid: int | str = "self") -> float | None:
    """Resident memory (``VmRSS``) of process ``pid`` in MB, from ``/proc`` (Linux);
    ``None`` where there is no ``/proc`` or the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _versions(judges: Mapping[Strictness, Any]) -> dict[str, str]:
    """Versions of kiekai, Python and the installed libraries that serve the API."""
    versions = {"kiekai": kiekai.__version__, "python": platform.python_version()}
    for package in ("fastapi", "starlette", "pydantic", "uvicorn", "nltk", "sentence-transformers"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions


def _models_loaded() -> dict[str, bool]:
    """What the judge has loaded in this process: WordNet (its index or NLTK's reader),
    the sentence model (loaded on the first word outside the judge's tables) and the
    embedding table."""
    resources = sys.modules.get("kiekai.judge.resources")
    if resources is None:  # no judge module imported: nothing loaded
        return {"wordnet": False, "all-MiniLM-L6-v2": False, "embedding table": False}
    return {
        "wordnet": resources.wordnet_loaded(),
        "all-MiniLM-L6-v2": resources.encoder_loaded(),
        "embedding table": resources.embedding_table_loaded(),
    }


def _judge_info(judges: Mapping[Strictness, Any]) -> dict[str, Any]:
    """The format version and scalar provenance fields (``fit``) of the fitted model
    (``data/judge-model.json``) of the judges served, when they are
    :class:`kiekai.judge.Judge` (empty for other judges)."""
    judge = next(iter(judges.values()), None)
    if judge is None:
        return {}
    from kiekai.judge import Judge

    if not isinstance(judge, Judge):
        return {}
    model = judge.model
    scalars = (str, int, float, bool)
    info: dict[str, Any] = {"model_format_version": str(model.version)}
    info.update({f"fit.{k}": v for k, v in model.fit.items() if isinstance(v, scalars)})
    return info
