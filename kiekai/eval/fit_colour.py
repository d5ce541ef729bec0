"""Fit the colour perception's models to the stand-in raters (``scripts/fit_colour.py``).

Ground truth: ``data/people-rounds/photo-ratings.tsv``, a photo's subject colour where both
raters gave the same non-``mixed`` colour (:func:`kiekai.eval.scenes.colour_truth`); halves by
the SHA-256 of the file name (:func:`kiekai.eval.people_detector.half_of`: even = **fit**, odd =
**report**). Everything is chosen on the fit half:

* each variant (:data:`VARIANTS`: a set of inputs of
  :func:`kiekai.perception.colour.design_columns`) and each inverse L2 strength of
  :data:`C_GRID` is scored by **cross-validation inside the fit half**
  (:data:`FOLDS`-fold stratified, :data:`REPEATS` shuffles): the share of photos whose
  highest-scoring term is the raters' colour (the agreement ``scripts/eval_scenes.py``
  reports);
* per class source (``pixels``: no class; ``labels``: the labels' one class; ``classifier``:
  the classifier's softmax) the variant and C with the best CV agreement are refitted on the
  whole fit half and shipped (:func:`fit_ovr`: one logistic model per basic term, scikit-learn,
  inputs standardised on the fit half).

The report half is read once, after the choice, for the figures recorded with the model:
agreement and, per term, the precision of ``score > 0.85`` (the active bot's colour margin,
``TRUE_MARGIN["colour"]`` = 0.35 in :mod:`kiekai.kiek.bot_tuning`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kiekai.eval import common as ec
from kiekai.eval.people_detector import RATINGS, add_rating_args, half_of

FOLDS = 5
REPEATS = 3
C_GRID = (0.03, 0.1, 0.3, 1.0)
#: Score above which a bot's colour word counts as "yes" (0.5 + TRUE_MARGIN["colour"]).
YES_AT = 0.85


def _terms(prefixes: Sequence[str]) -> list[str]:
    from kiekai.perception.colour import BASIC_TERMS

    return [f"{p}_{t}" for p in prefixes for t in BASIC_TERMS]


def _variants() -> dict[str, tuple[str, list[str]]]:
    from kiekai.perception.colour import BASIC_TERMS, SUBJECT_STATS

    photo = _terms(["share", "border"]) + ["colourfulness", "mean_L"]
    logs = _terms(["log_share", "log_border"])
    subject = _terms(["log_subject"]) + list(SUBJECT_STATS)
    classes = [f"class_{t}" for t in BASIC_TERMS] + ["class_known"]
    out: dict[str, tuple[str, list[str]]] = {
        "photo (24 features)": ("pixels", photo),
        "photo + log shares": ("pixels", photo + logs),
        "photo + log shares + subject": ("pixels", photo + logs + subject),
    }
    for source in ("labels", "classifier"):
        out[f"photo + log shares + class ({source})"] = (source, photo + logs + classes)
        out[f"photo + log shares + subject + class ({source})"] = (
            source,
            photo + logs + subject + classes,
        )
    return out


#: variant name -> (class source, input names).
VARIANTS = _variants()


def fit_ovr(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, np.ndarray]:
    """One L2 logistic model per basic term on standardised inputs.

    Args:
        x: float (N, F) raw inputs; y: str (N,) the raters' colour of each photo.
        c: inverse regularisation strength (scikit-learn ``C``).

    Returns:
        ``{"mean", "scale"}`` float (F,), ``{"coef"}`` (11, F), ``{"intercept"}`` (11,). A term
        no photo has gets coefficients 0 and the intercept of a rate of 1 / (N + 2).
    """
    from sklearn.linear_model import LogisticRegression

    from kiekai.perception.colour import BASIC_TERMS

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = (x - mean) / scale
    coef = np.zeros((len(BASIC_TERMS), x.shape[1]))
    intercept = np.zeros(len(BASIC_TERMS))
    for i, term in enumerate(BASIC_TERMS):
        target = y == term
        if target.all() or not target.any():
            rate = (target.sum() + 1) / (len(y) + 2)
            intercept[i] = np.log(rate / (1 - rate))
            continue
        model = LogisticRegression(C=c, max_iter=5000).fit(z, target)
        coef[i], intercept[i] = model.coef_[0], model.intercept_[0]
    return {"mean": mean, "scale": scale, "coef": coef, "intercept": intercept}


def predict(params: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """float (N, 11): each term's probability under :func:`fit_ovr`'s ``params``."""
    z = ((x - params["mean"]) / params["scale"]) @ params["coef"].T + params["intercept"]
    return 1.0 / (1.0 + np.exp(-z))


def agreement(p: np.ndarray, y: np.ndarray) -> float:
    """Share of photos whose highest-scoring term is the raters' colour."""
    from kiekai.perception.colour import BASIC_TERMS

    return (
        float(np.mean(np.asarray(BASIC_TERMS)[np.argmax(p, axis=1)] == y))
        if len(y)
        else float("nan")
    )


