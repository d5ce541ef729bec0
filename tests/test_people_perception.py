"""The people perception (kiekai/perception/people.py): real detectors on real dev photos, a
detector that does not load, and photos a detector (or every detector) cannot read."""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kiekai import models
from kiekai.deck import PhotoError, read_card
from kiekai.perception.base import Perception
from kiekai.perception.colour import ColourPerception
from kiekai.perception.compose import CompositePerception
from kiekai.perception.people import (
    MODEL_PATH,
    PeopleModel,
    PeoplePerception,
    load_models,
)

#: Dev photos both raters said show people (MTCNN finds a face in each) and photos neither did.
WITH_PEOPLE = ("n10148035", "n04532106", "n03394916")  # groom, lab coat, French horn
WITHOUT = ("n01440764", "n01491361", "n02086240")  # tench, tiger shark, Shih-Tzu


def _require_mtcnn() -> None:
    """Skip without facenet-pytorch (the Makefile installs it); fail under CI."""
    try:
        models.resolve_face_detector()
    except models.ModelUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI needs the MTCNN face detector: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))


def _dev_cards(dev_deck: Path, wnids) -> list:
    return [read_card(dev_deck / "photos" / f"{w}.jpg", f"photos/{w}.jpg") for w in wnids]


def _registry_with(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """Make kiekai.models.registry() return a changed copy of the registry."""
    changed = copy.deepcopy(models.registry())
    change(changed)
    monkeypatch.setattr(models.common, "registry", lambda: changed)


def test_the_shipped_models_load_and_name_their_detectors():
    shipped = load_models()
    assert [m.detectors for m in shipped] == [("mtcnn",), ("haar-frontal",)]
    for model in shipped:
        assert 0.0 < model.threshold < 1.0
        assert model.info["report"]["photos"] > 250  # fitted on one half, reported on the other
        again = PeopleModel.from_dict(model.to_dict())
        assert again == model


def test_real_detectors_see_people_in_real_dev_photos(dev_deck, tmp_path):
    _require_mtcnn()
    lines: list[str] = []
    people = PeoplePerception(echo=lines.append, cache_root=tmp_path / "emb")
    assert lines == [] and set(people.detectors) == {"mtcnn", "haar-frontal"}
    assert isinstance(people, Perception)
    cards = _dev_cards(dev_deck, WITH_PEOPLE + WITHOUT)
    assert people.prepare(cards) == []
    words = ["people", "Person", "faces", "man", "dog", "black"]
    assert people.knows(words).tolist() == [True, True, True, True, False, False]
    scores = people.scores(cards, words)
    assert scores.dtype == np.float32 and scores.shape == (6, 6)
    yes, no = scores[:3, 0], scores[3:, 0]
    assert (yes > 0.5).all() and (no < 0.5).all(), scores[:, 0]
    assert np.array_equal(scores[:, 1], scores[:, 0]) and np.array_equal(scores[:, 2], scores[:, 0])
    assert np.allclose(scores[:, 3], scores[:, 0] * 0.5)  # a person, but man or woman: undecided
    assert (scores[:, 4:] == 0.5).all()
    # the first model (MTCNN) scored every photo, so the Haar cascade never ran
    assert people.computed == {"mtcnn": 6, "haar-frontal": 0}
    # cached by content hash: a new perception reads the features back
    again = PeoplePerception(echo=None, cache_root=tmp_path / "emb")
    assert np.array_equal(again.scores(cards, words), scores)
    assert again.computed["mtcnn"] == 0 and again.caches["mtcnn"].hits == 6


def test_people_composes_in_front_of_colour(dev_deck, tmp_path):
    _require_mtcnn()
    people = PeoplePerception(echo=None, cache_root=tmp_path / "emb")
    both = CompositePerception([ColourPerception(cache_root=tmp_path / "emb"), people])
    cards = _dev_cards(dev_deck, WITH_PEOPLE[:1] + WITHOUT[:1])
    assert both.prepare(cards) == []
    scores = both.scores(cards, ["people", "white", "volcano"])
    assert scores[0, 0] > 0.5 > scores[1, 0]
    assert scores[0, 2] == scores[1, 2] == 0.5


def test_missing_package_is_one_message_and_perception_goes_on(dev_deck, tmp_path, monkeypatch):
    def drop_mtcnn(reg):
        reg["people"]["mtcnn"]["package_module"] = "kiekai_no_such_face_package"

    _registry_with(monkeypatch, drop_mtcnn)
    lines: list[str] = []
    people = PeoplePerception(echo=lines.append, cache_root=tmp_path / "emb")
    assert len(lines) == 1, lines
    line = lines[0]
    assert "facenet-pytorch" in line and "not installed" in line
    assert "pip install --no-deps facenet-pytorch==2.6.0" in line
    assert "going on without it (people scored by haar-frontal)" in line
    assert list(people.detectors) == ["haar-frontal"]
    cards = _dev_cards(dev_deck, WITH_PEOPLE[:1] + WITHOUT[:1])
    scores = people.scores(cards, ["people"])
    assert ((scores >= 0) & (scores <= 1)).all() and people.computed["haar-frontal"] == 2


def test_hash_mismatch_is_refused_with_the_fix(tmp_path, monkeypatch):
    def wrong_pin(reg):
        reg["people"]["mtcnn"]["files"]["pnet.pt"] = "0" * 64

    _require_mtcnn()
    _registry_with(monkeypatch, wrong_pin)
    with pytest.raises(models.ModelUnavailable, match="pnet.pt .*do not match the pinned SHA-256"):
        models.resolve_face_detector()
    lines: list[str] = []
    people = PeoplePerception(echo=lines.append, cache_root=tmp_path / "emb")
    assert len(lines) == 1 and "do not match the pinned SHA-256" in lines[0]
    assert "facenet-pytorch" in lines[0] and "going on without it" in lines[0]
    assert "mtcnn" in people.unavailable and "haar-frontal" in people.detectors


def test_without_any_detector_person_words_are_undecided(dev_deck, tmp_path, monkeypatch):
    def drop_mtcnn(reg):
        reg["people"]["mtcnn"]["package_module"] = "kiekai_no_such_face_package"

    _registry_with(monkeypatch, drop_mtcnn)
    monkeypatch.setitem(sys.modules, "cv2", None)  # import cv2 raises ImportError
    lines: list[str] = []
    people = PeoplePerception(echo=lines.append, cache_root=tmp_path / "emb")
    assert len(lines) == 2
    assert (
        "opencv-python-headless" in lines[1]
        and "pip install 'opencv-python-headless>=4.5,<5'" in lines[1]
    )
    assert all("person words are undecided (0.5)" in line for line in lines)
    cards = _dev_cards(dev_deck, WITHOUT[:1])
    assert not people.knows(["people", "man"]).any()
    assert (people.scores(cards, ["people", "man"]) == 0.5).all()


def test_a_photo_one_detector_cannot_read_is_skipped_by_that_detector_only(dev_deck, tmp_path):
    _require_mtcnn()
    tiny_path = tmp_path / "tiny.png"
    Image.new("RGB", (12, 12), (200, 150, 100)).save(tiny_path)
    # MTCNN raises on a photo smaller than its smallest face (ValueError from torch.cat)
    tiny = read_card(tiny_path, "tiny.png", min_side=1)
    good = _dev_cards(dev_deck, WITH_PEOPLE[:1])[0]
    people = PeoplePerception(echo=None, cache_root=tmp_path / "emb")
    assert people.prepare([tiny, good]) == []  # not left out of the game
    assert list(people.skipped("mtcnn")) == [tiny.sha256]
    assert people.skipped("mtcnn")[tiny.sha256].startswith("ValueError")
    assert people.skipped("haar-frontal") == {}
    # the tiny photo is scored by the next model (the Haar cascade alone), the good one by MTCNN
    assert people.computed == {"mtcnn": 1, "haar-frontal": 1}
    scores = people.scores([tiny, good], ["people"])
    assert scores[0, 0] < 0.5 < scores[1, 0]


def test_a_photo_no_detector_can_decode_is_left_out_with_its_reason(dev_deck, tmp_path):
    broken_path = tmp_path / "broken.jpg"
    good = _dev_cards(dev_deck, WITHOUT[:1])[0]
    broken_path.write_bytes(good.path.read_bytes() + b"trailer")
    broken = read_card(broken_path, "broken.jpg")
    broken_path.write_bytes(b"no longer a photo")
    people = PeoplePerception(
        ["haar-frontal"], models=load_models()[1:], echo=None, cache_root=tmp_path / "emb"
    )
    skipped = people.prepare([good, broken])
    assert [(card.id, reason) for card, reason in skipped] == [
        ("broken.jpg", "not an image (Pillow cannot identify the file's contents)")
    ]
    with pytest.raises(PhotoError, match="broken.jpg"):
        people.scores([broken], ["people"])
    assert people.scores([good], ["people"]).shape == (1, 1)


def test_a_broken_model_file_names_the_fix(tmp_path):
    bad = tmp_path / "people-model.json"
    bad.write_text('{"models": [{"inputs": []}]}', encoding="utf-8")
    with pytest.raises(models.ModelUnavailable, match="eval_people_detector.py --write-model"):
        load_models(bad)
    assert MODEL_PATH.name == "people-model.json"
