"""The ``kiekai`` command line (Typer). Thin: every command lives in ``kiekai.commands``.

Each module in :mod:`kiekai.commands` exposes ``register(app)`` that adds its commands;
heavy imports (torch, open_clip, nltk) happen inside the command functions so that
``kiekai --help`` stays fast. ``kiekai judge`` and ``kiekai repeat``, which answer in
well under a second, import only their own command module (:data:`FAST_COMMANDS`): the
others (Textual, Rich tables, the Kismet engine) would add about 0.1-0.2 s to each call.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable

import typer

#: Command modules, each with a ``register(app: typer.Typer) -> None`` function.
COMMAND_MODULES = (
    "kiekai.commands.play",
    "kiekai.commands.models",
    "kiekai.commands.deck",
    "kiekai.commands.judge",
    "kiekai.commands.serve",
    "kiekai.commands.kismet",
)

#: Commands whose module alone is imported when the command line starts with them.
FAST_COMMANDS = {"judge": "kiekai.commands.judge", "repeat": "kiekai.commands.judge"}


def build_app(modules: Iterable[str] = COMMAND_MODULES) -> typer.Typer:
    """The Typer app with the commands of ``modules`` registered."""
    built = typer.Typer(
        name="kiekai",
        help="AI opponents and a synonym judge for Kiek and Kismet.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command module not written yet
            if exc.name != name:
                raise
            continue
        module.register(built)
    return built


def __getattr__(name: str):
    """``kiekai.cli.app``: the app with every command, built on first access."""
    if name == "app":
        globals()["app"] = full = build_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the ``kiekai`` command line; exits with the command's status code."""
    first = sys.argv[1] if len(sys.argv) > 1 else ""
    fast = FAST_COMMANDS.get(first)
    if fast is not None:
        build_app((fast,))()
    else:
        __getattr__("app")()
