"""``kiekai judge`` and ``kiekai repeat``: the synonym judge on the command line.

- ``kiekai judge SECRET GUESS [--strictness L] [--json]``: one verdict.
- ``kiekai judge --batch FILE.tsv [--strictness L]``: a TSV with header columns
  ``secret`` and ``guess`` (other columns ignored) in, a TSV on stdout with columns
  ``secret, guess, accepted, score, relation, reason`` (accepted as 1/0), one row per
  input row, in order.
- ``kiekai repeat WORD --used a,b,c [--strictness L] [--json]``: ne bis in idem.
- ``--house-rules FILE`` (both commands): a table's own rulings, applied before any other
  evidence (format: :mod:`kiekai.judge.house_rules`); a malformed file is one ``error:``
  line naming the line.

Exit status: 0 on success (whatever the verdict), 2 on bad input (unknown strictness,
missing file or columns, missing arguments), with one ``error:`` line on stderr.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import typer

#: Columns of the batch output TSV, in order.
BATCH_COLUMNS = ("secret", "guess", "accepted", "score", "relation", "reason")


def _fail(message: str) -> None:
    """Print one ``error:`` line to stderr and exit with status 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


#: Shown on stderr before the first verdict of a process loads its models (about
#: 15-35 s on 2 cores, see docs/judge.md "Speed"), so a user does not stare at nothing.
LOADING_NOTICE = "loading WordNet (and the sentence model for words not in the embedding table)…"


def _loading_notice() -> None:
    """Print :data:`LOADING_NOTICE` to stderr when the models are not loaded yet.

    Always stderr, never stdout, so ``--json`` and ``--batch`` output stays clean.
    """
    from kiekai.judge import resources

    if not resources.loaded():
        typer.echo(LOADING_NOTICE, err=True)


def _judge(strictness: str, house_rules: Path | None = None):
    """Build a :class:`kiekai.judge.Judge` with the table's house rules from
    ``house_rules``; a bad strictness, model file or house-rules file exits 2."""
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules

    try:
        rules = HouseRules.load(house_rules) if house_rules is not None else None
        return Judge(strictness, house_rules=rules)
    except (ValueError, FileNotFoundError) as exc:
        _fail(str(exc))


#: The ``--house-rules`` option of ``kiekai judge`` and ``kiekai repeat``.
HOUSE_RULES_HELP = (
    "A table's own rulings, applied before the judge's evidence: a UTF-8 file of lines "
    "'secret<TAB>guess<TAB>yes|no<TAB>level' (level strict, standard, lenient or *)."
)


def _print_verdict(verdict, as_json: bool, extra: dict | None = None) -> None:
    if as_json:
        payload = {**(extra or {}), **verdict.to_dict()}
        typer.echo(json.dumps(payload, ensure_ascii=False))
        return
    status = "ACCEPTED" if verdict.accepted else "REJECTED"
    typer.echo(f"{status}  score {verdict.score:.2f}  relation {verdict.relation}")
    typer.echo(verdict.reason)


