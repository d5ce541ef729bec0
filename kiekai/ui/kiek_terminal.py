"""A person playing Kiek in the terminal: Rich prompts, contact sheets and a countdown.

:class:`TerminalKiekPlayer` implements :class:`kiekai.kiek.players.HumanKiekPlayer`. It shows
the cards as a numbered list of their names (the deck's label, or what the perception sees,
or "unnamed photo": the list number is a card's only number; never a file name) and as a numbered contact-sheet image (saved to a file;
opened in an image viewer when a desktop is there; drawn inline in terminals that can show
images: kitty's graphics protocol, iTerm2's inline images).

The turn's hourglass (rulebook "A Turn": two minutes) is turned when the cards and the
first prompt are on screen, not while the program is getting ready. On a terminal the
prompt and its countdown are one line redrawn in place (Rich ``Live``) while the person
types; when time is up the runner prints one message saying what the rulebook reading
makes of it. Piped input (tests, scripts) gets plain prompts with the time left in front.

At the reveal one short question takes every ruling of the person: Enter continues, verdict
numbers overrule, ``r`` calls ne bis in idem (:meth:`TerminalKiekPlayer.overrule`); reasons
are shown as their gist (:func:`short_reason`). At the end of a game on a terminal,
:meth:`TerminalKiekPlayer.play_again` asks whether to play another.

Answers are typed lines, read through :class:`LineReader`, which works on a TTY and on
piped stdin alike. What an answer decides is the seat's, shared with the browser table
(:mod:`kiekai.kiek.seat`): a word must be one lexical item of at most
:data:`~kiekai.kiek.seat.MAX_WORD` characters (anything else is refused with the reason, and
the person types again), and a player whose time runs out is held to what they chose. EOF on the input raises
:class:`EOFError` and Ctrl-C raises :class:`KeyboardInterrupt`; the runner stops the game
and keeps the log.
"""

from __future__ import annotations

import atexit
import base64
import codecs
import io
import math
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.text import Text

from kiekai.clock import Clock, MonotonicClock
from kiekai.deck import Card
from kiekai.display import printable, safe_text
from kiekai.kiek.players import (
    ActivePlay,
    ActiveView,
    CallView,
    GuessView,
    Hourglass,
    KeepView,
    RevealView,
    TimeUp,
)
from kiekai.kiek.seat import (
    SeatNames,
    choice_problem,
    chosen_play,
    join_words,
    plural,
    refuse_word,
    time_up_play,
    typed_numbers,
    used_word_named,
)

if TYPE_CHECKING:
    from kiekai.judge.protocol import JudgeLike

#: Seconds between countdown redraws on a terminal.
COUNTDOWN_STEP = 1.0
#: Seconds :meth:`TerminalKiekPlayer.stop` waits for the prompt on screen to end.
STOP_WAIT = 2.0
#: Longest line kept while editing on a terminal (characters); more typing is ignored.
MAX_TYPED = 200
#: Longest line read from a pipe or file, in characters: a longer line is cut here (and then
#: refused by the prompt) and the rest of it dropped up to its newline, so that an input with
#: no newline at all (``kiekai play < /dev/zero``) costs neither memory nor quadratic time.
MAX_LINE = 4096


class ReadingStopped(EOFError):
    """A read ended because the game stopped (:meth:`LineReader.stop`), not by the input."""


