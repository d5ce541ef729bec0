"""HTTP API over the synonym judge (FastAPI): ``POST /v1/judge``, ``/v1/judge/batch``,
``/v1/repeat`` and ``GET /healthz``.

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
- The server binds 127.0.0.1 by default (``kiekai serve``); it has no authentication.
- The interactive docs (Swagger UI at ``/docs``, ReDoc at ``/redoc``) load their
  JavaScript and CSS from this server (:data:`DOCS_STATIC_URL`, files shipped in the
  ``fastapi-offline`` package), not from a CDN, so they work on a LAN without internet.

Run it with ``kiekai serve`` (which adds the request-receipt timeout of
:mod:`kiekai.serving`) or ``uvicorn --factory kiekai.api:create_app``.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import math
import platform
import queue
import sys
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib import metadata
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi_offline import FastAPIOffline
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from starlette.exceptions import HTTPException as StarletteHTTPException

import kiekai
from kiekai import serving
from kiekai.judge.verdict import Strictness, Verdict

if TYPE_CHECKING:  # the judge module imports nltk and torch; load it only when judging
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules
    from kiekai.judge.protocol import JudgeLike

log = logging.getLogger(__name__)

#: Longest word accepted, in Unicode code points. The longest WordNet 3.0 lemma has 71
#: characters ("blood-oxygenation level dependent functional magnetic resonance imaging");
#: 80 admits every lemma, written with spaces or underscores.
MAX_WORD_CHARS = 80
#: Most (secret, guess) pairs in one ``/v1/judge/batch`` request.
MAX_BATCH_PAIRS = 1000
#: Most used words in one ``/v1/repeat`` request (a Kiek round uses far fewer).
MAX_USED_WORDS = 500
#: Most house rulings sent with one request (a table's own rulings, applied before the
#: judge's evidence; a table makes a handful per game).
MAX_HOUSE_RULINGS = 200
#: Largest request body in bytes. A full batch of 1000 pairs of 80-character words written
#: as ``\\uXXXX`` escapes is about 1 MB (2 MB for characters outside the Basic Multilingual
#: Plane, escaped as surrogate pairs); 4 MiB leaves room and stops memory abuse.
MAX_BODY_BYTES = 4 * 1024 * 1024
#: Most pairs in one task on the judge thread when a large request is cut into chunks.
BATCH_CHUNK = 64
#: A request with at most this many pairs to judge (a batch's new pairs, a repeat's used
#: words) is one urgent task on the judge thread; larger ones are cut into chunks that
#: run after every urgent task (see :class:`JudgeWorker`).
SMALL_REQUEST_PAIRS = 8
#: Time one chunk of a large request should take on the judge thread, in seconds: what a
#: small request waits at most behind large ones (measured chunk times size the next).
CHUNK_TARGET_S = 0.02
#: Words outside the tables encoded in one task of a large request, on one torch thread:
#: 8 short texts take about 2x the time of one (18 ms against 9 ms on a quiet core, 54
#: against 27 under load), so batches of 8 keep a task short and encode 4x as fast as
#: one word at a time.
ENCODE_CHUNK = 8
#: A large request not judged within this many seconds gets a 503 (``judge-busy``) and
#: the rest of its work is dropped, so no request holds the judge thread for long.
REQUEST_DEADLINE_S = 60.0
#: Verdicts kept by the server's least-recently-used cache (about 0.5 KB each).
VERDICT_CACHE_ENTRIES = 20_000
#: Longest text of a field name or message echoed back in an error body, in characters.
MAX_ECHO_CHARS = 80

API_VERSION = "1"
#: Where the Swagger UI and ReDoc assets (``swagger-ui-bundle.js``, ``swagger-ui.css``,
#: ``redoc.standalone.js``, ``favicon.png``) are served from, under this server.
DOCS_STATIC_URL = "/static-offline-docs"

T = TypeVar("T")


# --------------------------------------------------------------------------- request models


def _check_word(value: str) -> str:
    """Reject text that cannot be a spoken word: lone surrogates and control characters.

    Lone surrogates (U+D800..U+DFFF, Unicode category Cs) are not characters and cannot be
    encoded as UTF-8; control characters (category Cc: NUL, newline, tab, DEL, ...) cannot
    be part of a guess said at the table. Empty or blank words are allowed: the judge
    answers them with a rejected verdict (relation ``empty``).

    Raises:
        ValueError: naming the first offending code point and its position.
    """
    for position, char in enumerate(value):
        category = unicodedata.category(char)
        if category == "Cs":
            raise ValueError(
                f"contains a lone surrogate U+{ord(char):04X} at position {position}; "
                "send valid Unicode text (UTF-8)"
            )
        if category == "Cc":
            raise ValueError(
                f"contains the control character U+{ord(char):04X} at position {position}; "
                "a word is one line of plain text without tabs or newlines"
            )
    return value


def _parse_strictness(value: Any) -> Any:
    """Accept a strictness name in any case and with surrounding spaces ("Lenient ")."""
    if isinstance(value, str):
        return value.strip().lower()
    return value


Word = Annotated[
    str,
    Field(max_length=MAX_WORD_CHARS),
    AfterValidator(_check_word),
]
StrictnessField = Annotated[
    Strictness,
    BeforeValidator(_parse_strictness),
    Field(
        description=(
            "Table rules (rulebook, 'Imperfect Guesses'): `strict` = the same word in any "
            "form; `standard` = also synonyms and derived words naming the same thing; "
            "`lenient` = also one-step kinds, degree words, near-synonyms and typos."
        ),
    ),
]


class RulingIn(BaseModel):
    """One house ruling sent with a request: the table's own decision on a pair, applied
    before any other evidence (rulebook "Imperfect Guesses": each group of players decides
    for itself). Same meaning as a line of a house-rules file (docs/judge.md)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"secret": "sofa", "guess": "couch", "accepted": True, "level": "*"}]
        },
    )

    secret: Word = Field(description="The secret word of the ruling.", examples=["sofa"])
    guess: Word = Field(description="The guess (or candidate) it rules on.", examples=["couch"])
    accepted: bool = Field(description="Whether this table counts the guess as a match.")
    level: Literal["strict", "standard", "lenient", "*"] = Field(
        default="*",
        description="The level the ruling holds at; `*` (the default) for every level.",
    )

    @model_validator(mode="after")
    def _words_present(self) -> RulingIn:
        from kiekai.judge.house_rules import HouseRulesError, HouseRuling

        try:
            HouseRuling(self.secret, self.guess, self.accepted, self.level)
        except HouseRulesError as exc:
            raise ValueError(str(exc)) from None
        return self


