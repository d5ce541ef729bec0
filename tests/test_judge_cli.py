"""``kiekai judge`` and ``kiekai repeat`` through Typer's CliRunner."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from kiekai.cli import app

pytestmark = pytest.mark.slow

runner = CliRunner()


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


def test_loading_notice_goes_to_stderr_only(monkeypatch) -> None:
    """Before models load, one short line on stderr; stdout stays pure JSON / TSV."""
    from kiekai.commands.judge import LOADING_NOTICE
    from kiekai.judge import resources

    monkeypatch.setattr(resources, "loaded", lambda: False)
    r = run("judge", "mice", "mouse", "--json")
    assert r.exit_code == 0, r.output
    assert LOADING_NOTICE in r.stderr and LOADING_NOTICE not in r.stdout
    assert json.loads(r.stdout)["accepted"] is True
    r = run("repeat", "stones", "--used", "rocks", "--json")
    assert LOADING_NOTICE in r.stderr and json.loads(r.stdout)["matched"] == "rocks"
    r = runner.invoke(app, ["judge", "--batch", "-"], input="secret\tguess\nmice\tmouse\n")
    assert LOADING_NOTICE in r.stderr and LOADING_NOTICE not in r.stdout
    monkeypatch.setattr(resources, "loaded", lambda: True)
    r = run("judge", "mice", "mouse")
    assert LOADING_NOTICE not in r.stderr


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
