"""Prints a Kiek game's events for people watching at a terminal (and for ``kiekai replay``).

What each event says is decided once, by :class:`kiekai.kiek.describe.Describer` (plain
lines with style tags); :class:`EventPrinter` only sets those lines with Rich: a text line,
a rule across the screen for a new turn, and a Rich table for the final scores. The live
game and the replay use the same printer, so a replay prints what the game printed.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kiekai.events import Event
from kiekai.kiek.describe import Describer, Line


class EventPrinter:
    """Prints game events for people watching (and for :func:`kiekai.kiek.replay.replay`).

    The lines are :class:`kiekai.kiek.describe.Describer`'s (cards named as people see them,
    outside text made printable); they are printed as Rich ``Text``, never parsed as markup.

    Args:
        console: where to print.
        reasons_shown: the people at this console have already read each verdict with the
            judge's reason (the terminal lists them when it asks "Overrule a verdict?"), so
            the verdict lines give the outcome and the points without repeating the reason.
            False for replays, bots-only games and the web table's log.
    """

    def __init__(self, console: Console, reasons_shown: bool = False) -> None:
        self.console = console
        self.describer = Describer(reasons_shown)

    @property
    def names(self) -> list[str]:
        """Player names by seat (from the header event; settable for a log without one)."""
        return self.describer.names

    @names.setter
    def names(self, names: list[str]) -> None:
        self.describer.names = list(names)

    def __call__(self, event: Event) -> None:
        """Print ``event`` (an event that says nothing, or of an unknown type, prints nothing)."""
        self.print_lines(self.describer.describe(event))

    def print_lines(self, lines: Sequence[Line]) -> None:
        """Set ``lines`` on the console: text lines, rules, and a table for each title with
        the rows after it (the first row names the columns)."""
        table: Table | None = None
        for line in lines:
            if line.kind == "row" and table is not None:
                if not table.columns:
                    for cell in line.cells:
                        table.add_column(cell, justify="left" if cell == "Player" else "right")
                else:
                    table.add_row(*line.cells)
                continue
            if table is not None:
                self.console.print(table)
                table = None
            if line.kind == "title":
                table = Table(title=_text(line))
            elif line.kind == "rule":
                self.console.rule(_text(line))
            else:
                self.console.print(_text(line), highlight=False)
        if table is not None:
            self.console.print(table)


def _text(line: Line) -> Text:
    """The line as Rich text, each span in its style (no markup is parsed)."""
    return Text.assemble(*((span.text, span.style) for span in line.spans))
