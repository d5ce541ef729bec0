"""A table's own rulings ("house rules"), applied before the judge's model.

The rulebook ("Imperfect Guesses") leaves it to each group of players to decide which guess
is correct. A table that overrules the judge once ("for us, *sofa* and *couch* are the same")
should not have to do it again next game: its rulings are kept in a small tab-separated file
and looked up before any model.

File format (UTF-8, a byte-order mark allowed; one ruling a line, ``#`` starts a comment
line, blank lines ignored; cells are tab-separated and may be quoted as in CSV, with ``"``)::

    # secret<TAB>guess<TAB>accepted<TAB>level<TAB>ruled_by<TAB>ruled_at
    secret	guess	accepted	level	ruled_by	ruled_at
    sofa	couch	yes	standard	Ann	2026-12-02T17:00:00+00:00
    pets	dogs	no	*
    "#hashtag"	tag	yes	lenient

- ``secret`` and ``guess``: the two words as written; they are compared after the judge's
  surface normalisation (:func:`kiekai.judge.normalize.normalise`: case, diacritics,
  articles, spaces), so ``The Sofa`` and ``sofa`` are the same key. A ruling holds in both
  directions (a table that says *couch* matches *sofa* also accepts *sofa* for *couch*),
  unless a ruling for the exact order exists, which wins.
- ``accepted``: ``yes``/``no`` (also ``1``/``0``, ``true``/``false``, ``accepted``/
  ``rejected``), case-insensitive.
- ``level``: ``strict``, ``standard``, ``lenient`` or ``*`` (every level). A ruling made at a
  level applies at that level only: a table playing strict has its own conventions.
- ``ruled_by`` (optional): who made the ruling (a player's name, an API client's note);
  ``ruled_at`` (optional): when, as ISO 8601. Files with 3 or 4 cells (written before these
  columns existed) still read.
- The header line is optional. A later line for the same key replaces an earlier one (the
  file is append-only in play: the newest ruling wins).
- A last line cut short (no line break after it, as when a program stopped mid-write) that
  does not parse is skipped with a warning naming the line; the lines before it load. A
  malformed line anywhere else is an error.
- Writing (:meth:`HouseRules.add`, :func:`dump`) uses the :mod:`csv` module's quoting: a cell
  holding a quote is quoted, and a first cell starting with ``#`` is quoted so that it is not
  read back as a comment.

The rulings of every table also live in a store (:mod:`kiekai.judge.store`); this file
format is its import and export.

The same rulings serve ``match`` and ``is_repeat`` (ne bis in idem applies the same
equivalence as a guess: rulebook, "Ne Bis in Idem").
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
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
_FULL_HEADER = (*_HEADER, "ruled_by", "ruled_at")
#: Longest ``ruled_by`` kept, in characters (a name or a short note).
MAX_RULED_BY_CHARS = 80
#: The table a request or a game uses when it names none (:mod:`kiekai.judge.store`).
DEFAULT_TABLE = "default"
#: A table's name: 1 to 64 characters, lowercase letters, digits, ``-`` and ``_``, starting
#: with a letter or digit.
TABLE_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
#: Most rulings one table of the store keeps (a table makes a handful per game).
MAX_TABLE_RULINGS = 10_000

#: Largest house-rules file read, in bytes (a table's rulings are a few hundred lines; this
#: bound keeps a wrong path such as /dev/zero from filling memory).
MAX_FILE_BYTES = 4 * 1024 * 1024


class HouseRulesError(ValueError):
    """A house-rules file or ruling is malformed; the message names the file, line and fix."""


class HouseRulesWarning(UserWarning):
    """A house-rules file was read with a line left out (a torn last line); the message
    names the file and the line."""


@dataclass(frozen=True)
class HouseRuling:
    """One ruling of a table.

    Attributes:
        secret: the active player's word, as written.
        guess: the guess (or, for ne bis in idem, the candidate word), as written.
        accepted: True when the table counts ``guess`` as a match of ``secret``.
        level: ``"strict"``, ``"standard"``, ``"lenient"`` or ``"*"`` (every level).
        ruled_by: who made the ruling (a player's name), or None when not recorded.
        ruled_at: when it was made (timezone-aware), or None when not recorded.
        source: where the ruling was read from, as the judge names it in a reason (e.g.
            ``"house rule of table 'cafe'"``); None for the holder's own name. Not compared.
    """

    secret: str
    guess: str
    accepted: bool
    level: str = "standard"
    ruled_by: str | None = None
    ruled_at: datetime | None = None
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.level not in (*LEVELS, ANY_LEVEL):
            raise HouseRulesError(
                f"unknown level {self.level!r} in a house ruling; use one of "
                f"{', '.join(LEVELS)} or {ANY_LEVEL!r} for every level"
            )
        for name, value in (("secret", self.secret), ("guess", self.guess)):
            if not isinstance(value, str) or not normalise(value):
                raise HouseRulesError(f"a house ruling needs a word as {name}, got {value!r}")
        if self.ruled_by is not None and len(self.ruled_by) > MAX_RULED_BY_CHARS:
            raise HouseRulesError(
                f"ruled_by has {len(self.ruled_by)} characters; keep it to "
                f"{MAX_RULED_BY_CHARS} (a name or a short note)"
            )

    @property
    def key(self) -> tuple[str, str]:
        """``(normalised secret, normalised guess)``."""
        return normalise(self.secret), normalise(self.guess)

    def to_line(self) -> str:
        """The ruling as one line of the file format (no newline); the csv module quotes
        cells that need it, and a first cell starting with ``#`` (which would read as a
        comment)."""
        flag = "yes" if self.accepted else "no"
        cells = [_cell(self.secret), _cell(self.guess), flag, self.level]
        if self.ruled_by is not None or self.ruled_at is not None:
            cells.append(_cell(self.ruled_by or ""))
        if self.ruled_at is not None:
            cells.append(self.ruled_at.isoformat())
        return _tsv_line(cells)


class _Tsv(csv.excel_tab):
    """Tab-separated cells, ``"``-quoted where needed, ``\n`` line ends."""

    lineterminator = "\n"


