"""HTTP API over the synonym judge (FastAPI): ``POST /v1/judge``, ``/v1/judge/batch``,
``/v1/repeat`` and ``GET /healthz``.

The judge settles the two questions a Kiek table asks (rulebook ``../shared/rules/kiek.txt``,
sections "Imperfect Guesses" and "Ne Bis in Idem"): does a guess name the same thing as the
secret word, and does a candidate word repeat a word already used this round.

Design:

- One :class:`kiekai.judge.Judge` per :class:`~kiekai.judge.verdict.Strictness`, built once
  at start-up (the app's lifespan, or handed in by the caller) and reused by every request,
  so WordNet and the sentence-embedding model load once per process.
- Every judge call runs on ONE dedicated worker thread. The judge's readers (nltk's WordNet
  reader seeks and reads shared file handles) are not safe to use from two threads at once,
  and a single worker keeps the event loop free: ``/healthz`` answers while a long batch runs.
  Batches are cut into chunks of :data:`BATCH_CHUNK` pairs, so a single request waits behind
  at most one chunk of someone else's batch.
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

Run it with ``kiekai serve`` or ``uvicorn --factory kiekai.api:create_app``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import platform
import sys
import unicodedata
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
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
from kiekai.judge.verdict import Strictness, Verdict

if TYPE_CHECKING:  # the judge module imports nltk and torch; load it only when judging
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules

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
#: Pairs per worker-thread task when judging a batch (bounds the wait of other requests).
BATCH_CHUNK = 64
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

    candidate: Word = Field(
        description="The word a player wants to say.", examples=["stones"]
    )
    used: list[Word] = Field(
        max_length=MAX_USED_WORDS,
        description=(
            "Words already used this round (rulebook, 'Ne Bis in Idem'; at most "
            f"{MAX_USED_WORDS})."
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
    strictness_levels: list[Strictness] = Field(
        description="Levels with a judge loaded and ready."
    )
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
    levels: Iterable[Strictness] = tuple(Strictness), house_rules: HouseRules | None = None
) -> dict[Strictness, Judge]:
    """Build one :class:`kiekai.judge.Judge` per strictness level and warm it up.

    ``house_rules``: the table's rulings every judge applies before its own evidence
    (``kiekai serve --house-rules FILE``); None for none.

    Each judge is warmed up (``Judge.warm_up()``, or one match where a judge lacks it)
    before it is returned, so lazily loaded models (WordNet, all-MiniLM-L6-v2, the
    inflection tables) are in memory before the first request.

    Returns:
        ``{Strictness: Judge}`` for each level in ``levels``.

    Raises:
        Whatever the judge raises when its models or calibration file are missing
        (``FileNotFoundError``, ``OSError``, ``RuntimeError``); ``kiekai serve`` reports it.
    """
    from kiekai.judge import Judge

    judges: dict[Strictness, Judge] = {}
    for level in levels:
        judge = Judge(level, house_rules=house_rules)
        warm_up = getattr(judge, "warm_up", None)
        if callable(warm_up):
            warm_up()
        else:
            judge.match("people", "humans")
        judges[level] = judge
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


class _JudgeService:
    """The judges, the single worker thread every judge call runs on, and a verdict cache."""

    def __init__(self, judges: Mapping[Strictness, Any]) -> None:
        self.judges = dict(judges)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiekai-judge")
        self.cache = VerdictCache(VERDICT_CACHE_ENTRIES)

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

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """Run ``function(*args)`` on the judge thread; map its errors to :class:`JudgeError`."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor, function, *args)
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
            return await self.call(lambda: judge.match(secret, guess, rulings=rulings))
        key = ("match", level, secret, guess)
        verdict = self.cache.get(key)
        if verdict is None:
            verdict = await self.call(self.judge_for(level).match, secret, guess)
            self.cache.put(key, verdict)
        return verdict

    async def match_many(
        self,
        level: Strictness,
        pairs: Sequence[tuple[str, str]],
        rulings: HouseRules | None = None,
    ) -> list[Verdict]:
        """Verdicts for ``pairs`` in order; pairs not cached go to the judge in chunks.
        Pairs that ``rulings`` (the request's house rulings) decide are answered with
        them, never from or into the cache."""
        judge = self.judge_for(level)
        found: dict[tuple[str, str], Verdict] = {}
        missing: list[tuple[str, str]] = []
        ruled = [pair for pair in dict.fromkeys(pairs) if _rules_decide(rulings, level, [pair])]
        if ruled:
            verdicts = await self.call(lambda: [judge.match(s, g, rulings=rulings) for s, g in ruled])
            found.update(zip(ruled, verdicts, strict=True))
        for pair in dict.fromkeys(pairs):  # each distinct pair once, in order
            if pair in found:
                continue
            cached = self.cache.get(("match", level, *pair))
            if cached is None:
                missing.append(pair)
            else:
                found[pair] = cached
        for start in range(0, len(missing), BATCH_CHUNK):
            chunk = missing[start : start + BATCH_CHUNK]
            verdicts = await self.call(_match_many, judge, chunk)
            for pair, verdict in zip(chunk, verdicts, strict=True):
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
        (never when ``rulings``, the request's house rulings, decide one of its pairs)."""
        if _rules_decide(rulings, level, [(u, candidate) for u in used]):
            judge = self.judge_for(level)
            return await self.call(lambda: judge.is_repeat(candidate, list(used), rulings=rulings))
        key = ("repeat", level, candidate, tuple(used))
        verdict = self.cache.get(key)
        if verdict is None:
            verdict = await self.call(_is_repeat, self.judge_for(level), candidate, list(used))
            self.cache.put(key, verdict)
        return verdict

    def close(self) -> None:
        """Stop the worker thread (waits for the running task)."""
        self.executor.shutdown(wait=True, cancel_futures=True)


def _rules_decide(
    rulings: HouseRules | None, level: Strictness, pairs: Iterable[tuple[str, str]]
) -> bool:
    """Whether a request's house ``rulings`` hold a ruling for one of ``pairs`` at ``level``."""
    if rulings is None or not len(rulings):
        return False
    return any(rulings.lookup(s, g, level.value) is not None for s, g in pairs)


def _match_many(judge: Any, pairs: Sequence[tuple[str, str]]) -> list[Verdict]:
    """``judge.match_many(pairs)`` when the judge has it, else one ``match`` per pair.

    Raises:
        JudgeError: the judge returned a different number of verdicts than pairs.
    """
    many = getattr(judge, "match_many", None)
    verdicts = list(many(pairs)) if many else [judge.match(s, g) for s, g in pairs]
    if len(verdicts) != len(pairs):
        raise JudgeError(
            503,
            "judge-unavailable",
            f"the judge returned {len(verdicts)} verdicts for {len(pairs)} pairs",
        )
    return verdicts


def _is_repeat(judge: Any, candidate: str, used: list[str]) -> Verdict:
    """``judge.is_repeat(candidate, used)``, through ``is_repeat_many`` when the judge has
    it: that form embeds all the words in one batch, far faster for a long used list."""
    many = getattr(judge, "is_repeat_many", None)
    if many is None:
        return judge.is_repeat(candidate, used)
    verdicts = list(many([(candidate, used)]))
    if len(verdicts) != 1:
        raise JudgeError(
            503, "judge-unavailable", f"the judge returned {len(verdicts)} verdicts for 1 word"
        )
    return verdicts[0]


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
    if len(raw) == 1 and tuple(raw[0].get("loc", ())) == ("body",) and raw[0].get("type") == "missing":
        # no body, or one not sent as JSON: FastAPI reads only application/json bodies
        items = [
            ErrorItem(field="body", problem="send a JSON object with Content-Type: application/json")
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
            if message["type"] != "http.request":  # client went away
                break
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
    503: {"model": ErrorResponse, "description": "The judge could not answer."},
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
    """Which models :mod:`kiekai.models` has loaded in this process (its cached loaders)."""
    models_module = sys.modules.get("kiekai.models")
    loaded: dict[str, bool] = {}
    for name, label in (("wordnet", "wordnet"), ("sentence_model", "all-MiniLM-L6-v2")):
        loader = getattr(models_module, name, None)
        info = getattr(loader, "cache_info", None)
        loaded[label] = bool(info and info().currsize > 0)
    return loaded


def _judge_info(judges: Mapping[Strictness, Any]) -> dict[str, Any]:
    """What the judge says about itself: its ``describe()`` when it has one, else the
    format version and scalar provenance fields (``fit``) of its fitted model."""
    judge = next(iter(judges.values()), None)
    if judge is None:
        return {}
    describe = getattr(judge, "describe", None)
    if callable(describe):
        try:
            info = describe()
            if isinstance(info, Mapping):
                return {str(k): v for k, v in info.items() if isinstance(v, str | int | float | bool)}
        except Exception:  # health must answer even if the judge's self-report fails
            log.exception("judge.describe() failed")
    info: dict[str, Any] = {}
    model = getattr(judge, "model", None)  # the fitted parameters (data/judge-model.json)
    version = getattr(model, "version", getattr(judge, "version", None))
    if version is not None:
        info["model_format_version"] = str(version)
    fit = getattr(model, "fit", None)
    if isinstance(fit, Mapping):
        scalars = (str, int, float, bool)
        info.update({f"fit.{k}": v for k, v in fit.items() if isinstance(v, scalars)})
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
