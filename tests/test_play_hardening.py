"""``kiekai play`` with hostile decks and out-of-range options (issue 11, points 5 and 9):
nothing from a deck or a typed answer drives the terminal; bounds are enforced; option
values are case-insensitive."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from kiekai.cli import app
from kiekai.commands.play import MAX_ROUNDS

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()

#: Characters that must never reach the terminal from a deck or an answer: ESC (every escape
#: sequence starts with it), CSI, BEL, the bidi overrides and isolates, line separators.
FORBIDDEN = "\x1b\x9b\x07\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
LABELS = [
    "\x1b[31mjay\x1b[0m",
    "dog\nScores: You 99",
    "\u202ecat",
    "[bold red]fish[/bold red]",
    "bird",
]


def hostile_deck(folder: Path, n: int = 20) -> Path:
    """``n`` photos; every fifth file name holds an escape sequence and a bidi override, and
    labels.csv gives labels with colours, a forged newline, an RLO and Rich markup, plus a row
    naming a missing file whose name holds a screen-clearing sequence."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(n):
        name = f"p{i:02d}.png" if i % 5 else f"evil\x1b[31m{i}\u202e.png"
        Image.new("RGB", (64, 48), (i * 37 % 256, i * 91 % 256, 120)).save(folder / name)
        names.append(name)
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["file", "label"])
        for i, name in enumerate(names):
            writer.writerow([name, LABELS[i % len(LABELS)]])
        writer.writerow(["\x1b[2Jgone.png", "x"])
    return folder


def _kiekai(*args: str, stdin: str = "", timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm-256color", "PYTHONIOENCODING": "utf-8"}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.run(
        [sys.executable, "-m", "kiekai", *args],
        input=stdin.encode("utf-8"), capture_output=True, cwd=REPO, env=env, timeout=timeout,
    )  # fmt: skip


@pytest.mark.slow
def test_a_hostile_deck_never_reaches_the_terminal(tmp_path):
    """Two real games on a hostile deck: bots alone (labels shown) and a person whose
    answers, one of them hostile too, come on stdin (file names, prompts, echoes)."""
    deck = hostile_deck(tmp_path / "deck")
    common = ["--deck", str(deck), "--perception", "labels", "--rounds", "1", "--seed", "3"]
    bots = _kiekai(
        "play", "--humans", "0", "--bots", "3", *common, "--log", str(tmp_path / "a.jsonl")
    )
    # seat 0 is active first: two cards, the three, a hostile word (refused), a word, no
    # overrule, keep a card; then guess, no overrule, no call, keep; then guess, no overrule,
    # no call (3 turns of 1 round; test_play_cli.answer_prompts answers as prompts show)
    answers = "\n".join(
        ["4 5", "1 2 3", "\x1b[2J\u202edog", "animal", "", "1",
         "outdoors", "", "n", "1", "rainbow", "", "n"]
    )  # fmt: skip
    person = _kiekai(
        "play",
        "--humans",
        "1",
        "--bots",
        "2",
        *common,
        "--log",
        str(tmp_path / "b.jsonl"),
        stdin=answers + "\n",
    )
    for name, done in (("bots", bots), ("person", person)):
        out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
        assert done.returncode == 0, f"{name}: {out[-2000:]} {err[-2000:]}"
        assert "Traceback" not in err
        assert not any(c in out + err for c in FORBIDDEN), name
        assert "labels.csv line 26: file '\\x1b[2Jgone.png' is not a photo" in err, (
            name
        )  # 4 labels span 2 lines
    out = bots.stdout.decode("utf-8")
    assert "Final scores" in out
    # cards are named by their labels, shown escaped and with the markup as written
    assert any(shown in out for shown in ("\\x1b[31mjay\\x1b[0m", "dog\\nScores: You 99",
                                          "\\u202ecat", "[bold red]fish[/bold red]"))  # fmt: skip
    typed = person.stdout.decode("utf-8")
    assert "\\x1b[2J\\u202edog" in typed  # the piped answer is echoed escaped, then refused
    assert "Final scores" in typed


