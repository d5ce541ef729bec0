"""A person playing Kiek in the terminal: Rich prompts, contact sheets and a countdown.

:class:`TerminalKiekPlayer` implements :class:`kiekai.kiek.players.KiekPlayer`. It shows the
cards as a numbered list of file names and as a numbered contact-sheet image (saved to a
file; opened in an image viewer when a desktop is there; drawn inline in terminals that
can show images: kitty's graphics protocol, iTerm2's inline images). It never prints the
deck's labels, which would give answers away.

Answers are typed lines, read through :class:`LineReader`, which works on a TTY and on
piped stdin alike (so tests and scripts can drive a human seat) and enforces the
two-minute turn (rulebook "A Turn") with a visible countdown on a terminal. A word must be
one lexical item (the judge's one-word check); anything else is refused with a request for
one word, and the person types again. EOF on the input raises :class:`EOFError` and Ctrl-C
raises :class:`KeyboardInterrupt`; the runner stops the game and keeps the log.
"""

from __future__ import annotations

import base64
import codecs
import io
import os
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from rich.console import Console
from rich.markup import escape

from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.kiek.engine import one_word_verdict
from kiekai.kiek.players import (
    ActivePlay,
    ActiveView,
    GuessView,
    KeepView,
    RevealView,
    TimeUp,
)

#: Seconds between countdown redraws on a terminal.
COUNTDOWN_STEP = 1.0


class LineReader:
    """Reads typed lines with an optional time limit, from a TTY or a pipe.

    Reads the file descriptor directly (``os.read`` + ``select``) with its own buffer, so
    that lines already piped in are never hidden in Python's buffer while ``select`` waits.
    Streams without a file descriptor (``io.StringIO``) are read with ``readline`` and
    have no time limit.

    Args:
        stream: the input (default ``sys.stdin``).
    """

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self._buffer = ""
        self._eof = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def _fileno(self) -> int | None:
        if os.name == "nt":
            return None
        try:
            return self.stream.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None

    def is_tty(self) -> bool:
        """Whether the input is an interactive terminal."""
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def readline(
        self, timeout: float | None = None, tick: Callable[[float], None] | None = None
    ) -> str:
        """Return the next line without its line ending.

        Args:
            timeout: seconds to wait (``None`` = no limit).
            tick: called about every second with the seconds left (for a countdown).

        Raises:
            TimeUp: ``timeout`` seconds passed without a whole line (typed input so far is
                discarded on a terminal).
            EOFError: the input ended.
        """
        fd = self._fileno()
        if fd is None:
            line = self.stream.readline()
            if line == "":
                raise EOFError("input ended")
            return line.rstrip("\r\n")
        end = None if timeout is None else time.monotonic() + max(0.0, timeout)
        while "\n" not in self._buffer:
            if self._eof:
                if self._buffer:
                    line, self._buffer = self._buffer, ""
                    return line.rstrip("\r")
                raise EOFError("input ended")
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                self._discard_typed(fd)
                raise TimeUp()
            step = left
            if tick is not None:
                step = COUNTDOWN_STEP if left is None else min(COUNTDOWN_STEP, left)
            ready, _, _ = select.select([fd], [], [], step)
            if tick is not None and left is not None:
                tick(max(0.0, end - time.monotonic()))  # type: ignore[operator]
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    self._eof = True
                    self._buffer += self._decoder.decode(b"", final=True)
                else:
                    self._buffer += self._decoder.decode(chunk)
        line, _, self._buffer = self._buffer.partition("\n")
        return line.rstrip("\r")

    def _discard_typed(self, fd: int) -> None:
        self._buffer = ""
        if self.is_tty():
            try:
                import termios

                termios.tcflush(fd, termios.TCIFLUSH)
            except (ImportError, OSError):
                pass


