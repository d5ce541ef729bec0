"""Typer command modules; each exposes ``register(app)`` (see :mod:`kiekai.cli`).

Shared here: :func:`path_value`, the parser of every path option and argument,
:func:`command_resources`, the models a command reads, and :func:`freeze_imported`, called
before a long game loop.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from kiekai.judge.resources import Resources


def freeze_imported() -> None:
    """Keep what is alive now (the imported modules, their classes, schemas and tables) out
    of every later garbage collection: :func:`gc.freeze` moves it to the collector's
    permanent generation. Call it once a command's imports are done, just before its game
    loop. A full collection walks every tracked object; a long game (a Kismet match writes
    tens of thousands of typed events) would otherwise walk the ~50,000 objects of the
    imports again at each one, and in the real-time loop that walk is a pause that delays
    the scheduled bot actions. Nothing frozen is freed later, which is right for modules.
    """
    gc.freeze()


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


def _click_context() -> Any:
    """The click context of the command running now, or ``None`` outside one.

    Typer 0.2x runs on its own copy of click (``typer._click``): ``click``'s
    ``get_current_context`` never sees its commands (and importing ``click`` as well costs
    a verdict 30 ms); older Typer runs on ``click`` itself.
    """
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # Typer before it carried click
        from click import get_current_context  # type: ignore[no-redef]
    return get_current_context(silent=True)


def command_resources(report: Callable[[str], None] | None = None) -> Resources:
    """The :class:`kiekai.judge.resources.Resources` of the running command, built now
    and put in force until the command ends (the judge, the bots, perception and the
    lexicon the command makes read it); ``report`` gets a line whenever something slow
    loads (the WordNet index build, the sentence model).

    It starts with the WordNet reader and sentence model this process has loaded
    already, if any (none in a ``kiekai`` process; a test runner's or a notebook's
    otherwise), so that running a command in-process opens neither a second time.
    """
    from kiekai.judge.resources import Resources, default_resources

    shared = default_resources()
    resources = Resources(report=report, **shared.loaded_parts())
    context = _click_context()
    if context is not None:
        context.with_resource(resources.use())
    return resources
