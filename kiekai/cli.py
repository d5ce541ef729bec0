"""The ``kiekai`` command line (Typer). Thin: every command lives in ``kiekai.commands``.

Each module in :mod:`kiekai.commands` exposes ``register(app)`` that adds its commands;
heavy imports (torch, open_clip, nltk) happen inside the command functions.

The ``kiekai`` entry point (:func:`main`) imports no command module until it knows which
command runs: its top-level group (:class:`LazyGroup`) lists the commands and their short
help from :data:`COMMANDS` and imports only the module of the command that is given
(``kiekai judge`` imports :mod:`kiekai.commands.judge` alone). ``kiekai --help`` thus
costs Python and Typer only (about 0.1 s, against 0.5-0.6 s with every module, whose
imports pull in pydantic, uvicorn, Rich and the Kismet engine; docs/benchmarks.md).
:data:`kiekai.cli.app`, the app with every command registered, is built on first access
(tests and ``typer.testing.CliRunner`` use it); tests check that :data:`COMMANDS` says
what the commands' own docstrings say.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from typing import Any

import typer
from typer.core import TyperGroup

#: Command modules, each with a ``register(app: typer.Typer) -> None`` function.
COMMAND_MODULES = (
    "kiekai.commands.play",
    "kiekai.commands.models",
    "kiekai.commands.deck",
    "kiekai.commands.judge",
    "kiekai.commands.serve",
    "kiekai.commands.kismet",
)

#: Every top-level command, in the order ``kiekai --help`` lists them: name -> (the module
#: that registers it, the first paragraph of its help). ``tests/test_cli_lazy.py`` checks
#: both against the commands themselves, so a changed docstring fails a test until this
#: table says the same.
COMMANDS: dict[str, tuple[str, str]] = {
    "play": (
        "kiekai.commands.play",
        "Play a game of Kiek: split five photos 3 against 2 with one word; guess the others' "
        "words.",
    ),
    "replay": (
        "kiekai.commands.play",
        "Print a game of Kiek (or Kismet) again from its log alone, and check it against the "
        "rules.",
    ),
    "models": (
        "kiekai.commands.models",
        "Show kiekai's models and data files; with --fetch, download the missing ones.",
    ),
    "judge": (
        "kiekai.commands.judge",
        'Judge whether GUESS names the category SECRET (rulebook: "Imperfect Guesses").',
    ),
    "repeat": (
        "kiekai.commands.judge",
        "Ne bis in idem: does WORD repeat one of the used categories? (rulebook)",
    ),
    "serve": (
        "kiekai.commands.serve",
        "Serve the synonym judge over HTTP (POST /v1/judge, /v1/judge/batch, /v1/repeat).",
    ),
    "kismet": (
        "kiekai.commands.kismet",
        "Play Kismet against reflex bots with human-like reaction times.",
    ),
    "deck": (
        "kiekai.commands.deck",
        "Inspect photo decks and precompute their CLIP embeddings.",
    ),
}

#: Kept for callers of the earlier name: commands whose module alone is imported.
FAST_COMMANDS = {name: module for name, (module, _) in COMMANDS.items()}

_HELP = "AI opponents and a synonym judge for Kiek and Kismet."


#: The options of the ``kiekai`` Typer app, the same for the full app and the lazy one.
_APP_OPTIONS: dict[str, Any] = {
    "name": "kiekai",
    "help": _HELP,
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}


def build_app(modules: Iterable[str] = COMMAND_MODULES) -> typer.Typer:
    """The Typer app with the commands of ``modules`` registered."""
    built = typer.Typer(**_APP_OPTIONS)
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command module not written yet
            if exc.name != name:
                raise
            continue
        module.register(built)
    return built


def module_commands(module: str) -> dict[str, Any]:
    """The click commands that command module ``module`` registers, by name (imports it)."""
    built = build_app((module,))
    built.callback()(_root)  # a group even when the module registers one command
    return dict(getattr(typer.main.get_command(built), "commands", {}))


def _root() -> None:
    """AI opponents and a synonym judge for Kiek and Kismet."""


class LazyGroup(TyperGroup):
    """The top-level ``kiekai`` group: lists :data:`COMMANDS` without importing them, and
    imports a command's module only when that command is looked up to run (or to show its
    own ``--help``)."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command's name, in :data:`COMMANDS` order."""
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The click command ``cmd_name``, its module imported now; ``None`` when unknown."""
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        found = self.commands.get(cmd_name)
        if found is None:
            self.commands.update(module_commands(entry[0]))
            found = self.commands.get(cmd_name)
        return found

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The "Commands" section from :data:`COMMANDS`, shortened as click shortens a
        command's own help (no command module is imported)."""
        from typer._click.utils import make_default_short_help

        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, make_default_short_help(text, limit)) for name, (_, text) in COMMANDS.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def lazy_app() -> typer.Typer:
    """The ``kiekai`` app whose group is a :class:`LazyGroup` (what :func:`main` runs)."""
    built = typer.Typer(cls=LazyGroup, **_APP_OPTIONS)
    built.callback()(_root)
    return built


def __getattr__(name: str) -> Any:
    """``kiekai.cli.app``: the app with every command, built on first access."""
    if name == "app":
        globals()["app"] = full = build_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the ``kiekai`` command line; exits with the command's status code."""
    lazy_app()(args=sys.argv[1:])
