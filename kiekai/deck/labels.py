"""Reading a deck's optional ``labels.csv``, which names each photo's content.

``labels.csv`` (UTF-8) in the deck folder::

    file,wnid,label,wordnet_lemmas
    photos/n01440764.jpg,n01440764,tench,tench;Tinca_tinca

``file`` is a path relative to the deck folder; ``label`` (a human word or phrase) and/or
``wnid`` (a WordNet 3.0 noun synset id, ``n`` + 8 digits) must be present; other columns are
kept in :attr:`~kiekai.deck.model.Card.extra`.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kiekai.deck.model import DeckError, OnProblem, warn_problem
from kiekai.files import FileRefusedError, read_regular_bytes

LABELS_FILE = "labels.csv"
_WNID_RE = re.compile(r"^n\d{8}$")
#: A Windows drive path (``C:\\photos`` or ``d:/x``) in labels.csv: absolute, so outside the deck.
_DRIVE_RE = re.compile(r"^[A-Za-z]:/")


#: Largest labels.csv read, in bytes (64 MiB: about half a million rows).
MAX_LABELS_BYTES: int = 64 * 1024 * 1024


#: Longest label kept, in characters. A label is "a human word or phrase" shown as the card's
#: name and written into the game log's header and deal; ImageNet's longest class names are
#: under 100 characters. Without a bound, labels of 100,000 characters made a log whose
#: first lines are too long to replay (:data:`kiekai.events.MAX_LINE_BYTES`).
MAX_LABEL_CHARS: int = 200

#: ``known_wnid(wnid) -> bool``: whether a well-formed wnid names a WordNet 3.0 noun synset.
KnownWnid = Callable[[str], bool]


@dataclass(frozen=True)
class _LabelRow:
    line: int
    label: str | None
    wnid: str | None
    extra: tuple[tuple[str, str], ...]


def _normalise_relative(raw: str) -> str | None:
    """A labels.csv ``file`` value as a clean relative posix path, or None if it escapes the deck."""
    text = raw.strip().replace("\\", "/")
    if not text or _DRIVE_RE.match(text):
        return None
    posix = PurePosixPath(text)
    if posix.is_absolute() or ".." in posix.parts:
        return None
    parts = [p for p in posix.parts if p not in (".", "")]
    return "/".join(parts) if parts else None


def _csv_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """``(first line number, fields)`` of each CSV record of ``text`` (1-based lines).

    A quoted field may span lines, so a record's number is the line it starts on, counted
    from the lines the reader consumed before it. Blank lines give no record.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    consumed = 0
    for fields in reader:
        start = consumed + 1
        consumed = reader.line_num
        if fields:
            yield start, fields


def read_labels(
    path: Path, on_problem: OnProblem | None = None, *, known_wnid: KnownWnid | None = None
) -> dict[str, _LabelRow]:
    """Read a deck's labels.csv: ``file`` plus ``label`` and/or ``wnid`` columns.

    Args:
        path: the labels.csv file.
        on_problem: called with one message per ignored row or value; default: a
            :class:`DeckWarning`.
        known_wnid: if given, a well-formed wnid it rejects (``n99999999``: no WordNet 3.0
            noun has that offset) is reported and ignored (see :class:`WordNetNounIds`).

    Returns:
        Rows keyed by the normalised relative photo path (``/`` separators).

    Column names ``file``, ``label`` and ``wnid`` may be in any case. The file is UTF-8
    (a BOM is allowed) or UTF-16 with a BOM; the separator is a comma, or
    a semicolon or tab when the header line has no comma (spreadsheet exports). Problems name
    the line a row starts on (a quoted label may span lines). Reported, and the rest read: an
    empty file; a path that is not a regular file (a folder, a named pipe, a device: never
    read); a row whose file is empty, outside the deck or listed twice; a wnid that is not
    ``n`` + 8 digits or (with ``known_wnid``) names no synset; a row with neither a label
    nor a wnid.

    Raises:
        DeckError: unreadable, over :data:`MAX_LABELS_BYTES`, not UTF-8, not CSV, no
            ``file`` column, or neither ``label`` nor ``wnid``; the message names the file
            and the fix.
    """
    report = on_problem or warn_problem
    raw = _labels_bytes(path, report)
    if raw is None:
        return {}
    text = _labels_text(path, raw)
    if not text.strip():
        report(
            f"{path.name} is empty; no labels read (write a header such as 'file,label' and "
            f"one row per photo, or delete the file)"
        )
        return {}
    records = _csv_rows(text, _delimiter(text))
    header = _labels_header(path, records)
    rows: dict[str, _LabelRow] = {}
    line_no = 1
    try:
        for line_no, fields in records:
            row = dict(zip(header, [*fields, *[""] * (len(header) - len(fields))], strict=False))
            read = _label_row(path.name, line_no, row, rows, report, known_wnid)
            if read is not None:
                rows[read[0]] = read[1]
    except csv.Error as exc:
        raise DeckError(f"{path}: not valid CSV after line {line_no} ({exc})") from exc
    return rows


