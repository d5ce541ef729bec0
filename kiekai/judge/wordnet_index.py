"""A compact, read-only index of WordNet 3.0 for the judge: NLTK's reader without its load.

NLTK's ``WordNetCorpusReader`` reads every index file of WordNet when it is created (about
4-8 s and 150 MB on 2 cores, before the first word is looked up), which made one verdict
from the command line take seconds. This module keeps the facts the judge reads in one
SQLite file in kiekai's cache, built once from NLTK's reader, and answers from it on demand:
opening it, with the check of its key, takes tens of milliseconds, and a synset 35 µs on
first use (110 µs with its lemmas and pointers; measured at a load average of 11 on 2
cores).

:class:`WordNetIndex` is a drop-in for the part of NLTK's reader the judge calls
(``synsets``, ``_morphy``, ``morphy``, ``lemmas``, ``synset``, ``all_synsets``, ``open``
for ``cntlist.rev`` and ``lexnames``, ``get_version``), and its :class:`Synset` and
:class:`Lemma` for the part of NLTK's ``Synset``/``Lemma`` (names, parts of speech,
definitions, examples, lexicographer files, sense keys and SemCor counts, every pointer
relation, ``min_depth``/``max_depth``, ``closure``, hypernym paths, lowest common
hypernyms). Results equal NLTK's, in NLTK's order (``tests/test_wordnet_index.py``
compares them word by word); objects compare and hash like NLTK's (by name), so the two
can be mixed in sets. Both readers are :class:`kiekai.judge.protocol.WordNetLike`. An
attribute the index does not have raises ``AttributeError`` (naming NLTK's reader as the
way to get it) instead of loading NLTK's reader behind the caller's back, so a process
that reads WordNet through the index never holds NLTK's reader too. Only the arguments
that ask for NLTK explicitly (another ``lang``, ``simulate_root=True``) are passed to
NLTK's reader, counted in :attr:`WordNetIndex.fallbacks`.

What is stored (WordNet 3.0: 117,659 synsets, 147,306 lemma forms, about 40 MB):

- ``synset``: id, name, part of speech, offset, lexicographer file, min/max depth,
  definition, examples, lemmas (name, sense key, SemCor count, syntactic marker), synset
  pointers by symbol, lemma pointers by lemma name and symbol;
- ``form``: for each lemma form of the index files, the synset ids per part of speech
  (``s`` for satellites as NLTK lists them) and the morphological exceptions
  (``noun.exc`` etc.) in which the form is the inflected word;
- ``meta``: format, source identity, NLTK's morphological substitution rules, the
  WordNet version, and the text of ``cntlist.rev`` and ``lexnames``;
- ``lemminflect``: lemminflect's lemma lookup table (Jascoll 2019; 69,980 words), which
  the judge's lemmatiser reads and lemminflect itself loads from a gzipped file in
  0.2-0.4 s (:meth:`WordNetIndex.install_lemminflect` hands it to lemminflect).

The file is named by a key of what it was built from (:func:`source_identity`: the
WordNet files' names, sizes and modification times, NLTK's version, the size and time of
lemminflect's table and :data:`INDEX_FORMAT`), so a changed WordNet, NLTK, lemminflect
or layout builds a new one; only the :data:`KEEP_INDEXES` newest files are kept. Built
by :func:`open_index` on first use (15-60 s on 2 cores, with progress lines on stderr
from the command line) or by ``kiekai models --build-embeddings``.

Source: WordNet 3.0 (Miller 1995; Fellbaum 1998, Princeton University), read through
NLTK (Bird, Klein & Loper 2009).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sqlite3
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn, cast

from kiekai.locks import build_lock

#: Version of the file layout; part of the key, so a layout change builds a new index.
INDEX_FORMAT = 2

#: Parts of speech ``synsets(word)`` searches, in NLTK's order (``nltk...wordnet.POS_LIST``).
POS_LIST = ("n", "v", "a", "r")

#: Files of the WordNet folder the index is built from (their sizes and modification
#: times are part of the key).
SOURCE_FILES = (
    "data.noun",
    "data.verb",
    "data.adj",
    "data.adv",
    "index.noun",
    "index.verb",
    "index.adj",
    "index.adv",
    "noun.exc",
    "verb.exc",
    "adj.exc",
    "adv.exc",
    "cntlist.rev",
    "lexnames",
)

#: Files whose text :meth:`WordNetIndex.open` serves (the judge reads ``cntlist.rev``).
STORED_FILES = ("cntlist.rev", "lexnames")

#: NLTK method name -> pointer symbol, for synsets and lemmas (WordNet's ``wninput(5WN)``).
RELATIONS = {
    "hypernyms": "@",
    "instance_hypernyms": "@i",
    "hyponyms": "~",
    "instance_hyponyms": "~i",
    "member_holonyms": "#m",
    "substance_holonyms": "#s",
    "part_holonyms": "#p",
    "member_meronyms": "%m",
    "substance_meronyms": "%s",
    "part_meronyms": "%p",
    "topic_domains": ";c",
    "in_topic_domains": "-c",
    "region_domains": ";r",
    "in_region_domains": "-r",
    "usage_domains": ";u",
    "in_usage_domains": "-u",
    "attributes": "=",
    "entailments": "*",
    "causes": ">",
    "also_sees": "^",
    "verb_groups": "$",
    "similar_tos": "&",
}
#: Relations only lemmas have.
LEMMA_RELATIONS = {
    "antonyms": "!",
    "derivationally_related_forms": "+",
    "pertainyms": "\\",
}

#: Synset objects an index keeps for reuse (about 1 KB each once their lemmas and
#: pointers are read); beyond, the kept ones are dropped and made again when asked.
#: Objects compare by name, so callers' caches keyed by synsets keep working.
MAX_SYNSET_OBJECTS = 65_536


def _not_stored(kind: str, attribute: str) -> AttributeError:
    """The error for an attribute an index object lacks: raised, not answered by loading
    NLTK's reader (seconds and 150 MB) beside the index."""
    if attribute.startswith("__"):
        return AttributeError(attribute)
    return AttributeError(
        f"the WordNet index's {kind} has no {attribute!r}; it answers what the judge reads "
        "(see kiekai.judge.protocol.WordNetLike). Use NLTK's reader "
        "(kiekai.models.wordnet()) for the rest of NLTK's API"
    )