def cross_validated(x: np.ndarray, y: np.ndarray, c: float, seed: int) -> np.ndarray:
    """float (N, 11): out-of-fold probabilities (stratified :data:`FOLDS` folds, shuffled by
    ``seed``; classes with fewer photos than folds are spread as evenly as they go)."""
    import warnings

    from sklearn.model_selection import StratifiedKFold

    folds = min(FOLDS, len(y))
    out = np.zeros((len(y), 11))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "least populated class has only n members"
        for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, y):
            out[test] = predict(fit_ovr(x[train], y[train], c), x[test])
    return out


def precision_at(
    p: np.ndarray, y: np.ndarray, threshold: float = YES_AT
) -> dict[str, dict[str, Any]]:
    """Per term: photos scored above ``threshold`` (``called``), how many of them the raters
    gave that colour (``right``) and the share (``precision``, None when none was called)."""
    from kiekai.perception.colour import BASIC_TERMS

    out: dict[str, dict[str, Any]] = {}
    for i, term in enumerate(BASIC_TERMS):
        called = p[:, i] > threshold
        right = int((called & (y == term)).sum())
        out[term] = {
            "called": int(called.sum()),
            "right": right,
            "precision": right / int(called.sum()) if called.any() else None,
        }
    return out


def load_data(
    deck: Path | str = ec.DEFAULT_DECK,
    ratings: Path | str = RATINGS,
    *,
    limit: int | None = None,
    use_classifier: bool = True,
    echo: Any = None,
) -> dict[str, Any]:
    """The rated photos with an agreed colour, their features and class-colour inputs.

    Returns:
        ``{"ids": [file], "y": str (N,), "fit": bool (N,), "features": float32 (N, FEATURES),
        "class": {"labels": float (N, 12), "classifier": float (N, 12)} (the classifier's
        only when it loads), "notes": [str]}``.

    Raises:
        EvalError: the deck or ratings are missing, or no rated photo has an agreed colour.
    """
    from kiekai.eval.scenes import colour_truth, load_ratings
    from kiekai.perception.attributes import class_colour, labels_distribution, load_attributes
    from kiekai.perception.colour import ColourPerception
    from kiekai.perception.labels import LabelsPerception

    truth = load_ratings(ratings)
    cards = [c for c in ec.load_deck_cards(deck) if c.id in truth and colour_truth(truth[c.id])]
    if limit is not None:
        cards = cards[:limit]
    if not cards:
        raise ec.EvalError(f"no photo of {deck} has an agreed colour in {ratings}")
    colour = ColourPerception(model_path=False)
    bad = {card.id for card, _ in colour.prepare(cards)}
    cards = [c for c in cards if c.id not in bad]
    table = load_attributes()
    notes: list[str] = [f"left out {b} (cannot be decoded)" for b in sorted(bad)]
    classes: dict[str, np.ndarray] = {}
    labelled = LabelsPerception.usable(cards)
    if len(labelled) == len(cards):
        classes["labels"] = class_colour(
            labels_distribution(LabelsPerception(cards), table)(cards), table
        )
    else:
        notes.append(
            f"labels: only {len(labelled)} of {len(cards)} photos labelled; no labels model"
        )
    if use_classifier:
        from kiekai.models import ModelUnavailable

        try:
            from kiekai.perception.attributes import classifier_distribution
            from kiekai.perception.classifier import ClassifierPerception

            classifier = ClassifierPerception(progress=False)
            classes["classifier"] = class_colour(
                classifier_distribution(classifier, table)(cards), table
            )
        except (ModelUnavailable, ImportError) as exc:
            notes.append(f"classifier unavailable ({exc}); no classifier model")
    return {
        "ids": [c.id for c in cards],
        "y": np.asarray([colour_truth(truth[c.id]) for c in cards]),
        "fit": np.asarray([half_of(c.id) == "fit" for c in cards]),
        "features": colour.features(cards),
        "class": classes,
        "notes": notes,
    }


def _design(data: dict[str, Any], source: str, inputs: Sequence[str]) -> np.ndarray:
    from kiekai.perception.colour import design_columns

    columns = design_columns(
        data["features"], data["class"].get(source) if source != "pixels" else None
    )
    return np.stack([columns[name] for name in inputs], axis=1)


