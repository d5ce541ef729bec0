"""The table's settings (:mod:`kiekai.kiek.settings`): one object, the choices from one enum
each, and the strictness read from the judge rather than passed a second time."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from kiek_helpers import ScriptedPlayer, TableJudge, make_cards
from typer.testing import CliRunner

from kiekai.clock import VirtualClock
from kiekai.judge.house_rules import LEVELS as HOUSE_RULE_LEVELS
from kiekai.judge.house_rules import HouseRules
from kiekai.judge.verdict import Strictness
from kiekai.kiek.game import play_game
from kiekai.kiek.settings import (
    BotLevel,
    GameSettings,
    PerceptionKind,
    TableSettings,
    WebSettings,
)


def test_the_bots_levels_are_the_enums_members():
    from kiekai.kiek.bots import LEVELS, parse_level

    assert list(LEVELS) == [level.value for level in BotLevel]
    for level in BotLevel:
        assert parse_level(level).name == level.value


def test_the_perception_kinds_are_the_enums_members():
    from kiekai.perception import KINDS

    assert KINDS == tuple(kind.value for kind in PerceptionKind)


def test_the_strictness_levels_are_spelled_from_the_enum():
    assert Strictness.spelled() == "strict, standard or lenient"
    assert HOUSE_RULE_LEVELS == ("strict", "standard", "lenient")
    with pytest.raises(ValueError, match="use strict, standard or lenient"):
        Strictness.parse("loose")


@pytest.mark.parametrize(
    "command, option, enum",
    [
        ("play", "--strictness", Strictness),
        ("play", "--level", BotLevel),
        ("play", "--perception", PerceptionKind),
        ("judge", "--strictness", Strictness),
        ("repeat", "--strictness", Strictness),
    ],
)
def test_help_lists_each_options_choices_from_its_enum(command, option, enum):
    from kiekai.cli import app

    result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert f"{option} <{'|'.join(member.value for member in enum)}>" in result.output


def test_table_settings_are_frozen_and_count_every_seat():
    settings = TableSettings(
        GameSettings(seed=5, rounds=4), bots=2, humans=3, web=WebSettings(port=8000)
    )
    assert settings.players == 5
    assert settings.game.turn_seconds == 120.0 and settings.web and settings.web.port == 8000
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.bots = 4  # type: ignore[misc]


def test_the_settings_module_loads_nothing_heavy():
    """The command line builds its options from it at start-up (``kiekai --help`` stays fast)."""
    code = (
        "import sys, kiekai.kiek.settings; "
        "heavy = {'numpy', 'kiekai.judge.judge', 'kiekai.kiek.engine'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


class LenientJudge(TableJudge):
    strictness = Strictness.LENIENT


class OverrulingPerson(ScriptedPlayer):
    """Rules the first refused guess a match."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, human=True, **kwargs)
        self.done = False

    def overrule(self, view):
        refused = [seat for seat, verdict in view.verdicts.items() if not verdict.accepted]
        if self.done or not refused:
            return {}
        self.done = True
        return {view.words[refused[0]]: True}


def test_a_ruling_is_saved_at_the_judges_strictness(tmp_path):
    path = tmp_path / "house-rules.tsv"
    rules = HouseRules.load(path, missing_ok=True)
    players = [
        OverrulingPerson("You", ["dog"]),
        ScriptedPlayer("Bot 1", ["cat"], guesses=["puppy"]),
        ScriptedPlayer("Bot 2", ["sea"]),
    ]
    outcome = play_game(
        players,
        make_cards(30),
        judge=LenientJudge(),
        settings=GameSettings(seed=2, rounds=1, turn_seconds=90),
        clock=VirtualClock(),
        house_rules=rules,
    )
    assert any(e.type == "overrule" for e in outcome.events)
    saved = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    assert saved[-1] == ["dog", "puppy", "yes", "lenient", "You"]  # ... and who ruled
    header = outcome.events[0].data
    assert header["seed"] == 2 and header["rounds"] == 1 and header["time_limit"] == 90
