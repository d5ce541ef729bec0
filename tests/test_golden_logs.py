"""The golden logs (tests/golden/, kiekai/eval/golden.py) replay to the same games.

Each golden game is played again through the real command line (in this process, Typer's test
runner, so the judge and perception load once) and its game signature (event types, turns,
seats, cards, words, verdicts, scores) must equal the recorded one's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kiekai.eval import golden

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replayed(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from kiekai.cli import app

    workdir = tmp_path_factory.mktemp("golden")
    runner = CliRunner()
    logs = {}
    for game in golden.GAMES:
        log = workdir / f"{game.name}.jsonl"
        result = runner.invoke(app, golden.cli_args(game, log, workdir))
        assert result.exit_code == 0, f"{game.name}: {result.output[-2000:]}"
        logs[game.name] = log
    return logs


@pytest.mark.parametrize("name", [g.name for g in golden.GAMES])
def test_a_golden_game_replays_to_the_same_game(replayed: dict[str, Path], name: str) -> None:
    recorded = golden.game_signature(golden.read_events(golden.GOLDEN_DIR / f"{name}.jsonl"))
    now = golden.game_signature(golden.read_events(replayed[name]))
    assert recorded, f"{name}: the golden log is empty"
    assert golden.first_difference(recorded, now) is None


def test_the_signature_sees_a_changed_word_and_ignores_encoding() -> None:
    events = golden.read_events(golden.GOLDEN_DIR / "kiek-labels-3bots-seed1.jsonl")
    base = golden.game_signature(events)
    reordered = [
        {**e, "data": dict(reversed(list((e.get("data") or {}).items()))), "extra": 1}
        for e in events
    ]
    for e in reordered:
        if e["type"] != "header":
            e["data"]["t"] = 123.0  # a clock reading is not the game
    assert golden.game_signature(reordered) == base
    changed = [dict(e) for e in events]
    reveal = next(i for i, e in enumerate(changed) if e["type"] == "reveal")
    changed[reveal] = {**changed[reveal], "data": {**changed[reveal]["data"], "secret": "zebra"}}
    assert golden.first_difference(base, golden.game_signature(changed)) == (
        f"event {reveal - 1}: golden {base[reveal - 1]} != now {golden.game_signature(changed)[reveal - 1]}"
    )


def test_the_small_deck_takes_the_first_photos_and_their_labels(
    shared_dir: Path, tmp_path: Path
) -> None:
    deck = golden.make_deck(tmp_path / "d", "labels", shared_dir / "decks" / "imagenet-dev")
    photos = sorted(p.name for p in (deck / "photos").iterdir())
    assert len(photos) == golden.DECK_SIZE and all(
        p.is_symlink() for p in (deck / "photos").iterdir()
    )
    rows = (deck / "labels.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == golden.DECK_SIZE + 1 and rows[1].startswith("photos/" + photos[0])
    bare = golden.make_deck(tmp_path / "p", "pixels", shared_dir / "decks" / "imagenet-dev")
    assert not (bare / "labels.csv").exists()
    with pytest.raises(ValueError, match="labels or pixels"):
        golden.make_deck(tmp_path / "x", "both")
