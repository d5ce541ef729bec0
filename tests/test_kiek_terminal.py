"""A fairer terminal (issue 12), on a real pseudo-terminal rendered by a terminal emulator
(pyte): the clock starts when the cards and prompt are on screen, cards have names next to
their numbers, the countdown redraws in place, one message when time is up, a forfeited turn
says so plainly with the rulebook reading, and wording with names ("your word repeats").

In-process tests drive a :class:`TerminalKiekPlayer` on a pty (a scripted person types into
it); one test drives the real `kiekai play` program with pexpect."""

from __future__ import annotations

import fcntl
import io
import os
import re
import struct
import sys
import termios
import threading
import time
from pathlib import Path

import pexpect
import pyte
import pytest
from kiek_helpers import ScriptedPlayer, TableJudge, make_cards
from rich.console import Console

from kiekai.clock import MonotonicClock
from kiekai.display import card_names
from kiekai.kiek.game import EventPrinter, play_game
from kiekai.kiek.rules import TURN_SECONDS
from kiekai.kiek.settings import GameSettings
from kiekai.ui.kiek_terminal import LineReader, TerminalKiekPlayer

REPO = Path(__file__).resolve().parents[1]
COLS, ROWS = 140, 60


class Pty:
    """A pseudo-terminal: the program side is a Rich console and a LineReader on the slave;
    the person's side types into the master and reads the screen through pyte."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.out = open(self.slave, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
        self.inp = open(self.slave, encoding="utf-8", closefd=False)  # noqa: SIM115
        self.console = Console(
            file=self.out, force_terminal=True, width=COLS, height=ROWS, color_system="standard"
        )
        self.reader = LineReader(self.inp)
        self.screen = pyte.HistoryScreen(COLS, ROWS, history=5000)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""
        self.lock = threading.Lock()
        self._stop = False
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        import select

        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return
                with self.lock:
                    self.raw += data
                    self.stream.feed(data)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def lines(self) -> list[str]:
        """Every line of the emulated terminal: scrolled-off history, then the screen."""
        with self.lock:
            history = [
                "".join(ch.data for ch in row.values()).rstrip() for row in self.screen.history.top
            ]
            return history + [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def wait_for(self, pattern: str, timeout: float = 10.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = self.text()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} did not appear on the terminal:\n{self.text()[-3000:]}")

    def close(self) -> None:
        self._stop = True
        self.thread.join(timeout=2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture
def pty():
    terminal = Pty()
    yield terminal
    terminal.close()


def person(pty: Pty, cards, names=("You", "Bot 1", "Bot 2")) -> TerminalKiekPlayer:
    return TerminalKiekPlayer(
        "You", judge=TableJudge(), console=pty.console, reader=pty.reader, clock=MonotonicClock(),
        names=list(names), card_names=card_names(cards),
    )  # fmt: skip


def run_game(pty: Pty, players, cards, judge=None, time_limit=TURN_SECONDS, **kw):
    result: dict = {}
    settings = GameSettings(seed=2, rounds=1, turn_seconds=time_limit)

    def run():
        try:
            result["outcome"] = play_game(
                players, cards, judge=judge or TableJudge(), settings=settings,
                clock=MonotonicClock(),
                on_event=EventPrinter(pty.console), **kw,
            )  # fmt: skip
        except BaseException as exc:
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def answer_untimed(
    pty: Pty, thread: threading.Thread, overrule: str = "", overrule_repeats: str = ""
) -> None:
    """Answer the untimed prompts (the reveal's one question: continue, overrule or ne bis
    in idem; the repeat verdicts after a call; keep) until the game ends."""
    answered = 0
    while thread.is_alive():
        lines = [line for line in pty.lines() if line.strip()]
        last = lines[-1] if lines else ""
        text = pty.text()
        count = text.count("Enter: continue") + text.count("Keep which")
        if count > answered and last.rstrip("_ ").endswith((")", "overrule", "ne bis in idem")):
            answered = count
            if "overrule" in last:
                reveals = [
                    m.start()
                    for m in re.finditer(r"The judge's verdicts on (?!this turn's words)", text)
                ]
                after_call = text.rfind("The judge's verdicts on this turn's words") > max(
                    reveals, default=-1
                )
                pty.type((overrule_repeats if after_call else overrule) + "\r")
            elif "Keep which" in last:
                pty.type("1\r")
            else:
                pty.type("\r")
        time.sleep(0.05)


def answer_guesses(pty: Pty, thread: threading.Thread, words, already: int = 0) -> None:
    """Type the next of ``words`` at each new guess prompt until the game ends.

    A prompt is new when the count of guess headings ("You: guess Bot 1's word") on the
    terminal, scrolled-off history included, exceeds the prompts answered so far
    (``already`` counts those answered by hand); the prompt line itself is redrawn in place,
    so it cannot be counted. ``words`` is an iterable of words, or one word for every prompt.
    """
    words = words if isinstance(words, str) else iter(words)
    answered = already
    while thread.is_alive():
        lines = [line for line in pty.lines() if line.strip()]
        asked = pty.text().count("You: guess ")
        if asked > answered and "left Your guess" in "".join(lines[-3:]):
            answered = asked
            pty.type((words if isinstance(words, str) else next(words)) + "\r")
        time.sleep(0.05)


def test_cards_have_names_and_the_countdown_redraws_in_place_and_time_up_is_said_once(pty):
    """The person types nothing as active player: the prompt line counts down in place
    (one line on screen, not one per second), then one plain message says the turn is
    forfeited and what the rulebook reading makes of it."""
    cards = make_cards(30)
    players = [
        person(pty, cards),
        ScriptedPlayer("Bot 1", ["red"]),
        ScriptedPlayer("Bot 2", ["dog"]),
    ]
    thread, result = run_game(pty, players, cards, time_limit=2.5)
    first = pty.wait_for(r"left Which 2 cards of your hand")
    assert re.search(r"^\s+1\. thing\d+$", first, re.M)  # the cards' names next to their numbers
    assert "c0" not in first  # never the file names (c00, c01, ...)
    assert "0:03 left" in first or "0:02 left" in first  # the clock started when shown
    time.sleep(1.2)
    later = pty.text()
    countdown_lines = [line for line in later.splitlines() if re.search(r"\d:\d\d left", line)]
    assert len(countdown_lines) == 1, countdown_lines  # redrawn in place, not piled up
    guess_answers = threading.Thread(target=answer_untimed, args=(pty, thread), daemon=True)
    guess_answers.start()
    pty.wait_for(r"Turn forfeited", timeout=10)
    thread.join(timeout=60)
    assert not thread.is_alive() and "error" not in result, result.get("error")
    screen = " ".join(pty.text().split())  # lines joined: messages wrap
    assert screen.count("Turn forfeited") == 1
    assert "chose no cards in time: the first two cards of your hand were played for you" in screen
    assert "two minutes" not in screen  # this table's turn is 2.5 s (--turn-seconds)
    assert "nobody scores this turn (docs/rules.md, settled reading 11)" in screen
    assert "Time is up" not in screen and "ran out of time: no word" not in screen
    outcome = result["outcome"]
    first_play = next(e for e in outcome.events if e.type == "play")
    assert first_play.player == 0 and first_play.data["forfeited"]


def test_the_clock_starts_when_the_cards_and_prompt_are_on_screen(pty, monkeypatch):
    """Drawing the cards takes 1.5 s; the person answers 1.5 s after the prompt shows: in
    time on a 2.5 s turn, because the hourglass is turned when the prompt is on screen."""
    cards = make_cards(30)
    me = person(pty, cards)
    real_show = me._show_cards

    def slow_show(*args, **kwargs):
        real_show(*args, **kwargs)
        time.sleep(1.5)  # a slow contact sheet

    monkeypatch.setattr(me, "_show_cards", slow_show)
    players = [me, ScriptedPlayer("Bot 1", ["red"]), ScriptedPlayer("Bot 2", ["dog"])]
    thread, result = run_game(pty, players, cards, time_limit=2.5)
    pty.wait_for(r"left Which 2 cards")
    time.sleep(0.5)
    pty.type("4 5\r")
    pty.wait_for(r"left Which 3 of the five")
    time.sleep(0.3)
    pty.type("1 2 3\r")
    pty.wait_for(r"left Your word")
    time.sleep(0.3)
    pty.type("dog\r")
    untimed = threading.Thread(target=answer_untimed, args=(pty, thread), daemon=True)
    untimed.start()
    thread.join(timeout=60)
    outcome = result["outcome"]
    play = next(e for e in outcome.events if e.type == "play" and e.player == 0)
    assert play.data["wrote_word"] is True and not play.data["forfeited"]
    reveal = next(e for e in outcome.events if e.type == "reveal")
    assert reveal.data["secret"] == "dog"


def test_typing_is_shown_in_the_prompt_line_and_backspace_works(pty):
    """The typed text is drawn in the live prompt line (the terminal's own echo is off)."""
    reader = pty.reader
    box: dict = {}

    def read():
        me = person(pty, make_cards(5))
        box["line"] = me._read("Your guess", None)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    pty.wait_for("Your guess")
    pty.type("dogz")
    pty.wait_for("Your guess dogz")
    pty.type("\x7f\r")
    thread.join(timeout=5)
    assert box["line"] == "dog"
    assert reader.is_tty()
    assert "Your guess dog" in pty.text() and "dogz" not in pty.text().split("\n")[-5:]


def test_a_person_overrules_at_the_terminal_and_wording_uses_names(pty, tmp_path):
    """At the reveal the person overrules the first verdict (typing 1); the ruling is logged
    and saved as a house rule. A called repeat of the person's word reads "your word"."""
    from kiekai.judge.house_rules import HouseRules

    cards = make_cards(30)
    rules = HouseRules.load(tmp_path / "rules.tsv", missing_ok=True)
    me = person(pty, cards)
    players = [
        me,
        ScriptedPlayer("Bot 1", ["red"], calls=True),
        ScriptedPlayer("Bot 2", ["sea"], calls=True),
    ]
    thread, result = run_game(pty, players, cards, time_limit=30, house_rules=rules)
    pty.wait_for(r"left Which 2 cards")
    pty.type("4 5\r")
    pty.wait_for(r"left Which 3 of the five")
    pty.type("1 2 3\r")
    pty.wait_for(r"left Your word")
    pty.type("red\r")

    # "red" at every guess prompt repeats the person's own earlier word
    threading.Thread(target=answer_guesses, args=(pty, thread, "red"), daemon=True).start()
    answer_untimed(pty, thread, overrule="1")
    assert "error" not in result, result.get("error")
    screen = " ".join(pty.text().split())
    outcome = result["outcome"]
    overrules = [e for e in outcome.events if e.type == "overrule"]
    assert overrules and overrules[0].player == 0
    assert "Overruled by You:" in screen
    assert "your word repeats 'red'" in screen
    assert "You's" not in screen
    assert len(rules) >= 1 and (tmp_path / "rules.tsv").read_text().count("\t") >= 3


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_the_real_program_starts_the_clock_when_the_cards_are_on_screen(tmp_path):
    """`kiekai play` in a real terminal (pexpect): the first prompt shows the whole two
    minutes, the countdown is one line redrawn in place, and Ctrl-C stops with the log."""
    log = tmp_path / "g.jsonl"
    env = {**os.environ, "COLUMNS": str(COLS), "LINES": str(ROWS), "TERM": "xterm-256color"}
    env.pop("DISPLAY", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "kiekai", "play", "--bots", "2", "--seed", "4", "--rounds", "1", "--level", "easy",
         "--log", str(log), "--house-rules", str(tmp_path / "rules.tsv")],
        cwd=str(REPO), env=env, dimensions=(ROWS, COLS), timeout=240,
    )  # fmt: skip
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    # One frame of the prompt line: countdown, then (after Rich's style codes) the prompt.
    # Matching whole frames, never a fixed sleep and one read, keeps a redraw cut in the
    # middle off the screen under test, however slow a loaded machine makes the program.
    frame = r"(\d:\d\d) left[^\r\n]*?Which 2 cards of your hand"
    try:
        child.expect(frame, timeout=240)
        stream.feed(child.before + child.after)
        first = child.match.group(1).decode()
        assert re.fullmatch(r"2:00|1:5\d", first), f"the first prompt showed {first} left"
        shown = first
        while shown == first:  # wait for the countdown to be redrawn at least once
            child.expect(frame, timeout=60)
            stream.feed(child.before + child.after)
            shown = child.match.group(1).decode()
        text = "\n".join(screen.display)
        assert re.search(r"1:\d\d left", text), text
        assert len(re.findall(r"\d:\d\d left", text)) == 1, text  # redrawn in place
        assert re.search(
            r"^\s+\d\. (rocket|cat|pagoda|astronaut|moon|coins|grass|[a-z ]+)$", text, re.M
        )
        child.sendintr()
        child.expect(pexpect.EOF, timeout=120)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130 or child.signalstatus is not None
    assert log.read_text(encoding="utf-8").splitlines()[0].startswith('{"type": "header"')


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_ctrl_c_during_a_guess_says_the_game_is_saved_and_how_to_replay_it(tmp_path):
    """`kiekai play` in a real terminal: Ctrl-C while the person types a guess (asked in
    its own thread, the countdown live) ends the prompt line with "(stopped)", then says in
    plain words that the game is saved, how to replay it and that the same seed deals it
    again; no traceback, exit status 130."""
    log = tmp_path / "g.jsonl"
    env = {**os.environ, "COLUMNS": str(COLS), "LINES": str(ROWS), "TERM": "xterm-256color"}
    env.pop("DISPLAY", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "kiekai", "play", "--bots", "2", "--seed", "4", "--rounds", "1", "--level", "easy",
         "--log", str(log), "--house-rules", str(tmp_path / "rules.tsv")],
        cwd=str(REPO), env=env, dimensions=(ROWS, COLS), timeout=240,
    )  # fmt: skip
    screen = pyte.HistoryScreen(COLS, ROWS, history=2000)
    stream = pyte.ByteStream(screen)
    seen = b""
    try:
        for prompt, answer in (("Which 2 cards of your hand", "4 5"), ("Which 3 of the five", "1 2 3"),
                               ("Your word", "red"), ("Enter: continue", ""), ("Keep which card", "1")):  # fmt: skip
            child.expect(prompt, timeout=240)
            seen += child.before + child.after
            time.sleep(0.3)
            child.send(answer + "\r")
        child.expect("Your guess", timeout=240)
        seen += child.before + child.after
        time.sleep(1.5)
        child.send("sk")
        time.sleep(1.5)
        child.sendintr()
        child.expect(pexpect.EOF, timeout=30)
        seen += child.before
    finally:
        child.close(force=True)
    stream.feed(seen)
    lines = ["".join(ch.data for ch in row.values()).rstrip() for row in screen.history.top]
    text = "\n".join(lines + [line.rstrip() for line in screen.display])
    assert child.exitstatus == 130, text[-2000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert re.search(r"^Your guess sk \(stopped\)$", text, re.M), text[-2000:]
    flat = " ".join(text.split())
    assert "Stopped with Ctrl-C. The game is saved: its log keeps every finished turn" in flat
    assert f"Replay it: kiekai replay {log}" in flat
    assert (
        "A stopped game cannot be resumed; the same options with --seed 4 deal the same game again."
        in flat
    )
    events = log.read_text(encoding="utf-8").splitlines()
    assert '"aborted"' in events[-1] and '"score"' in "".join(events)


def test_ctrl_c_while_a_person_thread_waits_gives_the_terminal_back():
    """People answer in their own threads; Ctrl-C ends the program from the main thread
    while such a thread still waits for keys in cbreak mode. The terminal must come back
    with echo and line editing on (else the shell's next programs type blind)."""
    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    assert before[3] & termios.ECHO and before[3] & termios.ICANON
    script = (
        "import sys, threading, time\n"
        "from kiekai.ui.kiek_terminal import LineReader\n"
        "reader = LineReader(sys.stdin)\n"
        "threading.Thread(target=reader.edit_line, args=(None, lambda typed, left: None), daemon=True).start()\n"
        "time.sleep(0.8)\n"
        "print('cbreak' if not __import__('termios').tcgetattr(0)[3] & __import__('termios').ECHO else 'echo', flush=True)\n"
        "sys.exit(130)\n"
    )
    import subprocess

    child = subprocess.Popen(
        [sys.executable, "-c", script], stdin=slave, stdout=subprocess.PIPE, cwd=REPO
    )
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 130
    assert out.decode().strip() == "cbreak"  # the thread was editing a line
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    assert after[3] & termios.ECHO, "echo left off"
    assert after[3] & termios.ICANON, "line editing left off"


def test_a_line_without_end_from_a_pipe_is_cut_and_costs_no_memory():
    """``kiekai play < /dev/zero``: a pipe that never sends a newline made the reader hold
    everything (1.5 GB in 100 s, quadratic CPU). A line is cut at MAX_LINE characters (the
    prompt then refuses it) and the rest dropped up to its newline; the next line is read."""
    from kiekai.ui.kiek_terminal import MAX_LINE

    read_fd, write_fd = os.pipe()
    written = threading.Event()

    def write():
        with os.fdopen(write_fd, "wb") as pipe:
            for _ in range(200):  # 12.8 MB of NUL bytes, no newline
                pipe.write(b"\x00" * 65536)
            pipe.write(b"\nhello\n")
        written.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with os.fdopen(read_fd, "r") as stream:
        reader = LineReader(stream)
        first = reader.readline(timeout=30)
        assert first == "\x00" * MAX_LINE
        assert reader.readline(timeout=30) == "hello"
        assert len(reader._buffer) <= MAX_LINE + 4096
        writer.join(timeout=30)
        with pytest.raises(EOFError):
            reader.readline(timeout=5)
    assert written.is_set()


def test_a_long_line_from_a_stream_without_descriptor_is_cut_too():
    from kiekai.ui.kiek_terminal import MAX_LINE

    reader = LineReader(io.StringIO("x" * (3 * MAX_LINE) + "\n4 5\n"))
    assert reader.readline() == "x" * MAX_LINE
    assert reader.readline() == "4 5"


def test_a_word_is_ruled_once_and_a_repeat_verdict_can_be_overruled_after_a_call(pty):
    """Two bots guess the same word: the terminal shows it once and asks in plain words;
    the person's ruling holds for both (one overrule event). A card number not in the hand
    is refused by name. After a bot calls ne bis in idem, the judge's repeat verdicts are
    shown and the person overrules two of them, naming the used word for the new one."""
    cards = make_cards(30)
    players = [
        person(pty, cards),
        ScriptedPlayer("Bot 1", ["dog"], guesses=["puppy"]),
        ScriptedPlayer("Bot 2", ["cat"], guesses=["puppy", "sea", "sky"], calls=True),
    ]
    thread, result = run_game(pty, players, cards, time_limit=60)
    pty.wait_for(r"left Which 2 cards")
    pty.type("4 9\r")
    pty.wait_for(r"9 is not in your hand\. Please type 2 different numbers out of 4, 5, 6 and 7")
    pty.type("4 5\r")
    pty.wait_for(r"left Which 3 of the five")
    pty.type("1 2 3\r")
    pty.wait_for(r"left Your word")
    pty.type("dog\r")
    screen = pty.wait_for(r"Enter: continue, 1: overrule")
    assert (
        "1. 'puppy' (Bot 1 and Bot 2): no match" in screen
        and "2. " not in screen.split("verdicts on")[-1]
    )
    pty.type("1\r")
    pty.wait_for(r"Keep which card")
    pty.type("1\r")
    pty.wait_for(r"left Your guess")
    pty.type("grass\r")
    # one question for the reveal: no separate "call ne bis in idem?" after it
    pty.wait_for(r"Enter: continue, 1-2: overrule, r: ne bis in idem")
    pty.type("\r")
    screen = pty.wait_for(
        r"Ne bis in idem! called by Bot 2\. The judge's verdicts.*\n(.*\n)*.*Enter: continue, 1-3: overrule"
    )
    block = " ".join(screen.split("called by Bot 2.")[-1].split())
    assert "1. 'dog' (Bot 1): repeats 'dog'" in block and "3. 'grass' (you): no repeat" in block
    pty.type("1 3\r")
    pty.wait_for(r"Which used word does 'grass' repeat\? Type its number \(1 to 2\) or the word")
    pty.type("3\r")
    pty.wait_for(
        r"'3' is not one of the 2 used words: type a number from 1 to 2, or one of the words shown\."
    )
    pty.type("Puppy\r")  # the word itself, in any case
    threading.Thread(target=answer_untimed, args=(pty, thread), daemon=True).start()

    words = ["moon", "tree", "rock", "leaf", "wave"]
    threading.Thread(target=answer_guesses, args=(pty, thread, words, 1), daemon=True).start()
    thread.join(timeout=90)
    assert not thread.is_alive() and "error" not in result, result.get("error")
    events = result["outcome"].events
    overrules = [e for e in events if e.type == "overrule"]
    assert len(overrules) == 1 and overrules[0].data["guessers"] == [1, 2]
    rulings = [
        (e.data["word"], e.data["repeats"], e.data["used"])
        for e in events
        if e.type == "overrule-repeat"
    ]
    assert rulings == [("dog", False, "dog"), ("grass", True, "puppy")]
    call = next(e for e in events if e.type == "call" and e.turn == 1)
    assert call.data["repeats"] == {"0": "puppy"} and call.data["ruled"] == {"1": False, "0": True}
    text = " ".join(pty.text().split())
    assert "Overruled by You: your 'grass' repeats 'puppy' at this table" in text


def test_a_ruling_typed_at_the_terminal_is_applied_by_the_next_game(tmp_path):
    """Issue 10 item 4 at the terminal: the person overrules the judge's 'no match' on the
    word both bots guessed ('puppy' for 'dog', a narrower kind at standard) by typing its
    number once; the ruling is saved to the house-rules file, and the next game, with a
    judge reading that file, rules 'puppy' a match by itself, saying it is a house rule."""
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules

    path = tmp_path / "house-rules.tsv"
    outcomes = []
    for game, overrule in enumerate(("1", "")):
        terminal = Pty()
        try:
            cards = make_cards(30)
            rules = HouseRules.load(path, missing_ok=True)
            players = [
                person(terminal, cards),
                ScriptedPlayer("Bot 1", ["cat"], guesses=["puppy", "moon"]),
                ScriptedPlayer("Bot 2", ["sea"], guesses=["puppy", "tree"]),
            ]
            thread, result = run_game(
                terminal, players, cards, judge=Judge("standard", house_rules=rules),
                time_limit=60, house_rules=rules,
            )  # fmt: skip
            terminal.wait_for(r"left Which 2 cards", timeout=30)
            terminal.type("4 5\r")
            terminal.wait_for(r"left Which 3 of the five")
            terminal.type("1 2 3\r")
            terminal.wait_for(r"left Your word")
            terminal.type("dog\r")
            screen = terminal.wait_for(r"Enter: continue, 1: overrule", timeout=30)
            block = " ".join(screen.split("verdicts on your word 'dog':")[-1].split())
            assert "1. 'puppy' (Bot 1 and Bot 2):" in block
            if game == 0:
                assert "1. 'puppy' (Bot 1 and Bot 2): no match" in block
            else:
                assert (
                    "1. 'puppy' (Bot 1 and Bot 2): match" in block and "house rule" in block.lower()
                )
            terminal.type(overrule + "\r")

            words = ["grass", "stone", "leaf", "wave"]
            threading.Thread(
                target=answer_guesses, args=(terminal, thread, words), daemon=True
            ).start()
            answer_untimed(terminal, thread)
            thread.join(timeout=30)
            assert "error" not in result, result.get("error")
            outcomes.append(result["outcome"])
        finally:
            terminal.close()
    first, second = outcomes
    overrule = next(e for e in first.events if e.type == "overrule")
    assert (
        overrule.data["guess"] == "puppy"
        and overrule.data["guessers"] == [1, 2]
        and overrule.data["accepted"]
    )
    assert path.read_text(encoding="utf-8").count("dog\tpuppy\tyes\tstandard") == 1
    assert not [e for e in second.events if e.type == "overrule"]
    verdicts = [e for e in second.events if e.type == "verdict" and e.turn == 0]
    assert [(e.player, e.data["relation"], e.data["scored"]) for e in verdicts] == [
        (1, "house-rule", 1),
        (2, "house-rule", 1),
    ]


# ---------------------------------------------------------------- issue 21: fewer questions


def scripted_person(answers: str, card_names=None):
    """A TerminalKiekPlayer reading ``answers`` (lines) from a stream, writing to a string."""
    from kiek_helpers import TableJudge

    screen = io.StringIO()
    console = Console(file=screen, width=160, color_system=None, force_terminal=False)
    me = TerminalKiekPlayer(
        "You", judge=TableJudge(), console=console, reader=LineReader(io.StringIO(answers)),
        names=["You", "Bot 1", "Bot 2"], card_names=card_names or {},
    )  # fmt: skip
    return me, screen


def reveal_view(used=("sun",)):
    from kiekai.judge.verdict import Verdict
    from kiekai.kiek.players import RevealView, WordVerdict

    long = (
        "Rejected at standard level: everyday lexicon v3: a 'puppy' is a kind of 'dog'; "
        "standard leaves broader and narrower kinds to lenient tables."
    )
    guesses = (
        WordVerdict("puppy", (1,), Verdict(False, 0.2, "hyponym", long)),
        WordVerdict("hound", (2,), Verdict(True, 0.9, "synonym", "Accepted at standard level: x.")),
    )
    return RevealView(
        seat=0, turn=1, words={0: "dog", 1: "puppy", 2: "hound"}, active_seat=0,
        used_words=tuple(used), guesses=guesses,
    )  # fmt: skip


def test_the_reveal_asks_one_short_question_for_overrule_and_ne_bis_in_idem():
    """Issue 21: every turn asked "Overrule a verdict?" and then "Call ne bis in idem?
    [y/N]". Now one prompt takes both ("1 r": overrule verdict 1 and call), call_repeat
    then asks nothing, and the reasons are their gist on one short line."""
    me, screen = scripted_person("1 r\n")
    view = reveal_view()
    assert me.overrule(view) == {"puppy": True}
    assert me.call_repeat(view) is True
    text = screen.getvalue()
    assert text.count("Enter: continue, 1-2: overrule, r: ne bis in idem") == 1
    assert "[y/N]" not in text and "Overrule a verdict?" not in text
    assert "no match a 'puppy' is a kind of 'dog'" in " ".join(text.split())
    assert "standard leaves" not in text and "lexicon v3" not in text
    assert max(len(line) for line in text.splitlines()) < 110


def test_enter_at_the_reveal_continues_without_a_second_question():
    me, screen = scripted_person("\n")
    view = reveal_view()
    assert me.overrule(view) == {} and me.call_repeat(view) is False
    assert screen.getvalue().count("Enter: continue") == 1


def test_before_any_word_is_used_the_reveal_does_not_offer_the_call():
    me, screen = scripted_person("r\n2\n")
    view = reveal_view(used=())
    assert me.overrule(view) == {"hound": False}  # "r" refused: nothing can repeat yet
    assert me.call_repeat(view) is False
    text = screen.getvalue()
    assert "r: ne bis in idem" not in text and "Please type numbers out of 1 and 2" in text


def test_without_guesses_the_call_is_one_short_question():
    from dataclasses import replace

    me, screen = scripted_person("r\n")
    view = replace(reveal_view(), guesses=())
    assert me.overrule(view) == {}
    assert me.call_repeat(view) is True
    assert "Enter: continue, r: ne bis in idem" in screen.getvalue()


def test_each_card_shows_one_number():
    """Issue 21: a card without a label read "1. photo 303" (its list number and the
    neutral name's number). The list number is now the only number."""
    cards = make_cards(5)
    cards = [replace_label(c, None) for c in cards]
    names = card_names(cards)
    assert names[cards[2].id] == "photo 3"
    me, screen = scripted_person("", card_names=names)
    me._show_cards(cards, 0, "turn", groups=[("your hand", 1, 5)])
    lines = [line.strip() for line in screen.getvalue().splitlines() if line.strip()[:1].isdigit()]
    assert lines == [f"{n}. unnamed photo" for n in range(1, 6)]


def replace_label(card, label):
    from dataclasses import replace

    return replace(card, label=label)


def test_play_again_is_offered_and_no_is_the_default():
    me, screen = scripted_person("maybe\ny\n")
    assert me.play_again() is True
    assert "Please type y to play again" in screen.getvalue()
    me, _ = scripted_person("\n")
    assert me.play_again() is False
    me, _ = scripted_person("")  # end of input
    assert me.play_again() is False


def test_short_reason_keeps_the_gist():
    from kiekai.ui.kiek_terminal import short_reason

    assert (
        short_reason(
            "Repeat at standard level: 'dogs' repeats the used category 'dog': 'dogs' and 'dog' "
            "are forms of the same word 'dog'."
        )
        == "'dogs' and 'dog' are forms of the same word 'dog'"
    )
    cut = short_reason("Rejected at strict level: " + "word " * 40, width=30)
    assert len(cut) <= 30 and cut.endswith("…") and "wor…" not in cut


def test_play_again_logs_each_game_to_its_own_file(tmp_path):
    from kiekai.commands.play import _numbered_log, _play_again

    log = tmp_path / "g.jsonl"
    assert _numbered_log(log, 2) == tmp_path / "g-game2.jsonl"
    (tmp_path / "g-game2.jsonl").write_text("x")
    assert _numbered_log(log, 2) == tmp_path / "g-game2-2.jsonl"
    me, _ = scripted_person("y\n")  # piped answers: one game, the question is not asked
    assert _play_again([me]) is False
