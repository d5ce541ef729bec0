"""The ``kiekai`` command line (Typer). Thin: every command lives in ``kiekai.commands``.

Each module in :mod:`kiekai.commands` exposes ``register(app)`` that adds its commands;
heavy imports (torch, open_clip, nltk) happen inside the command functions so that
``kiekai --help`` stays fast.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="kiekai",
    help="AI opponents and a synonym judge for Kiek and Kismet.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Command modules, each with a ``register(app: typer.Typer) -> None`` function.
COMMAND_MODULES = (
    "kiekai.commands.play",
    "kiekai.commands.models",
    "kiekai.commands.deck",
    "kiekai.commands.judge",
    "kiekai.commands.serve",
    "kiekai.commands.kismet",
)

for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as exc:  # a command module not written yet
        if exc.name != _name:
            raise
        continue
    _module.register(app)


def main() -> None:
    """Run the ``kiekai`` command line; exits with the command's status code."""
    app()