HouseRulingsField = Annotated[
    list[RulingIn],
    Field(
        max_length=MAX_HOUSE_RULINGS,
        description=(
            "Optional house rulings for this request only (at most "
            f"{MAX_HOUSE_RULINGS}), for front ends that keep a table's rulings themselves. "
            "A ruling holds in both directions and comes before the server's own house "
            "rules and every other evidence; a verdict it decides has relation `house-rule`."
        ),
    ),
]


def _house_rules(rulings: Sequence[RulingIn]) -> HouseRules | None:
    """The request's rulings as a :class:`kiekai.judge.house_rules.HouseRules` (None when
    there are none)."""
    if not rulings:
        return None
    from kiekai.judge.house_rules import HouseRules, HouseRuling

    return HouseRules(HouseRuling(r.secret, r.guess, r.accepted, r.level) for r in rulings)


class JudgeRequest(BaseModel):
    """Body of ``POST /v1/judge``: one secret word and one guess."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"secret": "people", "guess": "humans", "strictness": "standard"},
                {"secret": "black", "guess": "white"},
            ]
        },
    )

    secret: Word = Field(
        description=f"The secret word (at most {MAX_WORD_CHARS} characters).",
        examples=["people"],
    )
    guess: Word = Field(
        description=f"The guessed word (at most {MAX_WORD_CHARS} characters).",
        examples=["humans"],
    )
    strictness: StrictnessField = Strictness.STANDARD
    house_rules: HouseRulingsField = []


class Pair(BaseModel):
    """One (secret, guess) pair inside a batch."""

    model_config = ConfigDict(extra="forbid")

    secret: Word = Field(description="The secret word.", examples=["mice"])
    guess: Word = Field(description="The guessed word.", examples=["mouse"])


class BatchRequest(BaseModel):
    """Body of ``POST /v1/judge/batch``: up to :data:`MAX_BATCH_PAIRS` pairs, one level."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "pairs": [
                        {"secret": "mice", "guess": "mouse"},
                        {"secret": "dog", "guess": "cat"},
                    ],
                    "strictness": "lenient",
                }
            ]
        },
    )

    pairs: list[Pair] = Field(
        max_length=MAX_BATCH_PAIRS,
        description=f"The pairs to judge, answered in the same order (at most {MAX_BATCH_PAIRS}).",
    )
    strictness: StrictnessField = Strictness.STANDARD
    house_rules: HouseRulingsField = []


class RepeatRequest(BaseModel):
    """Body of ``POST /v1/repeat``: a candidate word and the words used so far this round."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"candidate": "stones", "used": ["rocks", "grass"], "strictness": "standard"}
            ]
        },
    )

    candidate: Word = Field(description="The word a player wants to say.", examples=["stones"])
    used: list[Word] = Field(
        max_length=MAX_USED_WORDS,
        description=(
            f"Words already used this round (rulebook, 'Ne Bis in Idem'; at most {MAX_USED_WORDS})."
        ),
        examples=[["rocks", "grass"]],
    )
    strictness: StrictnessField = Strictness.STANDARD
    house_rules: HouseRulingsField = []


# -------------------------------------------------------------------------- response models


class VerdictOut(BaseModel):
    """The judge's decision with its evidence (mirrors :class:`kiekai.judge.verdict.Verdict`)."""

    accepted: bool = Field(
        description="Whether the table accepts the guess (for /v1/repeat: whether it repeats)."
    )
    score: float = Field(
        ge=0.0,
        le=1.0,
        description="The judge's confidence, 0..1, that the two words name the same thing.",
    )
    relation: str = Field(
        description=(
            "The strongest relation found, e.g. same-lemma, spelling, synonym, hypernym, "
            "hyponym, antonym, cohyponym, typo, unrelated, not-one-word, empty."
        ),
        examples=["synonym"],
    )
    reason: str = Field(description="One human-readable sentence explaining the decision.")


