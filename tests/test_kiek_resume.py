"""``kiekai play --resume LOG`` (issue 21, point 3): a Kiek game stopped with Ctrl-C is
continued from its log and ends as the same seed played through does: with real bots on the
labels perception of a small deck through the command line, and with a scripted person's
rulings through the runner (kiekai/kiek/resume.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kiek_helpers import ScriptedPlayer, TableJudge, make_cards
from typer.testing import CliRunner

from kiekai.cli import app
from kiekai.clock import VirtualClock
from kiekai.eval import golden
from kiekai.events import EventLog
from kiekai.kiek.game import GameAborted, play_game
from kiekai.kiek.printer import EventPrinter
from kiekai.kiek.resume import (
    ResumeCheck,
    ResumedSeat,
    ResumeError,
    ResumeMismatch,
    read_stopped_game,
)
from kiekai.kiek.settings import GameSettings

runner = CliRunner()


def _game(path: Path) -> list[tuple]:
    """The events of a log after its header, as (type, turn, player, data)."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert records[0]["type"] == "header"
    return [(r["type"], r["turn"], r["player"], r["data"]) for r in records[1:]]


# ------------------------------------------------------------------ real bots, the command


@pytest.fixture(scope="module")
def table(shared_dir: Path, tmp_path_factory) -> tuple[Path, list[str]]:
    """A small labelled deck (the golden logs' 30 photos) and the options of a bots-only
    game of 2 rounds on it (without --log)."""
    work = tmp_path_factory.mktemp("resume")
    deck = golden.make_deck(work / "deck", "labels", shared_dir / "decks" / "imagenet-dev")
    rules = work / "house-rules.tsv"
    rules.touch()
    args = ["play", "--bots", "4", "--humans", "0", "--seed", "11", "--rounds", "2"]
    args += ["--perception", "labels", "--deck", str(deck), "--house-rules", str(rules)]
    return work, args


@pytest.fixture(scope="module")
def played_through(table) -> Path:
    work, args = table
    log = work / "through.jsonl"
    result = runner.invoke(app, [*args, "--log", str(log)])
    assert result.exit_code == 0, result.output[-2000:]
    return log


def _stop_at(monkeypatch, event_type: str, nth: int) -> None:
    """Ctrl-C while the printer shows the ``nth`` event of ``event_type`` (the log has it)."""
    seen = {"n": 0}
    show = EventPrinter.__call__

    def interrupted(self, event):
        show(self, event)
        if event.type == event_type:
            seen["n"] += 1
            if seen["n"] == nth:
                raise KeyboardInterrupt

    monkeypatch.setattr(EventPrinter, "__call__", interrupted)


@pytest.mark.parametrize(
    "event_type, nth",
    [("guess", 9), ("keep", 4), ("score", 5), ("play", 1)],
    ids=["mid-guessing", "mid-keeping", "just-scored", "first-play"],
)
def test_a_bot_game_stopped_with_ctrl_c_and_resumed_ends_as_played_through(
    table, played_through, monkeypatch, event_type, nth
):
    work, args = table
    stopped = work / f"stopped-{event_type}-{nth}.jsonl"
    with monkeypatch.context() as patch:
        _stop_at(patch, event_type, nth)
        result = runner.invoke(app, [*args, "--log", str(stopped)])
    assert result.exit_code == 130, result.output[-2000:]
    assert f"kiekai play --resume {stopped}" in result.output
    assert '"aborted"' in stopped.read_text().splitlines()[-1]
    assert len(_game(stopped)) < len(_game(played_through))

    resumed = work / f"resumed-{event_type}-{nth}.jsonl"
    result = runner.invoke(app, ["play", "--resume", str(stopped), "--log", str(resumed)])
    assert result.exit_code == 0, result.output[-2000:]
    assert "Resuming" in result.output and "Final scores" in result.output
    assert _game(resumed) == _game(played_through)
    header = json.loads(resumed.read_text().splitlines()[0])["data"]
    assert header["resumed_from"] == str(stopped)
    assert runner.invoke(app, ["replay", str(resumed)]).exit_code == 0


