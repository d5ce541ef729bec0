"""``kiekai replay`` and :func:`kiekai.events.read_log` on logs that are damaged, hostile or
not logs at all (issue 11, points 4 and 5): every line checked, a bad line reported with its
number and left out, no traceback, only regular files read, nothing from the log driving the
terminal."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from log_corruptions import corruptions, game_log_lines
from rich.console import Console
from typer.testing import CliRunner

from kiekai.cli import app
from kiekai.events import (
    EVENT_DATA,
    MAX_DEPTH,
    MAX_SEATS,
    Event,
    EventData,
    EventLog,
    LogProblem,
    check_event,
    event_data,
    read_log,
)
from kiekai.files import FileRefusedError
from kiekai.kiek.engine import MAX_PLAYERS
from kiekai.kiek.game import EventPrinter, replay

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()

#: Fields the log format lets be null (they are optional): a null there is no problem.
OPTIONAL = {
    "play-stake-null", "reveal-secret-null", "score-stake-null", "score-note-null",
    "game-over-turns_played-null", "turn-hand_size-null",
}  # fmt: skip
#: Characters that must never reach the terminal from a log or a deck: ESC (every escape
#: sequence starts with it), CSI, BEL, the bidi overrides and isolates, line separators.
FORBIDDEN = "\x1b\x9b\x07\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"


@pytest.fixture(scope="module")
def clean_lines(tmp_path_factory) -> list[str]:
    return game_log_lines(tmp_path_factory.mktemp("log"))


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=120, color_system=None), buffer


def test_the_corruption_generator_covers_the_issue(clean_lines):
    names = {name for name, _, _ in corruptions(clean_lines)}
    assert len(names) >= 52
    for needed in ("turn-null", "turn-list", "data-list", "data-string", "players-string",
                   "nested-100k", "play-three-null", "reveal-words-null", "discard-table-null",
                   "score-totals-null", "game-over-ranking-null"):  # fmt: skip
        assert needed in names


def test_every_corrupted_log_is_replayed_or_refused_without_a_traceback(clean_lines, tmp_path):
    """Each of the ~80 variants through the real command: exit status 0 (every line printed),
    1 (bad lines left out, each named by its number) or 2 (not a Kiek game log), never an
    exception; and the first bad line is the one the generator damaged."""
    for name, content, bad_line in corruptions(clean_lines):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(content)
        result = runner.invoke(app, ["replay", str(path)])
        where = f"variant {name}: {result.output[-600:]}"
        assert result.exception is None or isinstance(result.exception, SystemExit), where
        assert "Traceback" not in result.output, where
        if bad_line is None or name in OPTIONAL:
            assert result.exit_code == 0, where
            assert "left out" not in result.output or name == "cut-mid-line", where
        elif bad_line == 1:
            assert result.exit_code == 2, where
            assert "not a Kiek game log" in result.output, where
        else:
            assert result.exit_code == 1, where
            assert f"line {bad_line}: " in result.output, where
            assert "left out" in result.output, where
            assert "Kiek ·" in result.output  # the header and the rest were printed


def test_a_bad_line_is_left_out_and_the_rest_printed(clean_lines, tmp_path):
    lines = list(clean_lines)
    play = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "play")
    record = json.loads(lines[play])
    record["turn"] = None
    lines[play] = json.dumps(record)
    path = tmp_path / "one-bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems: list[LogProblem] = []
    out, buffer = _console()
    result = replay(path, out, on_problem=problems.append)
    assert [p.line for p in problems] == [play + 1]
    assert "'turn' should be a valid integer (got null)" in problems[0].message
    assert result.problems == 1 and result.events == len(lines) - 1 and result.finished
    assert "Final scores" in buffer.getvalue()


def test_replay_stops_cleanly_after_many_bad_lines(clean_lines, tmp_path):
    path = tmp_path / "junk.jsonl"
    path.write_text(clean_lines[0] + "\n" + "junk\n" * 500, encoding="utf-8")
    seen: list[LogProblem] = []
    with pytest.raises(ValueError, match="stopped after 51 lines that are not valid events"):
        replay(path, _console()[0], on_problem=seen.append)
    assert len(seen) == 51


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(junk=st.lists(st.text(max_size=200), min_size=1, max_size=3), at=st.integers(1, 40))
def test_arbitrary_lines_in_a_log_never_crash_the_replay(clean_lines, tmp_path, junk, at):
    """Any text inserted as lines after the header: each is an event or a reported problem;
    nothing raises but a stop after too many problems, and no control character is printed."""
    pieces = [line for text in junk for line in text.splitlines() or [text]]
    lines = [*clean_lines[:at], *pieces, *clean_lines[at:]]
    path = tmp_path / "fuzz.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    out, buffer = _console()
    problems: list[LogProblem] = []
    result = replay(path, out, on_problem=problems.append)
    assert result.events + result.problems <= len([x for x in lines if x.strip()])
    assert all(p.line > 1 for p in problems)
    assert not any(c in buffer.getvalue() for c in FORBIDDEN)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _field_names() -> list[str]:
    names = {"for"}
    for model in EVENT_DATA["kiek"].values():
        names |= set(model.model_fields)
    return sorted(names)


@settings(max_examples=400, deadline=None)
@given(
    event_type=st.sampled_from(sorted(EVENT_DATA["kiek"])),
    data=st.dictionaries(st.sampled_from(_field_names()), json_values, max_size=8),
    turn=st.integers(-1, 50),
    player=st.none() | st.integers(0, 9),
)
def test_whatever_passes_the_check_the_printer_prints(event_type, data, turn, player):
    """The event models are the printer's contract: any data they accept prints without an
    error (no IndexError on a short score list, no TypeError on a null)."""
    try:
        event = check_event(Event(event_type, turn, player, data), "kiek")
    except ValueError:
        return
    out, buffer = _console()
    printer = EventPrinter(out)
    printer.names = ["A", "B", "C"]
    printer(event)
    assert not any(c in buffer.getvalue() for c in FORBIDDEN)


def test_every_event_of_a_real_game_passes_its_model(clean_lines):
    """The models describe what the engine writes: a whole game's events all pass, unchanged
    but for defaults."""
    for line in clean_lines:
        event = Event.from_json(line)
        checked = check_event(event, "kiek")
        assert {k: v for k, v in checked.data.items() if k in event.data} == dict(event.data)


def test_max_seats_is_the_rulebook_player_count():
    assert MAX_SEATS == MAX_PLAYERS == 8


def test_adding_an_event_type_is_one_registration(tmp_path, clean_lines, monkeypatch):
    monkeypatch.setitem(EVENT_DATA, "kiek", dict(EVENT_DATA["kiek"]))
    line = json.dumps({"type": "seat-joined", "turn": 0, "player": 1, "data": {"browser": True}})
    path = tmp_path / "new.jsonl"
    path.write_text("\n".join([clean_lines[0], line]) + "\n", encoding="utf-8")
    problems: list[LogProblem] = []
    list(read_log(path, game="kiek", on_problem=problems.append))
    assert [p.message for p in problems] == ["unknown kiek event type 'seat-joined'"]

    @event_data("kiek", "seat-joined")
    class SeatJoined(EventData):
        browser: bool

    events = list(read_log(path, game="kiek", on_problem=problems.append))
    assert events[-1].type == "seat-joined" and events[-1].data == {"browser": True}
    with pytest.raises(ValueError, match="already has a data model"):
        event_data("kiek", "seat-joined")(type("Other", (EventData,), {}))


def test_deep_nesting_is_refused_without_recursion():
    for depth in (MAX_DEPTH + 1, 100_000):
        line = '{"type": "x", "data": {"a": ' + "[" * depth + "]" * depth + "}}"
        with pytest.raises(ValueError, match="nested deeper"):
            Event.from_json(line)
    assert Event.from_json('{"type": "x", "data": {"a": [[[1]]]}}').data == {"a": [[[1]]]}


def test_read_log_without_on_problem_raises_naming_the_line(tmp_path, clean_lines):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        "\n".join([clean_lines[0], '{"type": "x", "turn": null}', clean_lines[1]]) + "\n"
    )
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 2: 'turn' should be a valid integer"):
        list(read_log(path))
    # a last line cut short (a crash mid-write) is left out quietly
    path.write_text("\n".join(clean_lines[:2]) + "\n" + clean_lines[2][:15])
    assert [e.type for e in read_log(path)] == ["header", "setup"]


# ------------------------------------------------------------------ not regular files


def _replay_in_thread(path: Path) -> dict:
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["events"] = list(read_log(path))
        except Exception as exc:  # noqa: BLE001 - the test inspects what was raised
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10)
    outcome["finished"] = not thread.is_alive()
    return outcome


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_a_named_pipe_is_refused_at_once_not_waited_on(tmp_path):
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    outcome = _replay_in_thread(fifo)
    assert outcome["finished"], "read_log blocked on a named pipe"
    assert isinstance(outcome["error"], FileRefusedError)
    assert "not a regular file (a named pipe)" in str(outcome["error"])


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_dev_zero_and_a_link_to_it_are_refused_without_reading(tmp_path):
    link = tmp_path / "zero.jsonl"
    link.symlink_to("/dev/zero")
    for path in (Path("/dev/zero"), link):
        outcome = _replay_in_thread(path)
        assert outcome["finished"]
        assert "not a regular file (a character device)" in str(outcome["error"])


def test_size_and_line_bounds(tmp_path, clean_lines):
    path = tmp_path / "long.jsonl"
    long_line = json.dumps({"type": "turn", "data": {"x": "y" * 5000}})
    path.write_text("\n".join([clean_lines[2], long_line, clean_lines[2]]) + "\n")
    problems: list[LogProblem] = []
    events = list(read_log(path, on_problem=problems.append, max_line_bytes=1000))
    assert [e.type for e in events] == ["turn", "turn"]
    assert [(p.line, p.message) for p in problems] == [(2, "longer than 1,000 bytes")]
    with pytest.raises(FileRefusedError, match="too large"):
        list(read_log(path, max_bytes=100))


def _kiekai(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm-256color", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "kiekai", *args],
        capture_output=True, cwd=REPO, env=env, timeout=timeout,
    )  # fmt: skip


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_replay_command_refuses_pipes_devices_and_folders_with_status_2(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for path, kind in [(fifo, "a named pipe"), (Path("/dev/zero"), "a character device"),
                       (tmp_path, "a folder")]:  # fmt: skip
        done = _kiekai("replay", str(path), timeout=60)
        err = done.stderr.decode()
        assert done.returncode == 2, err
        assert f"not a regular file ({kind})" in err and "Traceback" not in err


# ------------------------------------------------------------------ hostile text in a log


HOSTILE = "\x1b[31mjay\x1b[0m\n\u202eevil\u2028[bold]x[/bold]\x07"


def _hostile_log(clean_lines: list[str], tmp_path: Path) -> Path:
    lines = []
    for line in clean_lines:
        record = json.loads(line)
        data = record["data"]
        if record["type"] == "header":
            for player in data["players"]:
                player["name"] = f"{HOSTILE}{player['seat']}"
            data["deck"] = HOSTILE
            data["card_names"] = {card: HOSTILE for card in data.get("card_names", {})}
        elif record["type"] == "setup":
            data["labels"] = {card: HOSTILE for card in data["labels"]}
        elif record["type"] == "reveal":
            data["words"] = [HOSTILE for _ in data["words"]]
        elif record["type"] == "verdict":
            data.update(guess=HOSTILE, secret=HOSTILE, reason=HOSTILE, relation=HOSTILE)
        elif record["type"] == "play":
            data["three"] = [f"{HOSTILE}.jpg" for _ in data["three"]]
        elif record["type"] == "game-over":
            data["reason"] = HOSTILE
        lines.append(json.dumps(record, ensure_ascii=False))
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_hostile_names_words_and_labels_in_a_log_never_reach_the_terminal(clean_lines, tmp_path):
    """Through the real command in a real process: escape sequences, bidi overrides, newlines
    and Rich markup from the log are printed as visible escapes, not obeyed."""
    done = _kiekai("replay", str(_hostile_log(clean_lines, tmp_path)))
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    # the words read aloud are not the guesses, the cards not the ones played: exit 1, and
    # the report of the first such line is as safe as the rest
    assert done.returncode == 1, err
    assert "(the rules contradict the log)" in err
    assert not any(c in out + err for c in FORBIDDEN)
    assert "\\x1b[31mjay\\x1b[0m\\n\\u202eevil\\u2028[bold]x[/bold]\\x07" in out
    assert "Final scores" in out


def test_a_lone_surrogate_in_a_log_is_shown_not_a_crash(clean_lines, tmp_path):
    name, content, _ = next(v for v in corruptions(clean_lines) if v[0] == "lone-surrogate")
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(content)
    done = _kiekai("replay", str(path))
    assert done.returncode == 0, done.stderr.decode()
    assert "\\ud800" in done.stdout.decode("utf-8")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(st.one_of(st.characters(), st.characters(categories=["Cs"])), max_size=30))
def test_any_text_in_an_event_is_logged_and_read_back(text, tmp_path):
    """The log writer never fails on text: a lone surrogate (a deck file name that is not
    UTF-8, ``café.jpg`` in Latin-1) is written as a JSON escape and reads back the same."""
    path = tmp_path / f"log-{abs(hash(text))}.jsonl"
    event = Event("reveal", turn=0, player=1, data={"words": [text, "dog"], "secret": text})
    with EventLog(path) as log:
        log.append(event)
    path.read_bytes().decode("utf-8")  # the file is UTF-8
    assert list(read_log(path)) == [event]
    path.unlink()


def test_a_log_path_that_is_a_pipe_device_or_folder_is_refused_at_once(tmp_path):
    """Opening a named pipe to append blocks until someone reads it (``kiekai kismet --log
    FIFO`` hung); the log opens without blocking and refuses what is not a regular file."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for path, kind in (
        (fifo, "a named pipe"),
        (Path("/dev/null"), "a character device"),
        (tmp_path, "a folder"),
    ):
        box: dict = {}

        def open_log(path=path, box=box):
            try:
                EventLog(path).close()
            except FileRefusedError as exc:
                box["error"] = exc

        thread = threading.Thread(target=open_log, daemon=True)
        thread.start()
        thread.join(timeout=10)
        assert not thread.is_alive(), f"opening {path} as a log blocked"
        assert box["error"].reason == f"not a regular file ({kind})"
    with EventLog(tmp_path / "new" / "game.jsonl") as log:  # a new file in a new folder
        log.append(Event("header", data={"game": "kiek"}))
    assert (tmp_path / "new" / "game.jsonl").read_text(encoding="utf-8").count("\n") == 1