class JudgeResponse(VerdictOut):
    """Answer of ``/v1/judge`` and one item of ``/v1/judge/batch``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "secret": "mice",
                    "guess": "mouse",
                    "strictness": "standard",
                    "accepted": True,
                    "score": 1.0,
                    "relation": "same-lemma",
                    "reason": "Accepted at standard level: 'mouse' and 'mice' are forms of "
                    "the same word 'mouse'.",
                }
            ]
        }
    )

    secret: str = Field(description="The secret word as sent.")
    guess: str = Field(description="The guess as sent.")
    strictness: Strictness = Field(description="The level the verdict was given at.")


class RepeatResponse(VerdictOut):
    """Answer of ``/v1/repeat``: ``accepted`` is true when the candidate repeats a used word."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "candidate": "stones",
                    "strictness": "standard",
                    "accepted": True,
                    "score": 0.87,
                    "relation": "synonym",
                    "reason": "Repeat at standard level: 'stones' repeats the used category "
                    "'rocks' (synonym; score 0.87).",
                    "matched": "rocks",
                }
            ]
        }
    )

    candidate: str = Field(description="The candidate word as sent.")
    strictness: Strictness = Field(description="The level the verdict was given at.")
    matched: str | None = Field(
        description="The used word the candidate repeats, or null when it repeats none."
    )


class HealthResponse(BaseModel):
    """Answer of ``GET /healthz``."""

    status: str = Field(description="`ok` when every strictness level has a judge ready.")
    api_version: str = Field(description="Version of this HTTP API (the /v1 prefix).")
    versions: dict[str, str] = Field(
        description="Versions of kiekai, Python and the libraries serving the API."
    )
    strictness_levels: list[Strictness] = Field(description="Levels with a judge loaded and ready.")
    models: dict[str, bool] = Field(
        description="Models the judge uses and whether each is loaded in this process."
    )
    judge: dict[str, Any] = Field(
        description="What the judge reports about itself (e.g. its calibration version)."
    )


class ErrorItem(BaseModel):
    """One problem with a request."""

    field: str = Field(description="Where the problem is, e.g. `body.pairs[3].guess`.")
    problem: str = Field(description="What is wrong and how to fix it.")


class ErrorResponse(BaseModel):
    """Body of every 4xx and 503 answer."""

    error: str = Field(
        description="A short machine-readable code: invalid-request, not-found, "
        "judge-rejected-input, judge-unavailable, ..."
    )
    message: str = Field(description="A human-readable summary naming the fix.")
    errors: list[ErrorItem] = Field(default_factory=list, description="Each problem found.")


# ------------------------------------------------------------------------------ judge state


