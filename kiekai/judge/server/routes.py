"""The routes of the judge's HTTP API (``POST /v1/judge``, ``/v1/judge/batch``,
``/v1/repeat``, ``GET``/``HEAD /healthz``) on one :class:`fastapi.APIRouter`.

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
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

import kiekai
from kiekai.judge.server.errors import JudgeError, JudgeRoute
from kiekai.judge.server.schemas import (
    MAX_BATCH_PAIRS,
    MAX_BODY_BYTES,
    BatchRequest,
    ErrorResponse,
    HealthResponse,
    JudgeRequest,
    JudgeResponse,
    RepeatRequest,
    RepeatResponse,
    to_house_rules,
)
from kiekai.judge.server.service import REQUEST_DEADLINE_S, JudgeService
from kiekai.judge.verdict import Strictness, Verdict

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
    }


@router.post(
    "/v1/judge",
    response_model=JudgeResponse,
    responses=_ERRORS,
    summary="Judge one guess against a secret word",
    tags=["judge"],
)
async def judge_one(body: JudgeRequest, service: Service) -> JudgeResponse:
    """Does `guess` name the same thing as `secret` at this strictness?"""
    verdict = await service.match(
        body.strictness, body.secret, body.guess, to_house_rules(body.house_rules)
    )
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
    verdicts = await service.match_many(body.strictness, pairs, to_house_rules(body.house_rules))
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
    verdict = await service.is_repeat(
        body.strictness, body.candidate, body.used, to_house_rules(body.house_rules)
    )
    matched = verdict.matched
    return RepeatResponse(
        candidate=body.candidate,
        strictness=body.strictness,
        matched=None if matched is None else str(matched),
        **_verdict_fields(verdict),
    )


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
