"""The Kismet terminal UI (Textual): one person against reflex bots, in real time.

The game waits for a key before it starts; the base game then counts down 3 s to the first
roll. While the terminal is smaller than :data:`MIN_SIZE` the game is paused behind a note
(no keys act, no bot moves, the clock of every pending action stands still) and goes on
where it stopped once the terminal is large enough again.

Base game: the 11 cards lie in a ring around the dice; each card has a letter ``a``..``k``
(clockwise from the top left, shown on its top edge) that puts your hand on it; its chip
points are on its bottom edge. Bots' hands appear on cards as they cover them. After each
round the dice, what they make and who won or lost which card stay on screen for the pause
before the next roll, also when no card could be taken.

Variant: your cards in front of you are keyed by value (``a`` = 2 … ``k`` = 12). Before the
first roll, toggle cards to pre-lay and confirm with Enter (at most 6 minus points); the
others' choices stay hidden until everyone has chosen. On your turn ``r`` takes the dice, a
card key lays a card, ``p`` passes; ``space`` knocks into someone else's turn. A finished
round's results stay on screen until Enter starts the next round.

The base game counts the round's time limit down below the dice and says "time's up" when
it ends a round; between rounds the circle is shown refilled at once, each won card's place
naming who won which card. At the end of a game ``n`` plays again (with ``new_table``). The
person is "you" in every line (:func:`kiekai.kismet.table.seat_names`).

Everything rule-related happens in :mod:`kiekai.kismet.engine` through a table of
:mod:`kiekai.kismet.table`; the app only maps keys to table calls and draws the state. Keys
at the wrong moment, held down or unknown are answered with a message, never an exception;
``q``, Escape or Ctrl-C leave the game (Ctrl-C with return code 130), and so do SIGINT,
SIGTERM and SIGHUP (return code 128 + signal); Textual restores the terminal.
"""

from __future__ import annotations

import asyncio
import math
import signal
from collections.abc import Callable, Mapping
from typing import Any, cast

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical
from textual.widgets import Static

from kiekai.clock import MonotonicClock, VirtualClock
from kiekai.events import KismetRoll, typed
from kiekai.kismet.drivers import run_realtime
from kiekai.kismet.engine import VariantGame
from kiekai.kismet.prose import describe, plural, table_lines, verb
from kiekai.kismet.rules import SLOT_NAMES, VALUES, is_joker_throw, reachable_values
from kiekai.kismet.table import BaseTable, RoundView, VariantTable

#: Keys for the 11 circle places (base game) or the values 2..12 (variant), in order.
CARD_KEYS = SLOT_NAMES
#: Ring order of slots in a 4 x 4 grid around the 2 x 2 dice box (clockwise from top left).
_RING = [0, 1, 2, 3, 10, "dice", 4, 9, 5, 8, 7, 6]
#: Smallest terminal (columns, rows) that shows the whole table: status (2 rows), the ring
#: of cards (16 rows; four cards of 13 columns, for "bot7 won 12", next to a 25-column score
#: panel) and at least 4 rows of events: 80x22, inside the common 80x24. Smaller terminals
#: pause the game behind a note.
MIN_SIZE = (80, 22)
#: Seconds from the key that starts a base game to its first roll.
COUNTDOWN_S = 3.0
#: Keys Textual handles through :attr:`KismetApp.BINDINGS` (leave the game).
_QUIT_KEYS = ("q", "escape", "ctrl+c")


