"""The judges behind the HTTP API and how their work is scheduled (:class:`JudgeService`).

One :class:`kiekai.judge.Judge` per :class:`~kiekai.judge.verdict.Strictness`, built once at
start-up (:func:`load_judges`) and reused by every request, so WordNet and the sentence
model load once per process. Every judge call runs on the one judge thread
(:class:`~kiekai.judge.server.worker.JudgeWorker`): a request with few new pairs
(:data:`SMALL_REQUEST_PAIRS`) is one urgent task; a larger one first has its words outside
the judge's tables encoded in batches of :data:`ENCODE_CHUNK`, then is judged in chunks
timed to about :data:`CHUNK_TARGET_S`, which run round-robin with other large requests and
behind every urgent task, and gets a 503 (``judge-busy``) when not done within
:data:`REQUEST_DEADLINE_S`. Verdicts already given are answered from a bounded
least-recently-used cache (:class:`VerdictCache`) on the event loop. The encoding itself
belongs to the judge (:mod:`kiekai.judge.batching`); this module only decides when it runs.

Rulings shared by several worker processes are read per request, never kept per worker,
so a ruling written through one worker holds in all of them from their next request on:

- a table's rulings (the rulings store, :mod:`kiekai.judge.store`) are read in one query
  per request for the request's words (:meth:`JudgeService.rulings`); a pair they decide
  is answered with them and never read from or put into the verdict cache, and the
  judge's verdict on a pair they do not decide does not depend on them, so the cache
  needs no store version in its key (and no read of one);
- the server's own house rulings (``--house-rules FILE``) come from a
  :class:`~kiekai.judge.server.rulings.RulingsSource` asked at the start of every request
  (one ``os.stat``); the cache is keyed by their version.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from kiekai.judge import batching
from kiekai.judge.server.errors import JudgeError
from kiekai.judge.server.rulings import RulingsSource
from kiekai.judge.server.worker import JudgeWorker, timed
from kiekai.judge.verdict import Strictness, Verdict

if TYPE_CHECKING:
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules
    from kiekai.judge.store import RulingStore

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Most pairs in one task on the judge thread when a large request is cut into chunks.
BATCH_CHUNK = 64
#: A request with at most this many pairs to judge (a batch's new pairs, a repeat's used
#: words) is one urgent task on the judge thread; larger ones are cut into chunks that
#: run after every urgent task (see :class:`~kiekai.judge.server.worker.JudgeWorker`).
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
    judge's tables (see :class:`JudgeService`), which keeps about 1 GB of torch out of
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


def coerce_judges(judges: Mapping[Any, Any]) -> dict[Strictness, Any]:
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
        self._entries: OrderedDict[tuple[Hashable, ...], Verdict] = OrderedDict()

    def get(self, key: tuple[Hashable, ...]) -> Verdict | None:
        """The cached verdict for ``key`` (marked recently used), or ``None``."""
        verdict = self._entries.get(key)
        if verdict is not None:
            self._entries.move_to_end(key)
        return verdict

    def put(self, key: tuple[Hashable, ...], verdict: Verdict) -> None:
        """Store ``verdict``; drops the least recently used entry beyond ``max_entries``."""
        self._entries[key] = verdict
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()


class JudgeService:
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

    Args:
        judges: ``{Strictness: judge}``.
        store: the tables' rulings (:class:`kiekai.judge.store.RulingStore`), read per
            request by :meth:`rulings`; ``None``: no tables (only the default one, empty).
        rulings: where the server's house rulings come from, asked once per request
            (:mod:`kiekai.judge.server.rulings`); when its version changes, every judge's
            ``house_rules`` is set to the new rulings and the verdict cache is emptied.
            ``None``: the judges keep the ``house_rules`` they were built with.
    """

    def __init__(
        self,
        judges: Mapping[Strictness, Any],
        store: RulingStore | None = None,
        *,
        rulings: RulingsSource | None = None,
    ) -> None:
        self.judges = dict(judges)
        self.store = store
        self.worker = JudgeWorker()
        self.cache = VerdictCache(VERDICT_CACHE_ENTRIES)
        self.rulings_source = rulings
        self._rulings_version: Any = None
        self._server_rules: HouseRules | None = None
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiekai-loader")
        self._encoder: asyncio.Future[None] | None = None
        self._requests = itertools.count()

    def refresh_rulings(self) -> Any:
        """Bring the judges' house rulings up to date with :attr:`rulings_source` (see the
        class)
        and return their version, part of every verdict-cache key. Runs on the event loop
        at the start of each request: one ``os.stat`` for a file that did not change."""
        if self.rulings_source is None:
            return None
        snapshot = self.rulings_source.snapshot()
        if snapshot.version != self._rulings_version:
            for judge in self.judges.values():
                if hasattr(judge, "house_rules"):
                    judge.house_rules = snapshot.rules
            self.cache.clear()  # old keys are never asked again: free their memory
            self._rulings_version = snapshot.version
            self._server_rules = snapshot.rules
        return self._rulings_version

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

    async def rulings(
        self, table: str | None, words: Iterable[str], sent: HouseRules | None = None
    ) -> HouseRules | None:
        """The house rulings a verdict request applies: the rulings ``sent`` with it
        first, then those of ``table`` (the default table when None) between its
        ``words``, read from the store in one query on a thread of its own (so a ruling
        written by another worker holds from the next request on). None when neither
        has any.

        Raises:
            JudgeError: (404 ``table-not-found``) ``table`` names no table of the store;
                (503 ``store-unavailable``) the store cannot be read.
        """
        from kiekai.judge.house_rules import DEFAULT_TABLE

        if self.store is None:
            if table is not None and table != DEFAULT_TABLE:
                raise JudgeError(
                    404, "table-not-found", f"this server has no rulings store; no table {table!r}"
                )
            return sent
        name = table if table is not None else DEFAULT_TABLE
        store = self.store
        words = list(words)

        def read() -> HouseRules:
            if table is not None and not store.has_table(name):
                from kiekai.judge.store import TableNotFoundError

                raise TableNotFoundError(f"no table named {name!r}; create it with POST /v1/tables")
            return store.rules_for(name, words)

        found = await self.store_call(read)
        if not len(found):
            return sent
        if sent is None:
            return found
        sent.fallback = found
        return sent

    async def store_call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` (a store read or write) on a worker thread; the store's
        errors become :class:`JudgeError` with their own status and code, a database
        failure a 503 ``store-unavailable``."""
        from sqlalchemy.exc import SQLAlchemyError

        from kiekai.judge.store import StoreError, TableKeyError

        try:
            return await asyncio.to_thread(function, *args)
        except StoreError as exc:
            headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, TableKeyError) else {}
            if exc.status != 401:
                headers = {}
            raise JudgeError(exc.status, exc.code, str(exc), headers) from None
        except SQLAlchemyError as exc:
            log.exception("the rulings store failed")
            raise JudgeError(
                503,
                "store-unavailable",
                f"the rulings store could not be used ({type(exc).__name__}); the error is "
                "in the server log, try again later",
            ) from exc

    async def _ensure_encoder(self, words: Iterable[str]) -> None:
        """Load the sentence model first (once, on the loader thread) when ``words`` need
        it; a failure to load is left for the judge to report."""
        if self._encoder is not None and self._encoder.done():
            return
        if not batching.needs_encoder(words):
            return  # words in the tables never wait for the load
        if self._encoder is None:
            loop = asyncio.get_running_loop()
            self._encoder = loop.run_in_executor(self._loader, batching.load_encoder)
        try:
            await asyncio.shield(self._encoder)
        except Exception:  # noqa: BLE001 - the judge raises its own clear error when encoding
            log.exception("the sentence model could not be loaded")

    async def call(self, priority: tuple[int, ...], function: Callable[..., T], *args: Any) -> T:
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
        rounds: itertools.count[int],
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
            results, seconds = await self.call((1, next(rounds), request), timed, function, chunk)
            out.extend(results)
            per_item = max(seconds / len(chunk), 1e-6)
            size = max(1, min(BATCH_CHUNK, int(CHUNK_TARGET_S / per_item)))
        return out

    async def _large(
        self,
        pairs: Sequence[tuple[str, str]],
        function: Callable[[list[tuple[str, str]]], list[Verdict]],
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
                to_encode = batching.words_to_encode(w for pair in pairs for w in pair)
                for start in range(0, len(to_encode), ENCODE_CHUNK):  # fixed size: see there
                    chunk = to_encode[start : start + ENCODE_CHUNK]
                    await self.call((1, next(rounds), request), batching.encode, chunk)
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
        version = self.refresh_rulings()
        if rules_decide(rulings, level, [(secret, guess)]):
            judge = self.judge_for(level)
            return await self.call((0, 0), lambda: judge.match(secret, guess, rulings=rulings))
        key = ("match", version, level, secret, guess)
        verdict = self.cache.get(key)
        if verdict is None:
            judge = self.judge_for(level)
            if not rules_decide(self._server_rules, level, [(secret, guess)]):
                await self._ensure_encoder((secret, guess))  # a ruled pair needs no model
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
        version = self.refresh_rulings()
        judge = self.judge_for(level)
        found: dict[tuple[str, str], Verdict] = {}
        missing: list[tuple[str, str]] = []
        ruled = [pair for pair in dict.fromkeys(pairs) if rules_decide(rulings, level, [pair])]
        if ruled:  # a house rule answers without the judge's evidence: one short task
            verdicts = await self.call(
                (0, 0), lambda: [judge.match(s, g, rulings=rulings) for s, g in ruled]
            )
            found.update(zip(ruled, verdicts, strict=True))
        for pair in dict.fromkeys(pairs):  # each distinct pair once, in order
            if pair in found:
                continue
            cached = self.cache.get(("match", version, level, *pair))
            if cached is None:
                missing.append(pair)
            else:
                found[pair] = cached
        if missing:
            unruled = [p for p in missing if not rules_decide(self._server_rules, level, [p])]
            await self._ensure_encoder(w for pair in unruled for w in pair)
            if len(missing) <= SMALL_REQUEST_PAIRS:
                verdicts = await self.call((0, 0), batching.match_many, judge, missing)
            else:
                verdicts = await self._large(missing, functools.partial(batching.match_many, judge))
            for pair, verdict in zip(missing, verdicts, strict=True):
                found[pair] = verdict
                self.cache.put(("match", version, level, *pair), verdict)
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
        version = self.refresh_rulings()
        ruled = rules_decide(rulings, level, [(u, candidate) for u in used])
        key = ("repeat", version, level, candidate, tuple(used))
        verdict = None if ruled else self.cache.get(key)
        if verdict is None:
            judge = self.judge_for(level)
            await self._ensure_encoder([candidate, *used])
            distinct = [u for u in dict.fromkeys(used) if isinstance(u, str) and u.strip()]
            if len(distinct) > SMALL_REQUEST_PAIRS:
                await self._large(
                    [(u, candidate) for u in distinct],
                    functools.partial(batching.match_many, judge),
                )
            if ruled:
                return await self.call(
                    (0, 0), lambda: judge.is_repeat(candidate, list(used), rulings=rulings)
                )
            verdict = await self.call((0, 0), batching.is_repeat, judge, candidate, list(used))
            self.cache.put(key, verdict)
        return verdict

    def close(self) -> None:
        """Stop the judge thread (waits for the running task) and the loader thread."""
        self.worker.close()
        self._loader.shutdown(wait=False, cancel_futures=True)


def rules_decide(
    rulings: HouseRules | None, level: Strictness, pairs: Iterable[tuple[str, str]]
) -> bool:
    """Whether a request's house ``rulings`` hold a ruling for one of ``pairs`` at ``level``."""
    if rulings is None or not len(rulings):
        return False
    return any(rulings.lookup(s, g, level.value) is not None for s, g in pairs)
