"""The people-fitted listener (kiekai.kiek.listener): features, truth rule, weights file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kiekai.kiek.bots import candidates_for
from kiekai.kiek.listener import (
    FEATURES,
    WRONG_SIDE_COST,
    ListenerError,
    PeopleListener,
    WordTraits,
    family_of,
    least_contradicted,
    load_listener,
    read_weights,
    split_features,
    wrong_side,
)
from kiekai.lexicon import load_vocabulary


@pytest.fixture(scope="module")
def candidates():
    return candidates_for(load_vocabulary())


def _scores(candidates, truths: dict[str, list[float]]) -> np.ndarray:
    s = np.full((5, len(candidates)), 0.5)
    for word, column in truths.items():
        s[:, candidates.words.index(word)] = column
    return s


def test_features_have_one_column_each_and_check_the_split(candidates) -> None:
    traits = WordTraits.of(candidates)
    s = _scores(candidates, {"dog": [0.9, 0.9, 0.9, 0.1, 0.1]})
    x = split_features(s, (0, 1, 2), (3, 4), traits)
    assert x.shape == (len(candidates), len(FEATURES)) and x.dtype == np.float64
    dog = candidates.words.index("dog")
    assert x[dog, FEATURES.index("focal")] == 1.0 and x[dog, FEATURES.index("basic")] == 1.0
    assert x[dog, FEATURES.index("log_true_three")] == pytest.approx(3 * np.log(0.9))
    assert x[dog, FEATURES.index("undecided")] == 0.0
    assert x[candidates.words.index("animal"), FEATURES.index("undecided")] == 1.0
    with pytest.raises(ValueError, match="3 cards vs 2"):
        split_features(s, (0, 1), (2, 3, 4), traits)
    with pytest.raises(ValueError, match="candidate words"):
        split_features(s[:, :10], (0, 1, 2), (3, 4), traits)


def test_a_word_false_of_one_of_the_three_is_not_what_a_person_writes(candidates) -> None:
    s = _scores(
        candidates,
        {"dog": [0.9, 0.9, 0.9, 0.1, 0.1], "animal": [0.9, 0.9, 0.2, 0.1, 0.1]},
    )
    assert wrong_side(s, (0, 1, 2), (3, 4))[candidates.words.index("animal")] == 1
    gate = least_contradicted(s, (0, 1, 2), (3, 4))
    assert gate[candidates.words.index("dog")] and not gate[candidates.words.index("animal")]
    # whatever the weights, the contradicted word pays the fixed cost per card
    listener = PeopleListener("labels", np.zeros(len(FEATURES)), {})
    u = listener.utilities(s, (0, 1, 2), (3, 4), WordTraits.of(candidates))
    dog, animal = candidates.words.index("dog"), candidates.words.index("animal")
    assert u[dog] - u[animal] == pytest.approx(WRONG_SIDE_COST)


def test_the_shipped_weights_prefer_the_obvious_word(candidates) -> None:
    """Three dogs against two objects: the fitted listeners write *dog* over a colour that
    is just as true (the people rounds' persons do)."""
    s = _scores(
        candidates,
        {
            "dog": [0.95, 0.95, 0.95, 0.05, 0.05],
            "animal": [0.95, 0.95, 0.95, 0.05, 0.05],
            "brown": [0.9, 0.9, 0.9, 0.1, 0.1],
        },
    )
    for family in ("labels", "pixels"):
        listener = load_listener(family)
        u = listener.utilities(s, (0, 1, 2), (3, 4), WordTraits.of(candidates))
        best = candidates.words[int(np.argmax(u))]
        assert best in ("dog", "animal"), (family, best)
        assert listener.info["rounds"] >= 30


def test_family_of_names() -> None:
    class P:
        def __init__(self, name: str) -> None:
            self.name = name

    assert family_of(P("labels")) == "labels"
    assert family_of(P("labels+colour")) == "labels"
    assert family_of(P("classifier+colour")) == "pixels"
    assert family_of(P("labels+classifier+colour")) == "pixels"
    assert family_of(P("clip")) == "pixels"


def test_a_bad_weights_file_names_the_file_and_the_fix(tmp_path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(ListenerError, match="missing.*fit_listener"):
        read_weights(missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ListenerError, match="cannot read"):
        read_weights(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"features": ["zipf"], "families": {}}), encoding="utf-8")
    with pytest.raises(ListenerError, match="other features"):
        read_weights(other)
    nan = tmp_path / "nan.json"
    weights = [0.0] * len(FEATURES)
    weights[0] = float("nan")
    nan.write_text(
        json.dumps({"features": list(FEATURES), "families": {"labels": {"weights": weights}}}),
        encoding="utf-8",
    )
    with pytest.raises(ListenerError, match="finite weights"):
        read_weights(nan)
    good = tmp_path / "good.json"
    good.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "families": {"pixels": {"weights": [1.0] * len(FEATURES), "rounds": 3}},
            }
        ),
        encoding="utf-8",
    )
    # a family the file lacks takes the pixels weights
    listener = load_listener("labels", good)
    assert listener.weights.shape == (len(FEATURES),) and listener.info == {"rounds": 3}
