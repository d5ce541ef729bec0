"""``command_resources()`` puts a command's Resources in force for the command's run
(``kiekai.commands``), under the click that Typer really runs on."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from kiekai.commands import command_resources
from kiekai.judge import resources


def test_command_resources_are_in_force_during_the_command_and_not_after() -> None:
    seen: dict[str, bool] = {}
    app = typer.Typer()

    @app.command()
    def run() -> None:
        made = command_resources()
        seen["in force"] = resources.current() is made

    result = CliRunner().invoke(app, [])
    assert result.exit_code == 0, result.output
    assert seen == {"in force": True}
    assert resources.current() is resources.default_resources()