def _labels_bytes(path: Path, report: OnProblem) -> bytes | None:
    """The bytes of labels.csv, or ``None`` (reported) when the path is not a file to read.

    Raises:
        DeckError: over :data:`MAX_LABELS_BYTES` or unreadable (permission denied ...).
    """
    try:
        return read_regular_bytes(path, MAX_LABELS_BYTES)
    except FileRefusedError as exc:
        if exc.reason.startswith("not a regular file"):
            report(
                f"{path.name} is {exc.reason.removeprefix('not a regular file (').rstrip(')')}, "
                f"not a file; no labels read (make it a CSV file or remove it: a deck needs no "
                f"labels.csv)"
            )
            return None
        raise DeckError(f"{path}: {exc.reason}; a deck's labels.csv is far smaller") from None
    except FileNotFoundError:
        report(
            f"{path.name} is a symbolic link to nothing; no labels read (point it at a CSV "
            f"file or remove it)"
        )
        return None
    except OSError as exc:
        raise DeckError(
            f"{path}: cannot be read ({exc.strerror or exc}); make it readable or remove it "
            f"(a deck needs no labels.csv)"
        ) from exc


def _labels_text(path: Path, raw: bytes) -> str:
    """labels.csv's bytes as text: UTF-8 (a BOM allowed) or UTF-16 with a BOM.

    Raises:
        DeckError: not UTF-8 (the message says how to convert it).
    """
    try:
        if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return raw.decode("utf-16")  # spreadsheets' "Unicode text" export
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeckError(
            f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); "
            f"save labels.csv as UTF-8 (e.g. 'iconv -f latin1 -t utf-8')"
        ) from exc


def _delimiter(text: str) -> str:
    """The CSV separator of ``text`` (not blank): a comma, or a semicolon or tab when the
    header line has no comma (spreadsheets in many locales save with ';' or tabs)."""
    first_line = text.lstrip().splitlines()[0]
    if "," in first_line:
        return ","
    return next((d for d in (";", "\t") if d in first_line), ",")


def _labels_header(path: Path, records: Iterator[tuple[int, list[str]]]) -> list[str]:
    """The column names of labels.csv (its first record); ``File``, ``Label`` and ``WNID``
    are read in lower case.

    Raises:
        DeckError: not CSV, no ``file`` column, or neither ``label`` nor ``wnid``.
    """
    try:
        _, fields = next(records)
    except csv.Error as exc:
        raise DeckError(
            f"{path}: not valid CSV ({exc}); write it as comma-separated values"
        ) from exc
    header = [h.strip() for h in fields]
    # "File", "Label", "WNID" (spreadsheet habits) name the same columns
    header = [h.lower() if h.lower() in ("file", "label", "wnid") else h for h in header]
    if "file" not in header:
        raise DeckError(
            f"{path}: no 'file' column (header is {header!r}); the first line must name the "
            f"columns, e.g. 'file,label,wnid', and 'file' must give each photo's path relative "
            f"to the deck folder"
        )
    if "label" not in header and "wnid" not in header:
        raise DeckError(
            f"{path}: needs a 'label' and/or a 'wnid' column besides 'file' (header is {header!r})"
        )
    return header


def _label_row(
    name: str,
    line_no: int,
    row: dict[str, str],
    seen: dict[str, _LabelRow],
    report: OnProblem,
    known_wnid: KnownWnid | None,
) -> tuple[str, _LabelRow] | None:
    """One labels.csv record (``row``: column -> value, starting on line ``line_no`` of the
    file called ``name``) as ``(relative photo path, row)``, or ``None`` when the whole row
    is ignored (its file is empty, outside the deck or already in ``seen``). A label or wnid
    that cannot be used is reported and left out; the rest of the row is kept."""
    raw_file = row.get("file", "").strip()
    relative = _normalise_relative(raw_file)
    if relative is None:
        report(
            f"{name} line {line_no}: file {raw_file!r} is empty or outside the deck "
            f"folder; give a path relative to the deck folder (row ignored)"
        )
        return None
    if relative in seen:
        report(
            f"{name} line {line_no}: {relative!r} is listed again; keep one row "
            f"per photo (the first row is used)"
        )
        return None
    # a spreadsheet cell may hold line breaks and tabs: one space between words
    label = " ".join(row.get("label", "").split()) or None
    wnid = row.get("wnid", "").strip() or None
    if label is not None and len(label) > MAX_LABEL_CHARS:
        report(
            f"{name} line {line_no}: the label of {relative!r} is {len(label):,} "
            f"characters long, over {MAX_LABEL_CHARS}; a label names what the photo "
            f"shows in a few words (label ignored)"
        )
        label = None
    if label is None and wnid is None:
        report(
            f"{name} line {line_no}: {relative!r} has neither a label nor a wnid; "
            f"add one (e.g. '{relative},dog') or delete the row"
        )
    wnid = _checked_wnid(name, line_no, wnid, report, known_wnid)
    extra = tuple((k, v.strip()) for k, v in row.items() if k not in ("file", "label", "wnid"))
    return relative, _LabelRow(line=line_no, label=label, wnid=wnid, extra=extra)


def _checked_wnid(
    name: str, line_no: int, wnid: str | None, report: OnProblem, known_wnid: KnownWnid | None
) -> str | None:
    """``wnid`` when it is ``n`` + 8 digits and (with ``known_wnid``) names a WordNet 3.0
    noun synset; else ``None``, reported."""
    if wnid is not None and not _WNID_RE.match(wnid):
        report(
            f"{name} line {line_no}: wnid {wnid!r} is not a WordNet noun id "
            f"('n' + 8 digits, e.g. n01440764); wnid ignored"
        )
        return None
    if wnid is not None and known_wnid is not None and not known_wnid(wnid):
        report(
            f"{name} line {line_no}: wnid {wnid!r} names no WordNet 3.0 noun "
            f"synset (ImageNet wnids are WordNet 3.0 noun offsets, e.g. n01440764 = "
            f"tench); wnid ignored"
        )
        return None
    return wnid
