"""``kiekai judge`` and ``kiekai repeat``: the synonym judge on the command line.

- ``kiekai judge SECRET GUESS [--strictness L] [--json]``: one verdict.
- ``kiekai judge --batch FILE.tsv [--strictness L]``: a TSV with header columns
  ``secret`` and ``guess`` (other columns ignored) in, a TSV on stdout with columns
  ``secret, guess, accepted, score, relation, reason`` (accepted as 1/0), one row per
  input row, in order. A text cell that a spreadsheet would run as a formula (one
  starting with ``=``, ``+``, ``-`` or ``@``) is written with a leading ``'``
  (:func:`formula_safe`); ``accepted`` and ``score`` are numbers and written as they are.
  Streamed: rows are read, judged and written
  :data:`BATCH_CHUNK_ROWS` at a time, so memory does not grow with the file; only a
  regular file or standard input (``-``) is read, and a line may hold at most
  :data:`MAX_BATCH_LINE_BYTES` bytes.
- ``kiekai repeat WORD --used a,b,c [--strictness L] [--json]``: ne bis in idem.
- ``--house-rules FILE`` (both commands): a table's own rulings, applied before any other
  evidence (format: :mod:`kiekai.judge.house_rules`); a malformed file is one ``error:``
  line naming the line.

Exit status: 0 on success (whatever the verdict), 2 on bad input (unknown strictness,
missing file or columns, missing arguments), with one ``error:`` line on stderr.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import unicodedata
from pathlib import Path
from typing import NoReturn

import typer

from kiekai.judge.verdict import Strictness

#: Columns of the batch output TSV, in order.
BATCH_COLUMNS = ("secret", "guess", "accepted", "score", "relation", "reason")


def _fail(message: str) -> NoReturn:
    """Print one ``error:`` line to stderr and exit with status 2 (bad input).

    The message is shown through :func:`kiekai.display.printable` (as every command's
    ``error:`` line): it holds what the user gave (file names, header cells, house-rules
    lines, option values), whose control characters, ANSI escapes and bidi overrides must
    not reach the terminal."""
    from kiekai.display import printable

    typer.echo(f"error: {printable(message)}", err=True)
    raise typer.Exit(2)


def _report_loading(judge) -> None:
    """Have the judge say on stderr (never stdout, so ``--json`` and ``--batch`` output
    stay clean) whatever slow thing it loads: the WordNet index when it is built (once
    per machine), the sentence model for words outside the judge's tables. A verdict on
    words in the tables loads nothing slow and prints nothing there."""
    judge.resources.report = lambda line: typer.echo(line, err=True)


def _judge(strictness: str, house_rules: Path | None = None):
    """Build a :class:`kiekai.judge.Judge` with the table's house rules from
    ``house_rules``; a bad strictness, model file or house-rules file exits 2."""
    from kiekai.commands import command_resources
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules

    try:
        rules = HouseRules.load(house_rules) if house_rules is not None else None
        return Judge(strictness, house_rules=rules, resources=command_resources())
    except (ValueError, FileNotFoundError) as exc:
        _fail(str(exc))


#: The ``--strictness`` option of ``kiekai judge`` and ``kiekai repeat``: the levels listed
#: from :class:`~kiekai.judge.verdict.Strictness`. The value is read as text and parsed by
#: :meth:`Strictness.parse` in the command (any letter case), so that an unknown level is one
#: ``error:`` line with the value shown escaped, not click's usage block.
STRICTNESS_OPTION = typer.Option(
    Strictness.STANDARD.value,
    "--strictness",
    "-s",
    help=f"Table rules: {Strictness.spelled()}.",
    metavar="<" + "|".join(Strictness) + ">",
)

#: The ``--house-rules`` option of ``kiekai judge`` and ``kiekai repeat``.
HOUSE_RULES_HELP = (
    "A table's own rulings, applied before the judge's evidence: a UTF-8 file of lines "
    "'secret<TAB>guess<TAB>yes|no<TAB>level' (level "
    f"{', '.join(Strictness)} or *)."
)


#: The ``--explain`` option of ``kiekai judge`` and ``kiekai repeat``.
EXPLAIN_OPTION = typer.Option(
    False,
    "--explain",
    help="Also print the evidence behind the verdict (the verdict's details: what decided, "
    "WordNet senses, the fitted model's score and threshold, the MiniLM cosine, the "
    "features); --json always includes it.",
)


def _explain_lines(details: dict) -> list[str]:
    """The verdict's ``details`` as indented ``key: value`` lines (features on one line)."""
    from kiekai.display import printable

    lines = ["details:"]
    for key, value in details.items():
        if value is None:
            continue
        if isinstance(value, dict):
            text = ", ".join(f"{k} {_number(v)}" for k, v in value.items())
        else:
            text = _number(value)
        lines.append(printable(f"  {key.replace('_', ' ')}: {text}"))
    return lines