class IndexUnavailable(RuntimeError):
    """The index cannot be opened or built (the message says why)."""


# ----------------------------------------------------------------------------- objects


class _Object:
    """Equality, hashing and ordering by name, as NLTK's ``_WordNetObject``: an index
    object equals the NLTK object of the same name (NLTK's ``__eq__`` gives way to this
    one), so both kinds can share sets and dictionaries."""

    __slots__ = ("_name",)
    _name: str

    def __hash__(self) -> int:
        return hash(self._name)

    def __eq__(self, other: object) -> bool:
        name: str | None = getattr(other, "_name", None)
        if name is None:
            return NotImplemented
        return self._name == name

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __lt__(self, other: object) -> bool:
        name: str | None = getattr(other, "_name", None)
        if name is None:
            return NotImplemented
        return self._name < name


def _relation(symbol: str, doc: str) -> Callable[[Synset | Lemma], list[Synset] | list[Lemma]]:
    """A method answering the objects linked by pointer ``symbol`` (set on :class:`Synset`
    and :class:`Lemma` for each of :data:`RELATIONS` and :data:`LEMMA_RELATIONS`)."""

    def method(self: Synset | Lemma) -> list[Synset] | list[Lemma]:
        return self._related(symbol)

    method.__doc__ = doc
    return method


