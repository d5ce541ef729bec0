"""``kiekai kismet`` through Typer's CliRunner: headless games, repeats, bad options."""

from __future__ import annotations

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
    assert ("knocks" in out or "lays" in out) if variant else ("covers slot" in out)
    for seat in range(3):
        assert f"bot{seat}" in out


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
        (["--rounds", "0", "--humans", "0"], "--rounds must be at least 1"),
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
    result = kismet("--bots", "2", "--humans", "0", "--seed", "2", "--rules", str(rules), "--log", str(log))
    assert result.exit_code == 0, result.output
    lines = log.read_text().splitlines()
    assert lines and '"type": "setup"' in lines[0]
    assert "(+10)" in result.output  # a 7 taken is now worth 10


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


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
def test_a_log_that_cannot_be_written_mid_game_is_reported_not_a_traceback():
    """/dev/full opens fine and fails every write with ENOSPC, like a disk that fills up."""
    result = kismet("--bots", "2", "--humans", "0", "--seed", "1", "--log", "/dev/full")
    assert result.exit_code == 1, result.output
    assert "results" in result.output and "winner:" in result.output  # the game went on
    assert "writing the log /dev/full failed after 0 events" in result.output
    assert "No space left on device" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