class JudgeError(Exception):
    """The judge failed on a request.

    Attributes:
        status_code: 422 when the judge rejected the input (it raised ``ValueError``),
            503 when it could not answer (any other error).
        message: what happened, for the client.
    """

    def __init__(self, status_code: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        self.message = message


def load_judges(
    levels: Iterable[Strictness] = tuple(Strictness),
    house_rules: HouseRules | None = None,
    *,
    load_encoder: bool = True,
) -> dict[Strictness, Judge]:
    """Build one :class:`kiekai.judge.Judge` per strictness level and warm it up.

    ``house_rules``: the table's rulings every judge applies before its own evidence
    (``kiekai serve --house-rules FILE``); None for none.

    Each judge is warmed up (``Judge.warm_up()``) before it is returned, so lazily
    loaded parts (WordNet, the inflection tables and, with ``load_encoder``, the
    sentence model all-MiniLM-L6-v2) are in memory before the first request. Without
    ``load_encoder`` the server loads the sentence model on the first word outside the
    judge's tables (see :class:`_JudgeService`), which keeps about 1 GB of torch out of
    a server whose words are all in the tables.

    Returns:
        ``{Strictness: Judge}`` for each level in ``levels``.

    Raises:
        Whatever the judge raises when its models or calibration file are missing
        (``FileNotFoundError``, ``OSError``, ``RuntimeError``); ``kiekai serve`` reports it.
    """
    from kiekai.judge import Judge
    from kiekai.judge.resources import zipf

    judges: dict[Strictness, Judge] = {}
    for level in levels:
        judge = Judge(level, house_rules=house_rules)
        judge.warm_up(load_encoder=load_encoder)
        judges[level] = judge
    # wordfreq's list (0.2-0.8 s to load), read for words WordNet lacks: now, not while
    # the first made-up word holds the judge thread
    zipf("kiekai")
    return judges


def _coerce_judges(judges: Mapping[Any, Any]) -> dict[Strictness, Any]:
    """Key a caller's ``{level: judge}`` mapping by :class:`Strictness`.

    Raises:
        ValueError: a key is not a strictness level.
    """
    return {Strictness.parse(level): judge for level, judge in judges.items()}


class VerdictCache:
    """A bounded least-recently-used map from a request key to the judge's :class:`Verdict`.

    Used only on the event-loop thread (no locking). A hit answers without the hop to the
    judge thread, which costs several hundred microseconds on a busy 2-core machine (see
    ``docs/judge.md``, "Speed"); the judge is deterministic, so a cached verdict is the
    verdict it would give again.
    """

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple, Verdict] = OrderedDict()

    def get(self, key: tuple) -> Verdict | None:
        """The cached verdict for ``key`` (marked recently used), or ``None``."""
        verdict = self._entries.get(key)
        if verdict is not None:
            self._entries.move_to_end(key)
        return verdict

    def put(self, key: tuple, verdict: Verdict) -> None:
        """Store ``verdict``; drops the least recently used entry beyond ``max_entries``."""
        self._entries[key] = verdict
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class JudgeWorker:
    """The one thread every judge call runs on, taking the most urgent task first.

    A task's priority is a tuple, smallest first: small requests are ``(0, 0)``, the
    chunks of large requests ``(1, k)`` for their ``k``-th chunk, so a small request
    waits for at most the task running now (a chunk is sized to take about
    :data:`CHUNK_TARGET_S`), and large requests share the thread round-robin, chunk by
    chunk, instead of one after the other. Equal priorities run in submission order.

    The judge's readers are not safe from two threads at once and the machine has few
    cores, so one thread that never idles while work waits is as fast as a pool and
    lets the scheduling be decided here. A task whose future is cancelled before it
    starts (its client went away, its request timed out) is skipped.
    """

    def __init__(self, name: str = "kiekai-judge") -> None:
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, priority: tuple, function: Callable[..., T], *args: Any) -> Future:
        """Queue ``function(*args)``; returns a :class:`concurrent.futures.Future`."""
        future: Future = Future()
        self._queue.put((priority, next(self._order), future, function, args))
        return future

    def _run(self) -> None:
        while True:
            _, _, future, function, args = self._queue.get()
            if function is None:  # close()
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting request
                future.set_exception(exc)

    def close(self, timeout_s: float = 30.0) -> None:
        """Cancel the tasks not started, let the running one finish (at most
        ``timeout_s``), stop the thread."""
        while True:
            try:
                _, _, future, function, _ = self._queue.get_nowait()
            except queue.Empty:
                break
            if function is not None:
                future.cancel()
        self._queue.put(((-1,), -1, None, None, ()))
        self._thread.join(timeout_s)