def format_seconds(seconds: float) -> str:
    """``m:ss`` for a number of seconds (rounded down; negative counts as 0)."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def inline_image_protocol(env: dict[str, str] | None = None) -> str | None:
    """Which inline-image protocol the terminal speaks: ``"kitty"``, ``"iterm"`` or ``None``.

    Decided from ``TERM`` and ``TERM_PROGRAM`` (kitty, WezTerm and Ghostty speak kitty's
    graphics protocol; iTerm2 its own ``OSC 1337``).
    """
    env = dict(os.environ if env is None else env)
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    if "kitty" in term or program in ("WezTerm", "ghostty") or env.get("KITTY_WINDOW_ID"):
        return "kitty"
    if program == "iTerm.app":
        return "iterm"
    return None


def image_escape(png: bytes, protocol: str) -> str:
    """The escape sequence that draws ``png`` (PNG bytes) inline with ``protocol``."""
    data = base64.standard_b64encode(png).decode("ascii")
    if protocol == "iterm":
        return f"\x1b]1337;File=inline=1;size={len(png)};preserveAspectRatio=1:{data}\x07\n"
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)] or [""]
    out = []
    for index, chunk in enumerate(chunks):
        more = 1 if index < len(chunks) - 1 else 0
        head = f"f=100,a=T,m={more}" if index == 0 else f"m={more}"
        out.append(f"\x1b_G{head};{chunk}\x1b\\")
    return "".join(out) + "\n"


def viewer_command(env: dict[str, str] | None = None) -> list[str] | None:
    """The command that opens an image in a desktop viewer, or ``None`` without a desktop.

    ``open`` on macOS; ``xdg-open`` when ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set.
    """
    env = dict(os.environ if env is None else env)
    if sys.platform == "darwin" and shutil.which("open"):
        return ["open"]
    if (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")) and shutil.which("xdg-open"):
        return ["xdg-open"]
    return None


class TerminalKiekPlayer:
    """A human seat played at the terminal (implements the ``KiekPlayer`` protocol).

    Args:
        name: shown in the score table and the log.
        judge: its one-word check refuses phrases, emoji and empty answers.
        console: where prompts go (default: a Rich console on stdout).
        reader: where answers come from (default: :class:`LineReader` on stdin).
        clock: measures the two minutes (default: monotonic).
        names: player names by seat, to say who wrote which word.
        sheet_dir: folder for contact-sheet images (``None``: no images are saved).
        images: draw sheets inline / open a viewer; ``None`` decides from the terminal
            (only when both input and output are terminals).

    Raises (from the decisions):
        TimeUp: the two minutes ran out before the active player chose cards.
        EOFError: the input ended.
    """

    is_human = True

    def __init__(
        self,
        name: str,
        *,
        judge: object,
        console: Console | None = None,
        reader: LineReader | None = None,
        clock: Clock | None = None,
        names: Sequence[str] = (),
        sheet_dir: Path | None = None,
        images: bool | None = None,
    ) -> None:
        self.name = name
        self.judge = judge
        self.console = console or Console(highlight=False)
        self.reader = reader or LineReader()
        self.clock = clock or MonotonicClock()
        self.names = list(names)
        self.sheet_dir = sheet_dir
        interactive = self.reader.is_tty() and self.console.is_terminal
        self.images = interactive if images is None else images
        self._sheets = 0

    # ------------------------------------------------------------ protocol

    def tell(self, message: str) -> None:
        """Show ``message`` to the person (the runner uses it for refused answers)."""
        self.console.print(f"[yellow]{escape(message)}[/yellow]", highlight=False)

    def play_turn(self, view: ActiveView) -> ActivePlay:
        """Ask for the 2 cards to play, the group of three and the word (timed).

        Raises:
            TimeUp: time ran out before the cards were chosen.
        """
        deadline = self.clock.now() + view.time_limit
        self.console.rule(f"[bold]{escape(self.name)}: your turn[/bold]")
        self._say(
            f"Play 2 cards from your hand, split the 5 cards 3 and 2, and write one word that "
            f"is true of the three and not of the two. Each match scores {view.stake} "
            f"point{'s' if view.stake > 1 else ''}. You have {format_seconds(view.time_limit)}."
        )
        cards = list(view.table) + list(view.hand)
        self._show_cards(
            cards,
            view.turn,
            "turn",
            groups=[
                ("on the table", 1, len(view.table)),
                ("your hand", len(view.table) + 1, len(cards)),
            ],
        )
        self._show_used(view.used_words)
        hand_numbers = list(range(len(view.table) + 1, len(cards) + 1))
        played_numbers = self._ask_numbers(
            f"Which 2 cards of your hand do you play? (two of {_join(hand_numbers)})",
            hand_numbers,
            2,
            deadline,
        )
        five_numbers = list(range(1, len(view.table) + 1)) + played_numbers
        three_numbers = self._ask_numbers(
            f"Which 3 of the five cards ({_join(five_numbers)}) does your word describe?",
            five_numbers,
            3,
            deadline,
        )
        two_numbers = [n for n in five_numbers if n not in three_numbers]
        played = tuple(cards[n - 1].id for n in played_numbers)
        three = tuple(cards[n - 1].id for n in three_numbers)
        two = tuple(cards[n - 1].id for n in two_numbers)
        try:
            word = self._ask_word(
                f"Your word (true of {_join(three_numbers)}, not of {_join(two_numbers)})",
                deadline,
            )
        except TimeUp:
            self._time_up()
            return ActivePlay(played, three, two, "")  # type: ignore[arg-type]
        return ActivePlay(played, three, two, word)  # type: ignore[arg-type]

    def guess(self, view: GuessView) -> str:
        """Ask for one word that guesses the active player's (timed; ``""`` when time is up)."""
        deadline = self.clock.now() + view.time_limit
        active = self._name(view.active_seat)
        self.console.rule(f"[bold]{escape(self.name)}: guess {escape(active)}'s word[/bold]")
        self._say(
            f"{escape(active)} put cards 1-3 against cards 4-5. What one word is true of the "
            f"three and not of the two? A match scores {view.stake} point"
            f"{'s' if view.stake > 1 else ''}. You have {format_seconds(view.time_limit)}."
        )
        self._show_cards(
            list(view.three) + list(view.two),
            view.turn,
            "guess",
            groups=[("the three", 1, len(view.three)), ("the two", len(view.three) + 1, 5)],
        )
        self._show_used(view.used_words)
        try:
            return self._ask_word("Your guess", deadline)
        except TimeUp:
            self._time_up()
            return ""

    def call_repeat(self, view: RevealView) -> bool:
        """Show this turn's words and the used ones; ask whether to call "ne bis in idem".

        Not timed (the two minutes are over when the words are read aloud).

        Not asked while no word has been used in an earlier turn (nothing can repeat yet).
        """
        if not view.used_words:
            return False
        written = [
            f"{escape(self._name(seat))}: '{escape(word)}'"
            for seat, word in sorted(view.words.items())
            if word
        ]
        self._say("Written this turn: " + "; ".join(written))
        self._show_used(view.used_words)
        while True:
            answer = self._read("Does a word repeat a used one? Call ne bis in idem? [y/N]", None)
            answer = answer.strip().lower()
            if answer in ("", "n", "no"):
                return False
            if answer in ("y", "yes"):
                return True
            self._say("Please answer y or n.")

    def keep_card(self, view: KeepView) -> str:
        """Ask which card stays on the table for the next turn (not timed)."""
        self.console.rule(f"[bold]{escape(self.name)}: keep a card[/bold]")
        self._say(
            f"Choose a card that stays on the table for {escape(self._name(view.new_active_seat))}'s "
            "turn; the cards nobody keeps are discarded."
        )
        cards = list(view.cards)
        groups = [("on offer", 1, len(cards))]
        if view.hand:  # shown (not chosen from) so the person can keep cards that suit it
            groups.append(("your hand (not on offer)", len(cards) + 1, len(cards) + len(view.hand)))
        self._show_cards(cards + list(view.hand), -1, "keep", groups=groups)
        numbers = list(range(1, len(cards) + 1))
        (number,) = self._ask_numbers(
            f"Keep which card? (one of {_join(numbers)})", numbers, 1, None
        )
        return cards[number - 1].id

    # ------------------------------------------------------------ prompts

    def _say(self, text: str) -> None:
        self.console.print(text, highlight=False)

    def _name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"player {seat + 1}"

    def _time_up(self) -> None:
        self._say("[red]Time is up: you wrote nothing this turn.[/red]")

    def _read(self, prompt: str, deadline: float | None) -> str:
        """Print ``prompt`` (with the time left) and read one line.

        Raises:
            TimeUp: the deadline passed.
            EOFError: the input ended.
        """
        left = None if deadline is None else deadline - self.clock.now()
        if left is not None and left <= 0:
            raise TimeUp()
        countdown = left is not None and self.console.is_terminal and self.reader.is_tty()
        if left is not None:
            if countdown:  # a live line above the prompt, redrawn every second
                self.console.print(f"[cyan]{format_seconds(left)} left[/cyan]", highlight=False)
            else:
                prompt = f"[{format_seconds(left)} left] {prompt}"
        self.console.print(f"[bold]{escape(prompt)}[/bold] ", end="", highlight=False)
        tick = self._draw_countdown if countdown else None
        try:
            line = self.reader.readline(left, tick)
        except TimeUp:
            self.console.print()
            raise
        except EOFError:
            self.console.print()
            raise
        if not self.reader.is_tty():
            self.console.print(line, highlight=False)  # echo piped answers
        return line

    def _draw_countdown(self, left: float) -> None:
        """Rewrite the line above the prompt with the seconds left (terminals only)."""
        out = self.console.file
        out.write(f"\x1b7\x1b[1A\r\x1b[36m{format_seconds(left)} left\x1b[0m\x1b[K\x1b8")
        out.flush()

    def _ask_numbers(
        self, prompt: str, allowed: Sequence[int], count: int, deadline: float | None
    ) -> list[int]:
        """Ask until ``count`` different numbers out of ``allowed`` are typed."""
        while True:
            line = self._read(prompt, deadline)
            numbers = [int(x) for x in re.findall(r"\d+", line)]
            if (
                len(numbers) == count
                and len(set(numbers)) == count
                and set(numbers) <= set(allowed)
            ):
                return numbers
            what = "one number" if count == 1 else f"{count} different numbers"
            self._say(
                f"Please type {what} out of {_join(allowed)}, "
                f"e.g. {' '.join(str(n) for n in allowed[:count])}."
            )

    def _ask_word(self, prompt: str, deadline: float | None) -> str:
        """Ask until the judge accepts the answer as one word."""
        while True:
            line = self._read(prompt, deadline).strip()
            verdict = one_word_verdict(self.judge, line)
            if verdict.accepted:
                return line
            why = "nothing was typed" if not line else verdict.reason
            self._say(f"Please type one word ({escape(why)}).")

    def _show_used(self, used: Sequence[str]) -> None:
        if used:
            self._say("Words used so far (ne bis in idem): " + escape(", ".join(used)))

    # ------------------------------------------------------------ cards

    def _show_cards(
        self,
        cards: Sequence[Card],
        turn: int,
        kind: str,
        groups: Sequence[tuple[str, int, int]],
    ) -> None:
        """List ``cards`` numbered from 1 by file name (never by label) and show the sheet."""
        for title, first, last in groups:
            self._say(f"[bold]{escape(title)}[/bold]:")
            for number in range(first, last + 1):
                self._say(f"  {number}. {escape(Path(cards[number - 1].id).name)}")
        path = self._save_sheet(
            cards, turn, kind, [(t, last - first + 1) for t, first, last in groups]
        )
        if path is None:
            return
        self._say(f"Contact sheet: {escape(str(path))}")
        if not self.images:
            return
        protocol = inline_image_protocol()
        if protocol is not None:
            self.console.file.write(image_escape(path.read_bytes(), protocol))
            self.console.file.flush()
        else:
            command = viewer_command()
            if command is not None:
                subprocess.Popen(  # noqa: S603
                    [*command, str(path)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )

    def _save_sheet(
        self, cards: Sequence[Card], turn: int, kind: str, groups: list[tuple[str, int]]
    ) -> Path | None:
        """Draw the numbered contact sheet to a PNG (``None`` when it cannot be drawn)."""
        if self.sheet_dir is None:
            return None
        try:
            from kiekai.contact_sheet import contact_sheet
        except ImportError:
            return None
        self._sheets += 1
        label = f"turn{turn + 1:02d}" if turn >= 0 else "keep"
        path = self.sheet_dir / f"{self._sheets:03d}-{label}-{kind}.png"
        try:
            self.sheet_dir.mkdir(parents=True, exist_ok=True)
            contact_sheet(list(cards), path, groups=groups)
        except Exception as exc:  # a photo that cannot be drawn must not stop the game
            self._say(f"[dim](could not draw the contact sheet: {escape(str(exc))})[/dim]")
            return None
        return path


def _join(numbers: Sequence[int]) -> str:
    """``1, 2 and 3`` style list of numbers."""
    items = [str(n) for n in numbers]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