def _clean_cell(text: str) -> str:
    """A TSV cell: tabs, line breaks, line/paragraph separators and other control
    characters become spaces, so one input row stays one output row (IANA
    text/tab-separated-values has no escaping)."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(text))


def _check_utf8(text: str, what: str) -> None:
    """Exit 2 when ``text`` came from bytes that are not UTF-8 (Python keeps such bytes
    as lone surrogates U+DC80..U+DCFF in ``sys.argv`` and text-mode stdin)."""
    if any("\udc80" <= c <= "\udcff" for c in text):
        _fail(f"{what} is not valid UTF-8 text; write it in UTF-8")


def _read_batch(path: Path) -> list[tuple[str, str]]:
    """(secret, guess) rows of a TSV with a header; exits 2 on any file problem.

    Rows end at ``\n`` or ``\r\n`` only (not at Unicode line separators inside a cell);
    cells are split at tabs, with quotes taken literally.
    """
    name = "standard input" if str(path) == "-" else f"batch file {path}"
    if str(path) != "-":
        if not path.exists():
            _fail(f"{name} not found; pass a TSV file with columns 'secret' and 'guess'")
        if path.is_dir():
            _fail(f"{name} is a folder; pass a TSV file with columns 'secret' and 'guess'")
    try:
        raw = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        _fail(f"cannot read {name}: {exc}")
    except UnicodeDecodeError as exc:
        _fail(f"{name} is not UTF-8 text ({exc}); save it as UTF-8")
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last row
    if not lines:
        _fail(f"{name} is empty; its first line must be a header with 'secret' and 'guess'")
    header = [h.strip() for h in lines[0].split("\t")]
    missing = [c for c in ("secret", "guess") if c not in header]
    if missing:
        _fail(
            f"{name} lacks column(s) {', '.join(missing)}; its header has "
            f"{header}; the first line must name tab-separated columns 'secret' and 'guess'"
        )
    twice = [c for c in ("secret", "guess") if header.count(c) > 1]
    if twice:
        _fail(f"{name} names column(s) {', '.join(twice)} more than once in its header")
    i_secret, i_guess = header.index("secret"), header.index("guess")
    rows = []
    for line in lines[1:]:
        if not line.strip():
            continue  # a blank line is no row
        cells = line.split("\t") + [""] * len(header)  # a short row: missing cells are ""
        rows.append((cells[i_secret], cells[i_guess]))
    return rows


def judge_command(
    secret: str | None = typer.Argument(None, help="The secret category the active player wrote."),
    guess: str | None = typer.Argument(None, help="The guessing player's word."),
    strictness: str = typer.Option(
        "standard", "--strictness", "-s", help="Table rules: strict, standard or lenient."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object."),
    batch: Path | None = typer.Option(
        None,
        "--batch",
        help="TSV file with header columns 'secret' and 'guess' ('-' = stdin); "
        "writes a TSV of verdicts to stdout.",
    ),
    house_rules: Path | None = typer.Option(None, "--house-rules", help=HOUSE_RULES_HELP),
) -> None:
    """Judge whether GUESS names the category SECRET (rulebook: "Imperfect Guesses")."""
    judge = _judge(strictness, house_rules)
    if batch is not None:
        if secret is not None or guess is not None:
            _fail("give either SECRET GUESS or --batch FILE, not both")
        pairs = _read_batch(batch)
        _loading_notice()
        verdicts = judge.match_many(pairs)
        write = sys.stdout.write
        write("\t".join(BATCH_COLUMNS) + "\n")
        for (s, g), v in zip(pairs, verdicts, strict=True):
            cells = (s, g, "1" if v.accepted else "0", f"{v.score:.4f}", v.relation, v.reason)
            write("\t".join(_clean_cell(c) for c in cells) + "\n")
        sys.stdout.flush()
        return
    if secret is None or guess is None:
        _fail("give SECRET and GUESS (e.g. `kiekai judge people humans`) or --batch FILE.tsv")
    _check_utf8(secret, "SECRET")
    _check_utf8(guess, "GUESS")
    _loading_notice()
    verdict = judge.match(secret, guess)
    _print_verdict(
        verdict, as_json, {"secret": secret, "guess": guess, "strictness": judge.strictness.value}
    )


def repeat_command(
    word: str = typer.Argument(..., help="The newly written category."),
    used: str = typer.Option(
        ..., "--used", "-u", help="Categories already used this game, comma-separated: a,b,c."
    ),
    strictness: str = typer.Option(
        "standard", "--strictness", "-s", help="Table rules: strict, standard or lenient."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object."),
    house_rules: Path | None = typer.Option(None, "--house-rules", help=HOUSE_RULES_HELP),
) -> None:
    """Ne bis in idem: does WORD repeat one of the used categories? (rulebook)"""
    judge = _judge(strictness, house_rules)
    _check_utf8(word, "WORD")
    _check_utf8(used, "--used")
    used_words = [u.strip() for u in used.split(",") if u.strip()]
    _loading_notice()
    verdict = judge.is_repeat(word, used_words)
    if as_json:
        _print_verdict(
            verdict, True, {"word": word, "used": used_words, "strictness": judge.strictness.value}
        )
        return
    status = f"REPEAT of {verdict.matched!r}" if verdict.accepted else "NOT A REPEAT"
    typer.echo(f"{status}  score {verdict.score:.2f}  relation {verdict.relation}")
    typer.echo(verdict.reason)


def register(app: typer.Typer) -> None:
    """Add the ``judge`` and ``repeat`` commands to the ``kiekai`` Typer app."""
    app.command("judge")(judge_command)
    app.command("repeat")(repeat_command)
