"""``kiekai replay`` checks the game, not only the format (issue 21, point 3): the game is
played again through the engine from the log's seed and actions, with the verdicts as the
log records them, and the first line that contradicts the rules or the log's own arithmetic
is reported with its number, exit status 1. Every real log (the golden logs, games with
rulings, calls, time-ups, a stopped game) replays with exit status 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kiek_helpers import ScriptedPlayer, TableJudge, make_cards
from log_corruptions import game_log_lines
from rich.console import Console
from typer.testing import CliRunner

from kiekai.cli import app
from kiekai.clock import VirtualClock
from kiekai.events import EventLog, check_event, read_numbered_log
from kiekai.kiek.audit import audit_kiek
from kiekai.kiek.game import play_game, replay
from kiekai.kiek.players import TimeUp
from kiekai.kiek.settings import GameSettings
from kiekai.kismet.audit import audit_kismet

GOLDEN = Path(__file__).parent / "golden"
runner = CliRunner()


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> list[str]:
    return game_log_lines(tmp_path_factory.mktemp("log"))


def _records(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines]


def _write(tmp_path: Path, name: str, records: list[dict] | list[str]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _replay(path: Path):
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def _index(records: list[dict], event_type: str, nth: int = 0) -> int:
    return [i for i, r in enumerate(records) if r["type"] == event_type][nth]


def _refused(tmp_path: Path, name: str, records: list[dict], line: int, *words: str) -> str:
    result = _replay(_write(tmp_path, name, records))
    assert result.exit_code == 1, result.output[-1500:]
    assert f"line {line}: " in result.output and "the rules contradict the log" in result.output
    for word in words:
        assert word in result.output, result.output[-1500:]
    return result.output


def test_the_clean_log_replays_with_status_0(clean, tmp_path):
    result = _replay(_write(tmp_path, "clean", clean))
    assert result.exit_code == 0, result.output[-1500:]
    assert "contradict" not in result.output


def test_a_thousand_points_at_stake_1_is_refused(clean, tmp_path):
    records = _records(clean)
    score = _index(records, "score")
    assert records[score]["data"]["stake"] == 1
    scorer = records[score]["player"]
    records[score]["data"]["points"][scorer] += 1000
    records[score]["data"]["totals"][scorer] += 1000
    _refused(tmp_path, "thousand", records, score + 1, "'points' is", "but the rules give")


def test_a_winner_with_0_points_ranked_above_999_is_refused(clean, tmp_path):
    records = _records(clean)
    over = _index(records, "game-over")
    data = records[over]["data"]
    loser = data["ranking"][-1]
    data["scores"] = [999 if s != loser else 0 for s in range(len(data["scores"]))]
    data["winner"], data["ranking"] = loser, [loser, *[s for s in data["ranking"] if s != loser]]
    _refused(tmp_path, "winner", records, over + 1, "game-over")


def test_the_log_arithmetic_alone_is_checked_too(clean, tmp_path):
    """Totals that do not add up, a ranking out of order: each is the line reported."""
    records = _records(clean)
    score = _index(records, "score", 1)
    records[score]["data"]["totals"] = [t + 5 for t in records[score]["data"]["totals"]]
    _refused(tmp_path, "totals", records, score + 1, "'totals' is")
    records = _records(clean)
    over = _index(records, "game-over")
    records[over]["data"]["ranking"] = list(reversed(records[over]["data"]["ranking"]))
    _refused(tmp_path, "ranking", records, over + 1, "'ranking' is")


def test_a_duplicated_game_is_refused_at_its_second_header(clean, tmp_path):
    _refused(
        tmp_path, "twice", _records(clean + clean), len(clean) + 1, "after the end of the game"
    )


def test_a_reversed_game_is_refused(clean, tmp_path):
    records = _records(clean)
    _refused(tmp_path, "reversed", [records[0], *reversed(records[1:])], 2, "before the deal")
    whole = _replay(_write(tmp_path, "all-reversed", list(reversed(clean))))
    assert whole.exit_code == 2 and "not a Kiek game log" in whole.output


def test_turns_out_of_order_and_a_wrong_seat_are_refused(clean, tmp_path):
    records = _records(clean)
    first, second = _index(records, "guess", 0), _index(records, "guess", 1)
    records[first], records[second] = records[second], records[first]
    records[first]["player"], records[second]["player"] = (
        records[second]["player"],
        records[first]["player"],
    )
    result = _replay(_write(tmp_path, "guessers", records))
    assert result.exit_code == 0  # guessers write at the same time: their order is free
    records = _records(clean)
    play = _index(records, "play", 1)
    records[play]["player"] = (records[play]["player"] + 1) % 3
    _refused(tmp_path, "wrong-seat", records, play + 1, "play")


@pytest.mark.parametrize(
    "name, change",
    [
        ("record-seat-10^12", lambda h: h.update(player=10**12)),
        ("time-limit-nan", lambda h: h["data"].update(time_limit=float("nan"))),
        ("time-limit-infinite", lambda h: h["data"].update(time_limit=float("inf"))),
        ("seats-out-of-order", lambda h: h["data"]["players"][0].update(seat=2)),
        ("seed-10^12", lambda h: h["data"].update(seed=10**12)),
    ],
)
def test_an_impossible_header_is_refused_at_line_1_or_2(clean, tmp_path, name, change):
    records = _records(clean)
    change(records[0])
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    result = _replay(path)
    assert result.exit_code == 1, result.output[-1500:]
    assert "line 1: " in result.output or "line 2: " in result.output, result.output[-800:]


def test_a_deal_that_the_seed_does_not_give_is_refused(clean, tmp_path):
    records = _records(clean)
    hands = records[1]["data"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # the same cards, dealt otherwise
    _refused(tmp_path, "deal", records, 2, "setup")
    records = _records(clean)
    records[1]["data"]["deck_size"] = 10**12
    _refused(tmp_path, "huge-deck", records, 2, "setup")


def test_a_card_not_in_the_hand_or_a_guess_from_the_active_player_is_refused(clean, tmp_path):
    records = _records(clean)
    play = _index(records, "play")
    table = records[_index(records, "turn")]["data"]["table"]  # face up: in no hand
    records[play]["data"]["played"][0] = table[0]
    _refused(tmp_path, "card", records, play + 1, "the rules refuse it")
    records = _records(clean)
    guess = _index(records, "guess")
    records[guess]["player"] = records[play]["player"]
    _refused(tmp_path, "self-guess", records, guess + 1, "guess")


def test_a_log_cut_short_or_stopped_is_no_contradiction(clean, tmp_path):
    keep = _index(_records(clean), "keep", 2)
    result = _replay(_write(tmp_path, "cut", clean[: keep + 1]))
    assert result.exit_code == 0 and "before the game did" in result.output


def test_a_line_left_out_stops_the_rule_check(clean, tmp_path):
    """Once a line is left out the game cannot be followed: the damaged line is reported,
    not the contradictions that would follow from its absence."""
    records = _records(clean)
    guess = _index(records, "guess")
    lines = [json.dumps(r) for r in records]
    lines[guess] = "not json"
    result = _replay(_write(tmp_path, "bad-line", lines))
    assert result.exit_code == 1 and f"line {guess + 1}: not JSON" in result.output
    assert "contradict" not in result.output


class _SlowToWrite(ScriptedPlayer):
    """A scripted person who runs out of time writing the word on its turns in ``late``."""

    def __init__(self, *args, late: set[int], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.late = late

    def play_turn(self, view):
        if view.turn in self.late:
            raise TimeUp()
        return super().play_turn(view)


def _rich_game(path: Path) -> None:
    """A game with a person's rulings on guesses and repeats, calls, a time-up, 5 rounds."""
    person = _SlowToWrite("Ann", ["dog", "sea", "red"], human=True, late={4})
    person.rulings = {"hound": False, "sky": True}
    person.repeat_rulings = {"dogs": None}
    seats = [
        person,
        ScriptedPlayer("Bot 1", ["dogs", "hound", "sky"], calls=True),
        ScriptedPlayer("Bot 2", ["red", "crimson", "dog"], guesses=["red", "", "dog"]),
        ScriptedPlayer("Bot 3", ["sea", "dogs"], calls=True),
    ]
    with EventLog(path) as log:
        play_game(
            seats,
            make_cards(40),
            judge=TableJudge(),
            settings=GameSettings(seed=3, rounds=5),
            clock=VirtualClock(),
            log=log,
        )


