"""Typer command modules; each exposes ``register(app)`` (see :mod:`kiekai.cli`).

Shared here: :func:`path_value`, the parser of every path option and argument.
"""

from __future__ import annotations

from pathlib import Path

import typer


def path_value(value: str | Path) -> Path:
    """Parse a path typed on the command line, refusing an empty one.

    Use as ``typer.Option(parser=path_value, metavar="PATH")`` (or ``typer.Argument``).
    ``Path("")`` is ``Path(".")``, so without this an empty value (``--deck "$DECK"`` with
    ``DECK`` unset) silently named the current folder: ``--deck ""`` read every photo under
    it, recursively (in a home folder: thousands), and ``--log ""`` said ". already exists".

    Raises:
        typer.BadParameter: the value is empty or only spaces (usage error, exit status 2).
    """
    if isinstance(value, Path):
        return value
    if not value.strip():
        raise typer.BadParameter(
            "is empty; give a path (an unset shell variable gives an empty one; '.' is the "
            "current folder)"
        )
    return Path(value)
