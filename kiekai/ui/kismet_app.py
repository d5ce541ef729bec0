"""The Kismet terminal UI (Textual): one person against reflex bots, in real time.

Base game: the 11 cards lie in a ring around the dice; each card has a key ``a``..``k``
(clockwise from the top left) that puts your hand on it; bots' hands appear on cards as they
cover them; after the reveal there is a short pause before the next roll.

Variant: your cards in front of you are keyed by value (``a`` = 2 … ``k`` = 12). Before the
first roll, toggle cards to pre-lay and confirm with Enter (at most 6 minus points). On your
turn ``r`` takes the dice, a card key lays a card, ``p`` passes; ``space`` knocks into
someone else's turn.

Everything rule-related happens in :mod:`kiekai.kismet.engine` through a table of
:mod:`kiekai.kismet.table`; the app only maps keys to table calls and draws the state. Keys
at the wrong moment or held down are answered with a message, never an exception; ``q``,
Escape or Ctrl-C leave the game (Ctrl-C with return code 130), and so do SIGINT, SIGTERM
and SIGHUP (return code 128 + signal); Textual restores the terminal.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Mapping

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.widgets import Static

from kiekai.clock import MonotonicClock, VirtualClock
from kiekai.kismet.engine import VariantGame
from kiekai.kismet.table import BaseTable, VariantTable, describe, run_realtime, seat_names

#: Keys for the 11 circle slots (base game) or the values 2..12 (variant), in order.
CARD_KEYS = "abcdefghijk"
#: Ring order of slots in a 4 x 4 grid around the 2 x 2 dice box (clockwise from top left).
_RING = [0, 1, 2, 3, 10, "dice", 4, 9, 5, 8, 7, 6]
#: Below this terminal size (columns, rows) the table is hidden behind a "too small" note.
MIN_SIZE = (44, 18)


class KismetApp(App[None]):
    """Textual app around a :class:`BaseTable` or :class:`VariantTable` with one human seat.

    Args:
        table: the table to play (its human seat is ``human``).
        names: seat → display name (default :func:`~kiekai.kismet.table.seat_names`).
        human: the human's seat.
        realtime: drive the table on its clock in the background (play); ``False`` leaves
            time to :meth:`advance` (tests with a :class:`~kiekai.clock.VirtualClock`).
    """

    CSS = """
    Screen { layout: vertical; }
    #status { height: 2; padding: 0 1; background: $boost; }
    #board { height: 1fr; }
    #circle { layout: grid; grid-size: 4 4; grid-gutter: 0 1; height: 16; }
    .card { border: round $primary; content-align: center middle; height: 4; }
    .card.covered { border: heavy $warning; }
    .card.mine { border: heavy $success; }
    .card.empty { border: dashed $panel; }
    #dice { column-span: 2; row-span: 2; content-align: center middle; border: double $accent; }
    #rows { height: auto; }
    #scores { height: auto; padding: 0 1; }
    #events { height: 1fr; padding: 0 1; color: $text-muted; }
    #small { display: none; content-align: center middle; height: 1fr; }
    Screen.small #board { display: none; }
    Screen.small #small { display: block; }
    """

    #: No command palette: Ctrl-P pressed by mistake would open a modal search box that takes
    #: every later key (the card keys included) while the game runs on.
    ENABLE_COMMAND_PALETTE = False

    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Quit", priority=True, show=False),
        Binding("q", "quit", "Quit", show=False),
        Binding("escape", "quit", "Quit", show=False),
    ]

    def __init__(
        self,
        table: BaseTable | VariantTable,
        names: Mapping[int, str] | None = None,
        human: int = 0,
        realtime: bool = True,
    ) -> None:
        super().__init__()
        self.table = table
        self.human = human
        self.names = dict(names or seat_names(table.game.players, humans=1))
        self.realtime = realtime
        self.variant = isinstance(table, VariantTable)
        self.pre_lay_choice: set[int] = set()
        self._wake = asyncio.Event()
        self._dirty = False
        self._shown: dict[str, tuple] = {}
        #: clock reading (s) when the app was made: event times are shown relative to it.
        self.origin = table.clock.now()
        #: signal → handler to give back when the app closes (see :meth:`_catch_signals`).
        self._signals: dict[int, object] = {}

    # --- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        """Status line, the board (ring of cards around the dice, or the variant's rows),
        scores, recent events, and the hidden "terminal too small" note."""
        yield Static(id="status")
        with Vertical(id="board"):
            if self.variant:
                yield Static(id="dice", classes="variant-dice")
                yield Static(id="rows")
            else:
                with Container(id="circle"):
                    for cell in _RING:
                        if cell == "dice":
                            yield Static(id="dice")
                        else:
                            yield Static(id=f"slot{cell}", classes="card")
            yield Static(id="scores")
            yield Static(id="events")
        yield Static(
            f"The terminal is too small for Kismet (need {MIN_SIZE[0]}x{MIN_SIZE[1]}). "
            "Enlarge it, or press q to quit.",
            id="small",
        )

    def on_mount(self) -> None:
        """Start the game: in real time a worker drives the table on its clock."""
        self.table.listeners.append(self._mark_dirty)
        self._catch_signals()
        self._apply_size(self.size.width, self.size.height)
        self.title = "Kismet"
        if self.realtime:
            self.run_worker(run_realtime(self.table, self._wake, self.redraw), exclusive=True)
            self.set_interval(0.1, self._redraw_if_dirty)
        else:
            self.table.start()
        self.redraw()

    def on_unmount(self) -> None:
        """Give back the signal handlers taken in :meth:`_catch_signals`."""
        self._release_signals()

    def action_interrupt(self) -> None:
        """Ctrl-C: leave the game with exit status 130 (128 + SIGINT, as a shell reports it)."""
        self.exit(return_code=128 + signal.SIGINT)

    def _catch_signals(self) -> None:
        """Turn SIGINT, SIGTERM and SIGHUP into a clean exit (status 128 + signal number).

        Python's default action on SIGTERM (``kill PID``) ends the process at once, leaving
        the terminal in the alternate screen with mouse reporting on and the cursor hidden;
        exiting through Textual restores it. (Ctrl-C typed in the terminal arrives as a key,
        not as SIGINT: see :meth:`action_interrupt`.) Skipped where the event loop cannot take signal
        handlers (not the main thread, Windows).
        """
        loop = asyncio.get_running_loop()
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is None:
                continue
            previous = signal.getsignal(number)
            try:
                loop.add_signal_handler(number, self.exit, None, 128 + number)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            self._signals[number] = previous

    def _release_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for number, previous in self._signals.items():
            loop.remove_signal_handler(number)
            signal.signal(number, previous if previous is not None else signal.SIG_DFL)
        self._signals.clear()

    def on_resize(self, event: events.Resize) -> None:
        """Hide the board behind a note when the terminal is smaller than :data:`MIN_SIZE`."""
        self._apply_size(event.size.width, event.size.height)

    def _apply_size(self, width: int, height: int) -> None:
        self.screen.set_class(width < MIN_SIZE[0] or height < MIN_SIZE[1], "small")

    # --- time (tests) --------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """Move a virtual clock ``seconds`` ahead, running every job due on the way in order.

        Raises:
            TypeError: the table does not run on a :class:`~kiekai.clock.VirtualClock`.
        """
        clock = self.table.clock
        if not isinstance(clock, VirtualClock):
            raise TypeError("advance() needs a table on a VirtualClock")
        end = clock.now() + seconds
        while (due := self.table.scheduler.next_due()) is not None and due <= end:
            clock.advance(max(0.0, due - clock.now()))
            self.table.run_due()
        clock.advance(max(0.0, end - clock.now()))
        self.redraw()

    def step(self) -> bool:
        """Advance a virtual clock to the next scheduled job and run it; ``False`` if none."""
        due = self.table.scheduler.next_due()
        if due is None:
            return False
        self.advance(max(0.0, due - self.table.clock.now()))
        return True

    # --- input ---------------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        """Map a key to a table call; unknown keys are left to Textual (bindings).

        Upper-case letters count as their lower-case keys (Caps Lock or Shift held)."""
        key = event.key
        if len(key) == 1 and key.isascii() and key.isalpha():
            key = key.lower()
        if self.table.done:
            self.table.message = "the game is over: press q to leave"
        elif self.variant:
            self._variant_key(key)
        elif key in CARD_KEYS and len(key) == 1:
            stamp = event.time if isinstance(self.table.clock, MonotonicClock) else None
            self.table.human_cover(self.human, CARD_KEYS.index(key), stamp)
        elif key == "space":
            self.table.message = "knocking belongs to the variant (--variant)"
        else:
            return
        event.stop()
        self._wake.set()
        self.redraw()

    def _variant_key(self, key: str) -> None:
        table = self.table
        assert isinstance(table, VariantTable)
        g = table.game
        seat = self.human
        if key in CARD_KEYS and len(key) == 1:
            value = 2 + CARD_KEYS.index(key)
            if g.phase == "pre_lay" and seat not in g.pre_laid:
                self.pre_lay_choice ^= {value}
                points = sum(g.rules.points(v) for v in self.pre_lay_choice)
                table.message = (
                    f"pre-lay {sorted(self.pre_lay_choice)} = {points} of "
                    f"{g.rules.pre_lay_limit} minus points; Enter confirms"
                )
            else:
                table.human_lay(seat, value)
        elif key == "enter":
            if g.phase == "pre_lay" and seat not in g.pre_laid:
                table.human_pre_lay(seat, tuple(sorted(self.pre_lay_choice)))
                if seat in g.pre_laid:
                    self.pre_lay_choice = set()
            else:
                table.message = "Enter confirms the pre-lay before a round"
        elif key == "space":
            table.human_knock(seat)
        elif key == "r":
            table.human_roll(seat)
        elif key == "p":
            table.human_pass(seat)

    # --- drawing -------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True

    def _redraw_if_dirty(self) -> None:
        if self._dirty:
            self.redraw()

    def redraw(self) -> None:
        """Draw the whole state (cheap: a few text widgets)."""
        self._dirty = False
        try:
            if self.variant:
                self._draw_variant()
            else:
                self._draw_base()
            self._draw_events()
        except Exception as exc:  # never let drawing kill a game; show what failed
            self._show("#status", Text(f"display error: {exc}"))

    def _show(self, selector: str, content: Text, classes: str | None = None) -> None:
        """Update a widget only when its text or classes changed (each update costs a
        repaint on the event loop that also runs the game's timing)."""
        key = (content.plain, tuple(content.spans), classes)
        if self._shown.get(selector) == key:
            return
        self._shown[selector] = key
        widget = self.query_one(selector, Static)
        widget.update(content)
        if classes is not None:
            widget.set_classes(classes)

    def _status(self, prompt: str) -> None:
        line = Text(prompt, style="bold")
        if self.table.message:
            line.append("\n" + self.table.message)
        self._show("#status", line)

    def _draw_base(self) -> None:
        table = self.table
        assert isinstance(table, BaseTable)
        g = table.game
        holders = {c.slot: c.player for c in g.covers.values()}
        for slot, card in enumerate(g.circle):
            key = CARD_KEYS[slot]
            if card is None:
                self._show(f"#slot{slot}", Text(f"[{key}]\n"), "card empty")
                continue
            label = Text(f"[{key}] ", style="dim")
            label.append(f"{card.value:>2}", style="bold")
            label.append(f"  ({g.rules.points(card.value)})", style="dim")
            holder = holders.get(slot)
            if holder is not None:
                label.append(f"\nhand: {self.names[holder]}", style="bold yellow")
            classes = "card"
            if holder is not None:
                classes += " mine" if holder == self.human else " covered"
            self._show(f"#slot{slot}", label, classes)
        dice = Text("dice\n", style="dim")
        if g.dice is not None:
            dice.append("  ".join(str(d) for d in g.dice), style="bold")
        else:
            dice.append("…")
        self._show("#dice", dice)
        if table.done:
            prompt = "Game over. " + self._winners_text() + "  (q: leave)"
        elif g.phase == "cover":
            prompt = "Find a card the dice make and press its key!"
        else:
            prompt = "Next roll coming…" + self._reveal_text()
        self._status(prompt)
        scores = g.scores()
        line = Text("points: ")
        for seat in range(g.players):
            line.append(f"{self.names[seat]} {scores[seat]} ({len(g.piles[seat])} cards)   ")
        line.append(f"\ndraw pile: {len(g.draw_pile)}   round {g.round + 1}")
        self._show("#scores", line)

    def _reveal_text(self) -> str:
        table = self.table
        assert isinstance(table, BaseTable)
        parts = []
        for r in table.last_reveals:
            who = self.names[r.player]
            parts.append(f"{who} +{r.card.value}" if r.correct else f"{who} wrong ({r.card.value})")
        return ("  last: " + ", ".join(parts)) if parts else ""

    def _winners_text(self) -> str:
        g = self.table.game
        seats = g.match_winners() if isinstance(g, VariantGame) else g.winners()
        return "Winner: " + ", ".join(self.names[s] for s in seats)

    def _draw_variant(self) -> None:
        table = self.table
        assert isinstance(table, VariantTable)
        g = table.game
        seat = self.human
        dice = Text("dice: ", style="dim")
        dice.append("  ".join(map(str, g.dice)) if g.dice else "…", style="bold")
        if g.roller is not None and g.phase in ("turn", "pass"):
            dice.append(
                f"   roller: {self.names[g.roller]}" + ("  (passed)" if g.phase == "pass" else "")
            )
        self._show("#dice", dice)
        rows = Text()
        for p in range(g.players):
            rows.append(f"{self.names[p]:>6} ", style="bold" if p == seat else "")
            for v in g.fronts[p]:
                style = "reverse" if p == seat and v in self.pre_lay_choice else ""
                key = f"{CARD_KEYS[v - 2]}:" if p == seat else ""
                rows.append(f"{key}{v}({g.rules.points(v)}) ", style=style)
            rows.append(f"  | laid {len(g.laid[p])}   total -{g.tallies[p]}\n")
        self._show("#rows", rows)
        if table.done:
            prompt = "Match over. " + self._winners_text() + "  (q: leave)"
        elif g.phase == "pre_lay":
            prompt = (
                "Pre-lay: toggle cards with their keys (at most "
                f"{g.rules.pre_lay_limit} minus points), Enter to confirm"
                if seat not in g.pre_laid
                else "Waiting for the others to pre-lay…"
            )
        elif g.phase == "round_over":
            prompt = f"Round over: {self.names[g.winner]} laid all cards. Next round soon…"
        elif g.next_roller == seat and g.phase in ("await_roll", "pass"):
            prompt = "Your turn: r takes the dice"
        elif g.phase == "turn" and g.roller == seat:
            prompt = "Lay a matching card with its key, then p passes"
        else:
            prompt = "space knocks if you can lay and the roller cannot (or he overlooked one)"
        self._status(prompt)
        self._show("#scores", Text(f"round {g.round + 1} of {table.rounds}"))

    def _draw_events(self) -> None:
        lines = []
        for event in self.table.game.log.events[-40:]:
            text = describe(event, self.names, show_values=False, origin=self.origin)
            if text is not None:
                lines.append(text)
        height = max(1, self.query_one("#events", Static).size.height or 8)
        self._show("#events", Text("\n".join(lines[-height:])))