def test_a_game_with_rulings_calls_and_time_ups_replays_with_status_0(tmp_path):
    path = tmp_path / "rich.jsonl"
    _rich_game(path)
    types = {json.loads(line)["type"] for line in path.read_text().splitlines()}
    assert {"overrule", "overrule-repeat", "call", "time-up", "redeal", "game-over"} <= types
    result = _replay(path)
    assert result.exit_code == 0, result.output[-1500:]
    # and a ruling the log changes afterwards (the verdict no longer follows) is refused
    records = _records(path.read_text().splitlines())
    overrule = _index(records, "overrule")
    records[overrule]["data"]["accepted"] = not records[overrule]["data"]["accepted"]
    _refused(tmp_path, "ruling", records, overrule + 1, "overrule")


@pytest.mark.parametrize("log", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_golden_log_replays_with_status_0(log):
    events = list(read_numbered_log(log, game="kismet" if "kismet" in log.name else "kiek"))
    audit = audit_kismet if "kismet" in log.name else audit_kiek
    assert audit(events) is None
    result = _replay(log)
    assert result.exit_code == 0, result.output[-1500:]


def test_a_kismet_log_is_printed_and_checked(tmp_path):
    lines = (GOLDEN / "kismet-variant-seed1.jsonl").read_text().splitlines()
    result = _replay(GOLDEN / "kismet-variant-seed1.jsonl")
    assert result.exit_code == 0 and "rolls" in result.output
    records = _records(lines)
    over = _index(records, "round_over")
    records[over]["data"]["tallies"] = [t + 1000 for t in records[over]["data"]["tallies"]]
    _refused(tmp_path, "kismet-tallies", records, over + 1, "'tallies' is")
    records = _records(lines)
    roll = _index(records, "roll", 3)
    records[roll]["data"]["dice"] = (
        [6, 6, 6] if records[roll]["data"]["dice"] != [6, 6, 6] else [1, 1, 1]
    )
    _refused(tmp_path, "kismet-dice", records, roll + 1, "roll")
    _refused(tmp_path, "kismet-twice", _records(lines + lines), len(lines) + 1, "setup")
    base = _records((GOLDEN / "kismet-base-seed2.jsonl").read_text().splitlines())
    reveal = _index(base, "reveal")
    base[reveal]["data"]["points"] += 1000
    _refused(tmp_path, "kismet-points", base, reveal + 1, "'points' is")


def test_a_log_is_told_kismet_by_its_typed_first_event(tmp_path):
    from kiekai.kiek.replay import kismet_log

    assert kismet_log(GOLDEN / "kismet-variant-seed1.jsonl")
    assert kismet_log(GOLDEN / "kismet-base-seed2.jsonl")
    kiek = sorted(GOLDEN.glob("kiek-*.jsonl"))[0]
    assert not kismet_log(kiek)
    first = _records((GOLDEN / "kismet-base-seed2.jsonl").read_text().splitlines())[0]
    first["data"]["game"] = "chess"  # a setup no Kismet engine wrote
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps(first) + "\n")
    assert not kismet_log(odd)
    assert not kismet_log(tmp_path / "missing.jsonl")