@pytest.mark.parametrize("rounds", ["0", str(MAX_ROUNDS + 1), "99999999999"])
def test_rounds_out_of_range_are_refused(rounds):
    result = runner.invoke(app, ["play", "--humans", "0", "--rounds", rounds])
    assert result.exit_code == 2, result.output
    assert f"--rounds must be from 1 to {MAX_ROUNDS}" in result.output
    assert "Traceback" not in result.output


def test_max_rounds_is_playable():
    """The cap is a bound, not a refusal of long games: 100 rounds of bots are accepted
    (checked up to the deck; the default deck is too small for 9 players, so that error
    is the one that comes)."""
    result = runner.invoke(
        app, ["play", "--humans", "0", "--bots", "9", "--rounds", str(MAX_ROUNDS)]
    )
    assert "--rounds" not in result.output


@pytest.mark.parametrize(
    "option, value",
    [
        ("--level", "HARD"),
        ("--level", "Easy"),
        ("--strictness", "LENIENT"),
        ("--perception", "Labels"),
    ],  # fmt: skip
)
def test_option_values_are_case_insensitive(option, value):
    """``--level HARD`` names the same level as ``hard`` (the option is accepted and the
    command goes on to the next check: too many players here, so no game starts)."""
    result = runner.invoke(app, ["play", "--humans", "0", "--bots", "9", option, value])
    assert result.exit_code == 2, result.output
    assert "3 to 8 players" in result.output
    result = runner.invoke(app, ["play", "--humans", "0", "--bots", "9", option, "expert"])
    assert result.exit_code == 2 and "Invalid value" in result.output


@pytest.mark.slow
@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names there are Unicode")
def test_a_file_name_that_is_not_utf8_plays_and_replays(tmp_path):
    """A Latin-1 ``café.png`` (bytes, not UTF-8: an old camera or a Windows zip) is a card
    like any other; the log, whose header and deal name it, is written and replayed."""
    deck = tmp_path / "deck"
    deck.mkdir()
    for i in range(16):
        name = os.fsencode(deck) + (b"/caf\xe9.png" if i == 0 else b"/p%02d.png" % i)
        Image.new("RGB", (64, 48), (i * 37 % 256, i * 91 % 256, 120)).save(os.fsdecode(name))
    log = tmp_path / "game.jsonl"
    done = _kiekai("play", "--humans", "0", "--bots", "3", "--deck", str(deck), "--perception",
                   "colour", "--rounds", "1", "--seed", "2", "--log", str(log))  # fmt: skip
    err = done.stderr.decode("utf-8")
    assert done.returncode == 0, err[-2000:]
    assert "Traceback" not in err
    assert "caf\\udce9.png" in log.read_text(encoding="utf-8")  # a JSON escape
    again = _kiekai("replay", str(log))
    assert again.returncode == 0, again.stderr.decode("utf-8")
    assert "Final scores" in again.stdout.decode("utf-8")


@pytest.mark.parametrize(
    "args",
    [["play", "--deck", ""], ["play", "--log", " "], ["play", "--house-rules", ""],
     ["play", "--clip-checkpoint", ""], ["replay", ""], ["deck", "info", ""], ["deck", "embed", ""],
     ["kismet", "--rules", ""], ["kismet", "--log", ""], ["models", "--clip-checkpoint", ""]],
)  # fmt: skip
def test_an_empty_path_is_refused_not_read_as_the_current_folder(args, tmp_path, monkeypatch):
    """``Path("")`` is ``Path(".")``: ``--deck "$DECK"`` with DECK unset read every photo under
    the current folder. Every path option and argument refuses an empty value at once."""
    monkeypatch.chdir(tmp_path)
    Image.new("RGB", (64, 48)).save(tmp_path / "not-for-a-deck.png")
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "is empty; give a path" in result.output
    assert "not-for-a-deck" not in result.output
