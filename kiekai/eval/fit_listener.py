"""Fit the people-fitted listener (:mod:`kiekai.kiek.listener`) on the people rounds' fitting part.

Data: every people round of the **fitting part** (:func:`kiekai.eval.people.part_of`, by deal;
the reporting part is never read here: :func:`fitting_rounds` refuses it) whose five photos the
perception can score. Each word a person wrote for the split (the active player's word and the
other players' guesses) is one observation; it is matched to the candidate words the judge
accepts for it at standard (``animals`` -> ``animal``), and a word no candidate matches is left
out (the model cannot write it).

Model: the conditional logit of :mod:`kiekai.kiek.listener`, over the split's least
contradicted words the game has not used (:func:`kiekai.kiek.listener.wrong_side`: the
listener's fixed truth rule); the likelihood of an observation is the model's probability of the set of those
candidates the judge accepts for it. A person's word the perception sees as more contradicted
is a perception error, not a choice, and is left out of the fit. Fitted by
maximum likelihood with an L2 penalty ``l2 * |w|^2`` (scipy's L-BFGS-B), the weights of the
truth features (:data:`TRUTH_FEATURES`) bounded below by 0. The penalty is chosen
by 5-fold cross-validation grouped by deal within the fitting part (top-1: the model's best
word is accepted for the active player's word), the smallest penalty among the best on ties.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kiekai.eval import common as ec
from kiekai.eval import people as ep
from kiekai.kiek.bots import used_mask
from kiekai.kiek.listener import (
    FEATURES,
    LISTENER_FILE,
    WordTraits,
    split_features,
    wrong_side,
)

#: Features whose weights are bounded below by 0 (more truth never lowers a word's utility).
TRUTH_FEATURES: frozenset[str] = frozenset(
    {"log_true_three", "log_false_two", "weakest_three", "weakest_two"}
)
#: L2 penalties tried by the cross-validation.
PENALTIES: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0, 3.0)
#: Cross-validation folds (grouped by deal).
FOLDS = 5
#: Perception kind fitted for each listener family.
FAMILY_KINDS: dict[str, str] = {"labels": ec.GAME_LABELS, "pixels": "classifier"}


@dataclass
class Observations:
    """The fitting data of one perception.

    Attributes:
        features: per round, float64 (G, F) (:func:`kiekai.kiek.listener.split_features`) of
            the G least contradicted candidates.
        chosen: per round, the bool (G,) masks of the candidates accepted for each person's
            word that some of the G matches.
        target: per round, bool (G,): the candidates accepted for the active player's word.
        deals: per round, its deal (the cross-validation groups).
        ids: per round, its id.
    """

    features: list[np.ndarray]
    chosen: list[list[np.ndarray]]
    target: list[np.ndarray]
    deals: list[str]
    ids: list[str]


def fitting_rounds(rounds: Sequence[ep.PeopleRound]) -> list[ep.PeopleRound]:
    """The rounds of the fitting part, in order.

    Raises:
        ValueError: no round is in the fitting part.
    """
    fit = [r for r in rounds if r.part == "fit"]
    if not fit:
        raise ValueError("no people round is in the fitting part: nothing to fit on")
    return fit


def acceptance(
    judge: Any, words: Sequence[str], candidates: Sequence[str]
) -> dict[str, np.ndarray]:
    """``word -> bool (W,)``: the candidates the judge accepts as a guess of each word."""
    out: dict[str, np.ndarray] = {}
    for word in sorted(set(words)):
        verdicts = judge.match_many([(word, c) for c in candidates])
        out[word] = np.asarray([bool(v.accepted) for v in verdicts], dtype=bool)
    return out


def observations(
    scorable: Sequence[tuple[ep.PeopleRound, list[Any], list[Any]]],
    perception: Any,
    candidates: Any,
    accepted: dict[str, np.ndarray],
) -> Observations:
    """Build the fitting data: features of each round's split and the persons' choices."""
    traits = WordTraits.of(candidates)
    words = candidates.vocabulary.words
    obs = Observations([], [], [], [], [])
    for rnd, three, two in scorable:
        scores = candidates.scores(np.asarray(perception.scores(list(three) + list(two), words)))
        # a person cannot write a word the game has used (ne bis in idem): not a choice
        unused = ~used_mask(candidates, rnd.used)
        wrong = wrong_side(scores, (0, 1, 2), (3, 4))
        gate = unused & (wrong == wrong[unused].min())
        chosen = [accepted[w][gate] for w in (rnd.target, *rnd.others)]
        chosen = [c for c in chosen if c.any()]
        if not chosen:
            continue
        obs.features.append(split_features(scores, (0, 1, 2), (3, 4), traits)[gate])
        obs.chosen.append(chosen)
        obs.target.append(accepted[rnd.target][gate])
        obs.deals.append(rnd.deal)
        obs.ids.append(rnd.id)
    return obs


def negative_log_likelihood(
    weights: np.ndarray,
    features: Sequence[np.ndarray],
    chosen: Sequence[Sequence[np.ndarray]],
    l2: float,
) -> tuple[float, np.ndarray]:
    """The penalised negative log-likelihood of the choices and its gradient (F,)."""
    total = float(l2 * weights @ weights)
    grad = 2.0 * l2 * weights
    for x, masks in zip(features, chosen, strict=True):
        u = x @ weights
        u = u - u.max()
        p = np.exp(u)
        p /= p.sum()
        for mask in masks:
            mass = float(p[mask].sum()) + 1e-12
            total -= np.log(mass)
            q = np.where(mask, p, 0.0) / mass
            grad -= x.T @ (q - p)
    return total, grad


def fit_weights(
    features: Sequence[np.ndarray], chosen: Sequence[Sequence[np.ndarray]], l2: float
) -> np.ndarray:
    """float64 (F,): the maximum-likelihood weights under the L2 penalty ``l2``.

    Raises:
        ValueError: no observations.
    """
    if not features:
        raise ValueError("no observations to fit the listener on")
    from scipy.optimize import minimize

    width = features[0].shape[1]
    start = np.zeros(width)
    # truth can only help a word: the likelihood features' weights are kept >= 0 (with few
    # rounds an unconstrained fit can trade truth against a kind of word)
    bounds = [(0.0, None) if FEATURES[i] in TRUTH_FEATURES else (None, None) for i in range(width)]
    if width != len(FEATURES):
        bounds = [(None, None)] * width
    result = minimize(
        negative_log_likelihood,
        start,
        args=(features, chosen, l2),
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
    )
    return np.asarray(result.x, dtype=np.float64)


def top1_hits(
    weights: np.ndarray, features: Sequence[np.ndarray], target: Sequence[np.ndarray]
) -> list[bool]:
    """Per round, whether the model's best word is accepted for the active player's word."""
    return [bool(t[int(np.argmax(x @ weights))]) for x, t in zip(features, target, strict=True)]


def fold_of(deal: str, folds: int = FOLDS) -> int:
    """The cross-validation fold of a deal (SHA-256 of its name, digits 8-16, mod ``folds``:
    other digits than the part split's, so folds mix both of its residues)."""
    return int(hashlib.sha256(deal.encode("utf-8")).hexdigest()[8:16], 16) % folds


def cross_validate(obs: Observations, penalties: Sequence[float] = PENALTIES) -> dict[float, float]:
    """``penalty -> top-1`` from :data:`FOLDS`-fold cross-validation grouped by deal."""
    folds = [fold_of(d) for d in obs.deals]
    out: dict[float, float] = {}
    for l2 in penalties:
        hits: list[bool] = []
        for f in range(FOLDS):
            train = [i for i, k in enumerate(folds) if k != f]
            test = [i for i, k in enumerate(folds) if k == f]
            if not train or not test:
                continue
            w = fit_weights([obs.features[i] for i in train], [obs.chosen[i] for i in train], l2)
            hits += top1_hits(w, [obs.features[i] for i in test], [obs.target[i] for i in test])
        out[l2] = ec.share(sum(hits), len(hits))
    return out


def fit_family(obs: Observations, penalties: Sequence[float] = PENALTIES) -> dict[str, Any]:
    """Choose the penalty by cross-validation and fit on all of ``obs``.

    Returns:
        ``{"weights", "l2", "rounds", "observations", "cv_top1", "fit_top1"}``.
    """
    cv = cross_validate(obs, penalties)
    best = max(cv.values())
    l2 = min(p for p, v in cv.items() if v == best)
    weights = fit_weights(obs.features, obs.chosen, l2)
    return {
        "weights": [round(float(w), 6) for w in weights],
        "l2": l2,
        "rounds": len(obs.features),
        "observations": sum(len(c) for c in obs.chosen),
        "cv_top1": {str(k): round(v, 4) for k, v in cv.items()},
        "fit_top1": round(
            ec.share(sum(top1_hits(weights, obs.features, obs.target)), len(obs.target)), 4
        ),
    }


def run(
    rounds_files: Sequence[Path | str] = ep.DEFAULT_ROUNDS,
    deck: Path | str = ep.DEFAULT_DECK,
    families: Sequence[str] = tuple(FAMILY_KINDS),
    penalties: Sequence[float] = PENALTIES,
    echo: Any = print,
) -> dict[str, Any]:
    """Fit every family's weights; the weights file's content.

    Raises:
        EvalError: a rounds file or the deck is missing or malformed.
        ValueError: an unknown family, or no round in the fitting part.
    """
    from kiekai.kiek.bots import candidates_for

    unknown = [f for f in families if f not in FAMILY_KINDS]
    if unknown:
        raise ValueError(f"unknown listener family {unknown[0]!r}: use {', '.join(FAMILY_KINDS)}")
    rounds = fitting_rounds(ep.load_people_rounds(rounds_files))
    judge = ec.make_judge("standard")
    vocabulary = ec.load_vocabulary()
    candidates = candidates_for(vocabulary)
    words = [w for r in rounds for w in (r.target, *r.others)]
    accepted = acceptance(judge, words, candidates.words)
    cards = ec.load_deck_cards(deck)
    from kiekai.eval import guesser as eval_guesser

    out: dict[str, Any] = {
        "features": list(FEATURES),
        "made_by": "python scripts/fit_listener.py",
        "commit": ec.git_commit() or None,
        "rounds_files": [ec.display_path(p) for p in rounds_files],
        "part": "fit",
        "families": {},
    }
    for family in families:
        kind = FAMILY_KINDS[family]
        perception, usable = ec.load_perception_for(kind, cards, echo=echo)
        scorable, _ = eval_guesser.resolve_round_cards(rounds, cards, usable)
        obs = observations(scorable, perception, candidates, accepted)  # type: ignore[arg-type]
        entry = fit_family(obs, penalties)
        entry["perception"] = getattr(perception, "name", kind)
        out["families"][family] = entry
        echo(
            f"{family} ({entry['perception']}): {entry['rounds']} rounds, "
            f"{entry['observations']} words; l2 {entry['l2']}; cross-validated top-1 "
            f"{entry['cv_top1'][str(entry['l2'])]:.2f}, on the fitting part {entry['fit_top1']:.2f}"
        )
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", nargs="+", default=[str(p) for p in ep.DEFAULT_ROUNDS])
    parser.add_argument("--deck", default=str(ep.DEFAULT_DECK))
    parser.add_argument("--families", default=",".join(FAMILY_KINDS))
    parser.add_argument("--out", default=str(LISTENER_FILE), help="weights file to write")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    try:
        data = run(args.rounds, args.deck, families)
    except (ec.EvalError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    Path(args.out).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0
