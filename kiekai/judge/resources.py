"""Lazily loaded lexical resources for the judge, each loaded once per process.

- WordNet 3.0 (Miller 1995; Fellbaum 1998) through ``kiekai.models.wordnet()``.
- all-MiniLM-L6-v2 sentence embeddings (Reimers & Gurevych 2019; the 384-dim
  MiniLM-L6 model) through ``kiekai.models.sentence_model()``.
- A precomputed **embedding table**: the MiniLM embeddings of the common English words
  (wordfreq's top list, Speer et al.), kept on disk in ``<kiekai cache>/embeddings/`` so
  that a word never judged before in this process costs a lookup instead of an encode.
  See :func:`load_embedding_table`.
- Word frequencies from ``wordfreq`` (Zipf scale: log10 of frequency per billion
  words; 3.0 = once per million words).

Model resolution (which folder, which file) belongs to :mod:`kiekai.models`; this module
only caches what it returns and caches per-word results (embeddings, frequencies).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import contextmanager, nullcontext, suppress
from functools import lru_cache
from pathlib import Path

import numpy as np

#: Words are embedded inside this sentence, as CLIP prompts are (Radford et al. 2021).
#: Measured on SimLex-999 (Hill et al. 2015), which is kept out of fitting: Spearman
#: 0.55 with the template against 0.45 for the bare word (RG-65: 0.85 against 0.73).
EMBED_TEMPLATE = "a photo of {}."

#: Dimension of an all-MiniLM-L6-v2 embedding (model card; ``models/registry.json``).
EMBEDDING_DIM = 384

_LOCK = threading.Lock()
#: Serialises encoding: torch's thread count is process-wide, so two threads changing it
#: at once could leave it at 1 for everyone.
_ENCODE_LOCK = threading.Lock()


def loaded() -> bool:
    """Whether WordNet and the sentence model are both loaded in this process already."""
    from kiekai import models

    return (
        models.wordnet.cache_info().currsize > 0 and models.sentence_model.cache_info().currsize > 0
    )


def wordnet():
    """The NLTK WordNet corpus reader (WordNet 3.0), loaded on first use.

    Raises:
        RuntimeError: WordNet cannot be found; the message says how to install it.
    """
    from kiekai import models

    with _LOCK:  # models.wordnet is lru_cached; the lock keeps two threads from loading it twice
        return models.wordnet()


_WORDNET_PRELOADED = threading.Event()


def preload_wordnet() -> float:
    """Read every WordNet synset (117,659 in WordNet 3.0) into the NLTK reader's cache
    now, so that a word new to the process never waits for its synsets, their
    hypernyms and their derivational links to be parsed from the data files.

    Measured on 2 cores: about 7 s and 230 MB more memory, once per process; afterwards
    the WordNet part of a pair of new words takes about a third of the time (p99 of new
    in-table words 4 ms against 13 ms, same pairs, separate processes). For servers
    (``kiekai serve``) and benchmarks; results are unchanged (the same synsets, read
    earlier). Not thread-safe, like the reader: call it before serving.

    Returns:
        Seconds spent; 0.0 when this process preloaded before.

    Raises:
        RuntimeError: WordNet cannot be found (see :func:`wordnet`).
    """
    if _WORDNET_PRELOADED.is_set():
        return 0.0
    wn = wordnet()
    start = time.perf_counter()
    for _ in wn.all_synsets():  # nltk keeps each synset in its per-offset cache
        pass
    _WORDNET_PRELOADED.set()
    return time.perf_counter() - start


def sentence_model():
    """The all-MiniLM-L6-v2 SentenceTransformer, loaded on first use (CPU).

    Raises:
        RuntimeError: from :func:`kiekai.models.sentence_model` when the weights are
            missing; its message names the package to install.
    """
    from kiekai import models

    with _LOCK:  # lru_cached in kiekai.models; the lock serialises the first load
        return models.sentence_model()


@contextmanager
def _one_torch_thread():
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


def _encode(texts: list[str], batch_size: int = 32) -> np.ndarray:
    """Unit-length MiniLM embeddings of ``texts``: float32 [len(texts), 384].

    One or two texts run on one torch thread (see :func:`_one_torch_thread`); larger
    batches use torch's thread pool.

    Raises:
        RuntimeError: the model cannot be loaded (see :func:`sentence_model`).
    """
    model = sentence_model()
    with _ENCODE_LOCK, _one_torch_thread() if len(texts) <= 2 else nullcontext():
        out = model.encode(
            texts,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
    return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


def warm_up_encoder() -> None:
    """Load MiniLM and run one two-text forward pass now, so that the first words outside
    the embedding table are encoded as fast as later ones (the first pass of a process
    also pays for allocations and kernel choice). Caches nothing.

    Raises:
        RuntimeError: the model cannot be loaded (see :func:`sentence_model`).
    """
    _encode([EMBED_TEMPLATE.format("dog"), EMBED_TEMPLATE.format("cat")])


# ------------------------------------------------------------------------------ word cache

#: Word -> unit embedding, filled by :func:`embedding`, :func:`cosine` and
#: :func:`prefetch_embeddings` (from the embedding table or by encoding). A word keeps
#: the first vector found for it. Cleared when it reaches this many words.
MAX_CACHED_EMBEDDINGS = 200_000
_VECTORS: dict[str, np.ndarray] = {}


def _store(word: str, raw) -> np.ndarray:
    if len(_VECTORS) >= MAX_CACHED_EMBEDDINGS:
        _VECTORS.clear()
    vec = np.array(raw, dtype=np.float32)  # a copy: table rows are memory-mapped
    vec.setflags(write=False)
    return _VECTORS.setdefault(word, vec)


def _known(word: str) -> np.ndarray | None:
    """The cached or tabled embedding of ``word``, or ``None`` when it must be encoded."""
    vec = _VECTORS.get(word)
    if vec is not None:
        return vec
    table = embedding_table()
    if table is not None:
        row = table.get(word)
        if row is not None:
            return _store(word, row)
    return None


def embedding(word: str) -> np.ndarray:
    """Unit-length MiniLM embedding of ``word`` in :data:`EMBED_TEMPLATE`: float32 [384].

    Looked up in this process's cache, then in the embedding table
    (:func:`embedding_table`); encoded (one forward pass, ~10-25 ms on one CPU thread)
    only when in neither.

    Raises:
        RuntimeError: the word must be encoded and the model cannot be loaded.
    """
    vec = _known(word)
    if vec is not None:
        return vec
    return _store(word, _encode([EMBED_TEMPLATE.format(word)])[0])


def prefetch_embeddings(words: Sequence[str], batch_size: int = 256) -> None:
    """Embed the ``words`` found neither in the cache nor in the embedding table, in
    batches of ``batch_size``, into :func:`embedding`'s cache.

    A speed-up for batch judging and fitting; results equal :func:`embedding`'s within
    float32 rounding (about 3e-7 per component, measured).
    """
    todo = sorted({w for w in words if w and _known(w) is None})
    if not todo:
        return
    vecs = _encode([EMBED_TEMPLATE.format(w) for w in todo], batch_size=batch_size)
    for w, v in zip(todo, vecs, strict=True):
        _store(w, v)


def cosine(a: str, b: str) -> float:
    """Cosine similarity (-1..1) of the MiniLM embeddings of two words.

    Words in the cache or the embedding table cost a lookup; when both must be encoded
    they go through one call (one forward pass of a batch of two costs about 60 % of two
    single passes on this CPU).

    Raises:
        RuntimeError: a word must be encoded and the model cannot be loaded.
    """
    va, vb = _known(a), _known(b)
    if va is None and vb is None and a != b:
        raw = _encode([EMBED_TEMPLATE.format(a), EMBED_TEMPLATE.format(b)])
        va, vb = _store(a, raw[0]), _store(b, raw[1])
    va = va if va is not None else embedding(a)
    vb = vb if vb is not None else embedding(b)
    return float(np.dot(va, vb))


# -------------------------------------------------------------------------- embedding table

#: Size of wordfreq's English top list the default embedding table is drawn from. Of
#: the top 50,000, 47,994 are alphabetic and their own normalised form; they reach down
#: to a Zipf frequency of 2.55 (the 50,000th word, "impertinent": about 350 times per
#: billion words). The table takes 74 MB on disk and 45-190 s to build on 2 cores
#: (measured on a quiet and on a busy machine).
TABLE_TOP_N = 50_000

#: Version of the table's file layout; part of the key, so a layout change rebuilds.
TABLE_FORMAT = 1

#: Files of the model folder hashed into the table key besides the weights (tokenizer,
#: configuration, pooling): small text files, read in full.
_SMALL_MODEL_FILE_BYTES = 4 << 20

#: Guards the table in use (held briefly: swaps and the one-time lookup in the cache).
_TABLE_LOCK = threading.Lock()
#: One table load or build at a time (held for a whole build, never by lookups).
_BUILD_LOCK = threading.Lock()
_TABLE: EmbeddingTable | None = None
_TABLE_LOOKED_UP = False
_WARNED: set[str] = set()


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


def _warn_once(kind: str, message: str) -> None:
    """Warn (``RuntimeWarning``) once per process per ``kind``."""
    if kind not in _WARNED:
        _WARNED.add(kind)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def build_table(words: Sequence[str], batch_size: int = 128) -> EmbeddingTable:
    """Encode ``words`` (in :data:`EMBED_TEMPLATE`, batches of ``batch_size``) into an
    in-memory :class:`EmbeddingTable`, batching texts of equal token count together.
    About 1-4 ms per word on 2 cores, depending on other load (measured: 1,000 words
    in 1.1-1.7 s; 47,994 words in 191 s on a busy machine). The encode lock is taken
    per batch, so a build in a background thread delays another thread's encode by one
    batch at most.

    Rows equal :func:`embedding`'s one-word encodes within float32 rounding (measured:
    at most 2.6e-7 per component over 200 words): padding in a batch is masked out of
    attention and of the mean pooling.

    Raises:
        ValueError: ``words`` repeats a word.
        RuntimeError: the model cannot be loaded.
    """
    words = list(words)
    model = sentence_model() if words else None  # loading is not part of the build time
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
    for i in range(0, len(order), batch_size):
        if _STOP_BUILDS.is_set():
            raise BuildStopped("the embedding table build was stopped (the process is exiting)")
        rows = order[i : i + batch_size]
        vectors[rows] = _encode([texts[j] for j in rows], batch_size=batch_size)
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


def _write_table(table: EmbeddingTable, folder: Path, model_key: str, identity: dict) -> Path:
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


def load_embedding_table(
    top_n: int = TABLE_TOP_N,
    *,
    build: bool = False,
    rebuild: bool = False,
    words: Sequence[str] | None = None,
    report: Callable[[str], None] | None = None,
) -> EmbeddingTable | None:
    """Load the embedding table of ``words`` (default :func:`table_words` of ``top_n``)
    from kiekai's cache, building and saving it when missing or stale if ``build``, and
    make it the table :func:`embedding` and :func:`cosine` look words up in.

    The file name and its ``.json`` record carry a key made of :func:`model_identity`
    and the SHA-256 of the word list, so a table built for other weights, another
    template, other library versions or other words is never used; tables of other
    models are deleted when a new one is saved.

    Thread-safe: one load or build runs at a time, and lookups (:func:`embedding`)
    never wait for a build. Never fails for cache problems: a cache folder that cannot be
    written gives one
    ``RuntimeWarning`` per process and ``None`` (words are then encoded on the fly, as
    without a table) and nothing is built; a write that fails after the build keeps the
    built table for this process only.

    Args:
        top_n: size of wordfreq's top list the default words come from.
        build: build the table when it is not in the cache (about a minute for the
            default words on 2 cores); otherwise return ``None`` then.
        rebuild: build it even when the cache holds it (benchmarks time the build).
        words: an explicit word list instead of :func:`table_words` (tests use a few
            words).
        report: called with one line before and one after a build (e.g. ``print``).

    Returns:
        The table now in use, or ``None`` when there is none (not built, or no cache).

    Raises:
        RuntimeError: the model cannot be found or loaded (only when a build is needed
            or the model's identity cannot be read).
    """
    global _TABLE, _TABLE_LOOKED_UP
    word_list = list(words) if words is not None else table_words(top_n)
    identity = model_identity()
    model_key = _digest(identity)
    stem = _stem(model_key, word_list)
    with _BUILD_LOCK:
        current = _TABLE
        if current is not None and current.key == stem and not rebuild:
            return current
        try:
            folder = _table_folder()
        except RuntimeError as exc:  # ModelUnavailable: the cache folder cannot be created
            _warn_once("cache", f"no embedding table: {exc}; words are encoded on the fly")
            return None
        table = None if rebuild else _read_table(folder / f"{stem}.json", model_key)
        if table is None and (build or rebuild):
            try:  # can the folder be written at all? Better to know before a minute's work
                handle, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
                os.close(handle)
                os.unlink(probe)
            except OSError as exc:
                _warn_once(
                    "cache",
                    f"kiekai's cache folder {folder} cannot be written ({exc}), so the "
                    "embedding table is not built and words are encoded on the fly (slower "
                    "for new words); set KIEKAI_CACHE_DIR to a writable folder",
                )
                return None
            if report:
                report(
                    f"building the embedding table of {len(word_list):,} common English words "
                    f"(all-MiniLM-L6-v2, once per model) in {folder} ..."
                )
            table = build_table(word_list)
            table.key = stem
            try:
                meta_path = _write_table(table, folder, model_key, identity)
            except OSError as exc:
                _warn_once(
                    "cache",
                    f"the embedding table could not be saved in {folder} ({exc}); it is used "
                    "by this process only and built again next time",
                )
            else:
                _remove_stale_tables(folder, model_key)
                table.path = meta_path.with_suffix(".npy")
            if report:
                report(
                    f"embedding table built: {len(table):,} words in {table.build_s:.1f} s"
                    + (f", saved as {table.path}" if table.path else "")
                )
        if table is not None:
            with _TABLE_LOCK:
                _TABLE, _TABLE_LOOKED_UP = table, True
        return table


class BuildStopped(RuntimeError):
    """An embedding-table build was stopped by :func:`stop_background_builds`."""


#: Set by :func:`stop_background_builds`; :func:`build_table` checks it between batches.
_STOP_BUILDS = threading.Event()


def stop_background_builds(thread: threading.Thread | None, timeout_s: float = 30.0) -> None:
    """Stop a build started by :func:`build_embedding_table_in_background` and wait for
    its thread (at most ``timeout_s`` seconds; it stops after its current batch of
    words, a second or two). Servers call this on shutdown: a daemon thread still
    inside torch when the interpreter exits aborts the process ("terminate called
    without an active exception", exit status 134). Nothing is saved from a stopped
    build; the next server start builds the table again."""
    if thread is None or not thread.is_alive():
        return
    _STOP_BUILDS.set()
    thread.join(timeout_s)


def build_embedding_table_in_background(
    top_n: int = TABLE_TOP_N, report: Callable[[str], None] | None = None
) -> threading.Thread | None:
    """Use the embedding table of ``top_n`` words from the cache when it is there;
    otherwise build it in a daemon thread (about a minute on 2 quiet cores, longer on a
    busy machine) that puts it in use when done, while words are encoded on the fly.
    For servers, which can answer during the build.

    Returns:
        The started thread, or ``None`` when the table was read from the cache.

    Raises:
        RuntimeError: the model cannot be found (reading its identity).
    """
    if load_embedding_table(top_n, build=False) is not None:
        return None

    def build() -> None:
        try:
            load_embedding_table(top_n, build=True, report=report)
        except BuildStopped:
            if report:
                report("embedding table build stopped; it starts again with the next server")
        except Exception as exc:  # noqa: BLE001 - a failed build only costs speed
            _warn_once("build", f"the embedding table could not be built ({exc})")

    thread = threading.Thread(target=build, name="kiekai-embedding-table", daemon=True)
    thread.start()
    return thread


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


def embedding_table() -> EmbeddingTable | None:
    """The embedding table in use in this process, or ``None``.

    The first call without a table loaded looks for one in the cache
    (:func:`find_embedding_table`, which never builds); later calls return the result.
    """
    global _TABLE, _TABLE_LOOKED_UP
    if _TABLE_LOOKED_UP:
        return _TABLE
    with _TABLE_LOCK:
        if not _TABLE_LOOKED_UP:
            _TABLE = find_embedding_table()
            _TABLE_LOOKED_UP = True
    return _TABLE


def use_embedding_table(table: EmbeddingTable | None) -> None:
    """Make ``table`` the one in use (``None``: no table, and no looking in the cache)
    and empty the per-word embedding cache, so every word is looked up afresh. For
    tests and benchmarks; the judge's per-pair caches are not touched."""
    global _TABLE, _TABLE_LOOKED_UP
    with _TABLE_LOCK:
        _TABLE, _TABLE_LOOKED_UP = table, True
        _VECTORS.clear()


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in English from ``wordfreq`` (0 = unseen, ~7 = "the")."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))
