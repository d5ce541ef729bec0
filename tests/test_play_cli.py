"""``kiekai play`` and ``kiekai replay`` from the outside: whole games on real photos, a person
whose answers come on stdin, and clear errors (non-zero exit, no traceback) for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from kiekai.cli import app

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def photos(folder: Path, n: int) -> Path:
    """``n`` small real PNG photos (generated) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        Image.new("RGB", (64, 48), (i * 37 % 256, i * 91 % 256, 120)).save(folder / f"p{i:02d}.png")
    return folder


# ---------------------------------------------------------------- bad input


def test_unknown_flag_is_refused():
    result = runner.invoke(app, ["play", "--bot", "3"])
    assert result.exit_code == 2
    assert "No such option" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bots", "1", "--humans", "1"], "3 to 8 players"),
        (["--bots", "8", "--humans", "1"], "makes 9"),
        (["--bots", "-1", "--humans", "4"], "cannot be negative"),
        (["--rounds", "0", "--humans", "0"], "--rounds must be from 1 to 100"),
        (["--strictness", "loose"], "loose"),
        (["--seed", "-1", "--humans", "0"], "--seed must be 0 or more"),
    ],
)
def test_bad_player_counts_are_refused(args, message):
    result = runner.invoke(app, ["play", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_an_existing_log_is_not_appended_to(tmp_path):
    """A game log holds one game: an existing non-empty --log file is refused and kept intact."""
    log = tmp_path / "old.jsonl"
    log.write_text("precious\n", encoding="utf-8")
    result = runner.invoke(app, ["play", "--humans", "0", "--seed", "1", "--log", str(log)])
    assert result.exit_code == 2, result.output
    assert "already exists" in result.output
    assert log.read_text(encoding="utf-8") == "precious\n"


def test_missing_deck_path_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["play", "--humans", "0", "--deck", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_empty_deck_folder_is_a_clear_error(tmp_path):
    (tmp_path / "notes.txt").write_text("no photos here")
    result = runner.invoke(app, ["play", "--humans", "0", "--deck", str(tmp_path)])
    assert result.exit_code == 2
    assert "has no photos" in result.output


def test_deck_too_small_is_a_clear_error(tmp_path):
    deck = photos(tmp_path / "deck", 12)
    result = runner.invoke(app, ["play", "--humans", "0", "--bots", "4", "--deck", str(deck)])
    assert result.exit_code == 2
    assert "= 19 for 4 players" in result.output and "12 usable photos" in result.output


def test_replay_of_a_missing_or_foreign_file_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["replay", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "no game log" in result.output
    other = tmp_path / "other.jsonl"
    other.write_text("hello\n{}\n")
    result = runner.invoke(app, ["replay", str(other)])
    assert result.exit_code == 2 and "cannot replay" in result.output


# ---------------------------------------------------------------- whole games
#
# Whole games run as real `kiekai` processes (as a user types them), all started at once in
# one module-scoped fixture so that they share the machine's cores; each test then checks
# one of them.


#: What the scripted person types at each prompt (keyword in the prompt -> answer);
#: ``None`` = the next word of :data:`HUMAN_WORDS`.
HUMAN_PROMPTS = {
    "Which 2 cards": "4 5",
    "Which 3 of the five": "1 2 3",
    "Your word": None,
    "Your guess": None,
    "Enter: continue": "",
    "Keep which card": "1",
    "Which used word": "1",
}
HUMAN_WORDS = ["animal", "outdoors", "blue", "food", "water", "metal", "round", "green",
               "machine", "wood", "small", "white"]  # fmt: skip


def answer_prompts(process: subprocess.Popen, out: list[str]) -> None:
    """A person at seat 0 whose answers come on stdin, typed when each prompt shows (the
    prompts a game asks depend on the bots' calls: answers written up front would drift).
    Reads ``process.stdout`` to its end into ``out``; answers each prompt
    (:data:`HUMAN_PROMPTS`) once, when the output ends with it (or is idle for 3 s after it).
    """
    import select

    words = iter(HUMAN_WORDS * 6)
    fd = process.stdout.fileno()
    text, done_upto = "", 0
    while True:
        ready, _, _ = select.select([fd], [], [], 3.0)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            text += chunk.decode("utf-8", errors="replace")
            if not text.endswith(" "):
                continue
        found = max(HUMAN_PROMPTS, key=lambda k: text.rfind(k))
        at = text.rfind(found)
        if at < done_upto:
            continue
        done_upto = at + 1
        answer = HUMAN_PROMPTS[found]
        try:
            process.stdin.write((next(words) if answer is None else answer) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            break
    out.append(text)


@pytest.fixture(scope="module")
def games(dev_deck, tmp_path_factory):
    """Start every whole-game run at once; returns name -> (CompletedProcess, log path)."""
    tmp = tmp_path_factory.mktemp("games")
    bots3 = ["play", "--bots", "3", "--humans", "0", "--deck", str(dev_deck), "--seed", "7"]
    runs = {
        # the same game twice, under different string-hash seeds
        "a": (bots3, None, {"PYTHONHASHSEED": "1"}),
        "b": (bots3, None, {"PYTHONHASHSEED": "2"}),
        "human": (
            # a long hourglass: the answers are all on stdin at once, and on a loaded machine
            # (several games start together) a turn's judging must not run past 2 minutes
            [
                "play",
                "--bots",
                "3",
                "--humans",
                "1",
                "--deck",
                str(dev_deck),
                "--seed",
                "7",
                "--turn-seconds",
                "1800",
            ],
            answer_prompts,
            {},
        ),
        "eof": (
            ["play", "--bots", "3", "--deck", str(dev_deck), "--seed", "3"],
            "4 5\n1 2 3\n",
            {},
        ),
        "default": (["play", "--bots", "3", "--humans", "0", "--seed", "1"], None, {}),
    }
    started = {}
    for name, (args, stdin, env) in runs.items():
        log = tmp / f"{name}.jsonl"
        started[name] = (kiekai_start(*args, "--log", str(log), env=env, stdin=stdin), log, stdin)
    results = {}
    for name, (process, log, stdin) in started.items():
        if callable(stdin):  # a person answering each prompt as it shows
            import threading

            lines: list[str] = []
            person = threading.Thread(target=stdin, args=(process, lines), daemon=True)
            person.start()
            err = process.stderr.read()
            process.wait(timeout=900)
            person.join(timeout=60)
            process.stdin.close()
            out = lines[0] if lines else ""
        else:
            out, err = process.communicate(input=stdin or "", timeout=900)
        results[name] = (
            subprocess.CompletedProcess(process.args, process.returncode, out, err),
            log,
        )
    return results


def kiekai_start(*args: str, env: dict[str, str], stdin: str | None) -> subprocess.Popen:
    full_env = {**os.environ, "COLUMNS": "120", "TERM": "dumb", **env}
    full_env.pop("DISPLAY", None)
    full_env.pop("WAYLAND_DISPLAY", None)
    return subprocess.Popen(
        [sys.executable, "-m", "kiekai", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=full_env,
    )


def read_events(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_bots_alone_play_a_whole_game_the_same_twice(games):
    """Done when: `kiekai play --bots 3 --humans 0 --deck ../shared/decks/imagenet-dev
    --seed 7` finishes a whole game, prints the final scores, and prints the same game twice."""
    (first, log), (second, _) = games["a"], games["b"]
    assert first.returncode == 0, first.stderr[-3000:]
    assert second.returncode == 0, second.stderr[-3000:]
    assert first.stdout == second.stdout
    out = first.stdout
    assert out.count("is active") == 9  # 3 players x 3 rounds
    assert "Final scores" in out and "wins" in out
    assert "stake x3" in out
    events = read_events(log)
    assert events[0]["type"] == "header" and events[0]["data"]["seed"] == 7
    assert events[-1]["type"] == "game-over"
    assert any(e["type"] == "verdict" for e in events)
    # `kiekai replay` prints the game again from the log alone, line for line.
    replayed = runner.invoke(app, ["replay", str(log)], env={"COLUMNS": "120"})
    assert replayed.exit_code == 0
    game_part = out[out.index("Kiek ·") :]
    assert replayed.output == game_part


@pytest.mark.slow
def test_a_person_whose_answers_come_on_stdin_finishes_the_game(games):
    """Done when: the same game with one human whose answers come on stdin finishes."""
    result, log = games["human"]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Final scores" in result.stdout
    events = read_events(log)
    human_words = [e["data"]["word"] for e in events if e["type"] == "guess" and e["player"] == 0]
    assert len(human_words) == 9 and "outdoors" in human_words
    plays = [e for e in events if e["type"] == "play" and e["player"] == 0]
    assert len(plays) == 3 and all(p["data"]["wrote_word"] for p in plays)
    labels = {v for e in events if e["type"] == "setup" for v in e["data"]["labels"].values()}
    assert not any(f"({label})" in result.stdout for label in labels)  # no answer given away
    assert list((log.parent / f"{log.stem}-cards").glob("*.png"))  # contact sheets saved


@pytest.mark.slow
def test_eof_mid_game_exits_non_zero_and_keeps_the_log(games):
    """Bad input: the input ends mid-game -> clear message, exit 1, the log kept."""
    result, log = games["eof"]
    assert result.returncode == 1, result.stderr[-3000:]
    assert "EOF" in result.stderr and str(log) in result.stderr
    assert "Traceback" not in result.stderr
    events = read_events(log)
    assert events[0]["type"] == "header" and events[-1]["type"] == "aborted"


@pytest.mark.slow
def test_default_deck_game_with_bots_alone(games):
    """Done when: `kiekai play --bots 3 --humans 0` works with the embedded default deck."""
    result, log = games["default"]
    assert result.returncode == 0, result.stderr[-3000:]
    assert "embedded default deck" in result.stdout
    assert "Final scores" in result.stdout
    assert read_events(log)[-1]["type"] == "game-over"


def test_default_log_path_is_a_new_file_in_the_user_data_dir():
    from platformdirs import user_data_dir

    from kiekai.commands.play import default_log_path

    path = default_log_path(7)
    assert path.parent == Path(user_data_dir("kiekai")) / "games"
    assert path.name.startswith("kiek-") and path.name.endswith("-seed7.jsonl")


def test_too_many_players_for_the_default_deck_names_the_fix():
    """The embedded deck holds 20 photos (4 players): 5 players get the numbers and --deck."""
    result = runner.invoke(app, ["play", "--bots", "5", "--humans", "0"])
    assert result.exit_code == 2, result.output
    assert "23 cards are needed for 5 players" in result.output
    assert "--deck" in result.output
