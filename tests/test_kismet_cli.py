"""``kiekai kismet`` through Typer's CliRunner: headless games, repeats, bad options."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from kiekai.cli import app

runner = CliRunner()


def kismet(*args: str):
    return runner.invoke(app, ["kismet", *args])


@pytest.mark.parametrize("variant", [[], ["--variant"]])
def test_bots_only_game_prints_the_game_and_results(variant):
    result = kismet("--bots", "3", "--humans", "0", "--seed", "1", *variant)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "seed 1" in out and "results" in out and "winner:" in out
    assert ("knocks" in out or "lays" in out) if variant else ("covers card" in out)
    for number in (1, 2, 3):  # bots are numbered from 1, as with a person at the table
        assert f"bot{number}" in out
    assert "bot0" not in out


def test_same_seed_prints_the_same_game():
    first = kismet("--bots", "4", "--humans", "0", "--seed", "7", "--variant", "--rounds", "2")
    second = kismet("--bots", "4", "--humans", "0", "--seed", "7", "--variant", "--rounds", "2")
    assert first.exit_code == 0 and first.output == second.output


@pytest.mark.parametrize("bots", [2, 8])
def test_smallest_and_largest_tables(bots):
    result = kismet("--bots", str(bots), "--humans", "0", "--seed", "3", "--level", "expert")
    assert result.exit_code == 0, result.output
    assert f"bot{bots - 1}" in result.output and "game over" in result.output


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--bots", "9", "--humans", "0"], "change --bots"),
        (["--bots", "0", "--humans", "1"], "change --bots"),
        (["--humans", "2"], "--humans must be 0 or 1"),
        (["--level", "godlike", "--humans", "0"], "choose one of easy, normal, hard, expert"),
        (["--rounds", "0", "--humans", "0", "--variant"], "--rounds must be at least 1"),
        (["--rounds", "2", "--humans", "0"], "counts rounds of the variant"),
        (["--rules", "/nonexistent/kismet.toml", "--humans", "0"], "does not exist"),
        (["--rounds", "1001", "--humans", "0", "--variant"], "--rounds must be at most 1000"),
    ],
)
def test_bad_options_are_clear_errors_without_traceback(args, fragment):
    result = kismet(*args)
    assert result.exit_code == 2
    assert fragment in result.output
    assert "Traceback" not in result.output


def test_rules_file_and_log_file(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text("[chips]\n7 = 10\n")
    log = tmp_path / "game.jsonl"
    result = kismet(
        "--bots", "2", "--humans", "0", "--seed", "2", "--rules", str(rules), "--log", str(log)
    )
    assert result.exit_code == 0, result.output
    lines = log.read_text().splitlines()
    assert lines and '"type": "setup"' in lines[0]
    assert "takes the 7 (" in result.output and "+10 points" in result.output  # a 7 is worth 10


def test_playing_needs_a_terminal():
    result = kismet("--bots", "2", "--humans", "1")
    assert result.exit_code == 2
    assert "interactive terminal" in result.output


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("chips = 5\n", "[chips] must be a table"),
        ("chips = [1, 2]\n", "[chips] must be a table"),
        ('variant = "x"\n', "[variant] must be a table"),
        ('[chips]\n"+7" = 2\n', "not a card value 2..12"),
        ('[chips]\n" 7 " = 2\n', "not a card value 2..12"),
        ('[chips]\n"\u0667" = 2\n', "not a card value 2..12"),  # an Arabic-Indic 7
        ("[chips]\n7 = 1.5\n", "chip points must be integers"),
        ("[chips\n", "is not readable TOML"),
    ],
)
def test_malformed_rules_files_are_clear_errors(tmp_path, text, fragment):
    rules = tmp_path / "rules.toml"
    rules.write_text(text, encoding="utf-8")
    result = kismet("--bots", "2", "--humans", "0", "--seed", "1", "--rules", str(rules))
    assert result.exit_code == 2, result.output
    assert fragment in result.output and str(rules) in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_an_interrupted_match_names_a_leader_not_a_winner():
    from kiekai.clock import VirtualClock
    from kiekai.commands.kismet import results_text
    from kiekai.kismet.table import make_table, seat_names

    clock = VirtualClock()
    table = make_table(3, variant=True, seed=4, clock=clock, rounds=3)
    table.start()
    while len(table.game.history) < 1:  # play one of three rounds, then stop (Ctrl-C)
        clock.advance(table.scheduler.next_due() - clock.now())
        table.run_due()
    text = results_text(table, seat_names(3))
    assert "winner" not in text
    assert "match not finished after 1 of 3 rounds; leading:" in text


def test_a_log_that_cannot_be_written_mid_game_is_reported_not_a_traceback(tmp_path, monkeypatch):
    """A disk that fills up: the log file opens fine and, after 3 lines, every write fails
    with ENOSPC (a regular file whose writes fail: the log refuses devices such as /dev/full
    at once, see test_a_named_pipe_or_device_as_rules_or_log_is_refused_at_once)."""
    import errno
    import io

    import kiekai.events

    class FillingFile(io.StringIO):
        def write(self, text):
            if self.getvalue().count("\n") >= 3:
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().write(text)

    monkeypatch.setattr(kiekai.events, "_open_append", lambda path: FillingFile())
    log = tmp_path / "game.jsonl"
    result = kismet("--bots", "2", "--humans", "0", "--seed", "1", "--log", str(log))
    assert result.exit_code == 1, result.output
    assert "results" in result.output and "winner:" in result.output  # the game went on
    assert f"writing the log {log} failed after 3 events" in result.output
    assert "No space left on device" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


# --- issue 11, point 9 ------------------------------------------------------------------


@pytest.mark.parametrize("humans", ["0", "1"])
def test_negative_bots_is_a_clear_error(humans):
    result = kismet("--bots", "-1", "--humans", humans)
    assert result.exit_code == 2
    low = 2 - int(humans)
    assert f"--bots must be {low} to {8 - int(humans)} with --humans {humans} (got -1)" in (
        result.output
    )
    assert "bot(s)" not in result.output and "-1 players" not in result.output


def test_level_is_case_insensitive():
    result = kismet("--bots", "2", "--humans", "0", "--seed", "1", "--level", "EXPERT")
    assert result.exit_code == 0, result.output
    assert "2 expert bots" in result.output


# --- issue 13, point 11: a printed game can be checked against the rules ----------------

DICE = re.compile(r"(?:roll|rolls) (\d(?:, \d)* and \d) -> values")


def dice_of(line: str) -> tuple[int, ...] | None:
    m = DICE.search(line)
    return tuple(int(x) for x in re.findall(r"\d", m.group(1))) if m else None


def sums(dice: tuple[int, ...]) -> set[int]:
    return {a + b for i, a in enumerate(dice) for b in dice[i + 1 :]}


@pytest.mark.parametrize("seed", [1, 5])
def test_11_the_printed_base_game_shows_circle_and_dice_and_obeys_the_rules(seed):
    result = kismet("--bots", "4", "--humans", "0", "--seed", str(seed), "--level", "easy")
    assert result.exit_code == 0, result.output
    values: set[int] = set()
    circle: dict[str, int] = {}
    checked = {"takes": 0, "wrong": 0, "clear": 0}
    for line in result.output.splitlines():
        if (dice := dice_of(line)) is not None:
            values, circle = sums(dice), {}
        elif line.strip().startswith("circle:"):
            pairs = re.findall(r"([a-k]) +(\d+|-)", line.split("circle:")[1])
            circle = {k: int(v) for k, v in pairs if v != "-"}
            assert len(pairs) == 11
        elif m := re.search(r"takes the (\d+) \(([a-k])\)", line):
            assert int(m[1]) in values and circle[m[2]] == int(m[1]), line
            checked["takes"] += 1
        elif m := re.search(r"covered the (\d+) \(([a-k])\): wrong", line):
            assert int(m[1]) not in values and circle[m[2]] == int(m[1]), line
            checked["wrong"] += 1
        elif "no card could be taken" in line:
            assert not values & set(circle.values()), line
            checked["clear"] += 1
    assert checked["takes"] > 10 and checked["wrong"] > 0, checked


@pytest.mark.parametrize("seed", [2, 7])
def test_11_the_printed_variant_shows_the_cards_in_front_and_obeys_the_rules(seed):
    result = kismet(
        "--bots", "4", "--humans", "0", "--seed", str(seed), "--variant", "--rounds", "2",
        "--level", "easy",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    fronts: dict[str, list[int]] = {}
    roller, values = "", set()
    laid_now: list[int] = []
    checked = {"lay": 0, "knock_lay": 0, "wrong_knock": 0, "tables": 0}
    for line in result.output.splitlines():
        if (dice := dice_of(line)) is not None:
            roller, values, fronts, laid_now = line.split()[1], sums(dice), {}, []
        elif m := re.match(r"\s+(\S+) +in front: ([\d ]*|\(none\))  \(", line):
            fronts[m[1]] = [int(v) for v in m[2].split()] if m[2] != "(none)" else []
        elif m := re.match(
            r"\s+[\d.]+s +(\S+) lays the (\d+)( \(the joker throw's extra card\))?", line
        ):
            who, value = m[1], int(m[2])
            assert who == roller and value in fronts[who] and value not in laid_now, line
            if not m[3]:
                assert value in values and not laid_now, line
            laid_now.append(value)
            checked["lay"] += 1
        elif m := re.search(r"(\S+) knocks first and lays the (\d+)", line):
            assert int(m[2]) in values and int(m[2]) in fronts[m[1]], line
            checked["knock_lay"] += 1
        elif m := re.search(r"(\S+) knocks wrongly", line):
            roller_left = set(fronts[roller]) - set(laid_now)
            assert roller_left & values or not set(fronts[m[1]]) & values, line
            checked["wrong_knock"] += 1
        elif line.split() == ["player", "minus", "points", "place", "total"]:
            checked["tables"] += 1
    assert checked["lay"] > 5 and checked["knock_lay"] > 0 and checked["tables"] == 2, checked


def _refused_in_time(args: list[str]) -> str:
    """Run ``kiekai kismet ARGS`` in a thread; fail if it does not finish within 30 s (a
    named pipe used to block the open or the read for ever)."""
    import threading

    box: dict = {}
    thread = threading.Thread(
        target=lambda: box.update(result=runner.invoke(app, args)), daemon=True
    )
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), f"kiekai {' '.join(args)} hung"
    result = box["result"]
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize("option", ["--rules", "--log"])
def test_a_named_pipe_or_device_as_rules_or_log_is_refused_at_once(tmp_path, option):
    import os

    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    out = _refused_in_time(["kismet", "--bots", "3", "--humans", "0", option, str(fifo)])
    assert "not a regular file (a named pipe)" in out
    out = _refused_in_time(["kismet", "--bots", "3", "--humans", "0", option, "/dev/zero"])
    assert "not a regular file (a character device)" in out


@pytest.mark.parametrize(
    "text, fragment",
    [("a = " + "[" * 30000 + "]" * 30000, "nests arrays or tables too deeply"),
     ("[chips]\n" + "# padding\n" * 20000, "too large")],
)  # fmt: skip
def test_rules_files_nested_too_deep_or_too_large_are_clear_errors(tmp_path, text, fragment):
    rules = tmp_path / "rules.toml"
    rules.write_text(text, encoding="utf-8")
    out = _refused_in_time(["kismet", "--bots", "3", "--humans", "0", "--rules", str(rules)])
    assert fragment in out


def test_kismet_errors_show_paths_escaped():
    out = _refused_in_time(
        ["kismet", "--bots", "3", "--humans", "0", "--rules", "/nowhere/\x1b]0;pwn\x07.toml"]
    )
    assert "\x1b" not in out and "\\x1b]0;pwn\\x07" in out
