"""The everyday lexicon: which words people treat as the same thing, near, or different.

Evidence of everyday equivalence for the judge. WordNet files many pairs
that people treat as one thing in different synsets (photo / picture, trash / garbage,
candy / sweets) and puts pairs people keep apart in one synset or one step apart; MiniLM
cannot separate the two groups. This module reads a small hand-written lexicon of the words
people play and answers, for two lemmas, how a table treats them:

=============  =====================================================  =========================
kind           meaning                                                 a table accepts it at
=============  =====================================================  =========================
``same``       name the same thing in everyday use (photo / picture)   standard and lenient
``near``       near-synonym or degree word (hot / warm, pot / pan)     lenient only
``hyponym``    one is a kind of the other, one step (dog / puppy)      lenient only
``derived``    derived words naming the same thing (snow / snowy)      standard and lenient
``derived-``   derived words whose meaning shifts (sun / sunny) or     lenient only
``near``       the person doing it (dancing / dancer)
``different``  different kinds of one thing (car / truck)              no level
``opposite``   opposites (black / white, hot / cold)                   no level
=============  =====================================================  =========================

(Strict accepts only the same word in any form; that is the judge's normalisation, not this
lexicon.) The rules followed for each kind, how the files were written and how they were
checked are in ``docs/judge.md``, section "Everyday lexicon".

Files (``data/``, shipped in the wheel; UTF-8; ``#`` starts a comment; blank lines ignored;
each starts with a ``# version: N`` line and the three versions must agree):

- ``everyday-same.txt``: one set per line, comma-separated: ``photo, picture, photograph``.
  Every two words of a line are ``same``. A word may be on several lines (one per everyday
  sense); lines are *not* merged through a shared word, so ``couch, sofa`` and
  ``bench, pew`` never make a sofa a pew.
- ``everyday-near.txt``: ``a ~ b, c`` (``a`` is near ``b`` and near ``c``; not ``b`` near
  ``c``), ``a > b, c`` (``b`` and ``c`` are kinds of ``a``, one step down), ``a = b, c``
  (``b`` and ``c`` are derived from ``a`` and name the same thing: ``derived``) and
  ``a =~ b, c`` (derived, the meaning shifted: ``derived-near``).
- ``everyday-different.txt``: ``label: a | b | c`` (every two of ``a``, ``b``, ``c`` are
  different kinds of ``label``; the label is optional and only used in reasons) and
  ``a <> b, c`` (``a`` is the opposite of ``b`` and of ``c``).

The first word of a same-set is its *head*. A relation declared on a head holds for every
word of the head's sets too: from ``car | truck`` and ``car, automobile, auto`` the lexicon
knows that automobile / truck are different. A relation declared on a word that is not the
head of its set stays with that word, which is how one spelling serves two senses
(``arugula, rocket`` and ``rocket ~ missile`` never make arugula near a missile). A
relation declared on the two words themselves wins over one reached through heads.

Words are keyed by :func:`kiekai.judge.normalize.compound_key` of their lower-case form, so
``black and white``, ``black-and-white`` and ``blackandwhite`` are one key. Headwords are
singular lemmas (``dog``), except words used in the plural only (``glasses``, ``scissors``,
``stairs``); British and American spellings are listed as separate words of one set.
:meth:`EverydayLexicon.relation` looks a word up as given first and, only when it is not a
headword, tries simple inflection variants (``dogs`` -> ``dog``, ``stair`` -> ``stairs``).

No NLTK, numpy or torch here: reading the three files takes a few milliseconds
(``python -m kiekai.judge.everyday`` prints the figure) and :func:`everyday_lexicon` caches
the result per process.
"""

from __future__ import annotations

import hashlib
import marshal
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kiekai import paths
from kiekai.files import replacing
from kiekai.judge.normalize import compound_key

#: The lexicon's files in ``data/``, by section.
FILES = {
    "same": "everyday-same.txt",
    "near": "everyday-near.txt",
    "different": "everyday-different.txt",
}

#: The kinds of relation :meth:`EverydayLexicon.relation` returns.
KINDS = ("same", "near", "hyponym", "derived", "derived-near", "different", "opposite")

#: When one word pair is reached through several same-sets with different declared
#: relations, the first kind here wins (a rejection by rule outranks an acceptance).
_PRIORITY = {
    "opposite": 0, "different": 1, "hyponym": 2, "near": 3, "derived-near": 4, "derived": 5,
}  # fmt: skip