class _LineEditor:
    """The line typed so far in :meth:`LineReader.edit_line`, edited key by key.

    Backspace deletes, Ctrl-U clears the line, Ctrl-D on an empty line is end of input;
    other control keys and escape sequences (arrows) are ignored; the line keeps at most
    :data:`MAX_TYPED` characters.
    """

    def __init__(self, typed: str = "") -> None:
        self.typed = typed
        self._escape = False

    def feed(self, chars: str) -> bool:
        """Apply the typed ``chars``; True when Enter ended the line (the rest is dropped).

        Raises:
            EOFError: Ctrl-D on an empty line.
        """
        for char in chars:
            if self._escape:
                self._escape = not (char.isalpha() or char == "~")
            elif char in "\r\n":
                return True
            else:
                self._key(char)
        return False

    def _key(self, char: str) -> None:
        if char == "\x1b":
            self._escape = True
        elif char in "\x7f\x08":
            self.typed = self.typed[:-1]
        elif char == "\x15":
            self.typed = ""
        elif char == "\x04":
            if not self.typed:
                raise EOFError("input ended")
        elif char.isprintable() and len(self.typed) < MAX_TYPED:
            self.typed += char


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
        #: the rest of an over-long line is being dropped (up to its newline)
        self._skipping = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        #: held by a person's decision from its first line on screen to its answer, so
        #: that people sharing one terminal are asked one after the other
        self.lock = threading.RLock()
        #: (file descriptor, terminal attributes) to put back while a line is edited in
        #: cbreak mode; see :meth:`restore_terminal`
        self._tty_saved: tuple[int, list] | None = None
        self._restore_at_exit = False
        #: set by :meth:`stop`: every read, waiting or to come, ends with ReadingStopped
        self._stopped = threading.Event()
        #: a pipe whose write end :meth:`stop` writes to, waking a ``select`` at once
        self._wake: tuple[int, int] | None = None

    def _fileno(self) -> int | None:
        if os.name == "nt":
            return None
        try:
            return self.stream.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None

    def stop(self) -> None:
        """The game stopped (Ctrl-C in the main thread): a line being read or edited in a
        person's thread ends at once with :class:`ReadingStopped` (its terminal put back),
        and so does every later read. Safe to call from any thread, more than once."""
        self._stopped.set()
        if self._wake is not None:
            try:
                os.write(self._wake[1], b"x")
            except OSError:
                pass

    def _wait(self, fd: int, timeout: float | None) -> bool:
        """``select`` on ``fd`` for up to ``timeout`` s; True when it is readable.

        Raises:
            ReadingStopped: :meth:`stop` was called (before or while waiting).
        """
        if self._stopped.is_set():
            raise ReadingStopped("the game stopped")
        if self._wake is None:
            self._wake = os.pipe()
        ready, _, _ = select.select([fd, self._wake[0]], [], [], timeout)
        if self._stopped.is_set():
            raise ReadingStopped("the game stopped")
        return fd in ready

    def is_tty(self) -> bool:
        """Whether the input is an interactive terminal."""
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def readline(self, timeout: float | None = None) -> str:
        """Return the next line without its line ending, cut at :data:`MAX_LINE` characters
        (the rest of a longer line is dropped up to its newline).

        Args:
            timeout: seconds to wait (``None`` = no limit).

        Raises:
            TimeUp: ``timeout`` seconds passed without a whole line (typed input so far is
                discarded on a terminal).
            EOFError: the input ended.
        """
        fd = self._fileno()
        if fd is None:
            return self._readline_stream()
        end = None if timeout is None else time.monotonic() + max(0.0, timeout)
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._eof:
                raise EOFError("input ended")
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                self._discard_typed(fd)
                raise TimeUp()
            if self._wait(fd, left):
                chunk = os.read(fd, 4096)
                if not chunk:
                    self._eof = True
                    self._buffer += self._decoder.decode(b"", final=True)
                else:
                    self._buffer += self._decoder.decode(chunk)

    def _readline_stream(self) -> str:
        """:meth:`readline` on a stream without a file descriptor (no time limit)."""
        line = self.stream.readline(MAX_LINE + 1)
        if line == "":
            raise EOFError("input ended")
        if len(line) > MAX_LINE and not line.endswith("\n"):
            while (rest := self.stream.readline(MAX_LINE)) and not rest.endswith("\n"):
                pass  # the rest of an over-long line is dropped
            line = line[:MAX_LINE]
        return line.rstrip("\r\n")

    def _take_line(self) -> str | None:
        """The next whole line in the buffer (at most :data:`MAX_LINE` characters; the
        rest of a longer one is dropped up to its newline), the last unended line once the
        input ended, or ``None`` while more input is needed."""
        if self._skipping:  # dropping the rest of an over-long line
            cut = self._buffer.find("\n")
            self._buffer = "" if cut < 0 else self._buffer[cut + 1 :]
            self._skipping = cut < 0
        if self._skipping:
            return None
        line, newline, rest = self._buffer.partition("\n")
        if newline:
            self._buffer = rest
            return line.rstrip("\r")
        if len(self._buffer) > MAX_LINE:
            line, self._buffer, self._skipping = self._buffer[:MAX_LINE], "", True
            return line
        if self._eof and self._buffer:
            line, self._buffer = self._buffer, ""
            return line.rstrip("\r")
        return None

    def edit_line(self, timeout: float | None, render: Callable[[str, float | None], None]) -> str:
        """Read a line on a terminal, echoing it through ``render`` instead of the TTY.

        The terminal is put in cbreak mode (no echo, characters as typed; Ctrl-C still
        interrupts) and ``render(typed_so_far, seconds_left)`` is called at once, on every
        key and about every second, so the prompt, the typed text and the countdown can
        be one line redrawn in place. Backspace deletes, Ctrl-U clears the line, Ctrl-D on
        an empty line is end of input; other control keys and escape sequences (arrows)
        are ignored. Falls back to :meth:`readline` when the input is not a terminal.

        Raises:
            TimeUp: ``timeout`` seconds passed without Enter (the typed text is discarded).
            EOFError: the input ended.
            ReadingStopped: :meth:`stop` was called (the game stopped).
        """
        fd = self._fileno()
        if fd is None or not self.is_tty():
            return self.readline(timeout)
        import termios
        import tty

        end = None if timeout is None else time.monotonic() + max(0.0, timeout)
        typed, _, rest = self._buffer.partition("\n")
        if _:
            self._buffer = rest
            return typed.rstrip("\r")
        self._buffer = ""
        self._tty_saved = (fd, termios.tcgetattr(fd))
        if not self._restore_at_exit:
            atexit.register(self.restore_terminal)
            self._restore_at_exit = True
        try:
            tty.setcbreak(fd)
            editor = _LineEditor(typed)
            while True:
                left = None if end is None else max(0.0, end - time.monotonic())
                render(editor.typed, left)
                if left is not None and left <= 0:
                    self._discard_typed(fd)
                    raise TimeUp()
                step = COUNTDOWN_STEP if left is None else min(COUNTDOWN_STEP, left)
                if not self._wait(fd, step):
                    continue
                chunk = os.read(fd, 4096)
                if not chunk:
                    if editor.typed:
                        return editor.typed
                    raise EOFError("input ended")
                if editor.feed(self._decoder.decode(chunk)):
                    render(editor.typed, None)
                    return editor.typed
        finally:
            self.restore_terminal()

    def restore_terminal(self) -> None:
        """Put the terminal back as :meth:`edit_line` found it (echo, line editing).

        Called when a line is done, and at interpreter exit: people answer in their own
        threads, and Ctrl-C ends the program from the main thread while such a thread still
        waits for keys in cbreak mode; without this the shell's next programs would get a
        terminal that echoes nothing. Does nothing when no line is being edited.
        """
        saved, self._tty_saved = self._tty_saved, None
        if saved is None:
            return
        import termios

        try:
            termios.tcsetattr(saved[0], termios.TCSADRAIN, saved[1])
        except (termios.error, OSError, ValueError):
            pass  # the terminal is gone

    def _discard_typed(self, fd: int) -> None:
        self._buffer = ""
        if self.is_tty():
            try:
                import termios

                termios.tcflush(fd, termios.TCIFLUSH)
            except (ImportError, OSError):
                pass


