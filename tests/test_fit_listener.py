"""Fitting the listener (kiekai.eval.fit_listener): the likelihood, its gradient, recovery."""

from __future__ import annotations

import numpy as np
import pytest

from kiekai.eval import fit_listener as fl
from kiekai.eval.people import PeopleRound, part_of


def _round(rid: str, deal: str) -> PeopleRound:
    return PeopleRound(
        id=rid,
        target="dogs",
        valid_words=("dogs",),
        three=("a", "b", "c"),
        two=("d", "e"),
        others=("dogs", "animals"),
        deal=deal,
        part=part_of(deal),
    )


def test_only_the_fitting_part_is_fitted_on() -> None:
    rounds = [_round(f"r{i}", f"deal{i}") for i in range(40)]
    fit = fl.fitting_rounds(rounds)
    assert fit and all(r.part == "fit" for r in fit)
    assert len(fit) < len(rounds)  # some deals fall in the reporting part
    with pytest.raises(ValueError, match="fitting part"):
        fl.fitting_rounds([r for r in rounds if r.part == "report"])


def test_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(0)
    features = [rng.normal(size=(7, 3)) for _ in range(4)]
    chosen = [[np.eye(7, dtype=bool)[i % 7] | np.eye(7, dtype=bool)[(i + 2) % 7]] for i in range(4)]
    w = rng.normal(size=3)
    value, grad = fl.negative_log_likelihood(w, features, chosen, 0.1)
    eps = 1e-6
    numeric = [
        (fl.negative_log_likelihood(w + eps * e, features, chosen, 0.1)[0] - value) / eps
        for e in np.eye(3)
    ]
    assert np.allclose(grad, numeric, atol=1e-4)


def test_fitting_recovers_the_weights_that_made_the_choices() -> None:
    rng = np.random.default_rng(1)
    true_w = np.array([2.0, -1.5, 0.0])
    features, chosen, target = [], [], []
    for _ in range(300):
        x = rng.normal(size=(12, 3))
        p = np.exp(x @ true_w)
        p /= p.sum()
        pick = rng.choice(12, p=p)
        mask = np.zeros(12, dtype=bool)
        mask[pick] = True
        features.append(x)
        chosen.append([mask])
        target.append(mask)
    w = fl.fit_weights(features, chosen, l2=0.01)
    assert w[0] > 1.2 and w[1] < -0.8 and abs(w[2]) < 0.5
    hits = fl.top1_hits(w, features, target)
    assert np.mean(hits) > 1 / 12 * 2  # far above chance
    with pytest.raises(ValueError, match="no observations"):
        fl.fit_weights([], [], 0.1)


def test_folds_group_by_deal() -> None:
    assert {fl.fold_of(f"d{i}") for i in range(60)} == set(range(fl.FOLDS))
    assert fl.fold_of("k00") == fl.fold_of("k00")


def test_truth_weights_stay_non_negative() -> None:
    """Persons who seem to prefer words the perception finds false (its errors) cannot teach
    the listener that truth hurts: the truth features' weights are bounded below by 0."""
    from kiekai.kiek.listener import FEATURES

    rng = np.random.default_rng(2)
    col = FEATURES.index("log_true_three")
    features, chosen = [], []
    for _ in range(60):
        x = rng.normal(size=(8, len(FEATURES)))
        mask = np.zeros(8, dtype=bool)
        mask[int(np.argmin(x[:, col]))] = True  # always the least true word
        features.append(x)
        chosen.append([mask])
    w = fl.fit_weights(features, chosen, l2=0.01)
    for name in fl.TRUTH_FEATURES:
        assert w[FEATURES.index(name)] >= 0.0
    assert w[col] == pytest.approx(0.0, abs=1e-6)