def test_resume_refuses_a_finished_game_options_and_a_changed_deck(table, played_through):
    work, args = table
    over = runner.invoke(app, ["play", "--resume", str(played_through)])
    assert over.exit_code == 2 and "that game is over; nothing to resume" in over.output
    lines = played_through.read_text().splitlines()
    stopped = work / "cut.jsonl"
    stopped.write_text("\n".join(lines[:20]) + "\n")
    both = runner.invoke(app, ["play", "--resume", str(stopped), "--seed", "3", "--bots", "5"])
    assert both.exit_code == 2 and "leave out --bots, --seed" in both.output
    header = json.loads(lines[0])
    header["data"]["deck"] = str(work / "no-such-deck")
    moved = work / "moved.jsonl"
    moved.write_text("\n".join([json.dumps(header), *lines[1:20]]) + "\n")
    gone = runner.invoke(app, ["play", "--resume", str(moved), "--log", str(work / "x.jsonl")])
    assert gone.exit_code == 2 and "no-such-deck" in gone.output
    records = [json.loads(line) for line in lines[:20]]
    score = next(i for i, r in enumerate(records) if r["type"] == "score")
    records[score]["data"]["totals"][0] += 7
    forged = work / "forged.jsonl"
    forged.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    refused = runner.invoke(app, ["play", "--resume", str(forged)])
    assert refused.exit_code == 2 and "the rules contradict the log" in refused.output


# ------------------------------------------------------------------ a person's rulings


class _Person(ScriptedPlayer):
    """A scripted person whose answers depend on the turn, not on how often it was asked
    (a person is not asked again for the turns a resumed game takes from the log)."""

    def play_turn(self, view):
        self._w = view.turn
        return super().play_turn(view)

    def guess(self, view):
        self._g = view.turn
        return super().guess(view)


def _seats() -> list:
    person = _Person("Ann", ["dog", "sea", "red"], human=True)
    person.rulings = {"hound": False, "sky": True}
    person.repeat_rulings = {"dogs": None}
    return [
        person,
        ScriptedPlayer("Bot 1", ["dogs", "hound", "sky"], calls=True),
        ScriptedPlayer("Bot 2", ["red", "crimson", "dog"], guesses=["red", "", "dog"]),
        ScriptedPlayer("Bot 3", ["sea", "dogs"], calls=True),
    ]


def _play(path: Path, players, on_event=None) -> None:
    with EventLog(path) as log:
        play_game(
            players,
            make_cards(40),
            judge=TableJudge(),
            settings=GameSettings(seed=3, rounds=4),
            clock=VirtualClock(),
            log=log,
            on_event=on_event,
        )


@pytest.mark.parametrize("stop_at", [30, 61, 95, 130])
def test_a_game_with_a_persons_rulings_resumes_to_the_same_game(tmp_path, stop_at):
    through = tmp_path / "through.jsonl"
    _play(through, _seats())
    kinds = {e[0] for e in _game(through)}
    assert {"overrule", "overrule-repeat", "call", "time-up"} <= kinds

    count = {"n": 0}

    def ctrl_c(event):
        count["n"] += 1
        if count["n"] == stop_at:
            raise KeyboardInterrupt

    stopped_log = tmp_path / "stopped.jsonl"
    with pytest.raises(GameAborted):
        _play(stopped_log, _seats(), ctrl_c)
    stopped = read_stopped_game(stopped_log)
    seats = [ResumedSeat(p, i, stopped) for i, p in enumerate(_seats())]
    resumed = tmp_path / "resumed.jsonl"
    _play(resumed, seats, ResumeCheck(stopped))
    assert _game(resumed) == _game(through)


def test_a_resumed_game_that_is_not_the_logs_stops_at_the_first_difference(tmp_path):
    count = {"n": 0}

    def ctrl_c(event):
        count["n"] += 1
        if count["n"] == 80:
            raise KeyboardInterrupt

    stopped_log = tmp_path / "stopped.jsonl"
    with pytest.raises(GameAborted):
        _play(stopped_log, _seats(), ctrl_c)
    stopped = read_stopped_game(stopped_log)
    other = _seats()
    other[2] = ScriptedPlayer("Bot 2", ["blue"])  # another bot than the log's
    seats = [ResumedSeat(p, i, stopped) for i, p in enumerate(other)]
    with EventLog(tmp_path / "other.jsonl") as log, pytest.raises(ResumeMismatch):
        play_game(
            seats,
            make_cards(41),  # and another deck
            judge=TableJudge(),
            settings=GameSettings(seed=3, rounds=4),
            clock=VirtualClock(),
            log=log,
            on_event=ResumeCheck(stopped),
        )
    with pytest.raises(ResumeError, match="not a Kiek game log"):
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"type": "setup", "data": {"game": "base"}}\n')
        read_stopped_game(bad)