_VERSION_LINE = re.compile(r"#\s*version\s*:\s*(\S+)\s*$", re.IGNORECASE)
#: What a headword may contain: lower-case letters, digits, and single spaces, hyphens or
#: apostrophes between them ("black-and-white", "human being", "o'clock").
_WORD = re.compile(r"[a-z0-9]+(?:[ '\-][a-z0-9]+)*")

#: What :func:`kiekai.judge.normalize.compound_key` removes from a word that matches
#: ``_WORD`` (spaces, hyphens, apostrophes), as a ``str.translate`` table: reading the files
#: calls it for every word, ten times faster than the regular expression.
_KEY_DROP = str.maketrans("", "", " -'")

#: Irregular plurals whose singular is a headword (people is a headword itself).
_IRREGULAR = {
    "mice": "mouse", "geese": "goose", "teeth": "tooth", "feet": "foot", "men": "man",
    "women": "woman", "children": "child", "oxen": "ox", "lice": "louse", "dice": "die",
    "knives": "knife", "wives": "wife", "lives": "life", "leaves": "leaf", "loaves": "loaf",
    "wolves": "wolf", "calves": "calf", "halves": "half", "shelves": "shelf",
    "thieves": "thief", "selves": "self", "elves": "elf", "scarves": "scarf",
    "hooves": "hoof", "cacti": "cactus", "fungi": "fungus", "octopi": "octopus",
    "criteria": "criterion", "phenomena": "phenomenon", "bacteria": "bacterium",
    "grandchildren": "grandchild", "policemen": "policeman", "firemen": "fireman",
    "fishermen": "fisherman", "gentlemen": "gentleman", "businessmen": "businessman",
}  # fmt: skip


class LexiconError(ValueError):
    """An everyday-lexicon file is missing or malformed; the message names the file, the
    line and the fix."""


@dataclass(frozen=True)
class EverydayRelation:
    """How a table treats two words, according to the everyday lexicon.

    Attributes:
        kind: ``"same"``, ``"near"``, ``"hyponym"``, ``"derived"``, ``"derived-near"``,
            ``"different"`` or ``"opposite"``
            (see the module docstring for what each means and at which level it passes).
        a: the first word as looked up (what the caller passed, lower-cased and stripped).
        b: the second word as looked up.
        evidence: one human-readable clause for a verdict's reason, naming the lexicon and
            its version, e.g. ``"everyday lexicon v2: 'photo' and 'picture' name the same
            thing"``.
        entry_a: the lexicon word that decided for ``a`` (``"dog"`` when ``"dogs"`` was
            looked up; ``"car"`` when ``"automobile"`` reached ``car | truck`` through
            ``car, automobile``).
        entry_b: the same for ``b``.
        broader: for ``hyponym``, the broader of the two lexicon words (``"dog"`` for
            dog / puppy); ``""`` for the other kinds.
        group: for ``different`` from a labelled group, the label (``"vehicle"``); else
            ``""``.
    """

    kind: str
    a: str
    b: str
    evidence: str
    entry_a: str = ""
    entry_b: str = ""
    broader: str = ""
    group: str = ""


@dataclass(frozen=True)
class _Declared:
    """One relation written in a file between two headword keys."""

    kind: str  # near | hyponym | different | opposite
    broader: str = ""  # hyponym: key of the broader word
    group: str = ""  # different: group label
    where: str = ""  # "file:line", for error messages and review


def _given(rel: _Declared | None, kind: str) -> _Declared:
    """The declared relation a ``kind`` relation is made from (it always comes with one)."""
    if rel is None:
        raise ValueError(f"an everyday '{kind}' relation needs its declared relation")
    return rel