class Synset(_Object):
    """One WordNet synset read from the index; the methods of NLTK's ``Synset`` that the
    judge uses, with NLTK's results. Created only by :class:`WordNetIndex` (one object per
    synset per index)."""

    __slots__ = (
        "_index",
        "_id",
        "_pos",
        "_offset",
        "_lexname",
        "_min",
        "_max",
        "_definition",
        "_raw",
        "_lemmas",
        "_pointers",
        "_lemma_pointers",
        "__weakref__",
    )

    # The pointer relations of RELATIONS, set on the class after it (as methods), declared
    # here for type checkers.
    hypernyms: Callable[[], list[Synset]]
    instance_hypernyms: Callable[[], list[Synset]]
    hyponyms: Callable[[], list[Synset]]
    instance_hyponyms: Callable[[], list[Synset]]
    member_holonyms: Callable[[], list[Synset]]
    substance_holonyms: Callable[[], list[Synset]]
    part_holonyms: Callable[[], list[Synset]]
    member_meronyms: Callable[[], list[Synset]]
    substance_meronyms: Callable[[], list[Synset]]
    part_meronyms: Callable[[], list[Synset]]
    topic_domains: Callable[[], list[Synset]]
    in_topic_domains: Callable[[], list[Synset]]
    region_domains: Callable[[], list[Synset]]
    in_region_domains: Callable[[], list[Synset]]
    usage_domains: Callable[[], list[Synset]]
    in_usage_domains: Callable[[], list[Synset]]
    attributes: Callable[[], list[Synset]]
    entailments: Callable[[], list[Synset]]
    causes: Callable[[], list[Synset]]
    also_sees: Callable[[], list[Synset]]
    verb_groups: Callable[[], list[Synset]]
    similar_tos: Callable[[], list[Synset]]

    def __init__(self, index: WordNetIndex, synset_id: int, row: tuple[Any, ...]) -> None:
        name, pos, offset, lexname, min_depth, max_depth, definition, *raw = row
        self._index = index
        self._id = synset_id
        self._name = name
        self._pos: str = pos
        self._offset: int = offset
        self._lexname: int = lexname
        self._min: int = min_depth
        self._max: int = max_depth
        self._definition: str = definition
        # examples, lemmas, pointers, lemma pointers: JSON, parsed when asked
        self._raw: list[str] = raw
        self._lemmas: list[Lemma] | None = None
        self._pointers: dict[str, list[int]] | None = None
        self._lemma_pointers: dict[str, dict[str, list[list[int]]]] | None = None

    def __repr__(self) -> str:
        return f"Synset('{self._name}')"

    def name(self) -> str:
        """The synset's name, ``lemma.pos.nn`` (``"dog.n.01"``)."""
        return self._name

    def pos(self) -> str:
        """Part of speech: ``n``, ``v``, ``a``, ``s`` (adjective satellite) or ``r``."""
        return self._pos

    def offset(self) -> int:
        """Byte offset of the synset in WordNet 3.0's data file (its id in ImageNet wnids)."""
        return self._offset

    def lexname(self) -> str:
        """Lexicographer file, e.g. ``noun.animal``."""
        return self._index._lexnames[self._lexname]

    def definition(self, lang: str = "eng") -> str:
        """The gloss without its examples."""
        if lang != "eng":
            return cast(str, self._fallback("definition")(lang))
        return self._definition

    def examples(self, lang: str = "eng") -> list[str]:
        """The gloss's quoted examples."""
        if lang != "eng":
            return cast("list[str]", self._fallback("examples")(lang))
        return list(json.loads(self._raw[0]))

    def lemmas(self, lang: str = "eng") -> list[Lemma]:
        """The synset's lemmas, in WordNet's order."""
        if lang != "eng":
            return cast("list[Lemma]", self._fallback("lemmas")(lang))
        if self._lemmas is None:
            self._lemmas = [
                Lemma(self, i, name, key, count, marker)
                for i, (name, key, count, marker) in enumerate(json.loads(self._raw[1]))
            ]
        return list(self._lemmas)

    def lemma_names(self, lang: str = "eng") -> list[str]:
        """Names of the synset's lemmas (underscores for spaces)."""
        if lang != "eng":
            return cast("list[str]", self._fallback("lemma_names")(lang))
        return [lemma._name for lemma in self.lemmas()]

    def min_depth(self) -> int:
        """Steps of the shortest hypernym path to a root (0 for a root)."""
        return self._min

    def max_depth(self) -> int:
        """Steps of the longest hypernym path to a root (0 for a root)."""
        return self._max

    def _related(self, symbol: str, sort: bool = False) -> list[Synset]:
        if self._pointers is None:
            self._pointers = json.loads(self._raw[2])
        found = [self._index._synset(i) for i in self._pointers.get(symbol, ())]
        return sorted(found) if sort else found

    def _lemma_related(self, lemma_name: str, symbol: str) -> list[Lemma]:
        if self._lemma_pointers is None:
            self._lemma_pointers = json.loads(self._raw[3])
        targets = self._lemma_pointers.get(lemma_name, {}).get(symbol, ())
        return [self._index._synset(i).lemmas()[j] for i, j in targets]

    def closure(
        self, rel: Callable[[Synset], Iterable[Synset]], depth: int = -1
    ) -> Iterator[Synset]:
        """Synsets reachable through ``rel``, breadth first, each once (as NLTK's, which
        also leaves out ``self``)."""
        seen = {self}
        frontier = [self]
        while frontier and depth != 0:
            depth -= 1
            nxt = []
            for synset in frontier:
                for other in rel(synset):
                    if other not in seen:
                        seen.add(other)
                        nxt.append(other)
                        yield other
            frontier = nxt

    def root_hypernyms(self) -> list[Synset]:
        """The topmost hypernyms (instance hypernyms included)."""
        result, seen, todo = [], set(), [self]
        while todo:
            synset = todo.pop()
            if synset not in seen:
                seen.add(synset)
                up = synset.hypernyms() + synset.instance_hypernyms()
                if not up:
                    result.append(synset)
                else:
                    todo.extend(up)
        return result

    def hypernym_paths(self, _visited: frozenset[Synset] = frozenset()) -> list[list[Synset]]:
        """Every hypernym path from a root down to this synset (a cycle is cut where it
        would repeat a synset)."""
        up = [h for h in self.hypernyms() + self.instance_hypernyms() if h not in _visited]
        if not up:
            return [[self]]
        seen = _visited | {self}
        return [path + [self] for h in up for path in h.hypernym_paths(seen)]

    def _all_hypernyms(self) -> set[Synset]:
        return {s for path in self.hypernym_paths() for s in path}

    def common_hypernyms(self, other: Synset) -> list[Synset]:
        """Synsets that are hypernyms of both (or either synset itself)."""
        mine = self._all_hypernyms()
        theirs = (
            other._all_hypernyms()
            if isinstance(other, Synset)
            else {s for p in other.hypernym_paths() for s in p}
        )
        return list(mine & theirs)

    def lowest_common_hypernyms(
        self, other: Synset, simulate_root: bool = False, use_min_depth: bool = False
    ) -> list[Synset]:
        """The deepest common hypernyms (by max depth, or min depth), sorted by name."""
        if simulate_root:
            return cast(
                "list[Synset]",
                self._fallback("lowest_common_hypernyms")(other, True, use_min_depth),
            )
        found = self.common_hypernyms(other)
        if not found:
            return []
        depth: Callable[[Synset], int] = (
            (lambda s: s.min_depth()) if use_min_depth else (lambda s: s.max_depth())
        )
        deepest = max(depth(s) for s in found)
        return sorted(s for s in found if depth(s) == deepest)

    def _fallback(self, attribute: str) -> Callable[..., Any]:
        """Method ``attribute`` of NLTK's synset of the same offset (counted in the
        index's :attr:`~WordNetIndex.fallbacks`)."""
        self._index.fallbacks[attribute] += 1
        method: Callable[..., Any] = getattr(
            self._index._nltk().synset_from_pos_and_offset(self._pos, self._offset), attribute
        )
        return method

    def __getattr__(self, attribute: str) -> NoReturn:
        raise _not_stored("Synset", attribute)


