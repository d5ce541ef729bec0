"""`--help` of every command reads at 80 columns (COLUMNS=80): no line wider than the
terminal, no option name cut short ("--no-embedding-…"), flags shown as switches (no
"<bool>" as if they took a value), and each option's help at least 30 characters wide."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from kiekai.cli import app

runner = CliRunner()


def _commands(group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand of ``group`` (a Typer command object) as its words."""
    found = [path]
    for name, command in (getattr(group, "commands", None) or {}).items():
        found += _commands(command, (*path, name))
    return found


COMMANDS = _commands(typer.main.get_command(app))


def test_every_command_is_listed():
    names = {" ".join(c) for c in COMMANDS}
    assert {
        "",
        "play",
        "replay",
        "judge",
        "repeat",
        "serve",
        "models",
        "kismet",
        "deck",
        "deck info",
    } <= names


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "kiekai")
def test_help_reads_at_80_columns(command):
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "…" not in result.output
    assert "<bool>" not in result.output
    # an option's help starts in one column, at most 50 characters in: >= 30 left for words
    for line in lines:
        if re.match(r"^  --?\w", line):
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            if len(parts) == 2:
                assert line.index(parts[1]) <= 50, line