class KismetApp(App[None]):
    """Textual app around a :class:`BaseTable` or :class:`VariantTable` with one human seat.

    Args:
        table: the table to play (its human seat is ``human``); not started yet: the app
            starts it when the player presses a key.
        names: seat → display name (default: the table's names).
        human: the human's seat.
        realtime: drive the table on its clock in the background (play); ``False`` leaves
            time to :meth:`advance` (tests with a :class:`~kiekai.clock.VirtualClock`).
        new_table: builds a fresh table of the same kind (a new seed) for "play again":
            with it, ``n`` at the end of a game starts another (:meth:`play_again`);
            without it the end of the game offers only ``q``.
    """

    CSS = """
    Screen { layout: vertical; }
    #status { height: 2; padding: 0 1; background: $boost; }
    #board { height: auto; }
    #circle { layout: grid; grid-size: 4 4; grid-gutter: 0 1; height: 16; width: 1fr; }
    .card {
        border: round $primary; content-align: center middle; height: 4;
        text-align: center; border-title-align: left; border-subtitle-align: right;
    }
    .card.covered { border: heavy $warning; }
    .card.mine { border: heavy $success; }
    .card.right { border: heavy $success; }
    .card.wrong { border: heavy $error; }
    .card.gone { border: round $panel; color: $text-disabled; }
    .card.new { border: round $accent; }
    .card.empty { border: dashed $panel; }
    #dice.ring {
        column-span: 2; row-span: 2; height: 8; content-align: center middle;
        text-align: center; border: double $accent;
    }
    #dice.line { height: 1; padding: 0 1; }
    #board.ring #scores { width: 25; height: 16; padding: 0 1; }
    #rows { height: auto; padding: 0 1; }
    #board.rows #scores { height: auto; padding: 0 1; }
    #events { height: 1fr; min-height: 3; padding: 0 1; color: $text-muted; }
    #small { display: none; content-align: center middle; height: 1fr; padding: 0 2; }
    Screen.small #board { display: none; }
    Screen.small #status { display: none; }
    Screen.small #events { display: none; }
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
        new_table: Callable[[], BaseTable | VariantTable] | None = None,
    ) -> None:
        super().__init__()
        self.table = table
        self.new_table = new_table
        #: tables of the games played to their end before the current one (play again).
        self.finished: list[BaseTable | VariantTable] = []
        self.human = human
        self.names = dict(names) if names is not None else dict(table.names)
        self.realtime = realtime
        self.variant = isinstance(table, VariantTable)
        self.pre_lay_choice: set[int] = set()
        self._wake = asyncio.Event()
        self._dirty = False
        self._shown: dict[str, tuple] = {}
        #: clock reading (s) when the app was made: event times are shown relative to it.
        self.origin = table.clock.now()
        #: signal → handler to give back when the app closes (see :meth:`_catch_signals`).
        self._signals: dict[int, Any] = {}  # what signal.getsignal gave
        #: True while the terminal is smaller than :data:`MIN_SIZE` (the game is paused).
        self.too_small = False
        #: the whole seconds of the person's turn limit last drawn (variant), or None
        self._second_shown: int | None = None

    # --- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        """Status line, the board (ring of cards around the dice with the score panel
        beside it, or the variant's table of cards), recent events, and the hidden "terminal
        too small" note."""
        yield Static(id="status")
        if self.variant:
            with Vertical(id="board", classes="rows"):
                yield Static(id="dice", classes="line")
                yield Static(id="rows")
                yield Static(id="scores")
        else:
            with Horizontal(id="board", classes="ring"):
                with Container(id="circle"):
                    for cell in _RING:
                        if cell == "dice":
                            yield Static(id="dice", classes="ring")
                        else:
                            yield Static(id=f"slot{cell}", classes="card")
                yield Static(id="scores")
        yield _EventList(id="events")
        yield Static(id="small")

    def on_mount(self) -> None:
        """Show the table and wait for a key to start."""
        self.table.listeners.append(self._mark_dirty)
        self._catch_signals()
        self._apply_size(self.size.width, self.size.height)
        self.title = "Kismet"
        if self.realtime:
            self.set_interval(0.1, self._tick)
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
        not as SIGINT: see :meth:`action_interrupt`.) Skipped where the event loop cannot
        take signal handlers (not the main thread, Windows).
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
        """Pause behind a note while the terminal is smaller than :data:`MIN_SIZE`."""
        self._apply_size(event.size.width, event.size.height)

    def _apply_size(self, width: int, height: int) -> None:
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.too_small = small
        self.screen.set_class(small, "small")
        if small:
            if self.table.started and not self.table.done:
                self.table.pause()
            what = "paused" if self.table.started else "waiting"
            self.query_one("#small", Static).update(
                f"Kismet is {what}: this terminal is {width}x{height}, the table needs at "
                f"least {MIN_SIZE[0]}x{MIN_SIZE[1]}.\nEnlarge the window to go on, or press "
                "q to quit."
            )
        elif self.table.paused:
            self.table.resume()
        self._wake.set()

    def refresh_events(self) -> None:
        """Fill the event list anew for its current height (called when it is resized)."""
        self._shown.pop("#events", None)
        self._draw_events()

    # --- time (tests) --------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """Move a virtual clock ``seconds`` ahead, running every job due on the way in order
        (none while the game is paused).

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
    def start_game(self) -> None:
        """Start the table (the base game after a :data:`COUNTDOWN_S` countdown; the variant
        deals at once, its pre-lay is the time to get ready) and, in real time, drive it."""
        if self.table.started:
            return
        self.table.start(0.0 if self.variant else COUNTDOWN_S)
        if self.realtime:
            self.run_worker(run_realtime(self.table, self._wake, self.redraw), exclusive=True)

    def play_again(self) -> None:
        """Start a new game at once (``n`` after the end): a fresh table from
        :attr:`new_table` replaces the finished one, which is kept in :attr:`finished`.

        Raises:
            RuntimeError: the app has no :attr:`new_table`, or the game is not over.
        """
        if self.new_table is None or not self.table.done:
            raise RuntimeError("play_again needs new_table and a finished game")
        self.finished.append(self.table)
        table = self.new_table()
        if isinstance(table, VariantTable) != self.variant:
            raise RuntimeError("new_table must build the same kind of game")
        self.table = table
        table.listeners.append(self._mark_dirty)
        self.pre_lay_choice = set()
        self._shown = {}
        self._second_shown = None
        self.origin = table.clock.now()
        self.start_game()
        self._wake.set()
        self.redraw()

    def on_key(self, event: events.Key) -> None:
        """Map a key to a table call; keys that leave are left to the bindings.

        Upper-case letters count as their lower-case keys (Caps Lock or Shift held). While
        the terminal is too small no key acts; before the start any key starts the game."""
        key = event.key
        if len(key) == 1 and key.isascii() and key.isalpha():
            key = key.lower()
        if key in _QUIT_KEYS:
            return
        event.stop()
        if self.too_small:
            return
        clock = self.table.clock
        stamp = clock.stamp(event.time) if isinstance(clock, MonotonicClock) else None
        if not self.table.started:
            self.start_game()
        elif self.table.done:
            if key == "n" and self.new_table is not None:
                self.play_again()
                return
            self.table.message = "the game is over: " + self._again_text().strip()
        elif self.variant:
            self._variant_key(key)
        elif key in CARD_KEYS and len(key) == 1:
            # not the variant: the base game's table
            cast(BaseTable, self.table).human_cover(self.human, CARD_KEYS.index(key), stamp)
        elif key == "space":
            self.table.message = "knocking belongs to the variant (kiekai kismet --variant)"
        else:
            self.table.message = f"{_key_name(key)} does nothing here: a-k cover a card, q leaves"
        self._wake.set()
        self.redraw()

    def _variant_key(self, key: str) -> None:
        table = self.table
        assert isinstance(table, VariantTable)
        g = table.game
        seat = self.human
        choosing = g.phase == "pre_lay" and seat not in g.pre_laid
        if key in CARD_KEYS and len(key) == 1:
            value = 2 + CARD_KEYS.index(key)
            if choosing:
                self.pre_lay_choice ^= {value}
                points = sum(g.rules.points(v) for v in self.pre_lay_choice)
                chosen = ", ".join(map(str, sorted(self.pre_lay_choice))) or "nothing"
                limit = g.rules.pre_lay_limit
                table.message = (
                    f"pre-lay {chosen}: {points} minus points, more than {limit}: "
                    "press a key again to put a card back"
                    if points > limit
                    else f"pre-lay {chosen}: {points} of {limit} minus points; Enter confirms"
                )
            else:
                table.human_lay(seat, value)
        elif key == "enter" and table.waiting_for_next_round():
            table.human_next_round(seat)
        elif key == "enter":
            if choosing:
                table.human_pre_lay(seat, tuple(sorted(self.pre_lay_choice)))
                if seat in g.pre_laid:
                    self.pre_lay_choice = set()
            else:
                table.message = "Enter confirms the pre-lay before a round"
        elif key == "space":
            if choosing:
                table.message = "first choose your pre-laid cards (Enter confirms)"
            else:
                table.human_knock(seat)
        elif key == "r":
            table.human_roll(seat)
        elif key == "p":
            table.human_pass(seat)
        else:
            table.message = (
                f"{_key_name(key)} does nothing here: a-k cards, r roll, p pass, space knock, "
                "q leave"
            )

    # --- drawing -------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True

    def _tick(self) -> None:
        """Every 0.1 s: redraw after changes, and each second of the start countdown, of
        the base game's round limit and of the person's turn limit in the variant."""
        table = self.table
        left = table.time_left(self.human) if isinstance(table, VariantTable) else table.time_left()
        second = None if left is None else math.ceil(left)
        if self._dirty or table.countdown() is not None or second != self._second_shown:
            self._second_shown = second
            self.redraw()

    def redraw(self) -> None:
        """Draw the whole state (cheap: a few text widgets, each repainted only when its
        text changed)."""
        self._dirty = False
        try:
            if self.variant:
                self._draw_variant()
            else:
                self._draw_base()
            self._draw_events()
        except Exception as exc:  # never let drawing kill a game; show what failed
            self._show("#status", Text(f"display error: {exc}"))

    def _show(
        self,
        selector: str,
        content: Text,
        classes: str | None = None,
        title: str | None = None,
        subtitle: str | None = None,
    ) -> None:
        """Update a widget only when its text, classes or border titles changed (each update
        costs a repaint on the event loop that also runs the game's timing)."""
        key = (content.plain, tuple(content.spans), classes, title, subtitle)
        if self._shown.get(selector) == key:
            return
        self._shown[selector] = key
        widget = self.query_one(selector, Static)
        widget.update(content)
        if classes is not None:
            widget.set_classes(classes)
        if title is not None:
            widget.border_title = title
        if subtitle is not None:
            widget.border_subtitle = subtitle

    def _status(self, prompt: str) -> None:
        width = self.query_one("#status", Static).content_region.width or 80
        line = Text(_fit(prompt, width), style="bold")
        message = self.table.message
        if message:
            line.append("\n" + _fit(message, width), style="not bold")
        self._show("#status", line)

    def _waiting_prompt(self) -> str | None:
        """The prompt before the game starts and during the countdown, else ``None``."""
        table = self.table
        if not table.started:
            game = "Kismet variant" if self.variant else "Kismet"
            return f"{game}: press any key to start (q leaves)"
        left = table.countdown()
        if left is not None and left > 0:
            return f"Get ready: the first roll comes in {math.ceil(left)} s"
        return None

    # --- base game -----------------------------------------------------------------------
    def _draw_base(self) -> None:
        table = self.table
        assert isinstance(table, BaseTable)
        g = table.game
        view = table.last_round if g.phase != "cover" else None
        # Between rounds the circle is already refilled: the new cards are shown at once,
        # each won card's slot saying who won which card (at the end of the game nothing is
        # refilled, and the circle of the reveal stays).
        circle = view.circle if view is not None and g.over else tuple(g.circle)
        results = {r.slot: r for r in view.reveals} if view is not None else {}
        holders = {c.slot: c.player for c in g.covers.values()}
        for slot, card in enumerate(circle):
            key = CARD_KEYS[slot]
            reveal = results.get(slot)
            if card is None and reveal is None:
                self._show(f"#slot{slot}", Text(""), "card empty", key, "")
                continue
            label = Text(f"{card.value}" if card is not None else "", style="bold")
            classes = "card"
            if reveal is not None:
                who = self.names[reveal.player]
                if reveal.correct:
                    label.append(f"\n{who} won {reveal.card.value}", style="bold green")
                    classes += " right"
                else:
                    label.append(f"\n{who} wrong", style="bold red")
                    classes += " wrong"
            elif view is not None and view.cleared:
                classes += " gone" if g.over else " new"  # the 11 that left, or the new 11
            elif slot in holders:
                holder = holders[slot]
                label.append(f"\n{self.names[holder]}", style="bold yellow")
                classes += " mine" if holder == self.human else " covered"
            points = f"+{g.rules.points(card.value)}" if card is not None else ""
            self._show(f"#slot{slot}", label, classes, key, points)
        self._draw_base_dice(view)
        self._status(self._base_prompt())
        self._draw_base_scores()

    def _draw_base_dice(self, view: RoundView | None) -> None:
        table = self.table
        assert isinstance(table, BaseTable)
        g = table.game
        dice = Text()
        title = "dice"
        left = table.countdown()
        if not table.started:
            dice.append("press any key\nto start", style="bold")
        elif left is not None and left > 0:
            dice.append(f"first roll in\n{math.ceil(left)}", style="bold")
        elif g.dice is not None:
            dice.append("  ".join(map(str, g.dice)), style="bold")
            limit = table.time_left()  # the round limit of Reading 7, counted down
            if limit is not None:
                dice.append(f"\n\n{math.ceil(limit)} s left", style="bold" if limit <= 5 else "dim")
        elif view is not None:
            dice.append("  ".join(map(str, view.dice)), style="bold")
            dice.append(f"\nmake {_or(sorted(reachable_values(view.dice)))}")
            if view.timed_out:
                dice.append(f"\ntime's up ({table.round_limit:g} s)", style="bold red")
            if view.cleared:
                dice.append("\nno card shows one:\nall 11 cards leave", style="bold red")
                if not g.over:
                    dice.append("\n11 new cards")
            title = "last roll"
        else:
            dice.append("…")
        self._show("#dice", dice, title=title)

    def _base_prompt(self) -> str:
        table = self.table
        assert isinstance(table, BaseTable)
        g = table.game
        waiting = self._waiting_prompt()
        if waiting is not None:
            return waiting
        if table.done:
            return "Game over. " + self._winners_text() + self._again_text()
        if g.phase == "cover":
            return "Cover a card two of the dice add up to: press its letter"
        view = table.last_round
        if view is not None and view.cleared:
            return "No card matched: 11 new cards. Next roll in a moment"
        if view is not None and view.timed_out:
            return (
                f"Time's up: {table.round_limit:g} s after the roll the round ends. "
                "Next roll in a moment"
            )
        return "Round over (results on the cards, new cards dealt). Next roll in a moment"

    def _draw_base_scores(self) -> None:
        table = self.table
        assert isinstance(table, BaseTable)
        g = table.game
        scores = g.scores()
        rows = [(self.names[s], scores[s], len(g.piles[s])) for s in range(g.players)]
        lines = table_lines(("player", "points", "cards"), rows)
        text = Text(lines[0] + "\n", style="bold")
        for seat, line in enumerate(lines[1:]):
            text.append(line + "\n", style="bold green" if seat == self.human else "")
        played = (
            f"round {g.round + 1}"
            if g.phase == "cover" or g.round == 0
            else (f"{plural(g.round, 'round')} played")
        )
        text.append(f"\ndraw pile: {plural(len(g.draw_pile), 'card')}\n{played}\n")
        text.append("\n+n on a card: its chip\npoints, won with it", style="dim")
        self._show("#scores", text)

    def _again_text(self) -> str:
        """What the person may do when the game is over."""
        return "  n plays again, q leaves" if self.new_table is not None else "  (q leaves)"

    def _winners_text(self) -> str:
        g = self.table.game
        seats = g.match_winners() if isinstance(g, VariantGame) else g.winners()
        return "Winner: " + ", ".join(self.names[s] for s in seats)

    # --- variant -------------------------------------------------------------------------
    def _last_variant_roll(self) -> tuple[tuple[int, ...], int, int] | None:
        """The last roll of the variant game so far: (dice, roller seat, 1-based round), or
        None before the first roll. Read from the game's event log (the typed data of the
        ``roll`` events, :class:`~kiekai.events.KismetRoll`)."""
        events = self.table.game.log.events
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if event.type != "roll" or event.player is None:
                continue
            data = typed(event, "kismet")
            if isinstance(data, KismetRoll):
                rounds = sum(1 for e in events[:index] if e.type == "round_start")
                return tuple(data.dice), event.player, max(rounds, 1)
        return None

    def _draw_variant(self) -> None:
        table = self.table
        assert isinstance(table, VariantTable)
        g = table.game
        dice = Text("dice ", style="dim")
        dice.append("  ".join(map(str, g.dice)) if g.dice else "…", style="bold")
        last = None if g.dice else self._last_variant_roll()
        if last is not None:  # between turns of rounds: the roll that ended the last round
            rolled, who, number = last
            dice.append("   last roll ", style="dim")
            dice.append("  ".join(map(str, rolled)), style="bold")
            dice.append(f" ({self.names[who]}, round {number})", style="dim")
        if g.dice and is_joker_throw(g.dice):
            dice.append("  joker throw!", style="bold magenta")
        if g.roller is not None and g.phase == "turn":
            dice.append(f"   {verb(self.names[g.roller], 'has', 'have')} the dice")
        elif g.phase == "pass" and g.roller is not None:
            dice.append(
                f"   {self.names[g.roller]} passed; "
                f"{verb(self.names[g.next_roller], 'takes', 'take')} the dice next"
            )
        left = table.time_left(self.human)
        if left is not None:  # the person's turn limit (VariantTable.turn_limit), shown
            dice.append(f"   {math.ceil(left)} s left", style="bold" if left <= 10 else "")
        self._show("#dice", dice)
        self._show("#rows", self._variant_rows())
        self._status(self._variant_prompt())
        rounds = f"round {max(g.round, 0) + 1} of {table.rounds}"
        self._show(
            "#scores",
            Text(
                f"{rounds}.  ·: laid down.  Chip points are minus points: fewest wins.",
                style="dim",
            ),
        )

    def _variant_rows(self) -> Text:
        """The cards in front of every player as a table: one column per value 2..12 (your
        keys above), "·" where a card has been laid down; minus points in front now and the
        total over finished rounds (and the place, once a round is over). Before everyone
        has chosen the pre-lay, the others' cards stay hidden."""
        table = self.table
        assert isinstance(table, VariantTable)
        g = table.game
        seat = self.human
        hidden = g.phase == "pre_lay"
        over = g.phase == "round_over" and g.placements is not None
        width = max(6, *(len(n) for n in self.names.values()))
        text = Text()
        text.append(f"{'key':<{width}} " + "".join(f"{k:>3}" for k in CARD_KEYS) + "\n", "dim")
        tail = "  laid  minus  total" + ("  place" if over else "")
        text.append(f"{'card':<{width}} " + "".join(f"{v:>3}" for v in VALUES) + tail + "\n")
        points = "".join(f"{g.rules.points(v):>3}" for v in VALUES)
        text.append(f"{'points':<{width}} {points}\n", "dim")
        for p in range(g.players):
            style = "bold" if p == seat else ""
            text.append(f"{self.names[p]:<{width}} ", style)
            if g.round < 0:
                text.append("gets the 11 cards 2-12 when the game starts\n", "dim")
                continue
            if hidden and p != seat:
                state = "has chosen" if p in g.pre_laid else "is choosing"
                text.append(f"{state}: 11 cards face down until all have chosen\n", "dim")
                continue
            hand = g.fronts[p]
            for v in VALUES:
                if v in hand:
                    chosen = p == seat and hidden and v in self.pre_lay_choice
                    text.append(f"{v:>3}", "reverse" if chosen else style)
                else:
                    text.append("  ·", "dim")
            minus = g.minus_points(p)
            text.append(f"  {len(g.laid[p]):>4}  {minus:>5}  {g.tallies[p]:>5}")
            if over:  # placements is set
                text.append(f"  {cast(list[int], g.placements)[p]:>5}")
            text.append("\n")
        return text

    def _variant_prompt(self) -> str:
        """The prompt line of the variant: what the person may do now, or waits for."""
        table = self.table
        assert isinstance(table, VariantTable)
        g = table.game
        seat = self.human
        waiting = self._waiting_prompt()
        if waiting is not None:
            return waiting
        if table.done:
            return "Match over. " + self._winners_text() + self._again_text()
        if g.phase == "pre_lay":
            if seat in g.pre_laid:
                return "Waiting for the others to choose their pre-lay…"
            return (
                f"Pre-lay: toggle cards by key (at most {g.rules.pre_lay_limit} minus points), "
                "Enter confirms"
            )
        if g.phase == "round_over":
            # a round is over when its winner has laid all cards; the results (places in
            # the table below) stay until the person starts the next round
            return (
                f"Round {g.round + 1} over: {self.names[cast(int, g.winner)]} laid all cards. "
                f"Enter starts round {g.round + 2} of {table.rounds}"
            )
        if g.phase in ("await_roll", "pass") and g.next_roller == seat:
            if g.phase == "pass" and g.roller is not None:
                return (
                    f"Your turn: r takes the dice (until then space may knock on "
                    f"{self.names[g.roller]}'s turn)"
                )
            return "Your turn: r takes the dice"
        if g.phase == "turn" and g.roller == seat:
            return _own_roll_prompt(g, seat)
        return self._others_turn_prompt(g, seat)

    def _others_turn_prompt(self, g: VariantGame, seat: int) -> str:
        """The variant's prompt while another player has (or takes) the dice."""
        if g.phase == "pass" and g.roller == seat:
            return f"You passed: {verb(self.names[g.next_roller], 'takes', 'take')} the dice next"
        roller = self.names[g.roller] if g.roller is not None else "the roller"
        if g.phase == "turn" and g.dice is not None and is_joker_throw(g.dice):
            return f"{roller} threw a joker: he may lay one more card. space knocks"
        if g.phase in ("turn", "pass"):
            return f"{roller}'s turn: space knocks if you can lay and {roller} cannot"
        return f"{verb(self.names[g.next_roller], 'takes', 'take')} the dice next"

    # --- events --------------------------------------------------------------------------
    def _draw_events(self) -> None:
        lines = []
        for event in self.table.game.log.events[-60:]:
            text = describe(
                event,
                self.names,
                show_values=False,
                origin=self.origin,
                rules=self.table.game.rules,
            )
            if text is not None:
                lines.append(text)
        widget = self.query_one("#events", Static)
        height = max(1, widget.content_region.height or 8)
        width = widget.content_region.width or 80
        self._show("#events", Text("\n".join(_fit(line, width) for line in lines[-height:])))


