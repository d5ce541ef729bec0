"""A folder of photos without labels plays a whole bot game offline, without CLIP: the bots see
through the classifier and the colours (issue 9: "no unlabelled folder is refused any more")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_unlabelled_folder_plays_a_whole_bot_game_offline(tmp_path):
    from kiekai.default_deck import default_deck

    deck = tmp_path / "my photos"
    deck.mkdir()
    for card in default_deck().cards:  # 20 real photos, copied without any labels.csv
        shutil.copyfile(card.path, deck / card.path.name)
    (deck / "broken.jpg").write_bytes(b"not a photo")
    log = tmp_path / "game.jsonl"
    env = {
        **os.environ,
        "KIEKAI_OFFLINE": "1",
        "KIEKAI_CACHE_DIR": str(tmp_path / "cache"),  # nothing cached, no CLIP weights
        "HF_HOME": str(tmp_path / "hf"),
        "COLUMNS": "120",
        "TERM": "dumb",
    }
    args = ["play", "--bots", "3", "--humans", "0", "--deck", str(deck), "--seed", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "kiekai", *args, "--log", str(log)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    out = result.stdout
    assert out.startswith("perception: classifier+colour (things from the classifier, colours")
    assert "CLIP is unavailable" in out
    assert "Skipped broken.jpg" in result.stderr  # the bad photo is skipped with its reason
    assert out.count("is active") == 9 and "Final scores" in out
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert events[0]["data"]["perception"] == "classifier+colour"
    assert events[-1]["type"] == "game-over"
    secrets = [e["data"]["secret"] for e in events if e["type"] == "reveal"]
    assert len(secrets) == 9 and all(secrets)