def _number(value) -> str:
    """A detail's value as text: floats with up to 4 decimals, the rest as ``str``."""
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.1f}"
    return str(value)


def _print_verdict(
    verdict, as_json: bool, extra: dict | None = None, explain: bool = False
) -> None:
    if as_json:
        payload = {**(extra or {}), **verdict.to_dict()}
        typer.echo(json.dumps(payload, ensure_ascii=False))
        return
    from kiekai.display import printable

    status = "ACCEPTED" if verdict.accepted else "REJECTED"
    typer.echo(f"{status}  score {verdict.score:.2f}  relation {printable(verdict.relation)}")
    typer.echo(printable(verdict.reason))
    if explain:
        typer.echo("\n".join(_explain_lines(getattr(verdict, "details", None) or {})))


def _clean_cell(text: str) -> str:
    """A TSV cell: tabs, line breaks, line/paragraph separators and other control
    characters become spaces, so one input row stays one output row (IANA
    text/tab-separated-values has no escaping)."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text))


#: First characters that make a spreadsheet (Excel, LibreOffice Calc, Google Sheets) read
#: a cell as a formula: OWASP's "CSV Injection" list (tab and carriage return, also on it,
#: never start a cell here: :func:`_clean_cell` made them spaces).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(cell: str) -> str:
    """``cell`` with a single quote put in front when it starts with one of
    :data:`FORMULA_STARTS`, so a spreadsheet opening the TSV shows it as text instead of
    running it (OWASP, "CSV Injection": ``=HYPERLINK(...)`` or ``=cmd|...`` in a guess
    would otherwise run on the reader's machine). Spreadsheets hide the quote; other
    readers see it and can strip it. Only for text cells: numbers never start so."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def _check_utf8(text: str, what: str) -> None:
    """Exit 2 when ``text`` came from bytes that are not UTF-8 (Python keeps such bytes
    as lone surrogates U+DC80..U+DCFF in ``sys.argv`` and text-mode stdin)."""
    if any("\udc80" <= c <= "\udcff" for c in text):
        _fail(f"{what} is not valid UTF-8 text; write it in UTF-8")


#: Longest line of a batch file, in bytes (a row of two words needs a few hundred; the
#: bound stops a file without line breaks, such as ``/dev/zero`` fed to standard input,
#: from filling memory).
MAX_BATCH_LINE_BYTES = 64 * 1024
#: Rows judged together (one batch of sentence-model encodes for words outside the
#: tables) and written before the next are read: memory stays the same whatever the
#: number of rows.
BATCH_CHUNK_ROWS = 256


def _kind_of(mode: int) -> str:
    """What a non-regular file is, in words, from its ``st_mode``."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _open_batch(path: Path):
    """The binary stream of a batch: standard input for ``-``, else a regular file.

    Exits 2 for a missing file or anything that is not a regular file (a folder, FIFO,
    device or socket could block or never end; pipe such data through ``-`` instead).
    """
    if str(path) == "-":
        return sys.stdin.buffer, "standard input"
    name = f"batch file {path}"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        _fail(f"{name} not found; pass a TSV file with columns 'secret' and 'guess'")
    except OSError as exc:
        _fail(f"cannot read {name}: {exc.strerror or exc}")
    if not stat.S_ISREG(mode):
        _fail(
            f"{name} is {_kind_of(mode)}, not a regular file; pass a TSV file with columns "
            "'secret' and 'guess', or '-' to read standard input"
        )
    try:
        return open(path, "rb"), name  # noqa: SIM115 - closed by _read_batch's caller
    except OSError as exc:
        _fail(f"cannot read {name}: {exc.strerror or exc}")


class _BadBatch(Exception):
    """A batch file problem found while reading it (the message names the line)."""


def _batch_lines(stream, name: str):
    """``(line number, text)`` of each line of ``stream``, decoded from UTF-8 (a byte
    order mark at the start is dropped), without its ``\n`` or ``\r\n``; read one line
    at a time.

    Raises:
        _BadBatch: a line over :data:`MAX_BATCH_LINE_BYTES`, not UTF-8, or unreadable.
    """
    number = 0
    while True:
        try:
            raw = stream.readline(MAX_BATCH_LINE_BYTES + 1)
        except OSError as exc:
            raise _BadBatch(f"cannot read {name}: {exc.strerror or exc}") from exc
        if not raw:
            return
        number += 1
        if len(raw) > MAX_BATCH_LINE_BYTES:
            raise _BadBatch(
                f"{name}: line {number} is longer than {MAX_BATCH_LINE_BYTES} bytes; a row "
                "holds tab-separated words and ends with a line break"
            )
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise _BadBatch(
                f"{name}: line {number} is not UTF-8 text ({exc.reason}); save it as UTF-8"
            ) from exc
        if text.endswith("\n"):
            text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
        yield number, text


def _read_batch(stream, name: str):
    """``(secret, guess)`` rows of a TSV with a header, read lazily from ``stream``.

    Rows end at ``\n`` or ``\r\n`` only (not at Unicode line separators inside a cell);
    cells are split at tabs, with quotes taken literally; blank lines are skipped and
    missing cells of a short row are empty.

    Raises:
        _BadBatch: a missing or bad header, or as :func:`_batch_lines`.
    """
    lines = _batch_lines(stream, name)
    first = next(lines, None)
    if first is None:
        raise _BadBatch(
            f"{name} is empty; its first line must be a header with 'secret' and 'guess'"
        )
    header = [h.strip() for h in first[1].split("\t")]
    missing = [c for c in ("secret", "guess") if c not in header]
    if missing:
        raise _BadBatch(
            f"{name} lacks column(s) {', '.join(missing)}; its header has "
            f"{header}; the first line must name tab-separated columns 'secret' and 'guess'"
        )
    twice = [c for c in ("secret", "guess") if header.count(c) > 1]
    if twice:
        raise _BadBatch(f"{name} names column(s) {', '.join(twice)} more than once in its header")
    i_secret, i_guess = header.index("secret"), header.index("guess")
    for _, line in lines:
        if not line.strip():
            continue  # a blank line is no row
        cells = line.split("\t") + [""] * len(header)  # a short row: missing cells are ""
        yield cells[i_secret], cells[i_guess]


def _write_verdicts(judge, rows: list[tuple[str, str]]) -> None:
    """Judge ``rows`` together and write one TSV line per row to stdout."""
    verdicts = judge.match_many(rows)
    write = sys.stdout.write
    for (s, g), v in zip(rows, verdicts, strict=True):
        secret, guess, relation, reason = (
            formula_safe(_clean_cell(c)) for c in (s, g, v.relation, v.reason)
        )
        accepted, score = "1" if v.accepted else "0", f"{v.score:.4f}"
        write("\t".join((secret, guess, accepted, score, relation, reason)) + "\n")
    sys.stdout.flush()


def _judge_batch(judge, batch: Path) -> None:
    """Stream verdicts of the batch file to stdout, :data:`BATCH_CHUNK_ROWS` rows at a
    time, so memory does not grow with the number of rows. At a bad line, the rows
    before it are judged and written first, then one ``error:`` line names it (exit 2)."""
    stream, name = _open_batch(batch)
    chunk: list[tuple[str, str]] = []
    try:
        rows = _read_batch(stream, name)
        try:
            first = next(rows, None)  # reads and checks the header before any output
        except _BadBatch as exc:
            _fail(str(exc))
        sys.stdout.write("\t".join(BATCH_COLUMNS) + "\n")
        if first is None:
            sys.stdout.flush()
            return
        chunk.append(first)
        try:
            for row in rows:
                chunk.append(row)
                if len(chunk) == BATCH_CHUNK_ROWS:
                    _write_verdicts(judge, chunk)
                    chunk = []
        except _BadBatch as exc:
            if chunk:
                _write_verdicts(judge, chunk)
            _fail(str(exc))
        if chunk:
            _write_verdicts(judge, chunk)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def judge_command(
    secret: str | None = typer.Argument(None, help="The secret category the active player wrote."),
    guess: str | None = typer.Argument(None, help="The guessing player's word."),
    strictness: str = STRICTNESS_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object."),
    batch: Path | None = typer.Option(
        None,
        "--batch",
        help="TSV file with header columns 'secret' and 'guess' ('-' = stdin); "
        "writes a TSV of verdicts to stdout.",
    ),
    house_rules: Path | None = typer.Option(None, "--house-rules", help=HOUSE_RULES_HELP),
    explain: bool = EXPLAIN_OPTION,
) -> None:
    """Judge whether GUESS names the category SECRET (rulebook: "Imperfect Guesses")."""
    judge = _judge(strictness, house_rules)
    _report_loading(judge)
    if batch is not None:
        if secret is not None or guess is not None:
            _fail("give either SECRET GUESS or --batch FILE, not both")
        if explain:
            _fail("--explain explains one verdict; for a batch, judge a pair with --explain")
        _judge_batch(judge, batch)
        return
    if secret is None or guess is None:
        _fail("give SECRET and GUESS (e.g. `kiekai judge people humans`) or --batch FILE.tsv")
    _check_utf8(secret, "SECRET")
    _check_utf8(guess, "GUESS")
    verdict = judge.match(secret, guess)
    _print_verdict(
        verdict,
        as_json,
        {"secret": secret, "guess": guess, "strictness": judge.strictness.value},
        explain=explain,
    )


def repeat_command(
    word: str = typer.Argument(..., help="The newly written category."),
    used: str = typer.Option(
        ..., "--used", "-u", help="Categories already used this game, comma-separated: a,b,c."
    ),
    strictness: str = STRICTNESS_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object."),
    house_rules: Path | None = typer.Option(None, "--house-rules", help=HOUSE_RULES_HELP),
    explain: bool = EXPLAIN_OPTION,
) -> None:
    """Ne bis in idem: does WORD repeat one of the used categories? (rulebook)"""
    judge = _judge(strictness, house_rules)
    _check_utf8(word, "WORD")
    _check_utf8(used, "--used")
    used_words = [u.strip() for u in used.split(",") if u.strip()]
    _report_loading(judge)
    verdict = judge.is_repeat(word, used_words)
    if as_json:
        _print_verdict(
            verdict, True, {"word": word, "used": used_words, "strictness": judge.strictness.value}
        )
        return
    from kiekai.display import printable

    status = f"REPEAT of {verdict.matched!r}" if verdict.accepted else "NOT A REPEAT"
    typer.echo(printable(f"{status}  score {verdict.score:.2f}  relation {verdict.relation}"))
    typer.echo(printable(verdict.reason))
    if explain:
        typer.echo("\n".join(_explain_lines(getattr(verdict, "details", None) or {})))


def register(app: typer.Typer) -> None:
    """Add the ``judge`` and ``repeat`` commands to the ``kiekai`` Typer app."""
    app.command("judge")(judge_command)
    app.command("repeat")(repeat_command)