def run(
    data: dict[str, Any],
    variants: dict[str, tuple[str, list[str]]] | None = None,
    c_grid: Sequence[float] = C_GRID,
    repeats: int = REPEATS,
) -> dict[str, Any]:
    """Cross-validate every variant on the fit half, refit the best per source, report.

    Returns:
        ``{"cv": [{"variant", "source", "C", "agreement"}], "hand_set": {"fit", "report"},
        "chosen": {source: {"variant", "C", "fit_cv_agreement", "fit_agreement",
        "report_agreement", "report_photos", "fit_photos", "report_precision_at_0.85",
        "fit_cv_precision_at_0.85", "params", "inputs"}}}``.
    """
    from kiekai.perception.colour import BASIC_TERMS, scores_from_features

    variants = VARIANTS if variants is None else variants
    y, fit = data["y"], data["fit"]
    hand = scores_from_features(data["features"])
    hand_p = np.stack([hand[t] for t in BASIC_TERMS], axis=1)
    out: dict[str, Any] = {
        "hand_set": {
            "fit": agreement(hand_p[fit], y[fit]),
            "report": agreement(hand_p[~fit], y[~fit]),
        },
        "cv": [],
        "chosen": {},
        "photos": {"fit": int(fit.sum()), "report": int((~fit).sum())},
    }
    best: dict[str, tuple[float, str, float, np.ndarray]] = {}
    for name, (source, inputs) in variants.items():
        if source != "pixels" and source not in data["class"]:
            continue
        x = _design(data, source, inputs)
        for c in c_grid:
            cv_p = [cross_validated(x[fit], y[fit], c, seed) for seed in range(repeats)]
            score = float(np.mean([agreement(p, y[fit]) for p in cv_p]))
            out["cv"].append({"variant": name, "source": source, "C": c, "agreement": score})
            if source not in best or score > best[source][0]:
                best[source] = (score, name, c, cv_p[0])
    for source, (score, name, c, cv_first) in best.items():
        inputs = variants[name][1]
        x = _design(data, source, inputs)
        params = fit_ovr(x[fit], y[fit], c)
        p = predict(params, x)
        out["chosen"][source] = {
            "variant": name,
            "C": c,
            "fit_cv_agreement": score,
            "fit_agreement": agreement(p[fit], y[fit]),
            "report_agreement": agreement(p[~fit], y[~fit]),
            "fit_photos": int(fit.sum()),
            "report_photos": int((~fit).sum()),
            "fit_cv_precision_at_0.85": precision_at(cv_first, y[fit]),
            "report_precision_at_0.85": precision_at(p[~fit], y[~fit]),
            "params": params,
            "inputs": list(inputs),
        }
    return out


def shipped_models(result: dict[str, Any], deck: str, ratings: str) -> dict[str, Any]:
    """The ``data/colour-model.json`` payload: one :class:`kiekai.perception.colour.ColourModel`
    entry per source, with how it was made."""
    from kiekai.perception.colour import ColourModel

    models = []
    for source, chosen in result["chosen"].items():
        params = chosen["params"]
        info = {k: v for k, v in chosen.items() if k not in {"params", "inputs"}}
        models.append(
            ColourModel(
                name=source,
                inputs=tuple(chosen["inputs"]),
                mean=params["mean"],
                scale=params["scale"],
                coef=params["coef"],
                intercept=params["intercept"],
                info=info,
            ).to_dict()
        )
    return {
        "format": 1,
        "what": "one-vs-rest logistic models per basic colour term: colour features (+ the class's "
        "typical colour) -> probability that both raters name that colour for the photo's subject",
        "truth": "both raters gave the same non-mixed colour (data/people-rounds/photo-ratings.tsv)",
        "split": "sha256(file name)[:8] as an integer: even = fit, odd = report",
        "fitted_on": f"the fit half only ({result['photos']['fit']} photos); variant and C chosen by "
        f"{FOLDS}-fold stratified CV x {REPEATS} inside the fit half; report half read once after",
        "deck": deck,
        "ratings": ratings,
        "commit": ec.git_commit(),
        "made_by": "python scripts/fit_colour.py --write-model data/colour-model.json",
        "hand_set_rule_agreement": result["hand_set"],
        "cv": result["cv"],
        "models": models,
    }


def render(result: dict[str, Any]) -> str:
    """Markdown: the CV table, then the chosen models with their report figures."""
    cv = ec.markdown_table(
        ["variant", "source", "C", "fit CV agreement"],
        [(r["variant"], r["source"], r["C"], f"{r['agreement']:.3f}") for r in result["cv"]],
    )
    rows = []
    for source, ch in result["chosen"].items():
        prec = ", ".join(
            f"{t} {v['right']}/{v['called']}"
            for t, v in ch["report_precision_at_0.85"].items()
            if v["called"]
        )
        rows.append(
            (
                source,
                ch["variant"],
                ch["C"],
                f"{ch['fit_cv_agreement']:.3f}",
                f"{ch['report_agreement']:.3f} (n={ch['report_photos']})",
                prec or "-",
            )
        )
    chosen = ec.markdown_table(
        ["source", "variant", "C", "fit CV", "report", "report: right/called at > 0.85"], rows
    )
    hand = result["hand_set"]
    return f"hand-set rule: fit {hand['fit']:.3f}, report {hand['report']:.3f}\n\n{cv}\n\n{chosen}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_rating_args(p)
    p.add_argument("--write-model", type=Path, default=None, help="write data/colour-model.json")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        data = load_data(args.deck, args.ratings, limit=args.limit)
        for note in data["notes"]:
            print(note, file=sys.stderr)
        result = run(data)
        print(render(result))
        payload = shipped_models(
            result, str(ec.display_path(args.deck)), str(ec.display_path(args.ratings))
        )
        if args.json:
            ec.write_json(args.json, payload)
        if args.write_model:
            args.write_model.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {ec.display_path(args.write_model)}")
        return 0

    return ec.run_main(body)
