"""The judge's lexical resources, held by one :class:`Resources` object.

- WordNet 3.0 (Miller 1995; Fellbaum 1998): the compact SQLite index
  (:class:`kiekai.judge.wordnet_index.WordNetIndex`) or NLTK's reader, both
  :class:`kiekai.judge.protocol.WordNetLike`.
- all-MiniLM-L6-v2 sentence embeddings (Reimers & Gurevych 2019; the 384-dim
  MiniLM-L6 model) through ``kiekai.models.sentence_model()``.
- A precomputed **embedding table**: the MiniLM embeddings of the common English words
  (wordfreq's top list, Speer et al.), kept on disk in ``<kiekai cache>/embeddings/`` so
  that a word never judged before costs a lookup instead of an encode.
  See :meth:`Resources.load_embedding_table`.
- Word frequencies from ``wordfreq`` (Zipf scale: log10 of frequency per billion
  words; 3.0 = once per million words).

A :class:`Resources` is built by each command (``kiekai.commands``) and handed to the
judge, the bots, perception and the lexicon, as a sentence-transformers model object is
handed around: whoever holds it holds the reader, the encoder, the table, the per-word
vectors and the progress reporter; nothing of it lives in module globals. Code that
runs inside a judge's call or a command reads the one in force through :func:`current`
(a context variable that :meth:`Resources.use` sets); code given none, such as
``Judge("standard")`` in a library user's script, shares :func:`default_resources`.

Model resolution (which folder, which file, which hash) belongs to :mod:`kiekai.models`;
this module only holds what it returns and the per-word results (embeddings,
frequencies).
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import os
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from kiekai.judge.protocol import WordNetLike

#: Words are embedded inside this sentence, as CLIP prompts are (Radford et al. 2021).
#: Measured on SimLex-999 (Hill et al. 2015), which is kept out of fitting: Spearman
#: 0.55 with the template against 0.45 for the bare word (RG-65: 0.85 against 0.73).
EMBED_TEMPLATE = "a photo of {}."

#: Dimension of an all-MiniLM-L6-v2 embedding (model card; ``models/registry.json``).
EMBEDDING_DIM = 384

#: Entries of each of the judge's per-pair caches (evidence, WordNet links, affix links):
#: about 2 KB per pair together, so at most about 70 MB. Servers keep their own cache of
#: verdicts in front (``kiekai.judge.server.VERDICT_CACHE_ENTRIES``); larger per-pair caches only
#: grew memory (a 50,000-row ``--batch`` of new pairs held 100 MB more than 5,000 rows).
PAIR_CACHE_ENTRIES = 32_768

#: Serialises encoding across every :class:`Resources` of the process: torch's thread
#: count is process-wide, so two threads changing it at once could leave it at 1 for
#: everyone. A lock, not model state.
_ENCODE_LOCK = threading.Lock()

#: Set ``KIEKAI_WORDNET_INDEX=off`` to make the judge read WordNet through NLTK's reader
#: instead of the compact index (:mod:`kiekai.judge.wordnet_index`); for comparisons.
WORDNET_INDEX_ENV = "KIEKAI_WORDNET_INDEX"

#: Words encoded by one :class:`Resources` (words outside the embedding table) are kept
#: up to this many; the store is emptied when it is full (20,000 vectors of 1.5 KB:
#: 30 MB), so a server fed made-up words stays bounded. Words of the table are never
#: copied: their rows are read from the memory-mapped table, which the operating system
#: shares between processes and can page out.
MAX_CACHED_EMBEDDINGS = 20_000

Reporter = Callable[[str], None]
_T = TypeVar("_T")


def _index_disabled() -> bool:
    return os.environ.get(WORDNET_INDEX_ENV, "").strip().lower() in ("0", "off", "false", "no")


@contextmanager
def _one_torch_thread() -> Iterator[None]:
    """Run torch on one intra-op thread: one short word encodes ~20x faster than with a
    thread pool that competes with other processes on a small CPU (measured: 8 ms vs
    190 ms on 2 loaded cores). Restores the previous thread count."""
    import torch

    old = torch.get_num_threads()
    if old == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


# -------------------------------------------------------------------------- embedding table

#: Size of wordfreq's English top list the default embedding table is drawn from. Of
#: the top 50,000, 47,994 are alphabetic and their own normalised form; they reach down
#: to a Zipf frequency of 2.55 (the 50,000th word, "impertinent": about 350 times per
#: billion words). The table takes 74 MB on disk and 45-190 s to build on 2 cores
#: (measured on a quiet and on a busy machine); 19 minutes were seen on a machine
#: shared by many jobs.
TABLE_TOP_N = 50_000

#: Version of the table's file layout; part of the key, so a layout change rebuilds.
TABLE_FORMAT = 1

#: Files of the model folder hashed into the table key besides the weights (tokenizer,
#: configuration, pooling): small text files, read in full.
_SMALL_MODEL_FILE_BYTES = 4 << 20


class EmbeddingTable:
    """MiniLM embeddings of a fixed word list, looked up by word.

    Args:
        words: the words (normalised forms, see :func:`kiekai.judge.normalize.normalise`),
            without duplicates.
        vectors: float32 array [len(words), 384]; row ``i`` is the unit-length embedding
            of ``EMBED_TEMPLATE.format(words[i])``. May be a read-only memory map.
        path: the ``.npy`` file the vectors live in, or ``None`` for a table held only
            in memory.
        build_s: seconds the build took (wall clock) when it was built, or ``None``.
        built_now: whether this process built it.
        key: the file stem naming the model key, word count and word-list hash
            (``minilm-words-<model>-<count>-<words>``); "" for a table not tied to a key.

    Raises:
        ValueError: ``vectors`` is not float32 of shape [len(words), 384], or ``words``
            repeats a word.
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: np.ndarray,
        path: Path | None = None,
        build_s: float | None = None,
        built_now: bool = False,
        key: str = "",
    ):
        self.words = tuple(words)
        if vectors.dtype != np.float32 or vectors.shape != (len(self.words), EMBEDDING_DIM):
            raise ValueError(
                f"embedding table vectors must be float32 [{len(self.words)}, {EMBEDDING_DIM}], "
                f"got {vectors.dtype} {list(vectors.shape)}"
            )
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("embedding table words must not repeat")
        self.vectors = vectors
        self.path = path
        self.build_s = build_s
        self.built_now = built_now
        self.key = key

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def __repr__(self) -> str:
        return f"EmbeddingTable({len(self)} words, path={str(self.path) if self.path else None!r})"

    def get(self, word: str) -> np.ndarray | None:
        """The float32 [384] row of ``word`` (a view into :attr:`vectors`), or ``None``
        if absent."""
        i = self.index.get(word)
        return None if i is None else self.vectors[i]

    @property
    def nbytes(self) -> int:
        """Size of the vectors in bytes (the ``.npy`` file is this plus a 128-byte header)."""
        return int(self.vectors.nbytes)


