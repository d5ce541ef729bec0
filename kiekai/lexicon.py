"""The candidate vocabulary (the words Kiek players write), word frequencies and WordNet helpers.

The vocabulary (``data/vocabulary.tsv``, made by ``scripts/build_vocabulary.py`` and described
in ``data/README.md``) is the list of words the bots may write or guess, of six *kinds*
(:data:`KINDS`): everyday categories (``dog``, ``food``, ``vehicle``), colours (``black``),
light (``dark``), materials (``wooden``), settings (``water``, ``outdoors``) and qualities
(``furry``, ``wheels``). Each row gives the word, its group, the WordNet 3.0 noun synsets it
denotes or is grounded in (``dog`` -> ``dog.n.01``; ``wheels`` -> ``wheeled_vehicle.n.01``;
empty for words only a pixel or CLIP perception can read, such as ``black`` or ``striped``),
its kind, its concreteness (Brysbaert et al. 2014) and the WordNet senses a reader may
*misread* it in. Word frequencies are wordfreq Zipf values (log10 of occurrences per billion
words; Speer et al., *wordfreq*), computed when the vocabulary loads.

WordNet is read through :func:`kiekai.judge.resources.wordnet`: the reader of the
:class:`~kiekai.judge.resources.Resources` in force (the judge's, a command's), the same
one the judge reads, so a game opens WordNet once.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kiekai import paths

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

    from kiekai.judge.protocol import WordNetLike

#: kiekai's data folder: the repository's ``data/`` or the installed copy (:mod:`kiekai.paths`).
DATA_DIR = paths.data_dir()
VOCABULARY_PATH = paths.data_file("vocabulary.tsv")

#: The kinds of word (column ``kind``): what the word says about a photo.
KINDS = ("category", "colour", "light", "material", "setting", "quality")

#: Number of noun synsets in WordNet 3.0 (the normaliser of intrinsic information content).
WORDNET_NOUN_SYNSETS = 82115


class VocabularyError(ValueError):
    """The vocabulary file is missing or malformed (the message names the file and line)."""


def _wn() -> WordNetLike:
    from kiekai.judge.resources import wordnet

    return wordnet()


# ---------------------------------------------------------------------------------------------
# WordNet helpers
# ---------------------------------------------------------------------------------------------


def synset_for_wnid(wnid: str) -> Synset:
    """Return the WordNet 3.0 noun synset of an ImageNet id such as ``"n01440764"``.

    Raises:
        ValueError: ``wnid`` is not ``n`` followed by 8 digits, or no synset has that offset
            (e.g. an id from another WordNet version).
    """
    text = (wnid or "").strip()
    if len(text) != 9 or text[0] != "n" or not text[1:].isdigit():
        raise ValueError(f"bad WordNet id {wnid!r}: expected 'n' and 8 digits, e.g. n01440764")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # nltk warns, then returns None
            synset = _wn().synset_from_pos_and_offset("n", int(text[1:]))
    except Exception as exc:  # older nltk raises WordNetError for unknown offsets
        raise ValueError(f"no WordNet 3.0 noun synset has the id {wnid!r} ({exc})") from None
    if synset is None:
        raise ValueError(
            f"no WordNet 3.0 noun synset has the id {wnid!r}; check labels.csv "
            "(ImageNet wnids are WordNet 3.0 noun offsets)"
        )
    return synset


def synset_for_label(label: str) -> Synset | None:
    """Map a free-text label (``"golden retriever"``, ``"Dogs"``) to its most frequent noun synset.

    Tries the whole label as a WordNet compound (spaces -> underscores, NLTK's morphy strips
    plurals), then its last word (the head noun of an English compound). Returns ``None`` when
    WordNet knows neither.
    """
    text = " ".join((label or "").replace("_", " ").replace("-", " ").split()).lower()
    if not text:
        return None
    wn = _wn()
    for candidate in (text.replace(" ", "_"), text.split()[-1]):
        synsets = wn.synsets(candidate, "n")
        if synsets:
            return synsets[0]
    return None


@functools.lru_cache(maxsize=65536)
def hypernym_closure(synset: Synset) -> frozenset[Synset]:
    """The synset itself and all its ancestors through hypernyms and instance hypernyms.

    (Instance hypernyms matter for named things: ``eiffel_tower.n.01`` is an instance of
    ``tower.n.01``.) Cached per synset.
    """
    closure = set(synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms()))
    closure.add(synset)
    return frozenset(closure)


@functools.lru_cache(maxsize=65536)
def descendant_count(synset: Synset) -> int:
    """Number of distinct synsets below ``synset`` (hyponyms and instance hyponyms, transitive)."""
    return sum(1 for _ in synset.closure(lambda s: s.hyponyms() + s.instance_hyponyms()))


def depth(synset: Synset) -> int:
    """Length of the longest hypernym path from ``synset`` up to ``entity.n.01`` (0 for entity)."""
    return int(synset.max_depth())


def intrinsic_ic(synsets: Iterable[Synset]) -> float:
    """Intrinsic information content of a category, in [0, 1] (1 = a leaf, 0 = ``entity``).

    Seco, Veale & Hayes (2004), "An intrinsic information content metric for semantic
    similarity in WordNet": IC = 1 - log(1 + hypo) / log(N), where ``hypo`` counts the
    synsets below the category (summed over its synsets) and N is the number of noun synsets.
    The more things a word covers, the less specific it is. Returns 0.5 for no synsets.
    """
    items = list(synsets)
    if not items:
        return 0.5
    hypo = sum(descendant_count(s) for s in items) + len(items) - 1
    return 1.0 - math.log1p(hypo) / math.log(WORDNET_NOUN_SYNSETS)


# ---------------------------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    """The candidate category words and what they denote.

    Attributes:
        words: the words, lower case, unique.
        groups: the group of each word (``animal``, ``food``, ``object``, ``colour`` ...).
        synsets: per word, the names of the WordNet 3.0 noun synsets it denotes (may be empty).
        zipf: float32 array of shape (V,): wordfreq Zipf frequency of each word in English
            (about 1 = one per billion words, 7 = "the").
        kinds: the kind of each word (:data:`KINDS`); default ``category`` for a word with
            synsets, ``quality`` for one without.
        concreteness: float32 array (V,): Brysbaert et al. (2014) concreteness, 1 (abstract)
            to 5 (concrete); NaN where unrated (default all NaN).
        misread: per word, WordNet noun synset names a reader may take the word in that it
            is not declared to mean but that name photographable things (default none).
    """

    words: tuple[str, ...]
    groups: tuple[str, ...]
    synsets: tuple[tuple[str, ...], ...]
    zipf: np.ndarray
    kinds: tuple[str, ...] = ()
    # None (the default) is replaced by all NaN in __post_init__, so readers get an array
    concreteness: np.ndarray = None  # type: ignore[assignment]
    misread: tuple[tuple[str, ...], ...] = ()
    _index: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    _derived: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not (len(self.words) == len(self.groups) == len(self.synsets) == len(self.zipf)):
            raise VocabularyError("words, groups, synsets and zipf must have the same length")
        if not self.kinds:
            default = tuple("category" if names else "quality" for names in self.synsets)
            object.__setattr__(self, "kinds", default)
        if self.concreteness is None:
            object.__setattr__(self, "concreteness", np.full(len(self.words), np.nan, np.float32))
        if not self.misread:
            object.__setattr__(self, "misread", tuple(() for _ in self.words))
        if not (len(self.kinds) == len(self.concreteness) == len(self.misread) == len(self.words)):
            raise VocabularyError("kinds, concreteness and misread must have one entry per word")
        unknown = sorted(set(self.kinds) - set(KINDS))
        if unknown:
            raise VocabularyError(f"unknown kind(s) {unknown}; use one of {', '.join(KINDS)}")
        self._index.clear()
        for i, word in enumerate(self.words):
            if word in self._index:
                raise VocabularyError(f"duplicate word {word!r} in the vocabulary")
            self._index[word] = i

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[str]:
        """Iterate the words in order."""
        return iter(self.words)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self._index

    def index(self, word: str) -> int:
        """Position of ``word`` (case-insensitive). Raises ``KeyError`` when absent."""
        return self._index[word.lower()]

    def synset_objects(self, word: str) -> list[Synset]:
        """The nltk ``Synset`` objects of ``word`` (empty for words without a noun category)."""
        wn = _wn()
        return [wn.synset(name) for name in self.synsets[self.index(word)]]

    @functools.cached_property
    def specificity(self) -> np.ndarray:
        """float32 array (V,): intrinsic information content of each word's synsets, in [0, 1]
        (see :func:`intrinsic_ic`; 0.5 for words without synsets).

        Computing it walks WordNet below every word (seconds), so it is computed once per
        vocabulary object and kept on disk in ``<kiekai cache>/embeddings/`` keyed by the
        SHA-256 of the words and synsets (:func:`_specificity_cached`)."""
        return _specificity_cached(self.words, self.synsets)

    def subset(self, keep: Sequence[bool] | np.ndarray) -> Vocabulary:
        """A new vocabulary with the words where ``keep`` (bool, shape (V,)) is true."""
        mask = np.asarray(keep, dtype=bool)
        if mask.shape != (len(self),):
            raise ValueError(f"keep mask has shape {mask.shape}, expected ({len(self)},)")
        idx = np.flatnonzero(mask)
        out = Vocabulary(
            words=tuple(self.words[i] for i in idx),
            groups=tuple(self.groups[i] for i in idx),
            synsets=tuple(self.synsets[i] for i in idx),
            zipf=self.zipf[idx].astype(np.float32),
            kinds=tuple(self.kinds[i] for i in idx),
            concreteness=self.concreteness[idx].astype(np.float32),
            misread=tuple(self.misread[i] for i in idx),
        )
        if "specificity" in self.__dict__:  # computed once per process, sliced for subsets
            out.__dict__["specificity"] = self.specificity[idx]
        return out

    def merged(self, other: Vocabulary) -> Vocabulary:
        """This vocabulary followed by the words of ``other`` that it lacks."""
        extra = [i for i, word in enumerate(other.words) if word not in self]
        return Vocabulary(
            words=self.words + tuple(other.words[i] for i in extra),
            groups=self.groups + tuple(other.groups[i] for i in extra),
            synsets=self.synsets + tuple(other.synsets[i] for i in extra),
            zipf=np.concatenate([self.zipf, other.zipf[extra]]).astype(np.float32),
            kinds=self.kinds + tuple(other.kinds[i] for i in extra),
            concreteness=np.concatenate([self.concreteness, other.concreteness[extra]]).astype(
                np.float32
            ),
            misread=self.misread + tuple(other.misread[i] for i in extra),
        )

    def common(self, min_zipf: float) -> Vocabulary:
        """The words with a Zipf frequency of at least ``min_zipf`` (for easier bot levels).

        Cached on this vocabulary: every bot of a level shares one subset (and so its
        specificity and sense index)."""
        key = ("common", float(min_zipf))
        if key not in self._derived:
            self._derived[key] = self.subset(self.zipf >= min_zipf)
        return self._derived[key]


def _specificity_cached(words: tuple[str, ...], synsets: tuple[tuple[str, ...], ...]) -> np.ndarray:
    """:attr:`Vocabulary.specificity` of these words, read from the on-disk cache when a
    file for exactly these words and synsets exists, else computed and written (atomically;
    a cache that cannot be read or written only costs time)."""
    import hashlib
    import os
    import tempfile

    digest = hashlib.sha256(
        "\n".join(f"{w}\t{';'.join(n)}" for w, n in zip(words, synsets, strict=True)).encode()
    ).hexdigest()[:20]
    path: Path | None = None
    try:
        from kiekai.models import cache_dir

        path = cache_dir() / "embeddings" / f"specificity-wn30-{digest}.npy"
        if path.is_file():
            values = np.load(path, allow_pickle=False)
            if values.shape == (len(words),):
                return values.astype(np.float32)
    except Exception:  # a missing or corrupt cache is recomputed
        pass
    wn = _wn()
    values = np.asarray(
        [intrinsic_ic(wn.synset(n) for n in names) for names in synsets], dtype=np.float32
    )
    if path is not None:
        try:
            handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".npy")
            with os.fdopen(handle, "wb") as out:
                np.save(out, values)
            os.replace(temp, path)
        except OSError:
            pass
    return values


def load_vocabulary(path: str | Path | None = None) -> Vocabulary:
    """Read a vocabulary TSV (default ``data/vocabulary.tsv``).

    Columns, by the header line: ``word``, ``group``, ``synsets`` (required, in this order),
    then optionally ``kind`` (:data:`KINDS`), ``concreteness`` (a number, or empty) and
    ``misread`` (synset names). ``synsets`` and ``misread`` are ``;``-separated WordNet noun
    synset names (``dog.n.01``), possibly empty. Zipf frequencies come from
    ``wordfreq.zipf_frequency(word, "en")``. Cached per path.

    Raises:
        VocabularyError: the file is missing, lacks the header, has a row with the wrong
            number of cells, a duplicate word, an unknown kind, a bad number or a malformed
            synset name (the message names the file and line).
    """
    resolved = Path(path) if path is not None else VOCABULARY_PATH
    return _load_vocabulary(str(resolved.resolve()))


@functools.lru_cache(maxsize=2)
def all_categories() -> Vocabulary:
    """The vocabulary the labels perception indexes by default: :func:`load_vocabulary`.

    (The broad WordNet categories, some 13,000 words such as ``vertebrate`` and
    ``instrumentality``, are not in it: the bots do not write such words.)"""
    return load_vocabulary()


_OPTIONAL_COLUMNS = ("kind", "concreteness", "misread")


def _synset_names(cell: str, file: Path, number: int) -> tuple[str, ...]:
    names = tuple(n.strip() for n in cell.split(";") if n.strip())
    for name in names:
        parts = name.rsplit(".", 2)
        if len(parts) != 3 or parts[1] != "n" or not parts[2].isdigit():
            raise VocabularyError(
                f"{file}:{number}: {name!r} is not a noun synset name like 'dog.n.01'"
            )
    return names


def zipf_frequencies(words: Sequence[str]) -> np.ndarray:
    """wordfreq's Zipf frequency of each word in English: float32 (len(words),).

    Kept on disk (:class:`kiekai.perception.cache.EmbeddingCache`, keyed by the words and
    wordfreq's version), since wordfreq's table costs 1-1.5 s to load and look 1,500 words
    up in on 2 cores, before a game's first prompt (docs/benchmarks.md); the values are
    the same either way.
    """
    from importlib.metadata import PackageNotFoundError, version

    from kiekai.perception.cache import EmbeddingCache, text_key

    try:
        namespace = f"zipf-en|wordfreq {version('wordfreq')}|n{len(words)}"
    except PackageNotFoundError:  # pragma: no cover - a dependency
        namespace = None
    cache = EmbeddingCache(namespace, dim=len(words)) if namespace and words else None
    key = text_key("\n".join(words))
    stored = cache.get(key) if cache is not None else None
    if stored is not None:
        return stored
    from wordfreq import zipf_frequency

    zipf = np.asarray([zipf_frequency(w, "en") for w in words], dtype=np.float32)
    if cache is not None:
        cache.put(key, zipf)
    return zipf


@functools.lru_cache(maxsize=8)
def _load_vocabulary(path: str) -> Vocabulary:
    file = Path(path)
    if not file.is_file():
        if file == VOCABULARY_PATH.resolve():
            raise VocabularyError(
                paths.missing_file_message(
                    file, "vocabulary file", remake="python scripts/build_vocabulary.py"
                )
            )
        raise VocabularyError(
            f"vocabulary file {file} is missing; check the path or pass the path of a "
            "word,group,synsets TSV"
        )
    words: list[str] = []
    groups: list[str] = []
    synsets: list[tuple[str, ...]] = []
    kinds: list[str] = []
    concreteness: list[float] = []
    misread: list[tuple[str, ...]] = []
    seen: set[str] = set()
    with file.open(encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        if header[:3] != ["word", "group", "synsets"]:
            raise VocabularyError(
                f"{file}:1: expected the header 'word<TAB>group<TAB>synsets', got {header!r}"
            )
        extra = header[3:]
        unknown = [c for c in extra if c not in _OPTIONAL_COLUMNS]
        if unknown:
            raise VocabularyError(
                f"{file}:1: unknown column(s) {unknown}; optional columns are "
                f"{', '.join(_OPTIONAL_COLUMNS)}"
            )
        for number, line in enumerate(handle, start=2):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != len(header):
                raise VocabularyError(
                    f"{file}:{number}: expected {len(header)} tab-separated cells, got {len(cells)}"
                )
            word = cells[0].strip().lower()
            if not word or word in seen:
                raise VocabularyError(f"{file}:{number}: empty or duplicate word {cells[0]!r}")
            names = _synset_names(cells[2], file, number)
            row = dict(zip(extra, cells[3:], strict=True))
            kind = row.get("kind", "").strip() or ("category" if names else "quality")
            if kind not in KINDS:
                raise VocabularyError(
                    f"{file}:{number}: unknown kind {kind!r}; use one of {', '.join(KINDS)}"
                )
            try:
                rating = (
                    float(row["concreteness"]) if row.get("concreteness", "").strip() else math.nan
                )
            except ValueError:
                raise VocabularyError(
                    f"{file}:{number}: concreteness {row['concreteness']!r} is not a number"
                ) from None
            seen.add(word)
            words.append(word)
            groups.append(cells[1].strip())
            synsets.append(names)
            kinds.append(kind)
            concreteness.append(rating)
            misread.append(_synset_names(row.get("misread", ""), file, number))
    zipf = zipf_frequencies(words)
    return Vocabulary(
        tuple(words),
        tuple(groups),
        tuple(synsets),
        zipf,
        kinds=tuple(kinds),
        concreteness=np.asarray(concreteness, dtype=np.float32),
        misread=tuple(misread),
    )


def as_vocabulary(words: Vocabulary | Iterable[str] | None) -> Vocabulary:
    """Return ``words`` as a :class:`Vocabulary`.

    ``None`` gives the default vocabulary; a :class:`Vocabulary` is returned as is; a list of
    words keeps, for each word listed in the default vocabulary, its group and synsets there,
    and gives other words the group ``"other"`` and no synsets (perceptions then use the
    word's usual WordNet senses). Duplicates (case-insensitive) are dropped, first kept.

    Raises:
        VocabularyError: the list is empty.
    """
    if words is None:
        return load_vocabulary()
    if isinstance(words, Vocabulary):
        return words
    base = load_vocabulary()
    chosen: list[str] = []
    seen: set[str] = set()
    for word in words:
        key = str(word).strip().lower()
        if key and key not in seen:
            seen.add(key)
            chosen.append(key)
    if not chosen:
        raise VocabularyError("the word list is empty: give at least one candidate word")
    if chosen == list(base.words):
        return base
    return _from_words(tuple(chosen))


@functools.lru_cache(maxsize=16)
def _from_words(words: tuple[str, ...]) -> Vocabulary:
    from wordfreq import zipf_frequency

    base = load_vocabulary()
    rows = [base.index(word) if word in base else -1 for word in words]
    known = [i for i in rows if i >= 0]
    if len(known) == len(rows):
        return _reordered(base, rows)
    groups, synsets, zipf, kinds, concrete, misread = [], [], [], [], [], []
    for word, i in zip(words, rows, strict=True):
        if i >= 0:
            groups.append(base.groups[i])
            synsets.append(base.synsets[i])
            zipf.append(float(base.zipf[i]))
            kinds.append(base.kinds[i])
            concrete.append(float(base.concreteness[i]))
            misread.append(base.misread[i])
        else:
            groups.append("other")
            synsets.append(())
            zipf.append(zipf_frequency(word, "en"))
            kinds.append("category" if wordnet_noun_senses(word) else "quality")
            concrete.append(math.nan)
            misread.append(())
    return Vocabulary(
        words,
        tuple(groups),
        tuple(synsets),
        np.asarray(zipf, dtype=np.float32),
        kinds=tuple(kinds),
        concreteness=np.asarray(concrete, dtype=np.float32),
        misread=tuple(misread),
    )


def _reordered(base: Vocabulary, rows: Sequence[int]) -> Vocabulary:
    """The words of ``base`` at positions ``rows``, in that order."""
    idx = np.asarray(rows, dtype=np.intp)
    return Vocabulary(
        tuple(base.words[i] for i in idx),
        tuple(base.groups[i] for i in idx),
        tuple(base.synsets[i] for i in idx),
        base.zipf[idx].astype(np.float32),
        kinds=tuple(base.kinds[i] for i in idx),
        concreteness=base.concreteness[idx].astype(np.float32),
        misread=tuple(base.misread[i] for i in idx),
    )


# ---------------------------------------------------------------------------------------------
# Checkable truth: which senses of a word WordNet can confirm
# ---------------------------------------------------------------------------------------------


def _key_variants(word: str) -> list[str]:
    """WordNet lookup forms of ``word``: spaces to underscores (compounds), hyphens to
    underscores, hyphens dropped (``t-shirt`` -> ``tshirt``)."""
    key = " ".join((word or "").strip().lower().split())
    if not key:
        return []
    return list(
        dict.fromkeys(
            [key.replace(" ", "_"), key.replace(" ", "_").replace("-", "_"), key.replace("-", "")]
        )
    )


@functools.lru_cache(maxsize=65536)
def wordnet_noun_senses(word: str) -> tuple[Synset, ...]:
    """Every WordNet 3.0 noun synset of ``word`` (any case; compounds with spaces or hyphens;
    inflections through WordNet's morphy), in WordNet's sense order; empty when none.

    This is the reading of a word by which a photo's WordNet labels can confirm it."""
    wn = _wn()
    found: list[Synset] = []
    for variant in _key_variants(word):
        for synset in wn.synsets(variant, pos="n"):
            if synset not in found:
                found.append(synset)
    return tuple(found)


@functools.lru_cache(maxsize=65536)
def mainly_adjective(word: str) -> bool:
    """Whether ``word`` is used more as an adjective than as a noun, by WordNet's sense-tagged
    corpus counts (``Lemma.count()``, SemCor; *red* 58 adjective to 17 noun, *natural* 43 to
    0, *dog* 0 to 42). Such a word names a quality (a colour, *wooden*), which a photo's noun
    synset does not record, so WordNet cannot confirm it. False without counts."""
    wn = _wn()
    key = "_".join((word or "").strip().lower().split())

    def count(pos: str) -> int:
        return sum(
            lemma.count()
            for synset in wn.synsets(key, pos=pos)
            for lemma in synset.lemmas()
            if lemma.name().lower() == key
        )

    return bool(key) and count("a") > count("n")


@functools.lru_cache(maxsize=131072)
def checkable_senses(word: str, declared: tuple[str, ...]) -> frozenset[str]:
    """The senses (synset names) in which a photo's WordNet synset can confirm ``word``.

    Those of the ``declared`` synsets (the vocabulary's everyday senses of the word) that are
    also WordNet noun senses of the word itself (:func:`wordnet_noun_senses`): ``dog`` ->
    ``{dog.n.01}``; ``sports`` declared as ``sports_equipment.n.01`` -> empty (WordNet does
    not give *sports* that sense, so only a perception can say it holds). Empty for words
    that are mainly adjectives (:func:`mainly_adjective`) or have no noun sense.
    """
    if not declared or mainly_adjective(word):
        return frozenset()
    own = {s.name() for s in wordnet_noun_senses(word)}
    return frozenset(n for n in declared if n in own)


def all_senses(word: str, declared: Sequence[str] = ()) -> tuple[Synset, ...]:
    """Every sense a reader may take ``word`` in: its WordNet noun senses
    (:func:`wordnet_noun_senses`) and the ``declared`` vocabulary synsets (names). Used to
    make sure a word is *certainly false* of a photo: none of these senses is the photo's
    synset, one of its hypernyms or one of its hyponyms."""
    return _all_senses(word, tuple(declared))


@functools.lru_cache(maxsize=65536)
def _all_senses(word: str, declared: tuple[str, ...]) -> tuple[Synset, ...]:
    wn = _wn()
    senses = list(wordnet_noun_senses(word))
    for name in declared:
        synset = wn.synset(name)
        if synset not in senses:
            senses.append(synset)
    return tuple(senses)


def sense_index(vocabulary: Vocabulary) -> dict[str, tuple[int, ...]]:
    """Map: declared synset name -> positions of the words of ``vocabulary`` that declare it.

    Built from the file's strings alone (no WordNet), once per vocabulary object (kept
    with the vocabulary's other derived data).
    """
    hit: dict[str, tuple[int, ...]] | None = vocabulary._derived.get("sense_index")
    if hit is not None:
        return hit
    index: dict[str, list[int]] = {}
    for v, names in enumerate(vocabulary.synsets):
        for name in names:
            index.setdefault(name, []).append(v)
    frozen = {k: tuple(v) for k, v in index.items()}
    vocabulary._derived["sense_index"] = frozen
    return frozen