def test_the_audit_of_an_in_memory_game_agrees(tmp_path):
    """The audit reads what the engine writes: the events of a game as played, checked."""
    path = tmp_path / "rich.jsonl"
    _rich_game(path)
    events = list(read_numbered_log(path, game="kiek"))
    assert audit_kiek(events) is None
    again = [(n, check_event(e, "kiek")) for n, e in events]
    assert audit_kiek(again) is None
    out = Console(file=open(tmp_path / "out.txt", "w"), width=100)  # noqa: SIM115
    assert replay(path, out).contradiction is None


@pytest.mark.parametrize("variant", [[], ["--variant"]], ids=["base", "variant"])
def test_a_kismet_game_of_the_command_replays_and_its_rules_file_is_needed(tmp_path, variant):
    """A game of ``kiekai kismet`` replays with status 0; one played with a rules file
    contradicts the rulebook's chip points, and replays with the same ``--rules``."""
    log = tmp_path / "plain.jsonl"
    args = ["kismet", "--bots", "3", "--humans", "0", "--seed", "4", *variant]
    played = runner.invoke(app, [*args, "--log", str(log)])
    assert played.exit_code == 0, played.output[-1500:]
    assert _replay(log).exit_code == 0
    rules = tmp_path / "rules.toml"
    rules.write_text("[chips]\n" + "".join(f"{v} = {v * 10}\n" for v in range(2, 13)))
    custom = tmp_path / "custom.jsonl"
    played = runner.invoke(app, [*args, "--rules", str(rules), "--log", str(custom)])
    assert played.exit_code == 0, played.output[-1500:]
    without = _replay(custom)
    assert without.exit_code == 1 and "kiekai replay --rules FILE" in without.output
    assert runner.invoke(app, ["replay", "--rules", str(rules), str(custom)]).exit_code == 0