def table_words(top_n: int = TABLE_TOP_N) -> list[str]:
    """The words of the default embedding table: wordfreq's ``top_n_list("en", top_n)``
    (most frequent first) kept when alphabetic (``str.isalpha``) and equal to their own
    normalised form (the judge looks words up normalised: "café" is judged as "cafe").

    Raises:
        ValueError: ``top_n`` is not positive.
    """
    if top_n <= 0:
        raise ValueError(f"top_n must be a positive number of words, got {top_n}")
    from wordfreq import top_n_list

    from kiekai.judge.normalize import normalise

    return list(
        dict.fromkeys(w for w in top_n_list("en", top_n) if w.isalpha() and normalise(w) == w)
    )


def _library_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"


def model_identity() -> dict[str, object]:
    """What the table's vectors depend on, besides the word list (the table key).

    The SHA-256 of the MiniLM weights and of every small file of the model folder
    (tokenizer, configuration, pooling), the size and modification time of any other
    large file (another weights format), the template, the table format and the versions
    of sentence-transformers, transformers and torch (a different kernel may round
    differently). Hashing the weights is remembered per process by
    :func:`kiekai.models.sha256_file`.

    Raises:
        kiekai.models.ModelUnavailable: the model cannot be found (without downloading).
    """
    from kiekai import models

    resolved = models.resolve_sentence_model(allow_download=False)
    folder = Path(resolved.path)
    weights = models.registry()["sentence_model"]["weights_file"]
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if not path.is_file() or any(part.startswith(".") for part in Path(rel).parts):
            continue
        stat = path.stat()
        if rel == weights:
            files[rel] = models.sha256_file(path)
        elif stat.st_size <= _SMALL_MODEL_FILE_BYTES:
            if rel.lower() != "readme.md":
                files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:  # other large files (pytorch_model.bin, ONNX exports): too slow to hash
            files[rel] = f"size {stat.st_size}, modified {stat.st_mtime_ns}"
    return {
        "format": TABLE_FORMAT,
        "template": EMBED_TEMPLATE,
        "files": files,
        "libraries": {
            name: _library_version(name)
            for name in ("sentence-transformers", "transformers", "torch")
        },
    }


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def _table_folder() -> Path:
    from kiekai.models import cache_dir

    return cache_dir() / "embeddings"


def _stem(model_key: str, words: Sequence[str]) -> str:
    return f"minilm-words-{model_key[:16]}-{len(words)}-{_digest(list(words))[:12]}"