def _timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``function(*args)`` and the seconds it took (measured on the judge thread)."""
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def _needs_encoder(words: Iterable[str]) -> bool:
    """Whether judging ``words`` may need the sentence model while it is not loaded:
    some word, normalised, is neither in the embedding table nor encoded before."""
    from kiekai.judge import resources
    from kiekai.judge.normalize import normalise

    if resources.encoder_loaded():
        return False
    for word in words:
        norm = normalise(word)
        if norm and not resources.in_tables(norm):
            return True
    return False


def _unembedded(words: Iterable[str]) -> list[str]:
    """The distinct normalised ``words`` whose embedding is in no table and not encoded
    yet (each costs a sentence-model pass)."""
    from kiekai.judge import resources
    from kiekai.judge.normalize import normalise

    out: dict[str, None] = {}
    for word in words:
        norm = normalise(word)
        if norm and norm not in out and not resources.in_tables(norm):
            out[norm] = None
    return list(out)


def _encode_words(words: list[str]) -> list[None]:
    """Encode normalised ``words`` in one batch into the judge's embedding cache (the
    judge then finds them there; verdicts are unchanged)."""
    from kiekai.judge import resources

    resources.prefetch_embeddings(words, single_thread=True)
    return [None] * len(words)


def _load_encoder() -> None:
    """Load the sentence model and run one pass (on the loader thread, not the judge's)."""
    from kiekai.judge import resources

    resources.warm_up_encoder()


class _JudgeService:
    """The judges, the judge thread (:class:`JudgeWorker`), a verdict cache, and the
    loading of the sentence model on first need.

    Work per request: a request needing at most :data:`SMALL_REQUEST_PAIRS` new pairs
    is one urgent task; a larger one is cut into chunks sized from the time its own
    chunks take (about :data:`CHUNK_TARGET_S` each, at most :data:`BATCH_CHUNK` pairs)
    that run behind every urgent task and round-robin with other large requests, and
    must finish within :data:`REQUEST_DEADLINE_S` (else 503, nothing more is judged
    for it). The sentence model (torch, about 1 GB of memory) is loaded only when a
    request holds a word outside the judge's tables, on a thread of its own, so that
    requests on words in the tables go on being answered meanwhile.
    """

    def __init__(self, judges: Mapping[Strictness, Any]) -> None:
        self.judges = dict(judges)
        self.worker = JudgeWorker()
        self.cache = VerdictCache(VERDICT_CACHE_ENTRIES)
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiekai-loader")
        self._encoder: asyncio.Future | None = None
        self._requests = itertools.count()

    def judge_for(self, level: Strictness) -> Any:
        """The judge for ``level``; raises :class:`JudgeError` (503) when none is loaded."""
        judge = self.judges.get(level)
        if judge is None:
            loaded = ", ".join(sorted(str(s) for s in self.judges)) or "none"
            raise JudgeError(
                503,
                "judge-unavailable",
                f"no judge is loaded for strictness {str(level)!r} (loaded: {loaded}); "
                "restart the server with that level",
            )
        return judge

    async def _ensure_encoder(self, words: Iterable[str]) -> None:
        """Load the sentence model first (once, on the loader thread) when ``words`` need
        it; a failure to load is left for the judge to report."""
        if self._encoder is not None and self._encoder.done():
            return
        try:
            needed = _needs_encoder(words)
        except (TypeError, ValueError):
            return  # the judge reports bad input itself
        if not needed:
            return  # words in the tables never wait for the load
        if self._encoder is None:
            loop = asyncio.get_running_loop()
            self._encoder = loop.run_in_executor(self._loader, _load_encoder)
        try:
            await asyncio.shield(self._encoder)
        except Exception:  # noqa: BLE001 - the judge raises its own clear error when encoding
            log.exception("the sentence model could not be loaded")

    async def call(self, priority: tuple, function: Callable[..., T], *args: Any) -> T:
        """Run ``function(*args)`` on the judge thread at ``priority``; map its errors to
        :class:`JudgeError`."""
        try:
            return await asyncio.wrap_future(self.worker.submit(priority, function, *args))
        except JudgeError:
            raise
        except (ValueError, TypeError, UnicodeError) as exc:
            raise JudgeError(
                422, "judge-rejected-input", f"the judge could not read this input: {exc}"
            ) from exc
        except Exception as exc:
            log.exception("judge failed")
            raise JudgeError(
                503,
                "judge-unavailable",
                f"the judge failed ({type(exc).__name__}); the error is in the server log, "
                "try again later",
            ) from exc

    async def _chunked(
        self,
        items: Sequence[Any],
        function: Callable[[list[Any]], list[Any]],
        rounds: itertools.count,
        request: int,
        size: int = 2,
    ) -> list[Any]:
        """``function`` over ``items`` in chunks at large-request priority, in order; each
        chunk sized so it takes about :data:`CHUNK_TARGET_S` (from the time the previous
        ones took, starting at ``size`` items). ``rounds`` numbers the request's chunks
        (round-robin with other large requests)."""
        out: list[Any] = []
        while len(out) < len(items):
            chunk = list(items[len(out) : len(out) + size])
            results, seconds = await self.call((1, next(rounds), request), _timed, function, chunk)
            out.extend(results)
            per_item = max(seconds / len(chunk), 1e-6)
            size = max(1, min(BATCH_CHUNK, int(CHUNK_TARGET_S / per_item)))
        return out

    async def _large(
        self, pairs: Sequence[tuple[str, str]], function: Callable[[list], list[Verdict]]
    ) -> list[Verdict]:
        """Judge many ``pairs`` with ``function`` in chunks (see the class): first the
        words outside the tables are encoded in batches (one forward pass for several
        words costs far less than one per pair), then the pairs are judged; all within
        :data:`REQUEST_DEADLINE_S`.

        Raises:
            JudgeError: (503) the deadline passed; the chunks not started are dropped.
        """
        rounds, request = itertools.count(), next(self._requests)
        try:
            async with asyncio.timeout(REQUEST_DEADLINE_S):
                try:
                    to_encode = _unembedded(w for pair in pairs for w in pair)
                except (TypeError, ValueError):
                    to_encode = []  # the judge reports bad input itself
                for start in range(0, len(to_encode), ENCODE_CHUNK):  # fixed size: see there
                    chunk = to_encode[start : start + ENCODE_CHUNK]
                    await self.call((1, next(rounds), request), _encode_words, chunk)
                return await self._chunked(pairs, function, rounds, request)
        except TimeoutError:
            raise JudgeError(
                503,
                "judge-busy",
                f"the request was not judged within {REQUEST_DEADLINE_S:.0f} s (the server is "
                "busy, or the request holds many words outside the judge's tables); retry "
                "later or send fewer words",
            ) from None

    async def match(
        self, level: Strictness, secret: str, guess: str, rulings: HouseRules | None = None
    ) -> Verdict:
        """``Judge(level).match(secret, guess)``, from the cache when judged before.

        With ``rulings`` (a request's own house rulings) that decide the pair, the judge
        is asked with them and the answer is not cached; rulings on other pairs change
        nothing, so the cache still serves the pair.
        """
        if _rules_decide(rulings, level, [(secret, guess)]):
            judge = self.judge_for(level)
            return await self.call((0, 0), lambda: judge.match(secret, guess, rulings=rulings))
        key = ("match", level, secret, guess)
        verdict = self.cache.get(key)
        if verdict is None:
            judge = self.judge_for(level)
            await self._ensure_encoder((secret, guess))
            fresh: Verdict = await self.call((0, 0), judge.match, secret, guess)
            self.cache.put(key, fresh)
            return fresh
        return verdict

    async def match_many(
        self,
        level: Strictness,
        pairs: Sequence[tuple[str, str]],
        rulings: HouseRules | None = None,
    ) -> list[Verdict]:
        """Verdicts for ``pairs`` in order; pairs not cached go to the judge, as one
        urgent task when few, else in chunks (see the class). Pairs that ``rulings`` (the
        request's house rulings) decide are answered with them, never from or into the
        cache."""
        judge = self.judge_for(level)
        found: dict[tuple[str, str], Verdict] = {}
        missing: list[tuple[str, str]] = []
        ruled = [pair for pair in dict.fromkeys(pairs) if _rules_decide(rulings, level, [pair])]
        if ruled:  # a house rule answers without the judge's evidence: one short task
            verdicts = await self.call(
                (0, 0), lambda: [judge.match(s, g, rulings=rulings) for s, g in ruled]
            )
            found.update(zip(ruled, verdicts, strict=True))
        for pair in dict.fromkeys(pairs):  # each distinct pair once, in order
            if pair in found:
                continue
            cached = self.cache.get(("match", level, *pair))
            if cached is None:
                missing.append(pair)
            else:
                found[pair] = cached
        if missing:
            await self._ensure_encoder(w for pair in missing for w in pair)
            if len(missing) <= SMALL_REQUEST_PAIRS:
                verdicts = await self.call((0, 0), _match_many, judge, missing)
            else:
                verdicts = await self._large(missing, functools.partial(_match_many, judge))
            for pair, verdict in zip(missing, verdicts, strict=True):
                found[pair] = verdict
                self.cache.put(("match", level, *pair), verdict)
        return [found[pair] for pair in pairs]

    async def is_repeat(
        self,
        level: Strictness,
        candidate: str,
        used: Sequence[str],
        rulings: HouseRules | None = None,
    ) -> Verdict:
        """``Judge(level).is_repeat(candidate, used)``, from the cache when asked before
        (never when ``rulings``, the request's house rulings, decide one of its pairs).

        With more than :data:`SMALL_REQUEST_PAIRS` used words, the pairs (used word,
        candidate) are first judged in chunks (see the class), which fills the judge's
        own per-pair caches; the ``is_repeat`` call itself then only reads them, as one
        short urgent task."""
        ruled = _rules_decide(rulings, level, [(u, candidate) for u in used])
        key = ("repeat", level, candidate, tuple(used))
        verdict = None if ruled else self.cache.get(key)
        if verdict is None:
            judge = self.judge_for(level)
            await self._ensure_encoder([candidate, *used])
            distinct = [u for u in dict.fromkeys(used) if isinstance(u, str) and u.strip()]
            if len(distinct) > SMALL_REQUEST_PAIRS:
                await self._large(
                    [(u, candidate) for u in distinct], functools.partial(_match_many, judge)
                )
            if ruled:
                return await self.call(
                    (0, 0), lambda: judge.is_repeat(candidate, list(used), rulings=rulings)
                )
            verdict = await self.call((0, 0), _is_repeat, judge, candidate, list(used))
            self.cache.put(key, verdict)
        return verdict

    def close(self) -> None:
        """Stop the judge thread (waits for the running task) and the loader thread."""
        self.worker.close()
        self._loader.shutdown(wait=False, cancel_futures=True)


def _rules_decide(
    rulings: HouseRules | None, level: Strictness, pairs: Iterable[tuple[str, str]]
) -> bool:
    """Whether a request's house ``rulings`` hold a ruling for one of ``pairs`` at ``level``."""
    if rulings is None or not len(rulings):
        return False
    return any(rulings.lookup(s, g, level.value) is not None for s, g in pairs)


def _match_many(judge: JudgeLike, pairs: Sequence[tuple[str, str]]) -> list[Verdict]:
    """``judge.match`` over ``pairs``, in order, after encoding in one batch the words
    outside the judge's tables (one forward pass for all costs far less than one per
    word; verdicts are unchanged, see :func:`_encode_words`)."""
    _encode_unembedded(w for pair in pairs for w in pair)
    return [judge.match(secret, guess) for secret, guess in pairs]


def _is_repeat(judge: JudgeLike, candidate: str, used: list[str]) -> Verdict:
    """``judge.is_repeat(candidate, used)``, after encoding in one batch the words outside
    the judge's tables (as :func:`_match_many`)."""
    _encode_unembedded([candidate, *used])
    return judge.is_repeat(candidate, used)


def _encode_unembedded(words: Iterable[Any]) -> None:
    """Encode in one batch the ``words`` outside the judge's tables (speed only); words
    that are not text are left for the judge to reject with its own message."""
    try:
        todo = _unembedded(w for w in words if isinstance(w, str))
    except (TypeError, ValueError):
        return
    if todo:
        _encode_words(todo)


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


# ----------------------------------------------------------------------------- error bodies


def _safe_text(text: Any, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` as printable, UTF-8-encodable, shortened text for an error body.

    Client-controlled text (e.g. an unknown field name) may hold lone surrogates or be
    megabytes long; both are escaped or cut here so the error itself never fails.
    """
    text = str(text)
    if len(text) > limit:
        text = text[:limit] + "..."
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _field_path(loc: Sequence[Any]) -> str:
    """``("body", "pairs", 3, "guess")`` -> ``"body.pairs[3].guess"``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += ("." if path else "") + _safe_text(part)
    return path or "body"


def _problem(error: Mapping[str, Any]) -> str:
    """A clear sentence for one Pydantic error (never echoes the input value)."""
    kind = error.get("type", "")
    message = _safe_text(error.get("msg", "invalid value"), limit=300)
    if kind == "json_invalid":
        detail = (error.get("ctx") or {}).get("error", "")
        loc = error.get("loc", ())
        where = f" at character {loc[-1]}" if loc and isinstance(loc[-1], int) else ""
        return _safe_text(f"the body is not valid JSON ({detail}{where}); send a JSON object", 300)
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
        return _safe_text(f"too many items: {message}", 300)
    if kind == "value_error":
        return message.removeprefix("Value error, ")
    return message


def _error_response(
    status_code: int, code: str, message: str, errors: Sequence[ErrorItem] = ()
) -> JSONResponse:
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
    return _error_response(422, "invalid-request", f"invalid request: {first}{more}", shown)


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    codes = {
        400: "bad-request",
        404: "not-found",
        405: "method-not-allowed",
    }
    code = codes.get(exc.status_code, "http-error")
    message = _safe_text(exc.detail, limit=300)
    if exc.status_code == 404:
        message = "no such endpoint; see /docs or /openapi.json for the API"
    elif exc.status_code == 400 and "parsing the body" in message:
        message = (
            "the body could not be parsed as JSON (invalid UTF-8, nesting too deep or a "
            "number too long); send a JSON object with Content-Type: application/json"
        )
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed here; see /docs for each endpoint's method"
    response = _error_response(exc.status_code, code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _on_judge_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, JudgeError)
    return _error_response(exc.status_code, exc.code, exc.message)


async def _on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    error = JudgeError(
        503,
        "server-error",
        f"the server could not answer ({type(exc).__name__}); the error is in the server log",
    )
    return _error_response(error.status_code, error.code, error.message)


def _unexpected_error(exc: Exception) -> JudgeError:
    """Any other failure while answering: logged, then reported as a 503."""
    log.exception("unexpected error answering a request", exc_info=exc)
    return JudgeError(
        503,
        "server-error",
        f"the server could not answer ({type(exc).__name__}); the error is in the server log",
    )


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``max_bytes`` with a JSON 413.

    A ``Content-Length`` over the limit is refused before the body is read; a streamed
    (chunked) body is read up to the limit and refused as soon as it passes it. Bodies
    within the limit are handed to the app unchanged. Written here rather than using
    ``FastAPI(max_body_size=...)`` because that option exists only in recent FastAPI
    releases and older ones ignore it silently.
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
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

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: dict, receive: Callable, send: Callable) -> None:
        response = _error_response(
            413,
            "body-too-large",
            f"request body over {self.max_bytes} bytes; send at most {MAX_BATCH_PAIRS} pairs "
            f"of words of at most {MAX_WORD_CHARS} characters",
        )
        response.headers["connection"] = "close"
        await response(scope, receive, send)


# ------------------------------------------------------------------------------------- app

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


def _versions(judges: Mapping[Strictness, Any]) -> dict[str, str]:
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


def create_app(judges: Mapping[Any, Any] | None = None) -> FastAPI:
    """Build the FastAPI app.

    Args:
        judges: ``{strictness: Judge}`` to serve (keys are :class:`Strictness` or their
            names). ``None`` builds one judge per level at start-up (:func:`load_judges`)
            in the app's lifespan. Passing them in lets a caller load models once and
            report loading errors itself (``kiekai serve`` does).

    Returns:
        The app; serve it with uvicorn. Start-up happens in its lifespan, so use it as a
        context manager (``with TestClient(app)``) or through an ASGI server.

    Raises:
        ValueError: a key of ``judges`` is not a strictness level.
    """
    given = _coerce_judges(judges) if judges is not None else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loaded = given if given is not None else await asyncio.to_thread(load_judges)
        service = _JudgeService(loaded)
        app.state.judge_service = service
        try:
            yield
        finally:
            service.close()

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
        description=(
            "The synonym judge for the party game Kiek, as an HTTP API. Verdicts follow the "
            "rulebook sections 'Imperfect Guesses' (synonyms and word forms are allowed, "
            "opposites and different things of the same kind are not) and 'Ne Bis in Idem' "
            "(a word may not repeat a used word). Every verdict carries `accepted`, `score` "
            "(0..1), the `relation` found and a `reason`. Errors are JSON "
            "`{error, message, errors}` with status 4xx, or 503 when the judge cannot answer."
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
        ),
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(ValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(JudgeError, _on_judge_error)
    # last resort: Starlette's ServerErrorMiddleware sends this instead of a plain 500
    # (and still logs the traceback) for an error no other handler caught
    app.add_exception_handler(Exception, _on_unexpected_error)

    def service_of(request: Request) -> _JudgeService:
        service = getattr(request.app.state, "judge_service", None)
        if service is None:
            raise JudgeError(503, "judge-unavailable", "the judges are still loading; retry")
        return service

    @app.post(
        "/v1/judge",
        response_model=JudgeResponse,
        responses=_ERRORS,
        summary="Judge one guess against a secret word",
        tags=["judge"],
    )
    async def judge_one(body: JudgeRequest, request: Request) -> JudgeResponse:
        """Does `guess` name the same thing as `secret` at this strictness?"""
        service = service_of(request)
        try:
            verdict = await service.match(
                body.strictness, body.secret, body.guess, _house_rules(body.house_rules)
            )
            return JudgeResponse(
                secret=body.secret,
                guess=body.guess,
                strictness=body.strictness,
                **_verdict_fields(verdict),
            )
        except JudgeError:
            raise
        except Exception as exc:
            raise _unexpected_error(exc) from exc

    @app.post(
        "/v1/judge/batch",
        response_model=list[JudgeResponse],
        responses=_ERRORS,
        summary=f"Judge up to {MAX_BATCH_PAIRS} pairs in one request",
        tags=["judge"],
    )
    async def judge_batch(body: BatchRequest, request: Request) -> list[JudgeResponse]:
        """One verdict per pair, in the order sent, all at the same strictness."""
        service = service_of(request)
        pairs = [(p.secret, p.guess) for p in body.pairs]
        try:
            verdicts = await service.match_many(
                body.strictness, pairs, _house_rules(body.house_rules)
            )
            return [
                JudgeResponse(
                    secret=secret,
                    guess=guess,
                    strictness=body.strictness,
                    **_verdict_fields(verdict),
                )
                for (secret, guess), verdict in zip(pairs, verdicts, strict=True)
            ]
        except JudgeError:
            raise
        except Exception as exc:
            raise _unexpected_error(exc) from exc

    @app.post(
        "/v1/repeat",
        response_model=RepeatResponse,
        responses=_ERRORS,
        summary="Does a candidate word repeat a used word? (ne bis in idem)",
        tags=["judge"],
    )
    async def repeat(body: RepeatRequest, request: Request) -> RepeatResponse:
        """`accepted` is true when `candidate` repeats one of `used`; `matched` names it."""
        service = service_of(request)
        try:
            verdict = await service.is_repeat(
                body.strictness, body.candidate, body.used, _house_rules(body.house_rules)
            )
            matched = verdict.matched
            return RepeatResponse(
                candidate=body.candidate,
                strictness=body.strictness,
                matched=None if matched is None else str(matched),
                **_verdict_fields(verdict),
            )
        except JudgeError:
            raise
        except Exception as exc:
            raise _unexpected_error(exc) from exc

    @app.head("/healthz", include_in_schema=False)
    async def healthz_head() -> Response:
        """``HEAD /healthz``: the probe load balancers and uptime checks send; 200, no body."""
        return Response(status_code=200)

    @app.get(
        "/healthz",
        response_model=HealthResponse,
        summary="Is the server up, and which judges and models are loaded?",
        tags=["health"],
    )
    async def healthz(request: Request) -> HealthResponse:
        """Answers from the event loop without calling the judge, even while a batch runs."""
        service = getattr(request.app.state, "judge_service", None)
        judges = service.judges if service is not None else {}
        ready = all(level in judges for level in Strictness)
        return HealthResponse(
            status="ok" if ready else "degraded",
            api_version=API_VERSION,
            versions=_versions(judges),
            strictness_levels=sorted(judges, key=list(Strictness).index),
            models=_models_loaded(),
            judge=_judge_info(judges),
        )

    return app