def test_at_a_table_with_people_the_first_person_is_the_first_active_player(tmp_path):
    """The runner makes the first person active first (the rulebook's "youngest player"):
    a log with people that says the seed chose, or names another seat, is refused."""
    path = tmp_path / "rich.jsonl"
    _rich_game(path)
    records = _records(path.read_text().splitlines())
    assert (
        records[1]["data"]["first_active"] == 0 and records[1]["data"]["first_active_by"] == "given"
    )
    records[1]["data"]["first_active_by"] = "seed"
    _refused(tmp_path, "by-seed", records, 2, "the first person")
    records = _records(path.read_text().splitlines())
    records[1]["data"]["first_active"] = 2
    _refused(tmp_path, "another-seat", records, 2, "the first person")


def test_a_ruling_that_scores_its_ruler_needs_another_persons_agreement(tmp_path):
    """docs/rules.md, "Who rules": with two people at the table, a ruling that would score
    the person who made it is applied only with the other's agreement (the event's
    ``agreed``); a log whose ruling lost its agreement is refused at that line."""
    people = [ScriptedPlayer(n, ["dog", "sky", "red"], human=True) for n in ("Ann", "Ben")]
    for person in people:
        person.rulings = {"sky": True, "red": True}
    seats = [*people, ScriptedPlayer("Bot 1", ["sea", "sky"]), ScriptedPlayer("Bot 2", ["red"])]
    path = tmp_path / "two.jsonl"
    with EventLog(path) as log:
        play_game(
            seats,
            make_cards(40),
            judge=TableJudge(),
            settings=GameSettings(seed=5, rounds=2),
            clock=VirtualClock(),
            log=log,
        )
    assert _replay(path).exit_code == 0
    records = _records(path.read_text().splitlines())
    active = {r["turn"]: r["player"] for r in records if r["type"] == "turn"}
    agreed = [
        i
        for i, r in enumerate(records)
        if r["type"] == "overrule"
        and r["data"].get("agreed")
        and r["data"]["accepted"]  # a match scores its writers and the active player
        and r["player"] in {*r["data"]["guessers"], active[r["turn"]]}
    ]
    assert agreed, "the game has no agreed ruling"
    records[agreed[0]]["data"]["agreed"] = []
    _refused(tmp_path, "unagreed", records, agreed[0] + 1, "and no other person agreed")