def build_table(
    words: Sequence[str],
    batch_size: int = 128,
    report: Callable[[str], None] | None = None,
    resources: Resources | None = None,
) -> EmbeddingTable:
    """Encode ``words`` (in :data:`EMBED_TEMPLATE`, batches of ``batch_size``) into an
    in-memory :class:`EmbeddingTable`, batching texts of equal token count together.
    About 1-4 ms per word on 2 cores, depending on other load (measured: 1,000 words
    in 1.1-1.7 s; 47,994 words in 191 s on a busy machine). The encode lock is taken
    per batch, so a build in a background thread delays another thread's encode by one
    batch at most.

    Rows equal :func:`embedding`'s one-word encodes within float32 rounding (measured:
    at most 2.6e-7 per component over 200 words): padding in a batch is masked out of
    attention and of the mean pooling.

    ``report`` gets a progress line after each tenth of the batches (words done, time so
    far, an estimate of the time left), since on a busy machine a build has taken
    19 minutes.

    ``resources`` gives the encoder (default :func:`current`); its
    :meth:`Resources.stop_background_builds` ends a build between batches.

    Raises:
        ValueError: ``words`` repeats a word.
        RuntimeError: the model cannot be loaded.
        BuildStopped: the build was stopped (the process is exiting).
    """
    res = resources if resources is not None else current()
    words = list(words)
    model = res.sentence_model() if words else None  # loading is not part of the build time
    start = time.perf_counter()
    texts = [EMBED_TEMPLATE.format(w) for w in words]
    # batches of texts of one token count waste no compute on padding
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None and texts:
        sizes = [len(ids) for ids in tokenizer(texts)["input_ids"]]
    else:
        sizes = [len(text) for text in texts]
    order = sorted(range(len(texts)), key=sizes.__getitem__)
    vectors = np.zeros((len(words), EMBEDDING_DIM), dtype=np.float32)
    batches = -(-len(order) // batch_size)
    step = max(1, -(-batches // 10))
    for number, i in enumerate(range(0, len(order), batch_size), start=1):
        if res.stopping_builds():
            raise BuildStopped("the embedding table build was stopped (the process is exiting)")
        rows = order[i : i + batch_size]
        vectors[rows] = res.encode([texts[j] for j in rows], batch_size=batch_size)
        if report and number % step == 0 and number < batches:
            done = i + len(rows)
            spent = time.perf_counter() - start
            left = spent / done * (len(words) - done)
            report(
                f"  embedding table: {done:,} of {len(words):,} words ({100 * done // len(words)} "
                f"%) in {spent:.0f} s; about {left:.0f} s left at this pace"
            )
    return EmbeddingTable(words, vectors, build_s=time.perf_counter() - start, built_now=True)


def _read_table(meta_path: Path, model_key: str) -> EmbeddingTable | None:
    """The table described by ``meta_path`` (``.json``) and its ``.npy`` vectors, memory
    mapped read-only, or ``None`` when it is missing, unreadable, damaged or built for
    another model, template or library version."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        words = meta["words"]
        if (
            meta.get("model_key") != model_key
            or meta.get("words_sha256") != _digest(list(words))
            or meta_path.stem != _stem(model_key, words)
        ):
            return None
        vectors = np.load(meta_path.with_suffix(".npy"), mmap_mode="r", allow_pickle=False)
        return EmbeddingTable(
            words, vectors, meta_path.with_suffix(".npy"), meta.get("build_s"), key=meta_path.stem
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_table(
    table: EmbeddingTable, folder: Path, model_key: str, identity: dict[str, object]
) -> Path:
    """Save ``table`` as ``<stem>.npy`` + ``<stem>.json`` in ``folder``, each written to a
    temporary file and renamed into place; the ``.json`` (which readers open first) is
    renamed last, so a reader never sees half a table. Returns the ``.json`` path.

    Raises:
        OSError: the folder cannot be written (read-only, full disk, ...).
    """
    stem = _stem(model_key, table.words)
    meta = {
        "model_key": model_key,
        "model": identity,
        "words_sha256": _digest(list(table.words)),
        "build_s": table.build_s,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "words": list(table.words),
    }
    temps: list[str] = []
    try:
        for suffix, write in (
            (".npy", lambda fh: np.save(fh, np.ascontiguousarray(table.vectors))),
            (".json", lambda fh: fh.write(json.dumps(meta).encode("utf-8"))),
        ):
            handle, temp = tempfile.mkstemp(prefix=f".{stem}-", suffix=suffix, dir=folder)
            temps.append(temp)
            with os.fdopen(handle, "wb") as fh:
                write(fh)
        os.replace(temps[0], folder / f"{stem}.npy")
        os.replace(temps[1], folder / f"{stem}.json")
    finally:
        for temp in temps:
            with suppress(OSError):
                os.unlink(temp)
    return folder / f"{stem}.json"


def _remove_stale_tables(folder: Path, model_key: str) -> None:
    """Delete tables in ``folder`` built for another model key (never used again), and
    temporary files of builds interrupted more than an hour ago."""
    for temp in folder.glob(".minilm-words-*"):
        with suppress(OSError):
            if time.time() - temp.stat().st_mtime > 3600:
                temp.unlink()
    for meta_path in folder.glob("minilm-words-*.json"):
        if meta_path.name.startswith(f"minilm-words-{model_key[:16]}-"):
            continue
        for path in (meta_path, meta_path.with_suffix(".npy")):
            with suppress(OSError):
                path.unlink()


def find_embedding_table() -> EmbeddingTable | None:
    """The largest valid embedding table in kiekai's cache for the current model, or
    ``None``; never builds, never warns, never raises (a one-shot command uses a table
    someone built before, e.g. ``kiekai serve`` or ``kiekai models --build-embeddings``)."""
    try:
        model_key = _digest(model_identity())
        folder = _table_folder()
        found = sorted(
            folder.glob(f"minilm-words-{model_key[:16]}-*.json"),
            key=lambda p: -int(p.stem.split("-")[3]) if p.stem.split("-")[3].isdigit() else 0,
        )
    except (RuntimeError, OSError):
        return None
    for meta_path in found:
        table = _read_table(meta_path, model_key)
        if table is not None:
            return table
    return None


class BuildStopped(RuntimeError):
    """An embedding-table build was stopped by :func:`stop_background_builds`."""


# ------------------------------------------------------------------------------ resources


class Resources:
    """The WordNet reader, the sentence encoder, the embedding table, the per-word
    vectors and the progress reporter that a judge (and the bots, perception and the
    lexicon beside it) read. Everything loads lazily, on first use, at most once per
    object; thread-safe.

    Args:
        report: called with one line whenever something slow is about to load or build
            (the WordNet index build and its progress, NLTK's reader, the sentence
            model); ``None`` says nothing. Command lines pass a print to stderr, so that
            a user waiting seconds knows why, while a verdict that needs nothing slow
            prints nothing.
        wordnet: a WordNet reader to use (:class:`kiekai.judge.protocol.WordNetLike`);
            default: the index, opened (or built) on first use, see :meth:`wordnet`.
        encoder: a loaded SentenceTransformer to use; default: loaded on first use from
            :func:`kiekai.models.sentence_model`.
        embedding_table: the table to look words up in, or ``None`` for none; default:
            the largest one found in kiekai's cache on first use (never built).
    """

    _LOOK: Any = object()  # sentinel: look in the cache for a table on first use

    def __init__(
        self,
        *,
        report: Reporter | None = None,
        wordnet: WordNetLike | None = None,
        encoder: Any = None,
        embedding_table: EmbeddingTable | None = _LOOK,
    ) -> None:
        self.report = report
        self._wordnet = wordnet
        self._wordnet_lock = threading.Lock()  # one opening (or index build) at a time
        self._wordnet_preloaded = threading.Event()
        self._encoder = encoder
        self._encoder_lock = threading.Lock()
        self._vectors: dict[str, np.ndarray] = {}
        self._table_lock = threading.Lock()  # swaps and the one-time lookup in the cache
        self._build_lock = threading.Lock()  # one table load or build at a time
        looked = embedding_table is not Resources._LOOK
        self._table: EmbeddingTable | None = embedding_table if looked else None
        self._table_looked_up = looked
        self._warned: set[str] = set()
        self._stop_builds = threading.Event()
        self._kept: dict[object, Any] = {}
        self._kept_lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"Resources(wordnet={type(self._wordnet).__name__ if self._wordnet else None}, "
            f"encoder={'loaded' if self._encoder is not None else None}, "
            f"table={self._table!r})"
        )

    def keep(self, key: object, make: Callable[[], _T]) -> _T:
        """The object kept under ``key``, made by ``make()`` on first ask: what other
        parts derive from these resources and share (perception's store of text
        embeddings), held here instead of in a module global."""
        with self._kept_lock:
            if key not in self._kept:
                self._kept[key] = make()
            found: _T = self._kept[key]
            return found

    def loaded_parts(self) -> dict[str, Any]:
        """The WordNet reader and encoder this object has loaded already, as keyword
        arguments of :class:`Resources` (``{}`` when it has loaded neither): a new
        object made with them shares them instead of loading them again."""
        parts: dict[str, Any] = {}
        if self._wordnet is not None:
            parts["wordnet"] = self._wordnet
        if self._encoder is not None:
            parts["encoder"] = self._encoder
        return parts

    @contextmanager
    def use(self) -> Iterator[Resources]:
        """Make this the :func:`current` resources inside the ``with`` block (in this
        thread or task; nests), e.g. for the length of a command or a judge's call."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    def say(self, line: str) -> None:
        """Pass ``line`` to the reporter, if any."""
        if self.report is not None:
            self.report(line)

    def warn_once(self, kind: str, message: str) -> None:
        """Warn (``RuntimeWarning``) once per ``kind`` for this object."""
        if kind not in self._warned:
            self._warned.add(kind)
            warnings.warn(message, RuntimeWarning, stacklevel=3)

    # -- WordNet

    def wordnet(self) -> WordNetLike:
        """WordNet 3.0, opened on first use: the compact index
        (:class:`kiekai.judge.wordnet_index.WordNetIndex`, the same answers as NLTK's
        reader without its load of several seconds), built in kiekai's cache on first
        use; or NLTK's ``WordNetCorpusReader`` when the index cannot be built (one
        ``RuntimeWarning``) or ``KIEKAI_WORDNET_INDEX=off``. Never both.

        Raises:
            RuntimeError: WordNet cannot be found; the message says how to install it.
        """
        found = self._wordnet
        if found is not None:
            return found
        with self._wordnet_lock:  # one opening (or build), whichever thread asks first
            if self._wordnet is None:
                self._wordnet = self._open_wordnet()
            return self._wordnet

    def _open_wordnet(self) -> WordNetLike:
        from kiekai import models
        from kiekai.judge import wordnet_index

        if not _index_disabled():
            try:
                index = wordnet_index.open_index(build=True, report=self.report)
                if index is not None:
                    index.install_lemminflect()  # its lemma table from the index: no 0.3 s
                    return index
            except wordnet_index.IndexUnavailable as exc:
                self.warn_once(
                    "wordnet-index", f"{exc}; the judge reads WordNet through NLTK (slower)"
                )
        self.say("loading WordNet through NLTK ...")
        reader: WordNetLike = models.wordnet()
        return reader

    def wordnet_loaded(self) -> bool:
        """Whether this object's WordNet (index or NLTK reader) is open."""
        return self._wordnet is not None

    def use_wordnet(self, reader: WordNetLike | None) -> None:
        """Make ``reader`` (an index, NLTK's reader, or ``None``: open again on next use)
        this object's WordNet. For tests and benchmarks; the judge's per-word caches are
        not touched, so call it before judging."""
        with self._wordnet_lock:
            self._wordnet = reader

    def preload_wordnet(self) -> float:
        """Read every WordNet synset now, so that a word new to the process never waits
        for its synsets to be read.

        With the index (the default) this makes the 117,659 synset objects from the
        index file (measured: 4.9 s and 105 MB on 2 cores at a load average of 11, their
        lemmas and pointers still unparsed); with NLTK's reader it parses every synset
        from the data files (about 7 s and 230 MB). For benchmarks that time new words
        apart from reading. Results are unchanged (the same synsets, read earlier). Not
        thread-safe with NLTK's reader: call it before serving.

        Returns:
            Seconds spent; 0.0 when this object preloaded before.

        Raises:
            RuntimeError: WordNet cannot be found (see :meth:`wordnet`).
        """
        if self._wordnet_preloaded.is_set():
            return 0.0
        wn = self.wordnet()
        start = time.perf_counter()
        for _ in wn.all_synsets():  # both readers keep each synset they make
            pass
        self._wordnet_preloaded.set()
        return time.perf_counter() - start

    # -- the sentence encoder

    def sentence_model(self) -> Any:
        """The all-MiniLM-L6-v2 SentenceTransformer, loaded on first use (CPU).

        Raises:
            RuntimeError: from :func:`kiekai.models.sentence_model` when the weights are
                missing; its message names the package to install.
        """
        found = self._encoder
        if found is not None:
            return found
        from kiekai import models

        with self._encoder_lock:
            if self._encoder is None:
                if models.sentence_model.cache_info().currsize == 0:
                    self.say(
                        "loading the sentence model (all-MiniLM-L6-v2, with torch) for "
                        "words not in the judge's tables ..."
                    )
                self._encoder = models.sentence_model()
            return self._encoder

    def encoder_loaded(self) -> bool:
        """Whether this object holds the sentence model (MiniLM, with torch)."""
        return self._encoder is not None

    def loaded(self) -> bool:
        """Whether WordNet and the sentence model are both loaded already."""
        return self.wordnet_loaded() and self.encoder_loaded()

    def encode(
        self, texts: list[str], batch_size: int = 32, single_thread: bool = False
    ) -> np.ndarray:
        """Unit-length MiniLM embeddings of ``texts``: float32 [len(texts), 384].

        One or two texts (or any number with ``single_thread``) run on one torch thread
        (see :func:`_one_torch_thread`); larger batches use torch's thread pool.

        Raises:
            RuntimeError: the model cannot be loaded (see :meth:`sentence_model`).
        """
        model = self.sentence_model()
        one = single_thread or len(texts) <= 2
        with _ENCODE_LOCK, _one_torch_thread() if one else nullcontext():
            out = model.encode(
                texts,
                batch_size=batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)

    def warm_up_encoder(self) -> None:
        """Load MiniLM and run one two-text forward pass now, so that the first words
        outside the embedding table are encoded as fast as later ones (the first pass of
        a process also pays for allocations and kernel choice). Caches nothing.

        Raises:
            RuntimeError: the model cannot be loaded (see :meth:`sentence_model`).
        """
        self.encode([EMBED_TEMPLATE.format("dog"), EMBED_TEMPLATE.format("cat")])

    # -- per-word embeddings

    def _store(self, word: str, raw: Any) -> np.ndarray:
        if len(self._vectors) >= MAX_CACHED_EMBEDDINGS:
            self._vectors.clear()
        vec = np.array(raw, dtype=np.float32)
        vec.setflags(write=False)
        return self._vectors.setdefault(word, vec)

    def _known(self, word: str) -> np.ndarray | None:
        """The stored or tabled embedding of ``word``, or ``None`` when it must be encoded."""
        vec = self._vectors.get(word)
        if vec is not None:
            return vec
        table = self.embedding_table()
        if table is not None:
            return table.get(word)  # a read-only row of the memory map, not a copy
        return None

    def forget_embeddings(self) -> None:
        """Empty the store of encoded words (tests: every word is looked up afresh)."""
        self._vectors.clear()

    def in_tables(self, word: str) -> bool:
        """Whether the embedding of normalised ``word`` costs no encode (it is in the
        embedding table or was encoded before by this object)."""
        return self._known(word) is not None

    def embedding(self, word: str) -> np.ndarray:
        """Unit-length MiniLM embedding of ``word`` in :data:`EMBED_TEMPLATE`: float32
        [384].

        Looked up among the words this object encoded, then in the embedding table
        (:meth:`embedding_table`); encoded (one forward pass, ~10-25 ms on one CPU
        thread) only when in neither.

        Raises:
            RuntimeError: the word must be encoded and the model cannot be loaded.
        """
        vec = self._known(word)
        if vec is not None:
            return vec
        return self._store(word, self.encode([EMBED_TEMPLATE.format(word)])[0])

    def prefetch_embeddings(
        self, words: Sequence[str], batch_size: int = 256, single_thread: bool = False
    ) -> None:
        """Embed the ``words`` found neither among the stored words nor in the embedding
        table, in batches of ``batch_size``, for :meth:`embedding`.

        A speed-up for batch judging and fitting; results equal :meth:`embedding`'s
        within float32 rounding (about 3e-7 per component, measured). ``single_thread``
        runs torch on one thread (servers: a few words at a time, on a machine whose
        other cores are busy, go several times faster so; measured 8 words in 54 ms
        against 290 ms with two threads on 2 loaded cores).
        """
        todo = sorted({w for w in words if w and self._known(w) is None})
        if not todo:
            return
        vecs = self.encode(
            [EMBED_TEMPLATE.format(w) for w in todo],
            batch_size=batch_size,
            single_thread=single_thread,
        )
        for w, v in zip(todo, vecs, strict=True):
            self._store(w, v)

    def cosine(self, a: str, b: str) -> float:
        """Cosine similarity (-1..1) of the MiniLM embeddings of two words.

        Words stored or in the embedding table cost a lookup; when both must be encoded
        they go through one call (one forward pass of a batch of two costs about 60 % of
        two single passes on this CPU).

        Raises:
            RuntimeError: a word must be encoded and the model cannot be loaded.
        """
        va, vb = self._known(a), self._known(b)
        if va is None and vb is None and a != b:
            raw = self.encode([EMBED_TEMPLATE.format(a), EMBED_TEMPLATE.format(b)])
            va, vb = self._store(a, raw[0]), self._store(b, raw[1])
        va = va if va is not None else self.embedding(a)
        vb = vb if vb is not None else self.embedding(b)
        return float(np.dot(va, vb))

    # -- the embedding table

    def embedding_table(self) -> EmbeddingTable | None:
        """The embedding table in use, or ``None``.

        The first call without a table given or loaded looks for one in the cache
        (:func:`find_embedding_table`, which never builds); later calls return the
        result.
        """
        if self._table_looked_up:
            return self._table
        with self._table_lock:
            if not self._table_looked_up:
                self._table = find_embedding_table()
                self._table_looked_up = True
        return self._table

    def embedding_table_loaded(self) -> bool:
        """Whether an embedding table is in use (never looks for one)."""
        return self._table_looked_up and self._table is not None

    def use_embedding_table(self, table: EmbeddingTable | None) -> None:
        """Make ``table`` the one in use (``None``: no table, and no looking in the
        cache) and empty the store of encoded words, so every word is looked up afresh.
        For tests and benchmarks; the judge's per-pair caches are not touched."""
        with self._table_lock:
            self._table, self._table_looked_up = table, True
            self._vectors.clear()

    def forget_embedding_table(self) -> None:
        """As in a new process: no table in use, and the cache not looked in yet."""
        with self._table_lock:
            self._table, self._table_looked_up = None, False

    def load_embedding_table(
        self,
        top_n: int | None = None,
        *,
        build: bool = False,
        rebuild: bool = False,
        words: Sequence[str] | None = None,
        report: Reporter | None = None,
    ) -> EmbeddingTable | None:
        """Load the embedding table of ``words`` (default :func:`table_words` of ``top_n``)
        from kiekai's cache, building and saving it when missing or stale if ``build``, and
        make it the table :meth:`embedding` and :meth:`cosine` look words up in.

        The file name and its ``.json`` record carry a key made of :func:`model_identity`
        and the SHA-256 of the word list, so a table built for other weights, another
        template, other library versions or other words is never used; tables of other
        models are deleted when a new one is saved.

        Thread-safe: one load or build runs at a time, and lookups (:func:`embedding`)
        never wait for a build. Never fails for cache problems: a cache folder that cannot be
        written gives one ``RuntimeWarning`` per :class:`Resources` and ``None`` (words are
        then encoded on the fly, as without a table) and nothing is built; a write that
        fails after the build keeps the built table for this object only.

        Args:
            top_n: size of wordfreq's top list the default words come from.
            build: build the table when it is not in the cache (about a minute for the
                default words on 2 cores); otherwise return ``None`` then.
            rebuild: build it even when the cache holds it (benchmarks time the build).
            words: an explicit word list instead of :func:`table_words` (tests use a few
                words).
            report: called with one line before a build, progress lines during it and one
                line after (e.g. ``print``).

        Returns:
            The table now in use, or ``None`` when there is none (not built, or no cache).

        Raises:
            RuntimeError: the model cannot be found or loaded (only when a build is needed
                or the model's identity cannot be read).
        """
        word_list = list(words) if words is not None else table_words(top_n or TABLE_TOP_N)
        identity = model_identity()
        model_key = _digest(identity)
        stem = _stem(model_key, word_list)
        with self._build_lock:
            current_table = self._table
            if current_table is not None and current_table.key == stem and not rebuild:
                return current_table
            try:
                folder = _table_folder()
            except RuntimeError as exc:  # ModelUnavailable: the cache cannot be created
                self.warn_once("cache", f"no embedding table: {exc}; words are encoded on the fly")
                return None
            table = None if rebuild else _read_table(folder / f"{stem}.json", model_key)
            if table is None and (build or rebuild):
                table = self._build_and_save(
                    word_list, folder, model_key, stem, identity, rebuild=rebuild, report=report
                )
            if table is not None:
                with self._table_lock:
                    self._table, self._table_looked_up = table, True
            return table

    def _build_and_save(
        self,
        word_list: list[str],
        folder: Path,
        model_key: str,
        stem: str,
        identity: dict[str, object],
        *,
        rebuild: bool,
        report: Reporter | None,
    ) -> EmbeddingTable | None:
        """Build the table of ``word_list`` and save it in ``folder``, under the
        cross-process build lock (:func:`kiekai.locks.build_lock`): a process that waited
        for another's build reads that one instead. ``None`` when the folder cannot be
        written."""
        from kiekai.locks import build_lock

        try:  # can the folder be written at all? Better to know before a minute's work
            handle, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
            os.close(handle)
            os.unlink(probe)
        except OSError as exc:
            self.warn_once(
                "cache",
                f"kiekai's cache folder {folder} cannot be written ({exc}), so the "
                "embedding table is not built and words are encoded on the fly (slower "
                "for new words); set KIEKAI_CACHE_DIR to a writable folder",
            )
            return None
        with build_lock(folder / f"{stem}.npy"):
            if not rebuild:
                done = _read_table(folder / f"{stem}.json", model_key)
                if done is not None:  # another process built it while this one waited
                    return done
            if report:
                report(
                    f"building the embedding table of {len(word_list):,} common English "
                    f"words (all-MiniLM-L6-v2, once per model) in {folder}: 1-3 minutes on "
                    "2 quiet cores, up to 20 on a busy machine ..."
                )
            table = build_table(word_list, report=report, resources=self)
            table.key = stem
            self._save(table, folder, model_key, identity)
            if report:
                report(
                    f"embedding table built: {len(table):,} words in {table.build_s:.1f} s"
                    + (f", saved as {table.path}" if table.path else "")
                )
            return table

    def _save(
        self, table: EmbeddingTable, folder: Path, model_key: str, identity: dict[str, object]
    ) -> None:
        """Write ``table`` to ``folder`` and drop stale ones; a failed write keeps the
        table for this object only (one warning)."""
        try:
            meta_path = _write_table(table, folder, model_key, identity)
        except OSError as exc:
            self.warn_once(
                "cache",
                f"the embedding table could not be saved in {folder} ({exc}); it is used "
                "by this process only and built again next time",
            )
        else:
            _remove_stale_tables(folder, model_key)
            table.path = meta_path.with_suffix(".npy")

    def stopping_builds(self) -> bool:
        """Whether :meth:`stop_background_builds` asked this object's builds to stop."""
        return self._stop_builds.is_set()

    def stop_background_builds(
        self, thread: threading.Thread | None, timeout_s: float = 30.0
    ) -> None:
        """Stop a build started by :meth:`build_embedding_table_in_background` and wait
        for its thread (at most ``timeout_s`` seconds; it stops after its current batch
        of words, a second or two). Servers call this on shutdown: a daemon thread still
        inside torch when the interpreter exits aborts the process ("terminate called
        without an active exception", exit status 134). Nothing is saved from a stopped
        build; the next server start builds the table again."""
        if thread is None or not thread.is_alive():
            return
        self._stop_builds.set()
        thread.join(timeout_s)

    def build_embedding_table_in_background(
        self, top_n: int | None = None, report: Reporter | None = None
    ) -> threading.Thread | None:
        """Use the embedding table of ``top_n`` words (default :data:`TABLE_TOP_N`) from
        the cache when it is there; otherwise build it in a daemon thread (about a minute
        on 2 quiet cores, longer on a busy machine) that puts it in use when done, while
        words are encoded on the fly. For servers, which can answer during the build.

        Returns:
            The started thread, or ``None`` when the table was read from the cache.

        Raises:
            RuntimeError: the model cannot be found (reading its identity).
        """
        if self.load_embedding_table(top_n, build=False) is not None:
            return None

        def build() -> None:
            try:
                self.load_embedding_table(top_n, build=True, report=report)
            except BuildStopped:
                if report:
                    report("embedding table build stopped; it starts again with the next server")
            except Exception as exc:  # noqa: BLE001 - a failed build only costs speed
                self.warn_once("build", f"the embedding table could not be built ({exc})")

        thread = threading.Thread(target=build, name="kiekai-embedding-table", daemon=True)
        thread.start()
        return thread


#: The :class:`Resources` in force in this thread or task (set by :meth:`Resources.use`).
_CURRENT: contextvars.ContextVar[Resources | None] = contextvars.ContextVar(
    "kiekai_resources", default=None
)


@functools.cache
def default_resources() -> Resources:
    """The resources of code that was given none and runs outside any
    :meth:`Resources.use` (a library user's ``Judge("standard")``, a test, a thread the
    server starts): built on first need, with no reporter, and shared by all such code
    of the process so that it opens WordNet and loads MiniLM once. Commands build their
    own instead."""
    return Resources()


def current() -> Resources:
    """The :class:`Resources` in force here: the innermost :meth:`Resources.use`, else
    :func:`default_resources`."""
    found = _CURRENT.get()
    return found if found is not None else default_resources()


# ---------------------------------------------------------------- the resources in force
# Module-level spellings of the methods, on :func:`current`: what the judge's lexical and
# feature code calls inside a judge's call (which puts the judge's resources in force).


def set_reporter(report: Reporter | None) -> None:
    """Set the reporter of the :func:`current` resources (see :class:`Resources`)."""
    current().report = report


def loaded() -> bool:
    """:meth:`Resources.loaded` of the current resources."""
    return current().loaded()


def wordnet_loaded() -> bool:
    """:meth:`Resources.wordnet_loaded` of the current resources."""
    return current().wordnet_loaded()


def encoder_loaded() -> bool:
    """:meth:`Resources.encoder_loaded` of the current resources."""
    return current().encoder_loaded()


def wordnet() -> WordNetLike:
    """:meth:`Resources.wordnet` of the current resources: the one WordNet reader that
    the judge, the lexicon, the bots, perception and the evaluation share."""
    return current().wordnet()


def use_wordnet(reader: WordNetLike | None) -> None:
    """:meth:`Resources.use_wordnet` of the current resources."""
    current().use_wordnet(reader)


def preload_wordnet() -> float:
    """:meth:`Resources.preload_wordnet` of the current resources."""
    return current().preload_wordnet()


def sentence_model() -> Any:
    """:meth:`Resources.sentence_model` of the current resources."""
    return current().sentence_model()


def warm_up_encoder() -> None:
    """:meth:`Resources.warm_up_encoder` of the current resources."""
    current().warm_up_encoder()


def in_tables(word: str) -> bool:
    """:meth:`Resources.in_tables` of the current resources."""
    return current().in_tables(word)


def embedding(word: str) -> np.ndarray:
    """:meth:`Resources.embedding` of the current resources."""
    return current().embedding(word)


def prefetch_embeddings(
    words: Sequence[str], batch_size: int = 256, single_thread: bool = False
) -> None:
    """:meth:`Resources.prefetch_embeddings` of the current resources."""
    current().prefetch_embeddings(words, batch_size=batch_size, single_thread=single_thread)


def cosine(a: str, b: str) -> float:
    """:meth:`Resources.cosine` of the current resources."""
    return current().cosine(a, b)


def embedding_table() -> EmbeddingTable | None:
    """:meth:`Resources.embedding_table` of the current resources."""
    return current().embedding_table()


def embedding_table_loaded() -> bool:
    """:meth:`Resources.embedding_table_loaded` of the current resources."""
    return current().embedding_table_loaded()


def use_embedding_table(table: EmbeddingTable | None) -> None:
    """:meth:`Resources.use_embedding_table` of the current resources."""
    current().use_embedding_table(table)


def load_embedding_table(
    top_n: int = TABLE_TOP_N,
    *,
    build: bool = False,
    rebuild: bool = False,
    words: Sequence[str] | None = None,
    report: Reporter | None = None,
) -> EmbeddingTable | None:
    """:meth:`Resources.load_embedding_table` of the current resources."""
    return current().load_embedding_table(
        top_n, build=build, rebuild=rebuild, words=words, report=report
    )


def build_embedding_table_in_background(
    top_n: int = TABLE_TOP_N, report: Reporter | None = None
) -> threading.Thread | None:
    """:meth:`Resources.build_embedding_table_in_background` of the current resources."""
    return current().build_embedding_table_in_background(top_n, report)


def stop_background_builds(thread: threading.Thread | None, timeout_s: float = 30.0) -> None:
    """:meth:`Resources.stop_background_builds` of the current resources."""
    current().stop_background_builds(thread, timeout_s)


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in English from ``wordfreq`` (0 = unseen, ~7 = "the")."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))
