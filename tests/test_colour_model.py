"""The fitted colour model (data/colour-model.json): its JSON round trip, the fallback to the
hand-set rule when the file is missing, and the refit logic (kiekai/eval/fit_colour.py) on a
small sample of the rated dev photos."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from kiekai.deck import read_card
from kiekai.eval import fit_colour
from kiekai.perception.colour import (
    BASIC_TERMS,
    CLASS_COLOUR_INPUTS,
    FEATURES,
    MODEL_PATH,
    ColourModel,
    ColourPerception,
    load_colour_models,
    scores_from_features,
)


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))


def _photo(tmp_path, rgb, name="p"):
    image = np.zeros((96, 128, 3), dtype=np.uint8) + np.asarray((40, 140, 40), dtype=np.uint8)
    image[24:72, 32:96] = rgb
    path = tmp_path / f"{name}.png"
    Image.fromarray(image).save(path)
    return read_card(path, path.name)


def test_the_shipped_models_load_and_round_trip(tmp_path):
    models = load_colour_models()
    assert set(models) == {"pixels", "labels", "classifier"}
    assert not models["pixels"].uses_classes and models["labels"].uses_classes
    rng = np.random.default_rng(0)
    features = rng.random((5, FEATURES)).astype(np.float32)
    classes = rng.random((5, CLASS_COLOUR_INPUTS))
    for model in models.values():
        again = ColourModel.from_dict(json.loads(json.dumps(model.to_dict())))
        p = model.probabilities(features, classes)
        assert p.shape == (5, len(BASIC_TERMS)) and ((p >= 0) & (p <= 1)).all()
        np.testing.assert_allclose(again.probabilities(features, classes), p)
    payload = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert payload["split"].startswith("sha256") and payload["cv"] and "commit" in payload


def test_a_model_with_wrong_shapes_is_refused():
    entry = load_colour_models()["pixels"].to_dict()
    entry["coef"] = entry["coef"][:3]
    with pytest.raises(ValueError, match="coef"):
        ColourModel.from_dict(entry)


def test_without_the_model_file_the_hand_set_rule_scores_and_says_so(tmp_path):
    missing = tmp_path / "colour-model.json"
    lines: list[str] = []
    perception = ColourPerception(model_path=missing, echo=lines.append)
    assert len(lines) == 1 and str(missing) in lines[0] and "scripts/fit_colour.py" in lines[0]
    assert "hand-set rule" in lines[0] and perception.models == {}
    card = _photo(tmp_path, (250, 230, 40))
    got = perception.scores([card], list(BASIC_TERMS))
    hand = scores_from_features(perception.features([card]))
    np.testing.assert_allclose(got[0], [hand[t][0] for t in BASIC_TERMS])
    assert (
        perception.term_scores([card], np.zeros((1, CLASS_COLOUR_INPUTS)), np.asarray(["labels"]))
        is None
    )
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    lines.clear()
    ColourPerception(model_path=tmp_path / "bad.json", echo=lines.append)
    assert len(lines) == 1 and "bad.json" in lines[0]


def test_the_model_scores_stay_probabilities(tmp_path):
    perception = ColourPerception(echo=lambda line: pytest.fail(line))
    cards = [
        _photo(tmp_path, rgb, name)
        for name, rgb in (("red", (220, 20, 30)), ("white", (250, 250, 250)))
    ]
    s = perception.scores(cards, [*BASIC_TERMS, "dark", "unknown word"])
    assert s.dtype == np.float32 and ((s >= 0) & (s <= 1)).all() and (s[:, -1] == 0.5).all()
    terms = perception.term_scores(
        cards, np.zeros((2, CLASS_COLOUR_INPUTS)), np.asarray(["labels", "classifier"])
    )
    assert terms is not None and terms.shape == (2, len(BASIC_TERMS))


def test_the_refit_on_a_sample_of_the_dev_deck(dev_deck):
    data = fit_colour.load_data(dev_deck, limit=80, use_classifier=False)
    assert data["features"].shape == (len(data["y"]), FEATURES) and "labels" in data["class"]
    fit = data["fit"]
    # on these fit-half photos (it was fitted on them) the shipped labels model agrees with the
    # raters clearly more often than the hand-set rule does
    shipped = load_colour_models()["labels"]
    agree = fit_colour.agreement(
        shipped.probabilities(data["features"][fit], data["class"]["labels"][fit]), data["y"][fit]
    )
    hand = scores_from_features(data["features"][fit])
    hand_agree = fit_colour.agreement(
        np.stack([hand[t] for t in BASIC_TERMS], axis=1), data["y"][fit]
    )
    assert agree >= hand_agree + 0.1, (agree, hand_agree)
    variants = {k: v for k, v in fit_colour.VARIANTS.items() if k == "photo + log shares + subject"}
    result = fit_colour.run(data, variants, c_grid=(0.1,), repeats=1)
    chosen = result["chosen"]["pixels"]
    assert (
        0.0 <= chosen["fit_cv_agreement"] <= 1.0
        and chosen["fit_agreement"] >= chosen["fit_cv_agreement"] - 0.05
    )
    payload = fit_colour.shipped_models(result, "deck", "ratings")
    model = ColourModel.from_dict(json.loads(json.dumps(payload))["models"][0])
    assert model.name == "pixels" and len(model.inputs) == len(
        variants["photo + log shares + subject"][1]
    )