def format_seconds(seconds: float) -> str:
    """``m:ss`` for a number of seconds left, rounded up as countdowns are (``2:00`` at the
    start of two minutes, ``0:01`` until the last second is over); negative counts as 0."""
    whole = max(0, math.ceil(seconds - 1e-6))
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
    """A human seat played at the terminal (implements ``HumanKiekPlayer``).

    Args:
        name: shown in the score table and the log.
        judge: its one-word check refuses phrases, emoji and empty answers.
        console: where prompts go (default: a Rich console on stdout).
        reader: where answers come from (default: :class:`LineReader` on stdin).
        clock: measures the two minutes when the runner gives no hourglass (default:
            monotonic).
        names: player names by seat, to say who wrote which word.
        card_names: card id -> the name shown (default: the card's label, else "a photo").
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
        judge: JudgeLike,
        console: Console | None = None,
        reader: LineReader | None = None,
        clock: Clock | None = None,
        names: Sequence[str] = (),
        card_names: Mapping[str, str] | None = None,
        sheet_dir: Path | None = None,
        images: bool | None = None,
    ) -> None:
        self.name = name
        self.judge = judge
        self.console = console or Console(highlight=False)
        self.reader = reader or LineReader()
        self.clock = clock or MonotonicClock()
        self.names = list(names)
        #: how players are named to this person ("you", "your", the others' names)
        self.seat_names = SeatNames(tuple(self.names), name)
        self.card_names = dict(card_names or {})
        self.sheet_dir = sheet_dir
        interactive = self.reader.is_tty() and self.console.is_terminal
        self.images = interactive if images is None else images
        self._sheets = 0
        #: cards (by id) whose photo could not be drawn, said once each
        self._unreadable: set[str] = set()
        #: the reveal's ne bis in idem answer given in :meth:`overrule`, for :meth:`call_repeat`
        self._called: bool | None = None
        #: clear while a prompt line is live on screen (see :meth:`stop`)
        self._no_live = threading.Event()
        self._no_live.set()

    # ------------------------------------------------------------ protocol

    def tell(self, message: str) -> None:
        """Show ``message`` to the person (the runner uses it for refused answers)."""
        with self.reader.lock:
            self.console.print(f"[yellow]{safe_text(message)}[/yellow]", highlight=False)

    def stop(self, reason: str) -> None:
        """The game stopped (Ctrl-C): the question on screen ends (its prompt line is
        finished with "(stopped)" and the terminal put back), so the runner's last words
        start on a line of their own. Waits up to :data:`STOP_WAIT` s for the prompt."""
        self.reader.stop()
        self._no_live.wait(STOP_WAIT)

    def play_turn(self, view: ActiveView) -> ActivePlay:
        """Ask for the 2 cards to play, the group of three and the word (timed).

        The hourglass is turned when the cards and the first prompt are on screen. When
        time runs out, what was chosen is kept and the rest is filled in by the rules
        (:func:`kiekai.kiek.seat.time_up_play`), with no word.

        Raises:
            TimeUp: time ran out before the cards were chosen (the engine plays its default).
        """
        glass = view.hourglass or Hourglass(self.clock, view.time_limit)
        with self.reader.lock:
            self.console.rule(f"[bold]{safe_text(self.name)}: your turn[/bold]")
            self._say(
                f"Play 2 cards from your hand, split the 5 cards 3 and 2, and write one word "
                f"that is true of the three and not of the two. Each match scores {view.stake} "
                f"{plural(view.stake, 'point', 'points')}. You have {format_seconds(glass.left())}."
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
            glass.start()  # the cards and the prompt are on screen now
            played: tuple[str, ...] = ()
            three: tuple[str, ...] = ()
            try:
                ask = f"Which 2 cards of your hand do you play? (two of {_join(hand_numbers)})"
                played_numbers = self._ask_numbers(ask, hand_numbers, 2, glass, "in your hand")
                played = tuple(cards[n - 1].id for n in played_numbers)
                five_numbers = list(range(1, len(view.table) + 1)) + played_numbers
                ask = f"Which 3 of the five cards ({_join(five_numbers)}) does your word describe?"
                among = "one of the five cards"
                three_numbers = self._ask_numbers(ask, five_numbers, 3, glass, among)
                three = tuple(cards[n - 1].id for n in three_numbers)
                two_numbers = [n for n in five_numbers if n not in three_numbers]
                word = self._ask_word(
                    f"Your word (true of {_join(three_numbers)}, not of {_join(two_numbers)})",
                    glass,
                )
            except TimeUp:
                timed_out = time_up_play(view, played, three)
                if timed_out is None:
                    raise
                return timed_out
            return chosen_play(view, played, three, word)

    def guess(self, view: GuessView) -> str:
        """Ask for one word that guesses the active player's (timed; ``""`` when time is up).

        The hourglass is turned when the two groups and the prompt are on screen.
        """
        glass = view.hourglass or Hourglass(self.clock, view.time_limit)
        active = self._name(view.active_seat)
        with self.reader.lock:
            self.console.rule(
                f"[bold]{safe_text(self.name)}: guess {self._whose(view.active_seat)} word[/bold]"
            )
            self._say(
                f"{safe_text(active)} put cards 1-3 against cards 4-5. What one word is true of "
                f"the three and not of the two? A match scores {view.stake} "
                f"{plural(view.stake, 'point', 'points')}. You have {format_seconds(glass.left())}."
            )
            self._show_cards(
                list(view.three) + list(view.two),
                view.turn,
                "guess",
                groups=[("the three", 1, len(view.three)), ("the two", len(view.three) + 1, 5)],
            )
            self._show_used(view.used_words)
            glass.start()  # the cards and the prompt are on screen now
            try:
                return self._ask_word("Your guess", glass)
            except TimeUp:
                return ""

    def overrule(self, view: RevealView) -> dict[str, bool]:
        """Show the judge's verdicts, one a distinct word, numbered, and ask the reveal's one
        question (not timed): Enter continues, numbers overrule those verdicts, ``r`` calls
        ne bis in idem (offered once a word has been used), e.g. ``2 r``. The call is kept
        for :meth:`call_repeat`, which the runner asks next and which then asks nothing.

        Rulebook "Imperfect Guesses": each group decides which guess is correct. A word
        several guessers wrote is asked once (the ruling holds for all of them). Reasons are
        shortened to their gist (:func:`short_reason`); the log keeps them whole.
        """
        self._called = None
        guesses = list(view.guesses)
        if not guesses:
            return {}
        with self.reader.lock:
            secret = view.words.get(view.active_seat, "")
            self._say(
                f"The judge's verdicts on {self._whose(view.active_seat)} word "
                f"'{safe_text(secret)}':"
            )
            for number, group in enumerate(guesses, start=1):
                verdict = group.verdict
                mark = "[green]match[/green]" if verdict.accepted else "[red]no match[/red]"
                self._say(
                    f"  {number}. '{safe_text(group.word)}' ({self._writers(group.seats)}): "
                    f"{mark} [dim]{safe_text(short_reason(verdict.reason))}[/dim]"
                )
            self._show_used(view.used_words)
            chosen, called = self._ask_reveal(len(guesses), bool(view.used_words))
            self._called = called
            return {guesses[n - 1].word: not guesses[n - 1].verdict.accepted for n in chosen}

    def overrule_repeats(self, view: CallView) -> dict[str, str | None]:
        """Ne bis in idem was called: show the judge's repeat verdict on each word of the
        turn; the person may overrule some (not timed). A word ruled a repeat against the
        judge asks which used word it repeats (unless only one was used)."""
        repeats = list(view.repeats)
        if not repeats:
            return {}
        with self.reader.lock:
            callers = self._writers(view.callers) or "someone"
            self._say(
                f"Ne bis in idem! called by {callers}. The judge's verdicts on this turn's "
                f"words (used before: {safe_text(', '.join(view.used_words))}):"
            )
            for number, group in enumerate(repeats, start=1):
                verdict = group.verdict
                what = (
                    f"[red]repeats '{safe_text(verdict.matched or '')}'[/red]"
                    if verdict.accepted
                    else "[green]no repeat[/green]"
                )
                self._say(
                    f"  {number}. '{safe_text(group.word)}' ({self._writers(group.seats)}): "
                    f"{what} [dim]{safe_text(short_reason(verdict.reason))}[/dim]"
                )
            rulings: dict[str, str | None] = {}
            chosen, _ = self._ask_reveal(len(repeats), False)
            for n in chosen:
                group = repeats[n - 1]
                if group.verdict.accepted:
                    rulings[group.word] = None
                    continue
                used = list(view.used_words)
                if len(used) == 1:
                    rulings[group.word] = used[0]
                    continue
                self._say(
                    "  " + "; ".join(f"{i}. {safe_text(u)}" for i, u in enumerate(used, start=1))
                )
                rulings[group.word] = self._ask_used_word(group.word, used)
            return rulings

    def _ask_used_word(self, word: str, used: Sequence[str]) -> str:
        """Ask which of the numbered ``used`` words ``word`` repeats: its number or the
        word itself (as the judge normalises it); asked again, saying why, until one is."""
        while True:
            line = self._read(
                f"Which used word does '{word}' repeat? Type its number (1 to {len(used)}) or "
                "the word",
                None,
            )
            named = used_word_named(line, used)
            if named is not None:
                return named
            self._say(
                f"'{safe_text(line.strip()[:40])}' is not one of the {len(used)} used words: "
                f"type a number from 1 to {len(used)}, or one of the words shown."
            )

    def _ask_reveal(self, count: int, may_call: bool) -> tuple[list[int], bool]:
        """The reveal's one question: which of ``count`` numbered verdicts to overrule and,
        when ``may_call``, whether to call ne bis in idem (``r``). Enter alone: neither.

        Returns:
            (the verdict numbers to overrule, ascending; whether ne bis in idem is called).
        """
        numbers = list(range(1, count + 1))
        which = "1" if count == 1 else f"1-{count}"
        call = ", r: ne bis in idem" if may_call else ""
        prompt = f"Enter: continue, {which}: overrule{call}"
        while True:
            line = self._read(prompt, None).strip().lower()
            called = may_call and bool(re.search(r"(?<![a-z])r(?![a-z])", line))
            rest = re.sub(r"(?<![a-z])r(?![a-z])", " ", line) if called else line
            if not rest.strip(" ,") or rest.strip() in ("n", "no"):  # "no" reads as Enter
                return [], called
            chosen = typed_numbers(rest)
            wrong = [n for n in chosen if n not in numbers]
            if chosen and not wrong and not re.search(r"[^\d\s,]", rest):
                return sorted(set(chosen)), called
            also = ", r for ne bis in idem" if may_call else ""
            if wrong and min(wrong) >= 0:
                self._say(
                    f"There is no verdict {_join(wrong)}: type numbers out of "
                    f"{_join(numbers)}{also}, or press Enter."
                )
            else:
                self._say(f"Please type numbers out of {_join(numbers)}{also}, or press Enter.")

    def call_repeat(self, view: RevealView) -> bool:
        """Whether this person calls "ne bis in idem" at this reveal (not timed: the two
        minutes are over when the words are read aloud).

        When :meth:`overrule` has just asked the reveal's question (there were guesses),
        its answer is given and nothing more is asked. Otherwise this turn's words and the
        used ones are shown and one short question asked: Enter continues, ``r`` calls.
        Not asked while no word has been used in an earlier turn (nothing can repeat yet).
        """
        called, self._called = self._called, None
        if called is not None:
            return called
        if not view.used_words:
            return False
        with self.reader.lock:
            written = [
                f"{self._who(seat)}: '{safe_text(word)}'"
                for seat, word in sorted(view.words.items())
                if word
            ]
            self._say("Written this turn: " + "; ".join(written))
            self._show_used(view.used_words)
            while True:
                answer = self._read("Enter: continue, r: ne bis in idem", None)
                answer = answer.strip().lower()
                if answer in ("", "n", "no"):
                    return False
                if answer in ("r", "y", "yes"):
                    return True
                self._say("Please press Enter to go on, or type r to call ne bis in idem.")

    def play_again(self) -> bool:
        """At the end of a game: ask whether to play another (Enter or n: no). End of
        input counts as no."""
        with self.reader.lock:
            while True:
                try:
                    answer = self._read("Play again with new cards? y: yes, Enter: no", None)
                except EOFError:
                    return False
                answer = answer.strip().lower()
                if answer in ("", "n", "no"):
                    return False
                if answer in ("y", "yes"):
                    return True
                self._say("Please type y to play again, or press Enter to stop.")

    def keep_card(self, view: KeepView) -> str:
        """Ask which card stays on the table for the next turn (not timed).

        Shows the cards already kept by the players before, then the cards on offer.
        """
        with self.reader.lock:
            self.console.rule(f"[bold]{safe_text(self.name)}: keep a card[/bold]")
            whose = self._whose(view.new_active_seat)
            self._say(
                f"Choose a card that stays on the table for {whose} turn; the cards nobody "
                "keeps are discarded."
            )
            if view.kept:
                self._say("Already kept: " + ", ".join(self._card_name(c) for c in view.kept) + ".")
            else:
                self._say("Nothing kept yet: you choose first.")
            cards = list(view.cards)
            groups = [("on offer", 1, len(cards))]
            if view.hand:  # shown (not chosen from) so the person can keep cards that suit it
                groups.append(
                    ("your hand (not on offer)", len(cards) + 1, len(cards) + len(view.hand))
                )
            self._show_cards(cards + list(view.hand), -1, "keep", groups=groups)
            numbers = list(range(1, len(cards) + 1))
            (number,) = self._ask_numbers(
                f"Keep which card? (one of {_join(numbers)})", numbers, 1, None, among="on offer"
            )
            return cards[number - 1].id

    # ------------------------------------------------------------ prompts

    def _say(self, text: str) -> None:
        self.console.print(text, highlight=False)

    def _name(self, seat: int) -> str:
        return self.seat_names.name(seat)

    def _who(self, seat: int) -> str:
        """The player's name for Rich markup ("you" for this person)."""
        return safe_text(self.seat_names.who(seat))

    def _whose(self, seat: int) -> str:
        """Possessive for Rich markup: "your" for this person, else "Bot 1's"."""
        return safe_text(self.seat_names.whose(seat))

    def _writers(self, seats: Sequence[int]) -> str:
        """Who wrote a word, for Rich markup: "you", "Bot 1" or "Bot 1, Bot 2 and you"."""
        return safe_text(self.seat_names.writers(seats))

    def _card_name(self, card: Card) -> str:
        """The card's name for Rich markup, never a second number: the neutral name
        "photo N" that :func:`kiekai.display.card_names` gives a card without a label
        would sit next to the card's number on the list ("1. photo 303"), so it reads
        "unnamed photo" here (the number on the list and the contact sheet is the card's)."""
        name = self.card_names.get(card.id) or card.label or ""
        if not name.strip() or (not card.label and _NEUTRAL_NAME.fullmatch(name)):
            name = "unnamed photo"
        return safe_text(name)

    def _read(self, prompt: str, glass: Hourglass | None) -> str:
        """Show ``prompt`` (with the time left on ``glass``) and read one line.

        On a terminal the prompt, the typed text and the countdown are one line redrawn in
        place (Rich ``Live``); the finished line stays as ``prompt: answer``. Piped input
        gets the prompt with ``[m:ss left]`` in front and the answer echoed.

        Raises:
            TimeUp: the hourglass ran out.
            EOFError: the input ended.
        """
        left = None if glass is None else glass.left()
        if left is not None and left <= 0:
            raise TimeUp()
        if self.console.is_terminal and self.reader.is_tty():
            return self._read_live(prompt, left)
        if left is not None:
            prompt = f"[{format_seconds(left)} left] {prompt}"
        self.console.print(f"[bold]{safe_text(prompt)}[/bold] ", end="", highlight=False)
        try:
            line = self.reader.readline(left)
        except (TimeUp, EOFError):
            self.console.print()
            raise
        if not self.reader.is_tty():
            self.console.print(safe_text(line), highlight=False)  # echo piped answers
        return line

    def _read_live(self, prompt: str, left: float | None) -> str:
        """One prompt line redrawn in place while the person types (terminals only)."""

        def line(typed: str, seconds: float | None, cursor: bool = True) -> Text:
            text = Text()
            if seconds is not None:
                text.append(f"{format_seconds(seconds)} left ", style="bold cyan")
            text.append(printable(prompt), style="bold")
            text.append(" ")
            text.append(printable(typed))
            if cursor:
                text.append("_", style="blink")
            return text

        self._no_live.clear()
        try:
            with self._live() as live:
                answer: list[str] = []

                def render(typed: str, seconds: float | None) -> None:
                    answer[:] = [typed]
                    live.update(line(typed, seconds), refresh=True)

                try:
                    typed = self.reader.edit_line(left, render)
                except TimeUp:
                    live.update(line(answer[0] if answer else "", 0.0, cursor=False), refresh=True)
                    raise
                except (ReadingStopped, KeyboardInterrupt):
                    stopped = line(answer[0] if answer else "", None, cursor=False)
                    live.update(stopped.append(" (stopped)", style="dim"), refresh=True)
                    raise
                live.update(line(typed, None, cursor=False), refresh=True)
                return typed
        finally:
            self._no_live.set()

    @contextmanager
    def _live(self) -> Iterator[Live]:
        live = Live(
            Text(""),
            console=self.console,
            auto_refresh=False,
            transient=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        with live:
            yield live

    def _ask_numbers(
        self,
        prompt: str,
        allowed: Sequence[int],
        count: int,
        glass: Hourglass | None,
        among: str = "one of the numbers shown",
    ) -> list[int]:
        """Ask until ``count`` different numbers out of ``allowed`` are typed.

        A refusal says what was wrong: a number that is not ``among`` the allowed ones
        (``"9 is not in your hand"``), a number typed twice, or too many or too few.
        """
        while True:
            line = self._read(prompt, glass)
            why = choice_problem(typed_numbers(line), allowed, count, among)
            if why is None:
                return typed_numbers(line)
            what = "one number" if count == 1 else f"{count} different numbers"
            example = " ".join(str(n) for n in allowed[:count])
            lead = f"{why} " if why else ""
            self._say(f"{lead}Please type {what} out of {_join(allowed)}, e.g. {example}.")

    def _ask_word(self, prompt: str, glass: Hourglass | None) -> str:
        """Ask until the judge accepts the answer as one word."""
        while True:
            line = self._read(prompt, glass).strip()
            why = refuse_word(self.judge, line)
            if not why:
                return line
            self._say(f"Please type one word ({safe_text(why)}).")

    def _show_used(self, used: Sequence[str]) -> None:
        if used:
            self._say("Words used so far (ne bis in idem): " + safe_text(", ".join(used)))

    # ------------------------------------------------------------ cards

    def _show_cards(
        self,
        cards: Sequence[Card],
        turn: int,
        kind: str,
        groups: Sequence[tuple[str, int, int]],
    ) -> None:
        """List ``cards`` numbered from 1 with their names and show the contact sheet."""
        for title, first, last in groups:
            self._say(f"[bold]{safe_text(title)}[/bold]:")
            for number in range(first, last + 1):
                self._say(f"  {number}. {self._card_name(cards[number - 1])}")
        path = self._save_sheet(
            cards, turn, kind, [(t, last - first + 1) for t, first, last in groups]
        )
        if path is None:
            return
        self._say(f"Contact sheet: {safe_text(str(path))}")
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

    def _say_unreadable(self, card: Card, number: int, reason: str) -> None:
        """Say once per card (the first sheet that meets it) that its photo cannot be
        drawn: a file removed, emptied or cut short since the deck was read. Its tile
        reads "unreadable"; the game goes on."""
        if card.id in self._unreadable:
            return
        self._unreadable.add(card.id)
        self._say(
            f"[yellow]card {number} ({self._card_name(card)}): its photo cannot be shown "
            f"({safe_text(reason)}); the contact sheet marks it unreadable[/yellow]"
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
            contact_sheet(
                list(cards),
                path,
                groups=groups,
                on_unreadable=lambda number, reason: self._say_unreadable(
                    cards[number - 1], number, reason
                ),
            )
        except Exception as exc:  # a photo that cannot be drawn must not stop the game
            self._say(f"[dim](could not draw the contact sheet: {safe_text(str(exc))})[/dim]")
            return None
        return path


#: The neutral name :func:`kiekai.display.card_names` gives a card without a label.
_NEUTRAL_NAME = re.compile(r"photo \d+")
#: Widest verdict reason shown at the reveal (characters); the log keeps the whole reason.
REASON_WIDTH = 72


def short_reason(reason: str, width: int = REASON_WIDTH) -> str:
    """The gist of a judge's reason for the reveal's list, at most ``width`` characters.

    Drops what the line already says or the person does not need to rule: the verdict and
    level ("Rejected at standard level: "), the repeat's restatement ("'dogs' repeats the
    used category 'dog': "), the source ("everyday lexicon v3: "), asides and model figures
    in parentheses ("(fitted model: score 0.13 …)") and what follows the first ";". E.g.
    "Rejected at standard level: everyday lexicon v3: a 'puppy' is a kind of 'dog';
    standard leaves …" → "a 'puppy' is a kind of 'dog'". Longer gists are cut at a word
    and end in "…".
    """
    text = " ".join(str(reason).split())
    text = re.sub(r"^(Accepted|Rejected|Repeat|Not a repeat)( at \w+ level)?: ", "", text)
    text = re.sub(r"^'[^']*' repeats the used category '[^']*': ", "", text)
    text = re.sub(r"^everyday lexicon v?[\w.]*: ", "", text)
    text = re.sub(r" \([^()]*\)", "", text)
    text = text.split("; ")[0].rstrip(". ")
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;: ") + "…"


def _join(numbers: Sequence[int]) -> str:
    """``1, 2 and 3`` style list of numbers."""
    return join_words([str(n) for n in numbers])
