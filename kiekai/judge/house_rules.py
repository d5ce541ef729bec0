"""A table's own rulings ("house rules"), applied before the judge's model.

The rulebook ("Imperfect Guesses") leaves it to each group of players to decide which guess
is correct. A table that overrules the judge once ("for us, *sofa* and *couch* are the same")
should not have to do it again next game: its rulings are kept in a small tab-separated file
and looked up before any model.

File format (UTF-8, one ruling a line, ``#`` starts a comment line, blank lines ignored)::

    # secret<TAB>guess<TAB>accepted<TAB>level
    secret	guess	accepted	level
    sofa	couch	yes	standard
    pets	dogs	no	*

- ``secret`` and ``guess``: the two words as written; they are compared after the judge's
  surface normalisation (:func:`kiekai.judge.normalize.normalise`: case, diacritics,
  articles, spaces), so ``The Sofa`` and ``sofa`` are the same key. A ruling holds in both
  directions (a table that says *couch* matches *sofa* also accepts *sofa* for *couch*),
  unless a ruling for the exact order exists, which wins.
- ``accepted``: ``yes``/``no`` (also ``1``/``0``, ``true``/``false``, ``accepted``/
  ``rejected``), case-insensitive.
- ``level``: ``strict``, ``standard``, ``lenient`` or ``*`` (every level). A ruling made at a
  level applies at that level only: a table playing strict has its own conventions.
- The header line is optional. A later line for the same key replaces an earlier one (the
  file is append-only in play: the newest ruling wins).

The same rulings serve ``match`` and ``is_repeat`` (ne bis in idem applies the same
equivalence as a guess: rulebook, "Ne Bis in Idem").
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kiekai.files import FileRefusedError, read_regular_bytes
from kiekai.judge.normalize import normalise
from kiekai.judge.verdict import Strictness

#: The judge's strictness levels, plus ``*`` for a ruling that holds at every level.
LEVELS = tuple(level.value for level in Strictness)
ANY_LEVEL = "*"

_TRUE = frozenset({"yes", "y", "1", "true", "accepted", "accept"})
_FALSE = frozenset({"no", "n", "0", "false", "rejected", "reject"})
_HEADER = ("secret", "guess", "accepted", "level")

#: Largest house-rules file read, in bytes (a table's rulings are a few hundred lines; this
#: bound keeps a wrong path such as /dev/zero from filling memory).
MAX_FILE_BYTES = 4 * 1024 * 1024


class HouseRulesError(ValueError):
    """A house-rules file or ruling is malformed; the message names the file, line and fix."""


@dataclass(frozen=True)
class HouseRuling:
    """One ruling of a table.

    Attributes:
        secret: the active player's word, as written.
        guess: the guess (or, for ne bis in idem, the candidate word), as written.
        accepted: True when the table counts ``guess`` as a match of ``secret``.
        level: ``"strict"``, ``"standard"``, ``"lenient"`` or ``"*"`` (every level).
    """

    secret: str
    guess: str
    accepted: bool
    level: str = "standard"

    def __post_init__(self) -> None:
        if self.level not in (*LEVELS, ANY_LEVEL):
            raise HouseRulesError(
                f"unknown level {self.level!r} in a house ruling; use one of "
                f"{', '.join(LEVELS)} or {ANY_LEVEL!r} for every level"
            )
        for field, value in (("secret", self.secret), ("guess", self.guess)):
            if not isinstance(value, str) or not normalise(value):
                raise HouseRulesError(f"a house ruling needs a word as {field}, got {value!r}")

    @property
    def key(self) -> tuple[str, str]:
        """``(normalised secret, normalised guess)``."""
        return normalise(self.secret), normalise(self.guess)

    def to_line(self) -> str:
        """The ruling as one line of the file format (no newline)."""
        flag = "yes" if self.accepted else "no"
        return "\t".join((_cell(self.secret), _cell(self.guess), flag, self.level))


def _cell(text: str) -> str:
    """``text`` with tabs and line breaks turned into spaces, so it stays one cell."""
    return " ".join(text.replace("\t", " ").splitlines()).strip()


def parse_accepted(value: str) -> bool:
    """Read an ``accepted`` cell (``yes``/``no``, ``1``/``0``, ``true``/``false``).

    Raises:
        HouseRulesError: any other text.
    """
    v = value.strip().casefold()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise HouseRulesError(f"accepted must be yes or no, got {value!r}")


class HouseRules:
    """A table's rulings, looked up by ``(secret, guess, level)``.

    Args:
        rulings: initial rulings (later ones replace earlier ones with the same key and level).
        path: the file rulings are saved to by :meth:`add` (None: kept in memory only).

    Example::

        rules = HouseRules.load("house-rules.tsv")
        ruling = rules.lookup("sofa", "couch", "standard")   # HouseRuling or None
    """

    def __init__(self, rulings: Iterable[HouseRuling] = (), path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else None
        self._by_key: dict[tuple[str, str, str], HouseRuling] = {}
        self._ruled_by: dict[tuple[str, str, str], str] = {}
        for ruling in rulings:
            self._put(ruling)

    def _put(self, ruling: HouseRuling) -> None:
        secret, guess = ruling.key
        self._by_key[(secret, guess, ruling.level)] = ruling

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[HouseRuling]:
        return iter(list(self._by_key.values()))

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return f"HouseRules({len(self)} rulings{where})"

    def lookup(self, secret: str, guess: str, level: str) -> HouseRuling | None:
        """The ruling that decides ``guess`` for ``secret`` at ``level``, or None.

        Order: the exact order at ``level``, then at ``*``; then the reversed order at
        ``level``, then at ``*``. Text that normalises to nothing has no ruling.
        """
        a, b = normalise(secret), normalise(guess)
        if not a or not b:
            return None
        for key in ((a, b, level), (a, b, ANY_LEVEL), (b, a, level), (b, a, ANY_LEVEL)):
            found = self._by_key.get(key)
            if found is not None:
                return found
        return None

    def ruled_by(self, ruling: HouseRuling) -> str | None:
        """The name of the person who made ``ruling`` in this session (given to
        :meth:`add`), or ``None`` when it was not named (e.g. read from a file)."""
        return self._ruled_by.get(ruling.key + (ruling.level,))

    def add(self, ruling: HouseRuling, *, ruled_by: str | None = None) -> None:
        """Record ``ruling`` (replacing one with the same key and level) and, when this set
        has a ``path``, append it to that file at once (created with a header if missing).

        Args:
            ruling: the table's ruling.
            ruled_by: the name of the person who made it (issue 21: every ruling names who
                ruled), kept with the ruling (:meth:`ruled_by`) and written to the file as a
                ``# ruled by NAME`` comment line just above it (a comment, so every reader
                of the four-column format still reads the file).

        Raises:
            OSError: the file cannot be written (the ruling is still kept in memory).
        """
        self._put(ruling)
        who = _cell(ruled_by) if ruled_by else ""
        if who:
            self._ruled_by[ruling.key + (ruling.level,)] = who
        else:
            self._ruled_by.pop(ruling.key + (ruling.level,), None)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "a", encoding="utf-8", newline="\n") as fh:
            if new:
                fh.write("# kiekai house rules: secret, guess, accepted (yes/no), level\n")
                fh.write("\t".join(_HEADER) + "\n")
            if who:
                fh.write(f"# ruled by {who}\n")
            fh.write(ruling.to_line() + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    @classmethod
    def load(cls, path: str | os.PathLike, *, missing_ok: bool = False) -> HouseRules:
        """Read a house-rules file (format in the module docstring).

        Args:
            path: the file.
            missing_ok: when True a missing file gives an empty set that will be created on
                the first :meth:`add` (the game's default file); when False it is an error.

        Raises:
            HouseRulesError: the path is not a regular file, cannot be read (permission), is
                larger than :data:`MAX_FILE_BYTES`, is not UTF-8, or a line is malformed; the message
                names the file, the line number and what to write instead.
        """
        p = Path(path)
        if not p.exists():
            if missing_ok:
                return cls(path=p)
            raise HouseRulesError(
                f"house rules file {str(p)!r} does not exist; create it with lines "
                "'secret<TAB>guess<TAB>yes|no<TAB>level' or leave out --house-rules"
            )
        try:  # regular files only, opened without blocking (kiekai.files)
            text = read_regular_bytes(p, MAX_FILE_BYTES).decode("utf-8")
        except FileRefusedError as exc:
            if exc.reason.startswith("not a regular file"):
                raise HouseRulesError(
                    f"house rules {str(p)!r} is not a regular file; give a .tsv file"
                ) from None
            raise HouseRulesError(
                f"house rules file {str(p)!r} is larger than {MAX_FILE_BYTES} bytes; "
                "a table's rulings fit in far less: check the path"
            ) from None
        except OSError as exc:  # permission denied, a link that loops
            raise HouseRulesError(
                f"house rules file {str(p)!r} cannot be read ({exc.strerror or exc}); make it "
                "readable or pass --house-rules with another file"
            ) from None
        except UnicodeDecodeError as exc:
            raise HouseRulesError(
                f"house rules file {str(p)!r} is not UTF-8 text (byte {exc.start}); save it as UTF-8"
            ) from None
        return cls(parse_lines(text.splitlines(), source=str(p)), path=p)


def parse_lines(lines: Iterable[str], *, source: str = "house rules") -> list[HouseRuling]:
    """Parse house-rules lines (format in the module docstring) into rulings.

    Raises:
        HouseRulesError: ``"<source>, line N: ..."`` for the first malformed line.
    """
    rulings: list[HouseRuling] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split("\t")]
        if tuple(c.casefold() for c in cells[:4]) == _HEADER:
            continue
        if len(cells) not in (3, 4):
            raise HouseRulesError(
                f"{source}, line {number}: expected 3 or 4 tab-separated cells "
                f"(secret, guess, accepted, level), got {len(cells)}: {line[:80]!r}"
            )
        level = (cells[3] if len(cells) == 4 and cells[3] else "standard").casefold()
        try:
            rulings.append(HouseRuling(cells[0], cells[1], parse_accepted(cells[2]), level))
        except HouseRulesError as exc:
            raise HouseRulesError(f"{source}, line {number}: {exc}") from None
    return rulings


def default_path() -> Path:
    """The table's house-rules file used by ``kiekai play``: ``<user data dir>/house-rules.tsv``
    (platformdirs; Linux: ``~/.local/share/kiekai/house-rules.tsv``)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("kiekai")) / "house-rules.tsv"