def _tsv_line(cells: list[str]) -> str:
    """``cells`` as one tab-separated line (no newline), quoted by the csv module; the first
    cell is always quoted when it starts with ``#``, so the line is never a comment."""

    def write(row: list[str], quoting: int) -> str:
        out = io.StringIO()
        csv.writer(out, dialect=_Tsv, quoting=quoting).writerow(row)  # type: ignore[arg-type]
        return out.getvalue().removesuffix("\n")

    if cells and cells[0].lstrip().startswith("#"):
        return write(cells[:1], csv.QUOTE_ALL) + "\t" + write(cells[1:], csv.QUOTE_MINIMAL)
    return write(cells, csv.QUOTE_MINIMAL)


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
        label: how the judge names these rulings in a reason (default: ``"house rule
            (<file name>)"`` with a ``path``, else ``"house rule"``); a ruling's own
            ``source`` wins.
        fallback: rulings looked up when these have none for a pair (a request's rulings
            in front of a table's: :meth:`lookup` asks this set first, then ``fallback``).

    Example::

        rules = HouseRules.load("house-rules.tsv")
        ruling = rules.lookup("sofa", "couch", "standard")   # HouseRuling or None
    """

    def __init__(
        self,
        rulings: Iterable[HouseRuling] = (),
        path: str | os.PathLike[str] | None = None,
        *,
        label: str | None = None,
        fallback: HouseRules | None = None,
    ):
        self.path = Path(path) if path is not None else None
        self.label = label
        self.fallback = fallback
        self._by_key: dict[tuple[str, str, str], HouseRuling] = {}
        for ruling in rulings:
            self._put(ruling)

    @property
    def where(self) -> str:
        """How the judge names a ruling of this set in a reason (``"house rule
        (house-rules.tsv)"``)."""
        if self.label is not None:
            return self.label
        return f"house rule ({self.path.name})" if self.path else "house rule"

    def _put(self, ruling: HouseRuling) -> None:
        secret, guess = ruling.key
        self._by_key[(secret, guess, ruling.level)] = ruling

    def __len__(self) -> int:
        return len(self._by_key) + (len(self.fallback) if self.fallback is not None else 0)

    def __iter__(self) -> Iterator[HouseRuling]:
        own = list(self._by_key.values())
        return iter(own + (list(self.fallback) if self.fallback is not None else []))

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return f"HouseRules({len(self)} rulings{where})"

    def lookup(self, secret: str, guess: str, level: str) -> HouseRuling | None:
        """The ruling that decides ``guess`` for ``secret`` at ``level``, or None.

        Order: the exact order at ``level``, then at ``*``; then the reversed order at
        ``level``, then at ``*``; then the same in ``fallback``. Text that normalises to
        nothing has no ruling.
        """
        a, b = normalise(secret), normalise(guess)
        if not a or not b:
            return None
        for key in ((a, b, level), (a, b, ANY_LEVEL), (b, a, level), (b, a, ANY_LEVEL)):
            found = self._by_key.get(key)
            if found is not None:
                return found
        if self.fallback is not None:
            found = self.fallback.lookup(secret, guess, level)
            if found is not None and found.source is None:
                found = replace(found, source=self.fallback.where)
            return found
        return None

    def ruled_by(self, ruling: HouseRuling) -> str | None:
        """The name of the person who made ``ruling`` (as this set holds it: given to
        :meth:`add`, or read from the file's ``ruled_by`` column), or ``None`` when it was
        not named."""
        held = self._by_key.get(ruling.key + (ruling.level,))
        return held.ruled_by if held is not None else ruling.ruled_by

    def add(self, ruling: HouseRuling, *, ruled_by: str | None = None) -> None:
        """Record ``ruling`` (replacing one with the same key and level) and, when this set
        has a ``path``, append it to that file at once (created with a header if missing).

        Args:
            ruling: the table's ruling.
            ruled_by: the name of the person who made it (every ruling names who
                ruled); it replaces ``ruling.ruled_by``, is kept with the ruling
                (:meth:`ruled_by`) and written in the file's ``ruled_by`` column.

        Raises:
            OSError: the file cannot be written (the ruling is still kept in memory).
        """
        who = _cell(ruled_by)[:MAX_RULED_BY_CHARS] if ruled_by else ""
        if who:
            ruling = replace(ruling, ruled_by=who)
        self._put(ruling)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "a", encoding="utf-8", newline="\n") as fh:
            if new:
                fh.write(_FILE_COMMENT)
                fh.write("\t".join(_FULL_HEADER) + "\n")
            fh.write(ruling.to_line() + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        missing_ok: bool = False,
        warn: Callable[[str], None] | None = None,
    ) -> HouseRules:
        """Read a house-rules file (format in the module docstring).

        Args:
            path: the file.
            missing_ok: when True a missing file gives an empty set that will be created on
                the first :meth:`add` (the game's default file); when False it is an error.
            warn: called with one sentence for a line left out (a torn last line); default:
                :func:`warnings.warn` with :class:`HouseRulesWarning`.

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
        return cls(parse_text(read_text(p), source=str(p), warn=warn), path=p)


_FILE_COMMENT = (
    "# kiekai house rules: secret, guess, accepted (yes/no), level, ruled_by, ruled_at\n"
)


def read_text(path: Path) -> str:
    """The text of a house-rules file (UTF-8, a leading byte-order mark dropped).

    Raises:
        HouseRulesError: not a regular file, unreadable, over :data:`MAX_FILE_BYTES`, or not
            UTF-8; the message names the file and the fix.
    """
    p = path
    try:  # regular files only, opened without blocking (kiekai.files)
        return read_regular_bytes(p, MAX_FILE_BYTES).decode("utf-8-sig")
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


def parse_text(
    text: str, *, source: str = "house rules", warn: Callable[[str], None] | None = None
) -> list[HouseRuling]:
    """Parse the whole text of a house-rules file (a byte-order mark allowed). A last line
    with no line break after it that does not parse (torn: the writer stopped mid-line) is
    left out with a warning naming it (``warn``, default :func:`warnings.warn` with
    :class:`HouseRulesWarning`); the rest loads.

    Raises:
        HouseRulesError: ``"<source>, line N: ..."`` for the first malformed line (other
            than a torn last line).
    """
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    torn = bool(lines) and not text.endswith(("\n", "\r"))
    if not torn:
        return parse_lines(lines, source=source)
    head = parse_lines(lines[:-1], source=source)
    try:
        last = parse_lines([lines[-1]], source=source, first_number=len(lines))
    except HouseRulesError as exc:
        message = f"{exc}; that line is left out: it is the last line and cut short (no line break after it)"
        if warn is not None:
            warn(message)
        else:
            warnings.warn(message, HouseRulesWarning, stacklevel=2)
        return head
    return head + last


def _split(line: str) -> list[str]:
    """One line's cells (csv quoting, tab-separated), stripped."""
    return [c.strip() for c in next(csv.reader([line], dialect=_Tsv))]


def _ruled_at(text: str) -> datetime | None:
    """A ``ruled_at`` cell as a datetime (None when empty).

    Raises:
        HouseRulesError: not ISO 8601.
    """
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise HouseRulesError(
            f"ruled_at must be an ISO 8601 time such as 2026-12-02T17:00:00+00:00, got {text!r}"
        ) from None


def parse_lines(
    lines: Iterable[str], *, source: str = "house rules", first_number: int = 1
) -> list[HouseRuling]:
    """Parse house-rules lines (format in the module docstring) into rulings.

    Args:
        lines: the lines, without or with their line breaks.
        source: the file's name in messages.
        first_number: the line number of the first line (in messages).

    Raises:
        HouseRulesError: ``"<source>, line N: ..."`` for the first malformed line.
    """
    rulings: list[HouseRuling] = []
    for number, raw in enumerate(lines, start=first_number):
        line = raw.rstrip("\r\n").removeprefix("\ufeff")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            cells = _split(line)
        except csv.Error as exc:
            raise HouseRulesError(f"{source}, line {number}: unreadable quoting ({exc})") from None
        if tuple(c.casefold() for c in cells[:4]) == _HEADER:
            continue
        if not 3 <= len(cells) <= 6:
            raise HouseRulesError(
                f"{source}, line {number}: expected 3 to 6 tab-separated cells "
                f"(secret, guess, accepted, level, ruled_by, ruled_at), got {len(cells)}: "
                f"{line[:80]!r}"
            )
        cells += [""] * (6 - len(cells))
        level = (cells[3] or "standard").casefold()
        try:
            rulings.append(
                HouseRuling(
                    cells[0],
                    cells[1],
                    parse_accepted(cells[2]),
                    level,
                    ruled_by=cells[4] or None,
                    ruled_at=_ruled_at(cells[5]),
                )
            )
        except HouseRulesError as exc:
            raise HouseRulesError(f"{source}, line {number}: {exc}") from None
    return rulings


def dump(rulings: Iterable[HouseRuling]) -> str:
    """``rulings`` as the text of a house-rules file (comment, header, one line each), for
    export (``kiekai`` reads it back with :meth:`HouseRules.load`)."""
    lines = [_FILE_COMMENT.rstrip("\n"), "\t".join(_FULL_HEADER)]
    lines += [ruling.to_line() for ruling in rulings]
    return "\n".join(lines) + "\n"


def default_path() -> Path:
    """The table's house-rules file used by ``kiekai play`` before the store: ``<user data
    dir>/house-rules.tsv`` (platformdirs; Linux: ``~/.local/share/kiekai/house-rules.tsv``),
    imported once into the store's default table (:mod:`kiekai.judge.store`)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("kiekai")) / "house-rules.tsv"
