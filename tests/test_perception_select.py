"""Choosing the perception: auto falls back from CLIP to labels and says why; errors name fixes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from test_clip import TINY, tiny_clip  # noqa: F401  (session fixture: tiny random CLIP)

from kiekai import models
from kiekai.deck import Card, read_card
from kiekai.perception import PerceptionUnavailable, load_perception
from kiekai.perception.clip import ClipPerception
from kiekai.perception.labels import LabelsPerception


@pytest.fixture(autouse=True)
def _no_clip_weights(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No CLIP weights anywhere unless a test passes a checkpoint; nothing is downloaded."""
    for var in ("KIEKAI_CLIP_CHECKPOINT", "KIEKAI_CLIP_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(models, "_clip_hub_cache_file", lambda hf_hub: None)


def _card(name: str, label: str | None = None, wnid: str | None = None) -> Card:
    digest = hashlib.sha256(name.encode()).hexdigest()
    return Card(id=name, path=Path("/deck") / name, sha256=digest, label=label, wnid=wnid)


def _echoed():
    lines: list[str] = []
    return lines, lines.append


def test_auto_without_clip_uses_labels_and_says_why():
    cards = [_card("a.jpg", "tench", "n01440764"), _card("b.jpg"), _card("c.jpg", "goldfish")]
    lines, echo = _echoed()
    perception, usable = load_perception("auto", cards, echo=echo)
    assert isinstance(perception, LabelsPerception)
    assert [c.id for c in usable] == ["a.jpg", "c.jpg"]
    assert lines[0] == "perception labels: left out b.jpg (no label or wnid in labels.csv)"
    assert lines[-1].startswith("perception: labels (2 of 3 photos labelled; CLIP is unavailable (")
    assert "No CLIP weights" in lines[-1]
    assert len(lines) == 2


def test_labels_chosen_explicitly_never_loads_clip(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("CLIP was loaded although labels were chosen")

    monkeypatch.setattr(models, "load_clip", refuse)
    lines, echo = _echoed()
    perception, usable = load_perception("labels", [_card("a.jpg", wnid="n01440764")], echo=echo)
    assert perception.name == "labels" and len(usable) == 1
    assert lines == ["perception: labels (1 of 1 photos labelled; --perception labels was chosen)"]


def test_no_labels_and_no_clip_names_both_fixes():
    cards = [_card("a.jpg"), _card("b.jpg")]
    with pytest.raises(PerceptionUnavailable) as info:
        load_perception("auto", cards, echo=lambda line: None)
    message = str(info.value)
    assert "None of the 2 photos has a label or wnid" in message
    assert "labels.csv" in message and "file,wnid" in message
    assert "--clip-checkpoint PATH" in message and "kiekai models --fetch" in message


def test_clip_chosen_without_weights_raises_model_unavailable():
    with pytest.raises(models.ModelUnavailable, match="No CLIP weights"):
        load_perception("clip", [_card("a.jpg", "tench")], echo=lambda line: None)


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match="choose one of auto, clip, labels"):
        load_perception("sonar", [], echo=lambda line: None)


def test_auto_with_loadable_clip_uses_clip_for_every_photo(tiny_clip, tmp_path):  # noqa: F811
    _, checkpoint = tiny_clip
    from PIL import Image

    cards = []
    for i in range(3):
        path = tmp_path / f"p{i}.png"
        Image.fromarray(np.full((40, 40, 3), 60 * i, dtype=np.uint8)).save(path)
        cards.append(read_card(path, path.name))  # unlabelled photos are fine for CLIP
    lines, echo = _echoed()
    perception, usable = load_perception(
        "auto", cards, clip_model=TINY, clip_checkpoint=checkpoint, echo=echo
    )
    assert isinstance(perception, ClipPerception) and usable == cards
    assert lines == [f"perception: clip ({perception.model_key}; its weights loaded)"]
    scores = perception.scores(usable, ["dog", "cat"])
    assert scores.shape == (3, 2) and scores.dtype == np.float32