class Lemma(_Object):
    """One lemma of an index :class:`Synset`: NLTK's ``Lemma`` methods the judge uses."""

    __slots__ = ("_synset", "_i", "_key", "_count", "_marker")

    # The pointer relations of RELATIONS and LEMMA_RELATIONS, set on the class after it
    # (as methods), declared here for type checkers.
    hypernyms: Callable[[], list[Lemma]]
    instance_hypernyms: Callable[[], list[Lemma]]
    hyponyms: Callable[[], list[Lemma]]
    instance_hyponyms: Callable[[], list[Lemma]]
    member_holonyms: Callable[[], list[Lemma]]
    substance_holonyms: Callable[[], list[Lemma]]
    part_holonyms: Callable[[], list[Lemma]]
    member_meronyms: Callable[[], list[Lemma]]
    substance_meronyms: Callable[[], list[Lemma]]
    part_meronyms: Callable[[], list[Lemma]]
    topic_domains: Callable[[], list[Lemma]]
    in_topic_domains: Callable[[], list[Lemma]]
    region_domains: Callable[[], list[Lemma]]
    in_region_domains: Callable[[], list[Lemma]]
    usage_domains: Callable[[], list[Lemma]]
    in_usage_domains: Callable[[], list[Lemma]]
    attributes: Callable[[], list[Lemma]]
    entailments: Callable[[], list[Lemma]]
    causes: Callable[[], list[Lemma]]
    also_sees: Callable[[], list[Lemma]]
    verb_groups: Callable[[], list[Lemma]]
    similar_tos: Callable[[], list[Lemma]]
    antonyms: Callable[[], list[Lemma]]
    derivationally_related_forms: Callable[[], list[Lemma]]
    pertainyms: Callable[[], list[Lemma]]

    def __init__(
        self, synset: Synset, i: int, name: str, key: str, count: int, marker: str | None
    ) -> None:
        self._synset = synset
        self._i = i
        self._name = name
        self._key = key
        self._count = count
        self._marker = marker

    def __repr__(self) -> str:
        return f"Lemma('{self._synset._name}.{self._name}')"

    def name(self) -> str:
        """The lemma's name as WordNet writes it (underscores for spaces, case kept)."""
        return self._name

    def key(self) -> str:
        """The sense key (``dog%1:05:00::``)."""
        return self._key

    def count(self) -> int:
        """SemCor tag count of this sense (``cntlist.rev``; 0 when untagged)."""
        return self._count

    def synset(self) -> Synset:
        """The synset the lemma belongs to."""
        return self._synset

    def syntactic_marker(self) -> str | None:
        """An adjective's position marker (``(a)``, ``(p)``, ``(ip)``), else ``None``."""
        return self._marker

    def lang(self) -> str:
        return "eng"

    def _related(self, symbol: str) -> list[Lemma]:
        return self._synset._lemma_related(self._name, symbol)

    def __getattr__(self, attribute: str) -> NoReturn:
        raise _not_stored("Lemma", attribute)


for _method, _symbol in RELATIONS.items():
    setattr(Synset, _method, _relation(_symbol, f"Synsets linked by pointer {_symbol!r}."))
for _method, _symbol in {**RELATIONS, **LEMMA_RELATIONS}.items():
    setattr(Lemma, _method, _relation(_symbol, f"Lemmas linked by pointer {_symbol!r}."))
del _method, _symbol


# ------------------------------------------------------------------------------- reader