class _EventList(Static):
    """The list of recent events; when its size changes it is filled anew with as many of
    the latest events as now fit (otherwise it would show the old lines until the next
    event)."""

    def on_resize(self, event: events.Resize) -> None:
        """Ask the app for the latest events that fit the new height."""
        app = self.app
        if isinstance(app, KismetApp):
            app.refresh_events()


def _fit(line: str, width: int) -> str:
    """``line`` cut to ``width`` columns with "…" (one row per line, never wrapped)."""
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"


def _key_name(key: str) -> str:
    """How a key is named in a message: ``'x'`` for a character, ``f1`` for others."""
    return f"'{key}'" if len(key) == 1 else key


def _or(values: list[int]) -> str:
    """``[5, 7, 8]`` → ``"5, 7 or 8"``."""
    if len(values) <= 1:
        return "".join(map(str, values))
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}"


def _own_roll_prompt(g: VariantGame, seat: int) -> str:
    """The variant's prompt after the person at ``seat`` has rolled: which card he may lay
    (a joker throw lets him lay one more: rulebook, "Variant Playing the Game", "Joker
    throw"), or that p passes."""
    if g.dice is not None and is_joker_throw(g.dice):
        value = 2 * g.dice[0]
        if not g.laid_this_turn and value in g.fronts[seat]:
            return f"Joker throw! Lay your {value}, then one more card of your choice"
        if not g.laid_this_turn:
            return f"Joker throw, but your {value} is laid already: p passes"
        if len(g.laid_this_turn) == 1:
            return "Joker throw: lay one more card of your choice (its key), or p"
    if g.laid_this_turn:
        return "p passes the dice to the next player"
    return "Your roll: lay a card two of the dice make (its key), or p passes"
