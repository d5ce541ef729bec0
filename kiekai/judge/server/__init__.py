"""The synonym judge's HTTP API (FastAPI): ``POST /v1/judge``, ``/v1/judge/batch``,
``/v1/repeat``, the tables' ``/v1/tables`` routes and ``GET /healthz``.

The judge settles the two questions a Kiek table asks (rulebook ``../shared/rules/kiek.txt``,
sections "Imperfect Guesses" and "Ne Bis in Idem"): does a guess name the same thing as the
secret word, and does a candidate word repeat a word already used this round.

Design:

- One :class:`kiekai.judge.Judge` per :class:`~kiekai.judge.verdict.Strictness`, built once
  at start-up (the app's lifespan, or handed in by the caller) and reused by every request,
  so WordNet and the sentence-embedding model load once per process.
- Every judge call runs on ONE judge thread (:class:`JudgeWorker`). The judge's readers
  are not safe to use from two threads at once, and a single thread keeps the event loop
  free: ``/healthz`` answers while a long batch runs. The thread takes the most urgent
  task first: a request with few new pairs (:data:`SMALL_REQUEST_PAIRS`) is one urgent
  task; a larger one first encodes its words outside the judge's tables in batches of
  :data:`ENCODE_CHUNK`, then is judged in chunks timed to about :data:`CHUNK_TARGET_S`,
  which run round-robin with other large requests and behind every urgent task, so a
  small request waits for at most the chunk running now, not behind whole large
  requests. A large request not done in :data:`REQUEST_DEADLINE_S`
  gets a 503 (``judge-busy``).
- The sentence model (torch and all-MiniLM-L6-v2, about 1 GB of memory) is loaded when
  the first word outside the judge's tables arrives, on a thread of its own, while
  requests on words in the tables go on being answered.
- Verdicts already given are answered from a bounded least-recently-used cache
  (:data:`VERDICT_CACHE_ENTRIES`) on the event loop, without the hop to the worker thread,
  which on a busy 2-core machine costs more than the warm judge call itself.
- Input is validated by Pydantic models with limits (:data:`MAX_WORD_CHARS`,
  :data:`MAX_BATCH_PAIRS`, :data:`MAX_USED_WORDS`, :data:`MAX_BODY_BYTES`). Every bad input
  gets a 4xx with a JSON body ``{"error", "message", "errors": [{"field", "problem"}]}``;
  an error inside the judge becomes a 422 (the judge rejected that input, ``ValueError``)
  or a 503 (the judge could not answer); the server never answers 500.
- The server binds 127.0.0.1 by default (``kiekai serve``); verdicts need no
  authentication. Tables (``/v1/tables``) keep their own house rulings in the rulings store
  (:mod:`kiekai.judge.store`: SQLite, or PostgreSQL shared by several servers); writing a
  table's rulings needs the key made with the table. A verdict request's optional ``table``
  applies that table's rulings (the default table when absent).
- Rulings are read per request, never kept per process, so that several worker processes
  (``kiekai serve --workers N``, :mod:`.workers`) apply a ruling written through one of
  them from their next request on: a table's rulings come from the store (each worker opens
  its own connections to it), the server's own (``kiekai serve --house-rules FILE``) from a
  :class:`~kiekai.judge.server.rulings.RulingsSource` (the file is read again when it
  changes).
- The interactive docs (Swagger UI at ``/docs``, ReDoc at ``/redoc``) load their
  JavaScript and CSS from this server (:data:`DOCS_STATIC_URL`, files shipped in the
  ``fastapi-offline`` package), not from a CDN, so they work on a LAN without internet.

The package is laid out by job: :mod:`.schemas` (request and response models, the input
limits), :mod:`.errors` (error bodies, exception handlers, the route class that turns
unexpected errors into 503), :mod:`.worker` (the judge thread), :mod:`.service` (judges,
cache, scheduling), :mod:`.rulings` (where the server's house rulings come from),
:mod:`.routes` (the ``APIRouter``), :mod:`.app` (:func:`create_app`) and :mod:`.workers`
(several worker processes on one port).
``kiekai.api`` re-exports the public names for older imports.

Run it with ``kiekai serve`` (which adds the request-receipt timeout of
:mod:`kiekai.serving`) or ``uvicorn --factory kiekai.judge.server:create_app``.
"""

from __future__ import annotations

from kiekai.judge.server.app import (
    DESCRIPTION,
    DOCS_STATIC_URL,
    BodyLimit,
    create_app,
)
from kiekai.judge.server.errors import (
    MAX_ECHO_CHARS,
    JudgeError,
    JudgeRoute,
    register_error_handlers,
)
from kiekai.judge.server.routes import (
    API_VERSION,
    router,
)
from kiekai.judge.server.rulings import (
    FileRulings,
    RulingsSnapshot,
    RulingsSource,
    StaticRulings,
)
from kiekai.judge.server.schemas import (
    MAX_BATCH_PAIRS,
    MAX_BODY_BYTES,
    MAX_HOUSE_RULINGS,
    MAX_USED_WORDS,
    MAX_WORD_CHARS,
    BatchRequest,
    ErrorItem,
    ErrorResponse,
    HealthResponse,
    JudgeRequest,
    JudgeResponse,
    Pair,
    RepeatRequest,
    RepeatResponse,
    RulingIn,
    VerdictDetails,
    VerdictOut,
)
from kiekai.judge.server.service import (
    BATCH_CHUNK,
    CHUNK_TARGET_S,
    ENCODE_CHUNK,
    REQUEST_DEADLINE_S,
    SMALL_REQUEST_PAIRS,
    VERDICT_CACHE_ENTRIES,
    JudgeService,
    VerdictCache,
    load_judges,
)
from kiekai.judge.server.worker import (
    JudgeWorker,
)

__all__ = [
    "API_VERSION",
    "BATCH_CHUNK",
    "BatchRequest",
    "BodyLimit",
    "CHUNK_TARGET_S",
    "DESCRIPTION",
    "DOCS_STATIC_URL",
    "ENCODE_CHUNK",
    "ErrorItem",
    "FileRulings",
    "ErrorResponse",
    "HealthResponse",
    "JudgeError",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeRoute",
    "JudgeService",
    "JudgeWorker",
    "MAX_BATCH_PAIRS",
    "MAX_BODY_BYTES",
    "MAX_ECHO_CHARS",
    "MAX_HOUSE_RULINGS",
    "MAX_USED_WORDS",
    "MAX_WORD_CHARS",
    "Pair",
    "REQUEST_DEADLINE_S",
    "RepeatRequest",
    "RepeatResponse",
    "RulingIn",
    "RulingsSnapshot",
    "RulingsSource",
    "SMALL_REQUEST_PAIRS",
    "StaticRulings",
    "VERDICT_CACHE_ENTRIES",
    "VerdictCache",
    "VerdictDetails",
    "VerdictOut",
    "create_app",
    "load_judges",
    "register_error_handlers",
    "router",
]
