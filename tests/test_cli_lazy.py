"""``kiekai`` imports only the command module it runs (issue 22: ``kiekai --help`` < 0.3 s).

The top-level group lists :data:`kiekai.cli.COMMANDS` without importing the command
modules; these tests check that the table says what the commands themselves say (so it
cannot drift from their docstrings) and that a run imports only what it needs.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from kiekai import cli

ROOT = Path(__file__).resolve().parents[1]


def _first_paragraph(text: str) -> str:
    return " ".join(inspect.cleandoc(text).split("\n\n", 1)[0].split())


def test_table_lists_every_command_with_its_own_help():
    full = typer.main.get_command(cli.app)
    commands = full.commands  # type: ignore[attr-defined]
    assert list(cli.COMMANDS) == list(commands)
    for name, (module, text) in cli.COMMANDS.items():
        assert name in cli.module_commands(module), f"{module} does not register {name!r}"
        assert text == _first_paragraph(commands[name].help or ""), name


def _imported_after(args: list[str]) -> tuple[list[str], str]:
    """The ``kiekai.commands.*`` modules a fresh interpreter imported running ``kiekai ARGS``."""
    code = (
        "import sys\n"
        f"sys.argv = ['kiekai', *{args!r}]\n"
        "from kiekai.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('kiekai.commands.')))\n"
        "print(sorted(m for m in ('torch', 'pydantic', 'uvicorn', 'rich.console') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    lines = done.stdout.strip().splitlines()
    return [*eval(lines[-2]), "|", *eval(lines[-1])], done.stdout  # noqa: S307 (our own print)


def test_help_imports_no_command_module():
    imported, output = _imported_after(["--help"])
    assert imported == ["|"], imported
    for name in cli.COMMANDS:
        assert f"  {name} " in output


@pytest.mark.parametrize(
    ("args", "module"),
    [
        (["judge", "dog", "dogs"], "kiekai.commands.judge"),
        (["deck", "--help"], "kiekai.commands.deck"),
        (["models", "--help"], "kiekai.commands.models"),
    ],
)
def test_a_command_imports_its_module_alone(args, module):
    imported, _ = _imported_after(args)
    assert imported[: imported.index("|")] == [module]


def test_unknown_command_is_a_usage_error():
    from typer.testing import CliRunner

    result = CliRunner().invoke(cli.lazy_app(), ["nope"])
    assert result.exit_code == 2
    assert "No such command 'nope'" in result.output