class EverydayLexicon:
    """The everyday lexicon, read from ``data/everyday-*.txt``.

    Build it with :func:`everyday_lexicon` (cached) or ``EverydayLexicon(folder)`` for
    another folder (tests).

    Args:
        folder: the folder holding the three files; default :func:`kiekai.paths.data_dir`.
        parsed_cache: a folder where the parsed lexicon is kept between processes (see
            :func:`read_parsed` / :func:`write_parsed`): read from there when the three
            files are byte for byte the ones parsed, else parsed and written there (a
            folder that cannot be written only costs the parse); ``None``: always parse.

    Raises:
        LexiconError: a file is missing, a line is malformed (message names file:line),
            or the files' versions disagree.
    """

    def __init__(self, folder: Path | None = None, *, parsed_cache: Path | None = None) -> None:
        folder = Path(folder) if folder is not None else paths.data_dir()
        self.folder = folder
        self._display: dict[str, str] = {}  # key -> the word as written in the file
        self._keys: dict[str, str] = {}  # the word as written -> key (parsing cache)
        self._same_sets: list[tuple[str, ...]] = []  # keys, in file order
        self._same_where: list[str] = []
        self._sets_of: dict[str, list[int]] = {}  # key -> indexes into _same_sets
        self._declared: dict[tuple[str, str], _Declared] = {}  # both orders
        self._groups: list[tuple[str, tuple[str, ...], str]] = []  # label, keys, where
        self._groups_of: dict[str, list[int]] = {}
        self.version: str = ""
        texts = {section: self._read(folder / name, section) for section, name in FILES.items()}
        key = _parsed_key(texts)
        if parsed_cache is not None and self._restore(read_parsed(parsed_cache, key)):
            return
        self._parse_files(texts)
        if parsed_cache is not None:
            write_parsed(parsed_cache, key, self._snapshot())

    @staticmethod
    def _read(path: Path, section: str) -> str:
        """The text of one lexicon file.

        Raises:
            LexiconError: the file is missing or not UTF-8 text.
        """
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LexiconError(
                paths.missing_file_message(path, f"everyday lexicon ({section})")
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise LexiconError(
                f"everyday lexicon file {path} cannot be read as UTF-8 text ({exc}); "
                "restore it with `git checkout -- data/`"
            ) from None

    def _snapshot(self) -> tuple[object, ...]:
        """The parsed tables as built-in values only (what :mod:`marshal` writes)."""
        declared = {
            pair: (rel.kind, rel.broader, rel.group, rel.where)
            for pair, rel in self._declared.items()
        }
        return (
            self.version, self._display, self._same_sets, self._same_where, self._sets_of,
            declared, self._groups, self._groups_of,
        )  # fmt: skip

    def _restore(self, snapshot: object) -> bool:
        """Take the tables from a :meth:`_snapshot` read back; ``False`` (nothing taken)
        when ``snapshot`` is ``None`` or not of that shape."""
        if not isinstance(snapshot, tuple) or len(snapshot) != 8:
            return False
        version, display, same_sets, same_where, sets_of, declared, groups, groups_of = snapshot
        if not (isinstance(version, str) and isinstance(declared, dict)):
            return False
        made: dict[tuple[str, str, str, str], _Declared] = {}
        rebuilt: dict[tuple[str, str], _Declared] = {}
        try:
            for pair, fields in declared.items():
                rel = made.get(fields)
                if rel is None:
                    rel = made[fields] = _Declared(*fields)
                rebuilt[pair] = rel
        except TypeError:
            return False
        self.version = version
        self._display, self._same_sets, self._same_where = display, same_sets, same_where
        self._sets_of, self._declared = sets_of, rebuilt
        self._groups, self._groups_of = groups, groups_of
        return True

    def _parse_files(self, texts: dict[str, str]) -> None:
        """Parse the three files' ``texts`` (section -> text) into the tables.

        Raises:
            LexiconError: a line is malformed, or the files' versions disagree.
        """
        versions: dict[str, str] = {}
        for section, name in FILES.items():
            versions[name] = self._parse(name, texts[section], section)
        distinct = set(versions.values())
        if len(distinct) != 1:
            listing = ", ".join(f"{n}: {v}" for n, v in versions.items())
            raise LexiconError(
                f"everyday lexicon files disagree on their version ({listing}); give all three "
                "the same '# version: N' line"
            )
        self.version = distinct.pop()

    # ----------------------------------------------------------------- parsing
    def _parse(self, name: str, text: str, section: str) -> str:
        version = ""
        for number, raw in enumerate(text.splitlines(), start=1):
            where = f"{name}:{number}"
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                match = _VERSION_LINE.fullmatch(line)
                if match and not version:
                    version = match.group(1)
                continue
            if section == "same":
                self._parse_same(line, where)
            elif section == "near":
                self._parse_near(line, where)
            else:
                self._parse_different(line, where)
        if not version:
            raise LexiconError(
                f"everyday lexicon file {self.folder / name} has no '# version: N' line; "
                "add one at the top (the same N in all three files)"
            )
        return version

    def _word(self, text: str, where: str) -> str:
        word = " ".join(text.split())
        key = self._keys.get(word)
        if key is not None:
            return key
        if not _WORD.fullmatch(word):
            raise LexiconError(
                f"{where}: {text.strip()!r} is not a lexicon word; write one lower-case word "
                "or compound (letters, digits, single spaces, hyphens or apostrophes), "
                "separated by ',' (or '|' in a group)"
            )
        # compound_key() of a word that passed _WORD: spaces, hyphens, apostrophes dropped
        key = word.translate(_KEY_DROP)
        known = self._display.get(key)
        if known is not None and known != word:
            raise LexiconError(
                f"{where}: {word!r} is written {known!r} elsewhere in the lexicon; write one "
                "form (spaces and hyphens do not make two words)"
            )
        self._display[key] = word
        self._keys[word] = key
        return key

    def _words(self, text: str, sep: str, where: str) -> list[str]:
        parts = text.split(sep)
        if any(not p.strip() for p in parts):
            raise LexiconError(
                f"{where}: empty word in {text.strip()!r} (a doubled or trailing '{sep}')"
            )
        keys = [self._word(p, where) for p in parts]
        if len(set(keys)) != len(keys):
            raise LexiconError(f"{where}: a word is repeated in {text.strip()!r}")
        return keys

    def _parse_same(self, line: str, where: str) -> None:
        if any(op in line for op in ("~", ">", "|", "<>")):
            raise LexiconError(
                f"{where}: same-sets are comma-separated words only; relations (~ > | <>) "
                "belong in everyday-near.txt or everyday-different.txt"
            )
        keys = self._words(line, ",", where)
        if len(keys) < 2:
            raise LexiconError(f"{where}: a same-set needs at least two words, got {line!r}")
        index = len(self._same_sets)
        self._same_sets.append(tuple(keys))
        self._same_where.append(where)
        for key in keys:
            self._sets_of.setdefault(key, []).append(index)

    def _declare(self, x: str, y: str, rel: _Declared) -> None:
        old = self._declared.get((x, y))
        if old is not None:
            raise LexiconError(
                f"{rel.where}: {self._display[x]!r} and {self._display[y]!r} are already "
                f"related at {old.where} ({old.kind}); keep one line"
            )
        self._declared[(x, y)] = rel
        self._declared[(y, x)] = rel

    def _parse_near(self, line: str, where: str) -> None:
        ops = (("=~", "derived-near"), ("=", "derived"), (">", "hyponym"), ("~", "near"))
        for op, kind in ops:
            if op in line:
                left, _, right = line.partition(op)
                if op in right or not left.strip():
                    break
                head = self._word(left, where)
                for key in self._words(right, ",", where):
                    if key == head:
                        raise LexiconError(f"{where}: {self._display[key]!r} related to itself")
                    broader = head if kind == "hyponym" else ""
                    self._declare(head, key, _Declared(kind, broader=broader, where=where))
                return
        raise LexiconError(
            f"{where}: expected 'a ~ b, c' (near), 'a > b, c' (b, c are kinds of a), "
            f"'a = b, c' or 'a =~ b, c' (derived words, same or shifted), got {line!r}"
        )

    def _parse_different(self, line: str, where: str) -> None:
        if "<>" in line:
            left, _, right = line.partition("<>")
            if "<>" in right or "|" in line or not left.strip():
                raise LexiconError(f"{where}: expected 'a <> b, c' (opposites), got {line!r}")
            head = self._word(left, where)
            for key in self._words(right, ",", where):
                if key == head:
                    raise LexiconError(f"{where}: {self._display[key]!r} opposite to itself")
                self._declare(head, key, _Declared("opposite", where=where))
            return
        if "|" in line:
            label = ""
            body = line
            if ":" in line:
                label, _, body = line.partition(":")
                label = " ".join(label.split())
                if not _WORD.fullmatch(label):
                    raise LexiconError(f"{where}: bad group label {label!r} before ':'")
            keys = self._words(body, "|", where)
            index = len(self._groups)
            self._groups.append((label, tuple(keys), where))
            for key in keys:
                self._groups_of.setdefault(key, []).append(index)
            return
        raise LexiconError(
            f"{where}: expected 'label: a | b | c' (different kinds) or 'a <> b' "
            f"(opposites), got {line!r}"
        )

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        """Number of headwords (distinct words in any of the three files)."""
        return len(self._display)

    def __repr__(self) -> str:
        return f"EverydayLexicon(version={self.version!r}, headwords={len(self)})"

    def _forms(self, word: str) -> list[str]:
        """Keys to try for ``word``: itself when a headword, else known inflection variants."""
        key = compound_key(word.strip().lower())
        if key in self._display or not key:
            return [key]
        return [key] + [v for v in _variants(key) if v in self._display]

    def knows(self, word: str) -> bool:
        """Whether ``word`` (a normalised lemma, or a plain inflection of a headword) is in
        the lexicon."""
        return any(f in self._display for f in self._forms(word))

    def same_as(self, word: str) -> frozenset[str]:
        """The words that name the same thing as ``word`` in some everyday sense (the union
        of its same-sets, without ``word`` itself); empty when it has none or is unknown."""
        out: set[str] = set()
        for form in self._forms(word):
            for index in self._sets_of.get(form, ()):
                out.update(self._display[k] for k in self._same_sets[index] if k != form)
            if out:
                break
        return frozenset(out)

    def relation(self, a: str, b: str) -> EverydayRelation | None:
        """How a table treats ``a`` and ``b``: an :class:`EverydayRelation`, or ``None``
        when the lexicon says nothing about the pair (the judge's other evidence decides).

        Symmetric: ``relation(b, a)`` has the same kind (with ``a``/``b`` swapped).

        Args:
            a, b: normalised lemmas (lower case, as :func:`kiekai.judge.lexical.lemmas`
                gives them; "human being", "black-and-white" and "black and white" are one
                word). A word that is not a headword is also tried as a simple inflection
                of one (``dogs``, ``puppies``, ``mice``, ``stair``).

        Raises:
            TypeError: ``a`` or ``b`` is not a ``str``.

        Returns:
            ``same`` when the two share a same-set; else the relation declared between the
            two words; else one declared between words of their same-sets (``opposite``
            before ``different`` before ``hyponym`` before ``near``); else ``None``. Two
            equal headwords are ``same``; a word the lexicon does not know gives ``None``
            even paired with itself.
        """
        for name, value in (("a", a), ("b", b)):
            if not isinstance(value, str):
                raise TypeError(
                    f"relation() takes two words as str; {name} is {type(value).__name__}"
                )
        a_in = " ".join(a.split()).lower()
        b_in = " ".join(b.split()).lower()
        for fa in self._forms(a_in):
            for fb in self._forms(b_in):
                found = self._between(fa, fb, a_in, b_in)
                if found is not None:
                    return found
        return None

    def _between(self, x: str, y: str, a_in: str, b_in: str) -> EverydayRelation | None:
        if x not in self._display or y not in self._display:
            return None
        if x == y or self._shared_set(x, y):
            return self._make("same", x, y, a_in, b_in)
        literal = self._declared_between(x, y)
        if literal is not None:
            return self._make(literal.kind, x, y, a_in, b_in, literal)
        best: tuple[int, str, str, _Declared] | None = None
        for x2 in self._expanded(x):
            for y2 in self._expanded(y):
                if (x2, y2) == (x, y) or x2 == y2:
                    continue
                rel = self._declared_between(x2, y2)
                if rel is not None and (best is None or _PRIORITY[rel.kind] < best[0]):
                    best = (_PRIORITY[rel.kind], x2, y2, rel)
        if best is None:
            return None
        _, x2, y2, rel = best
        return self._make(rel.kind, x2, y2, a_in, b_in, rel, via=(x, y))

    def _shared_set(self, x: str, y: str) -> bool:
        return bool(set(self._sets_of.get(x, ())) & set(self._sets_of.get(y, ())))

    def _expanded(self, key: str) -> list[str]:
        """``key`` and the heads of its same-sets: the words whose declared relations hold
        for ``key`` too."""
        out = [key]
        for index in self._sets_of.get(key, ()):
            head = self._same_sets[index][0]
            if head not in out:
                out.append(head)
        return out

    def _declared_between(self, x: str, y: str) -> _Declared | None:
        rel = self._declared.get((x, y))
        if rel is not None:
            return rel
        groups = set(self._groups_of.get(x, ())) & set(self._groups_of.get(y, ()))
        if groups:
            index = min(groups)
            label, _, where = self._groups[index]
            return _Declared("different", group=label, where=where)
        return None

    def _make(
        self,
        kind: str,
        x: str,
        y: str,
        a_in: str,
        b_in: str,
        rel: _Declared | None = None,
        via: tuple[str, str] | None = None,
    ) -> EverydayRelation:
        dx, dy = self._display.get(x, x), self._display.get(y, y)
        tag = f"everyday lexicon v{self.version}: "
        if kind == "same":
            text = (
                f"'{dx}' is the same word" if x == y else f"'{dx}' and '{dy}' name the same thing"
            )
        elif kind == "near":
            text = f"'{dx}' and '{dy}' are near in meaning, not the same thing"
        elif kind == "hyponym":
            broad, narrow = (dx, dy) if _given(rel, kind).broader == x else (dy, dx)
            text = f"a '{narrow}' is a kind of '{broad}'"
        elif kind == "derived":
            text = f"'{dx}' and '{dy}' are derived from one another and name the same thing"
        elif kind == "derived-near":
            text = f"'{dx}' and '{dy}' are derived from one another, the meaning shifted"
        elif kind == "different":
            group = _given(rel, kind).group
            what = f"different kinds of {group}" if group else "different things of one kind"
            text = f"'{dx}' and '{dy}' are {what}"
        else:
            text = f"'{dx}' and '{dy}' are opposites"
        if via is not None:
            notes = [
                f"'{self._display[v]}' = '{d}'"
                for v, d in zip(via, (dx, dy), strict=True)
                if self._display[v] != d
            ]
            text += f" ({', '.join(notes)})"
        broader = ""
        if kind == "hyponym":
            broader = dx if _given(rel, kind).broader == x else dy
        return EverydayRelation(
            kind=kind,
            a=a_in,
            b=b_in,
            evidence=tag + text,
            entry_a=dx,
            entry_b=dy,
            broader=broader,
            group=rel.group if rel is not None else "",
        )

    # ------------------------------------------------------------- inspection
    def words(self) -> Iterator[str]:
        """Every headword as written in the files, in file order."""
        return iter(self._display.values())

    def same_sets(self) -> list[tuple[str, ...]]:
        """The same-sets, one tuple of words per line of ``everyday-same.txt``."""
        return [tuple(self._display[k] for k in s) for s in self._same_sets]

    def declared(self) -> list[tuple[str, str, str, str]]:
        """Every relation written in the near and different files, one per unordered pair:
        ``(kind, a, b, "file:line")``; for ``hyponym`` ``a`` is the broader word. Groups are
        expanded to their pairs."""
        out = []
        seen = set()
        for (x, y), rel in self._declared.items():
            pair = frozenset((x, y))
            if pair in seen:
                continue
            seen.add(pair)
            if rel.kind == "hyponym" and rel.broader != x:
                x, y = y, x
            out.append((rel.kind, self._display[x], self._display[y], rel.where))
        for _label, keys, where in self._groups:
            for i, x in enumerate(keys):
                for y in keys[i + 1 :]:
                    out.append(("different", self._display[x], self._display[y], where))
        return out

    def groups(self) -> list[tuple[str, tuple[str, ...]]]:
        """The co-hyponym groups: ``(label, words)`` per line, label ``""`` when none."""
        return [(label, tuple(self._display[k] for k in keys)) for label, keys, _ in self._groups]

    def counts(self) -> dict[str, int]:
        """Sizes: headwords, same-sets, and unordered word pairs per kind as written (same
        pairs within sets; groups expanded to pairs; before expansion through same-sets)."""
        same_pairs = {
            frozenset((x, y)) for s in self._same_sets for i, x in enumerate(s) for y in s[i + 1 :]
        }
        out = {"headwords": len(self), "same-sets": len(self._same_sets), "same": len(same_pairs)}
        kinds = dict.fromkeys(
            ("near", "hyponym", "derived", "derived-near", "different", "opposite"), 0
        )
        for kind, *_ in self.declared():
            kinds[kind] += 1
        out.update(kinds)
        out["different-groups"] = len(self._groups)
        return out


_ACCEPT = frozenset({"near", "hyponym", "derived", "derived-near"})
_REJECT = frozenset({"different", "opposite"})


def consistency_problems(lexicon: EverydayLexicon) -> list[str]:
    """Contradictions and redundancies in the lexicon's files, one sentence each; ``[]``
    when there are none (``tests/test_everyday_lexicon.py`` requires that).

    Checks, for the relations as written and as they reach the words of a head's same-sets
    (the way :meth:`EverydayLexicon.relation` reads them):

    - a pair declared near/hyponym/different/opposite whose words share a same-set;
    - a pair declared both accepted (near, hyponym) and rejected (different, opposite),
      e.g. near in one file and in a co-hyponym group in the other;
    - a pair that no line names directly but that is reached through same-set heads with
      both an accepted and a rejected kind, or with a rejected kind although the two words
      share a same-set;
    - a same-set contained in another one (the smaller line adds nothing), and two equal
      same-sets.
    """
    literal, where = _literal_pairs(lexicon)
    return [
        *_literal_problems(lexicon, literal, where),
        *_reached_problems(lexicon, _reached_pairs(lexicon, literal)),
        *_same_set_problems(lexicon),
    ]


def _literal_pairs(
    lexicon: EverydayLexicon,
) -> tuple[dict[frozenset[str], set[str]], dict[frozenset[str], list[str]]]:
    """The pairs the files name directly: pair -> its declared kinds (a co-hyponym group's
    pairs as ``different``), and pair -> the places that declare it."""
    literal: dict[frozenset[str], set[str]] = {}
    where: dict[frozenset[str], list[str]] = {}
    for (x, y), rel in lexicon._declared.items():
        if x < y:
            literal.setdefault(frozenset((x, y)), set()).add(rel.kind)
            where.setdefault(frozenset((x, y)), []).append(rel.where)
    for _label, keys, at in lexicon._groups:
        for i, x in enumerate(keys):
            for y in keys[i + 1 :]:
                literal.setdefault(frozenset((x, y)), set()).add("different")
                where.setdefault(frozenset((x, y)), []).append(at)
    return literal, where


def _literal_problems(
    lexicon: EverydayLexicon,
    literal: dict[frozenset[str], set[str]],
    where: dict[frozenset[str], list[str]],
) -> list[str]:
    """Directly named pairs whose words share a same-set, or declared both accepted and
    rejected."""
    disp = lexicon._display
    problems: list[str] = []
    for pair, kinds in literal.items():
        x, y = sorted(pair)
        places = ", ".join(sorted(set(where[pair])))
        if lexicon._shared_set(x, y):
            problems.append(
                f"'{disp[x]}' and '{disp[y]}' share a same-set but are declared "
                f"{'/'.join(sorted(kinds))} ({places})"
            )
        if kinds & _ACCEPT and kinds & _REJECT:
            problems.append(
                f"'{disp[x]}' and '{disp[y]}' are declared both {'/'.join(sorted(kinds))} ({places})"
            )
    return problems


def _reached_pairs(
    lexicon: EverydayLexicon, literal: dict[frozenset[str], set[str]]
) -> dict[frozenset[str], set[str]]:
    """Pairs no line names but that a named pair reaches through the same-sets its words
    head: pair -> the kinds that reach it."""
    members: dict[str, set[str]] = {}
    for keys in lexicon._same_sets:
        members.setdefault(keys[0], set()).update(keys)
    reached: dict[frozenset[str], set[str]] = {}
    for pair, kinds in literal.items():
        p, q = tuple(pair)
        for x in members.get(p, {p}) | {p}:
            for y in members.get(q, {q}) | {q}:
                key = frozenset((x, y))
                if x != y and key not in literal:
                    reached.setdefault(key, set()).update(kinds)
    return reached


def _reached_problems(
    lexicon: EverydayLexicon, reached: dict[frozenset[str], set[str]]
) -> list[str]:
    """Reached pairs with both an accepted and a rejected kind, or with a rejected kind
    although their words share a same-set."""
    disp = lexicon._display
    problems: list[str] = []
    for pair, kinds in reached.items():
        x, y = sorted(pair)
        if kinds & _ACCEPT and kinds & _REJECT:
            problems.append(
                f"'{disp[x]}' and '{disp[y]}' are reached through same-set heads as "
                f"{'/'.join(sorted(kinds))}; declare the pair directly or move a word"
            )
        elif kinds & _REJECT and lexicon._shared_set(x, y):
            problems.append(
                f"'{disp[x]}' and '{disp[y]}' share a same-set but are reached through "
                f"same-set heads as {'/'.join(sorted(kinds))}"
            )
    return problems


def _same_set_problems(lexicon: EverydayLexicon) -> list[str]:
    """Same-sets equal to an earlier one or contained in another one."""
    problems: list[str] = []
    sets = [frozenset(s) for s in lexicon._same_sets]
    by_word: dict[str, list[int]] = lexicon._sets_of
    for i, s in enumerate(sets):
        candidates = set.intersection(*(set(by_word[k]) for k in s)) - {i}
        for j in sorted(candidates):
            if sets[j] == s and j < i:
                problems.append(
                    f"{lexicon._same_where[i]} repeats the same-set of {lexicon._same_where[j]}"
                )
            elif sets[j] > s:
                problems.append(
                    f"{lexicon._same_where[i]} is contained in {lexicon._same_where[j]}; "
                    "drop the smaller line"
                )
    return problems


def _variants(key: str) -> list[str]:
    """Simple singular and plural candidates of an unknown word key, most likely first."""
    out = []
    if key.endswith("'s"):
        key = key[:-2]
        out.append(key)
    if key in _IRREGULAR:
        out.append(_IRREGULAR[key])
    if key.endswith("ies") and len(key) > 4:
        out.append(key[:-3] + "y")
    if key.endswith("ves") and len(key) > 4:
        out += [key[:-3] + "f", key[:-3] + "fe"]
    if key.endswith("es") and key[-3:-2] in ("s", "x", "z", "o", "h"):
        out.append(key[:-2])
    if key.endswith("s") and not key.endswith(("ss", "us", "is")) and len(key) > 2:
        out.append(key[:-1])
    out.append(key + "s")
    return out


#: The layout of the parsed tables that :func:`write_parsed` keeps (part of the key: a
#: change to :meth:`EverydayLexicon._snapshot` must change it, so that no process reads
#: tables of another layout).
PARSED_LAYOUT = 1


def _parsed_key(texts: dict[str, str]) -> str:
    """The name of the parsed tables of these file ``texts`` (section -> text): a SHA-256
    of the layout and the three texts, so that any change to a file parses it again."""
    digest = hashlib.sha256(f"everyday-lexicon layout {PARSED_LAYOUT}".encode())
    for section in sorted(texts):
        for part in (section, texts[section]):
            data = part.encode("utf-8")
            digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()[:32]


def read_parsed(folder: Path, key: str) -> object | None:
    """The parsed tables stored under ``key`` in ``folder`` by :func:`write_parsed`, or
    ``None`` when there are none or they cannot be read (the caller parses the files)."""
    try:
        found: object = marshal.loads((folder / f"{key}.marshal").read_bytes())
        return found
    except (OSError, ValueError, EOFError, TypeError):
        return None


def write_parsed(folder: Path, key: str, snapshot: tuple[object, ...]) -> None:
    """Keep ``snapshot`` (built-in values only) under ``key`` in ``folder`` for later
    processes, written whole or not at all (:func:`kiekai.files.replacing`: a process
    reading at the same time finds the old state or the new one). A folder that
    cannot be written is left alone: the next process parses the files again."""
    try:
        data = marshal.dumps(snapshot)  # type: ignore[arg-type]
        folder.mkdir(parents=True, exist_ok=True)
        with replacing(folder / f"{key}.marshal") as out:
            out.write(data)
    except (OSError, ValueError):
        return


def parsed_cache_dir() -> Path | None:
    """Where :func:`everyday_lexicon` keeps the parsed lexicon: ``everyday-lexicon/`` in
    kiekai's cache folder (:func:`kiekai.models.common.cache_dir`), or ``None`` when that
    folder cannot be made (the lexicon is parsed each time)."""
    from kiekai.models.common import ModelUnavailable, cache_dir

    try:
        return cache_dir() / "everyday-lexicon"
    except ModelUnavailable:
        return None


_CACHE: dict[Path, EverydayLexicon] = {}
_CACHE_LOCK = threading.Lock()


def everyday_lexicon() -> EverydayLexicon:
    """The everyday lexicon from :func:`kiekai.paths.data_dir`, read once per process;
    parsed once per version of the files, the tables kept in :func:`parsed_cache_dir` for
    later processes (reading them back takes about a third of the parse, which is a tenth
    of a cold ``kiekai judge``).

    Raises:
        LexiconError: a file is missing or malformed (see :class:`EverydayLexicon`).
    """
    folder = paths.data_dir()
    with _CACHE_LOCK:
        lexicon = _CACHE.get(folder)
        if lexicon is None:
            lexicon = EverydayLexicon(folder, parsed_cache=parsed_cache_dir())
            _CACHE[folder] = lexicon
        return lexicon


def main() -> None:  # pragma: no cover - a reporting command
    """Print the lexicon's version, sizes and reading time (``python -m kiekai.judge.everyday``)."""
    start, cpu = time.perf_counter(), time.process_time()
    lexicon = EverydayLexicon()
    elapsed = (time.perf_counter() - start) * 1000
    cpu = (time.process_time() - cpu) * 1000
    print(
        f"everyday lexicon v{lexicon.version} from {lexicon.folder}: read in {elapsed:.1f} ms "
        f"({cpu:.1f} ms of CPU time)"
    )
    for name, count in lexicon.counts().items():
        print(f"  {name:17s} {count:6d}")


if __name__ == "__main__":  # pragma: no cover
    main()