class WordNetIndex:
    """Read-only WordNet from an index file: the judge's drop-in for NLTK's reader.

    Thread-safe (one SQLite connection behind a lock; objects are created once per
    synset and never change).

    Args:
        path: the ``.sqlite`` file written by :func:`build_index`.
        nltk_reader: returns NLTK's reader, for questions the index does not answer
            (default :func:`kiekai.models.wordnet`); called at most once.

    Raises:
        IndexUnavailable: the file is missing, not an index, or of another format.
    """

    def __init__(self, path: Path, nltk_reader: Callable[[], Any] | None = None) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(
                f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False
            )
            meta: dict[str, str] = dict(self._db.execute("SELECT key, value FROM meta"))
        except sqlite3.Error as exc:
            raise IndexUnavailable(f"WordNet index {self.path} cannot be read ({exc})") from exc
        if meta.get("format") != str(INDEX_FORMAT):
            raise IndexUnavailable(
                f"WordNet index {self.path} has format {meta.get('format')!r}, this code reads "
                f"{INDEX_FORMAT}"
            )
        self.meta = meta
        self._lexnames: list[str] = json.loads(meta["lexnames_list"])
        self._subs = {
            pos: [tuple(r) for r in rules]
            for pos, rules in json.loads(meta["substitutions"]).items()
        }
        self._lock = threading.RLock()
        self._synsets: dict[int, Synset] = {}
        self._keep_all = False  # all_synsets() keeps every object (preloading)
        self._nltk_loader = nltk_reader
        self._nltk_reader: Any = None  # NLTK's WordNetCorpusReader (untyped), once loaded
        #: Calls passed to NLTK's reader because their arguments asked for it (another
        #: ``lang``, ``simulate_root``), by method.
        self.fallbacks: Counter[str] = Counter()
        self._forms = lru_cache(maxsize=131072)(self._form_uncached)
        self._lemminflect = lru_cache(maxsize=65536)(self._lemminflect_uncached)

    def __repr__(self) -> str:
        return f"WordNetIndex({str(self.path)!r})"

    # -- storage

    def _synset(self, synset_id: int) -> Synset:
        found = self._synsets.get(synset_id)
        if found is not None:
            return found
        with self._lock:
            found = self._synsets.get(synset_id)
            if found is None:
                if len(self._synsets) >= MAX_SYNSET_OBJECTS and not self._keep_all:
                    self._synsets.clear()  # equal by name: a new object serves as well
                row = self._db.execute(
                    "SELECT name, pos, offset, lexname, min_depth, max_depth, definition, "
                    "examples, lemmas, pointers, lemma_pointers FROM synset WHERE id = ?",
                    (synset_id,),
                ).fetchone()
                if row is None:
                    raise IndexUnavailable(f"WordNet index {self.path} lacks synset {synset_id}")
                found = self._synsets[synset_id] = Synset(self, synset_id, row)
        return found

    def _form_uncached(self, form: str) -> tuple[dict[str, list[int]], dict[str, list[str]]]:
        with self._lock:
            row = self._db.execute("SELECT data FROM form WHERE form = ?", (form,)).fetchone()
        if row is None:
            return {}, {}
        data = json.loads(row[0])
        return data.get("ids", {}), data.get("exc", {})

    def exception_bases(self, form: str) -> dict[str, list[str]]:
        """WordNet's exception lists for ``form`` (``noun.exc`` etc.): part of speech
        (n, v, a, r) -> the base forms the lists give (``"mice"`` -> ``{"n": ["mouse"]}``);
        empty when no list holds ``form``. The same as NLTK's ``_exception_map``."""
        return dict(self._forms(form)[1])

    def lemminflect_lemmas(self, word: str) -> dict[str, tuple[str, ...]] | None:
        """lemminflect's lookup-table entry for lower-case ``word`` (``{upos: lemmas}``,
        e.g. ``"mice"`` -> ``{"NOUN": ("mouse",)}``), or ``None`` when the table lacks
        it: the same as the table lemminflect loads itself (``lemma_lu.csv.gz``, about
        0.2-0.4 s on 2 cores), without loading it."""
        return self._lemminflect(word)

    def _lemminflect_uncached(self, word: str) -> dict[str, tuple[str, ...]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM lemminflect WHERE word = ?", (word,)
            ).fetchone()
        if row is None:
            return None
        return {upos: tuple(forms) for upos, forms in json.loads(row[0]).items()}

    def install_lemminflect(self) -> bool:
        """Make lemminflect's lemmatiser read its lookup table from this index instead of
        loading ``lemma_lu.csv.gz`` (its functions then answer as before, from here).
        Done only when this index holds that table and lemminflect has not loaded its
        own yet. Returns whether it was installed."""
        if not int(self.meta.get("lemminflect_words", "0")):
            return False
        try:
            from lemminflect.core.Lemmatizer import Lemmatizer
        except ImportError:
            return False
        lemmatizer = Lemmatizer()
        if hasattr(lemmatizer, "lemma_dict"):
            return isinstance(lemmatizer.lemma_dict, LemminflectLookup)
        lemmatizer.lemma_dict = LemminflectLookup(self)
        return True

    def _nltk(self) -> Any:
        """NLTK's reader, loaded on first use (questions the index does not answer)."""
        if self._nltk_reader is None:
            with self._lock:
                if self._nltk_reader is None:
                    loader = self._nltk_loader
                    if loader is None:
                        from kiekai.models import wordnet

                        loader = wordnet
                    self._nltk_reader = loader()
        return self._nltk_reader

    # -- NLTK's reader API

    def get_version(self) -> str:
        """WordNet's version (``"3.0"``)."""
        return self.meta["wordnet_version"]

    def _has(self, form: str, pos: str) -> bool:
        ids = self._forms(form)[0]
        return ("a" if pos == "s" else pos) in ids

    def _morphy(self, form: str, pos: str, check_exceptions: bool = True) -> list[str]:
        """Base forms of ``form`` in ``pos`` that WordNet lists, as NLTK's ``_morphy``:
        the exception list when it holds ``form``, else NLTK's suffix rules applied once;
        ``form`` itself first when it is a lemma."""
        exceptions = self._forms(form)[1] if check_exceptions else {}
        bases = exceptions.get("a" if pos == "s" else pos)
        if bases is not None:
            forms = bases
        else:
            forms = [form[: -len(old)] + new for old, new in self._subs[pos] if form.endswith(old)]
        result: list[str] = []
        for candidate in [form, *forms]:
            if candidate not in result and self._has(candidate, pos):
                result.append(candidate)
        return result

    def morphy(
        self, form: str, pos: str | None = None, check_exceptions: bool = True
    ) -> str | None:
        """The first base form of ``form`` (in ``pos``, or the first part of speech with
        one), or ``None``."""
        for p in [pos] if pos else POS_LIST:
            found = self._morphy(form, p, check_exceptions)
            if found:
                return found[0]
        return None

    def synsets(
        self, lemma: str, pos: str | None = None, lang: str = "eng", check_exceptions: bool = True
    ) -> list[Synset]:
        """Synsets of ``lemma`` (any inflection; underscores for spaces) in ``pos`` (each
        character a part of speech; default n, v, a, r), in NLTK's order."""
        if lang != "eng":
            self.fallbacks["synsets"] += 1
            return cast("list[Synset]", self._nltk().synsets(lemma, pos, lang, check_exceptions))
        lemma = lemma.lower()
        out: list[Any] = []
        for p in POS_LIST if pos is None else pos:
            for form in self._morphy(lemma, p, check_exceptions):
                out.extend(self._synset(i) for i in self._forms(form)[0].get(p, ()))
        return out

    def lemmas(self, lemma: str, pos: str | None = None, lang: str = "eng") -> list[Lemma]:
        """Lemmas named ``lemma`` (case-insensitive) among its synsets."""
        if lang != "eng":
            self.fallbacks["lemmas"] += 1
            return cast("list[Lemma]", self._nltk().lemmas(lemma, pos, lang))
        lemma = lemma.lower()
        return [
            lem
            for synset in self.synsets(lemma, pos)
            for lem in synset.lemmas()
            if lem.name().lower() == lemma
        ]

    def synset(self, name: str) -> Synset:
        """The synset named ``lemma.pos.nn`` (the ``nn``-th sense of ``lemma`` in ``pos``).

        Raises:
            ValueError: the name is malformed or names no synset.
        """
        try:
            lemma, pos, number = name.rsplit(".", 2)
            ids = self._forms(lemma.lower())[0].get("a" if pos == "s" else pos, [])
            synset = self._synset(ids[int(number) - 1]) if int(number) >= 1 else None
        except (ValueError, IndexError):
            synset = None
        if synset is None or (pos == "s" and synset.pos() != "s"):
            raise ValueError(f"no WordNet synset named {name!r}")
        return synset

    def synset_from_pos_and_offset(self, pos: str, offset: int) -> Synset | None:
        """The synset at ``offset`` in the data file of ``pos``; ``None`` when none."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM synset WHERE file_pos = ? AND offset = ?",
                ("a" if pos == "s" else pos, offset),
            ).fetchone()
        return None if row is None else self._synset(row[0])

    def all_synsets(self, pos: str | None = None) -> Iterator[Synset]:
        """Every synset (of ``pos``; ``a`` includes satellites, as NLTK's), in file order."""
        with self._lock:
            if pos is None:
                ids = [r[0] for r in self._db.execute("SELECT id FROM synset ORDER BY id")]
            elif pos == "s":
                ids = [
                    r[0]
                    for r in self._db.execute("SELECT id FROM synset WHERE pos = 's' ORDER BY id")
                ]
            else:
                ids = [
                    r[0]
                    for r in self._db.execute(
                        "SELECT id FROM synset WHERE file_pos = ? ORDER BY id", (pos,)
                    )
                ]
        self._keep_all = True  # whoever reads them all (a preload) wants them kept
        return (self._synset(i) for i in ids)

    def all_lemma_names(self, pos: str | None = None) -> Iterator[str]:
        """Every lemma form of the index files (of ``pos``)."""
        with self._lock:
            rows = self._db.execute("SELECT form, data FROM form ORDER BY form").fetchall()
        for form, data in rows:
            ids = json.loads(data).get("ids", {})
            if ids and (pos is None or ("a" if pos == "s" else pos) in ids):
                yield form

    def open(self, fileid: str) -> io.StringIO:
        """The text of a stored WordNet file (``cntlist.rev``, ``lexnames``) as a text stream.

        Raises:
            OSError: the index does not store that file.
        """
        text = self.meta.get(f"file:{fileid}")
        if text is None:
            raise OSError(f"the WordNet index stores {', '.join(STORED_FILES)}, not {fileid!r}")
        return io.StringIO(text)

    def __getattr__(self, attribute: str) -> NoReturn:
        raise _not_stored("WordNetIndex", attribute)

    def close(self) -> None:
        """Close the file (objects already made keep working for what they parsed)."""
        with self._lock:
            self._db.close()


class LemminflectLookup:
    """lemminflect's lemma lookup table (word -> ``{upos: lemmas}``) read from a
    :class:`WordNetIndex`: the mapping lemminflect's ``Lemmatizer`` reads with
    ``.get(word, {})``. Answers as the dictionary lemminflect would load."""

    def __init__(self, index: WordNetIndex) -> None:
        self.index = index

    def get(self, word: str, default: Any = None) -> Any:
        found = self.index.lemminflect_lemmas(word)
        return default if found is None else found

    def __getitem__(self, word: str) -> dict[str, tuple[str, ...]]:
        found = self.index.lemminflect_lemmas(word)
        if found is None:
            raise KeyError(word)
        return found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.index.lemminflect_lemmas(word) is not None


# ------------------------------------------------------------------------------- building


def nltk_version() -> str:
    """Installed NLTK's version, read from its package files without importing it."""
    import importlib.util

    spec = importlib.util.find_spec("nltk")
    if spec and spec.origin:
        version_file = Path(spec.origin).with_name("VERSION")
        with contextlib.suppress(OSError):
            return version_file.read_text(encoding="utf-8").strip()
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nltk")
    except PackageNotFoundError:
        return "absent"


def source_identity(folder: Path) -> dict[str, Any]:
    """What an index built from the WordNet in ``folder`` depends on: each of
    :data:`SOURCE_FILES` with its size and modification time (``None`` when absent),
    NLTK's version and :data:`INDEX_FORMAT`. Costs one ``stat`` per file."""
    files: dict[str, Any] = {}
    for name in SOURCE_FILES:
        try:
            stat = (folder / name).stat()
            files[name] = [stat.st_size, stat.st_mtime_ns]
        except OSError:
            files[name] = None
    lemma_table = lemminflect_table()
    try:
        table_stat = lemma_table.stat() if lemma_table else None
        lemminflect = [table_stat.st_size, table_stat.st_mtime_ns] if table_stat else None
    except OSError:
        lemminflect = None
    return {
        "format": INDEX_FORMAT,
        "folder": os.path.realpath(folder),
        "files": files,
        "nltk": nltk_version(),
        "lemminflect": lemminflect,
    }


def lemminflect_table() -> Path | None:
    """The file of lemminflect's lemma lookup table (``lemma_lu.csv.gz``), or ``None``
    when lemminflect is not installed."""
    try:
        from lemminflect import config
    except ImportError:
        return None
    return Path(config.lemma_lu_fn)


def identity_key(identity: dict[str, Any]) -> str:
    """SHA-256 (hex) of an identity from :func:`source_identity`."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE synset (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, pos TEXT NOT NULL, file_pos TEXT NOT NULL,
    offset INTEGER NOT NULL, lexname INTEGER NOT NULL, min_depth INTEGER NOT NULL,
    max_depth INTEGER NOT NULL, definition TEXT NOT NULL, examples TEXT NOT NULL,
    lemmas TEXT NOT NULL, pointers TEXT NOT NULL, lemma_pointers TEXT NOT NULL);
CREATE INDEX synset_offset ON synset (file_pos, offset);
CREATE TABLE form (form TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE lemminflect (word TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID;
"""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def build_index(
    reader: Any, path: Path, identity: dict[str, Any], report: Callable[[str], None] | None = None
) -> Path:
    """Write the index of NLTK reader ``reader`` to ``path`` (through a temporary file
    renamed into place, so readers never see half an index).

    Reads every synset through the reader (the slow part: about 10-40 s on 2 cores),
    their depths, lemmas with sense keys and SemCor counts, pointers, the index files'
    lemma forms, the exception lists and ``cntlist.rev``.

    Args:
        reader: NLTK's ``WordNetCorpusReader``.
        path: the ``.sqlite`` file to write.
        identity: :func:`source_identity` of the source, stored in the file.
        report: called with a progress line every 20,000 synsets.

    Raises:
        OSError: the folder cannot be written.
    """
    start = time.perf_counter()
    cntlist = reader.open("cntlist.rev").read()
    counts = _sense_counts(cntlist)
    synsets, ids = _read_synsets(reader, report)

    def target(pos: str, offset: int) -> int:
        return ids["a" if pos == "s" else pos, offset]

    rows = [_synset_row(i, synset, reader, counts, target) for i, synset in enumerate(synsets)]
    meta = {
        "format": str(INDEX_FORMAT),
        "identity": _compact(identity),
        "wordnet_version": reader.get_version(),
        "lexnames_list": _compact(list(reader._lexnames)),
        "substitutions": _compact(
            {
                pos: [list(r) for r in reader.MORPHOLOGICAL_SUBSTITUTIONS[pos]]
                for pos in (*POS_LIST, "s")
            }
        ),
        "file:cntlist.rev": cntlist,
        "file:lexnames": reader.open("lexnames").read(),
        "synsets": str(len(rows)),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    tables = _Tables(rows, _form_entries(reader, target), _lemminflect_rows(), meta)
    _write_index(path, tables, start)
    return path


def _sense_counts(cntlist: str) -> dict[str, int]:
    """SemCor tag count per sense key, from the text of ``cntlist.rev`` (the first line
    of a key counts)."""
    counts: dict[str, int] = {}
    for line in cntlist.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            counts.setdefault(parts[0], int(parts[-1]))
    return counts


def _read_synsets(
    reader: Any, report: Callable[[str], None] | None
) -> tuple[list[Any], dict[tuple[str, int], int]]:
    """Every synset of NLTK's ``reader`` in file order, and the row id of each by
    (data-file part of speech, offset); a progress line every 20,000 synsets."""
    synsets: list[Any] = []  # NLTK Synsets
    ids: dict[tuple[str, int], int] = {}
    for synset in reader.all_synsets():
        file_pos = "a" if synset.pos() == "s" else synset.pos()
        ids[file_pos, synset.offset()] = len(synsets)
        synsets.append(synset)
        if report and len(synsets) % 20_000 == 0:
            report(f"  WordNet index: {len(synsets):,} synsets read")
    return synsets, ids


def _synset_row(
    i: int,
    synset: Any,
    reader: Any,
    counts: dict[str, int],
    target: Callable[[str, int], int],
) -> tuple[Any, ...]:
    """The ``synset`` table row of NLTK synset ``synset`` (row id ``i``): its facts,
    lemmas with sense keys and counts, and pointers as row ids."""
    lemmas = [
        [lem.name(), lem.key(), counts.get(lem.key(), 0), lem.syntactic_marker()]
        for lem in synset.lemmas()
    ]
    pointers = {
        symbol: sorted(target(p, o) for p, o in found)
        for symbol, found in sorted(synset._pointers.items())
        if found
    }
    lemma_pointers: dict[str, dict[str, list[list[int]]]] = {}
    for (name, symbol), found in sorted(synset._lemma_pointers.items()):
        if found:
            lemma_pointers.setdefault(name, {})[symbol] = [[target(p, o), j] for p, o, j in found]
    return (
        i,
        synset.name(),
        synset.pos(),
        "a" if synset.pos() == "s" else synset.pos(),
        synset.offset(),
        reader._lexnames.index(synset.lexname()),
        synset.min_depth(),
        synset.max_depth(),
        synset.definition(),
        _compact(synset.examples()),
        _compact(lemmas),
        _compact(pointers),
        _compact(lemma_pointers),
    )


def _form_entries(reader: Any, target: Callable[[str, int], int]) -> dict[str, dict[str, Any]]:
    """Per lemma form of the index files: the synset row ids per part of speech
    (``ids``) and the exception lists' base forms (``exc``)."""
    forms: dict[str, dict[str, Any]] = {}
    for form, by_pos in reader._lemma_pos_offset_map.items():
        entry = forms.setdefault(form, {})
        for pos, offsets in by_pos.items():
            if offsets or pos != "s":
                entry.setdefault("ids", {})[pos] = [target(pos, o) for o in offsets]
    for pos in POS_LIST:
        for form, bases in reader._exception_map[pos].items():
            forms.setdefault(form, {}).setdefault("exc", {})[pos] = list(bases)
    return forms


def _lemminflect_rows() -> list[tuple[str, str]]:
    """lemminflect's lemma lookup table as ``lemminflect`` table rows (word, JSON), or
    ``[]`` when lemminflect or its table is not installed."""
    lemma_table = lemminflect_table()
    if lemma_table is None or not lemma_table.is_file():
        return []
    from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec

    return [
        (word, _compact({upos: list(forms) for upos, forms in by_upos.items()}))
        for word, by_upos in LemmaLUCodec.load(str(lemma_table)).items()
    ]


@dataclass
class _Tables:
    """The rows of an index file's tables (``meta`` gains the lemminflect word count and
    the build time when written)."""

    synsets: list[tuple[Any, ...]]
    forms: dict[str, dict[str, Any]]
    lemminflect: list[tuple[str, str]]
    meta: dict[str, str]


def _write_index(path: Path, tables: _Tables, start: float) -> None:
    """Write ``tables`` to ``path`` through a temporary file renamed into place, so
    readers never see half an index; ``start`` is when the build began.

    Raises:
        OSError: the folder cannot be written.
    """
    meta = tables.meta
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".sqlite", dir=path.parent)
    os.close(handle)
    try:
        db = sqlite3.connect(temp)
        try:
            db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + _SCHEMA)
            db.executemany("INSERT INTO synset VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", tables.synsets)
            db.executemany(
                "INSERT INTO form VALUES (?, ?)",
                ((form, _compact(entry)) for form, entry in sorted(tables.forms.items())),
            )
            db.executemany("INSERT OR REPLACE INTO lemminflect VALUES (?, ?)", tables.lemminflect)
            meta["lemminflect_words"] = str(len(tables.lemminflect))
            meta["build_s"] = f"{time.perf_counter() - start:.1f}"
            db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
            db.commit()
            db.execute("VACUUM")
        finally:
            db.close()
        os.chmod(temp, 0o644)  # mkstemp makes it private; an index is no secret
        os.replace(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


# ---------------------------------------------------------------------------- find / build


def index_folder() -> Path:
    """Where index files live: ``<kiekai cache>/wordnet-index`` (created when missing).

    Raises:
        kiekai.models.ModelUnavailable: the cache folder cannot be created.
    """
    from kiekai.models import cache_dir

    folder = cache_dir() / "wordnet-index"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def index_path(identity: dict[str, Any]) -> Path:
    """The file of the index for ``identity`` (named by its key)."""
    return index_folder() / f"wordnet-{identity_key(identity)[:20]}.sqlite"


def current_identity() -> dict[str, Any]:
    """:func:`source_identity` of the WordNet kiekai resolves now (never downloads).

    Raises:
        kiekai.models.ModelUnavailable: no WordNet is found.
    """
    from kiekai import models

    return source_identity(Path(models.resolve_wordnet(allow_download=False).path))


#: Index files kept per cache folder: the newest ones (several virtual environments with
#: different NLTK versions may share one cache; each keeps its own index).
KEEP_INDEXES = 3


def _remove_others(folder: Path, keep: Path) -> None:
    """Delete all but the :data:`KEEP_INDEXES` newest index files (``keep`` always
    stays) and temporary files of builds interrupted over an hour ago."""
    others = []
    for old in folder.glob("wordnet-*.sqlite"):
        with contextlib.suppress(OSError):
            if old != keep:
                others.append((old.stat().st_mtime, old))
    for _, old in sorted(others, reverse=True)[KEEP_INDEXES - 1 :]:
        with contextlib.suppress(OSError):
            old.unlink()
    for temp in folder.glob(".wordnet-*"):
        with contextlib.suppress(OSError):
            if time.time() - temp.stat().st_mtime > 3600:
                temp.unlink()


def open_index(
    *,
    build: bool = True,
    rebuild: bool = False,
    report: Callable[[str], None] | None = None,
    nltk_reader: Callable[[], Any] | None = None,
) -> WordNetIndex | None:
    """The index of the WordNet kiekai resolves, from kiekai's cache; built there first
    when missing or stale if ``build`` (or anew with ``rebuild``).

    Args:
        build: build the index when there is none for the current WordNet and NLTK.
        rebuild: build it even when one exists (benchmarks time the build).
        report: called with a line before a build, progress lines and a line after.
        nltk_reader: returns NLTK's reader (default :func:`kiekai.models.wordnet`).

    Returns:
        The opened index, or ``None`` when there is none and ``build`` is false.

    Raises:
        kiekai.models.ModelUnavailable: no WordNet is found.
        IndexUnavailable: the index cannot be built or opened (e.g. the cache folder is
            read-only); the message says why.
    """
    identity = current_identity()
    try:
        path = index_path(identity)
    except RuntimeError as exc:
        raise IndexUnavailable(f"no folder for the WordNet index: {exc}") from exc
    if path.is_file() and not rebuild:
        return WordNetIndex(path, nltk_reader)
    if not build and not rebuild:
        return None
    if nltk_reader is None:
        from kiekai.models import wordnet

        nltk_reader = wordnet
    try:
        with build_lock(path):
            if path.is_file() and not rebuild:  # another process built it meanwhile
                return WordNetIndex(path, nltk_reader)
            if report:
                report(
                    f"building the judge's WordNet index in {path.parent} (once per version "
                    "of WordNet, NLTK and lemminflect; 15-60 s on 2 cores) ..."
                )
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                build_index(nltk_reader(), path, identity, report)
            _remove_others(path.parent, path)
            if report:
                size = path.stat().st_size / 1e6
                report(
                    f"WordNet index built in {time.perf_counter() - start:.0f} s: {path} "
                    f"({size:.0f} MB)"
                )
    except OSError as exc:
        raise IndexUnavailable(
            f"the WordNet index cannot be written in {path.parent} ({exc}); set "
            "KIEKAI_CACHE_DIR to a writable folder"
        ) from exc
    return WordNetIndex(path, nltk_reader)
