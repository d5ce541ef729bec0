"""Measure the people detectors against the stand-in raters (``scripts/eval_people_detector.py``).

Ground truth: ``data/people-rounds/photo-ratings.tsv``, two stand-in raters per dev photo; a
photo shows people when **both** raters said ``people`` yes (119 of 600; the raters disagree on
one photo, which counts as no). Photos are split in two halves by the SHA-256 of their file
name (``n01440764.jpg``: the first 8 hex digits read as an integer, even: **fit** half, odd:
**report** half; :func:`half_of`). Thresholds and weights are chosen on the fit half only;
precision and recall are reported on both halves.

Candidates (:data:`CANDIDATES`):

* one detector output, thresholded (nothing fitted): HOG people score, each Haar cascade's
  neighbour count, MTCNN's highest face probability;
* a logistic model (scikit-learn, inputs standardised, C = 1) fitted on the fit half: the
  OpenCV detectors together; the classifier's own evidence (its probability mass on classes
  that show people: the three person classes, clothing, headdress, musical instruments, sports
  equipment, and animals against); MTCNN alone; MTCNN with everything else. The fit-half figures
  of a fitted candidate come from 5-fold cross-validated predictions within the fit half (the
  threshold is chosen on those), the report-half figures from the model refitted on the whole
  fit half.

Threshold rule (:func:`choose_threshold`): the one with the highest recall among those with
precision >= 0.90 on the fit half; when none reaches 0.90, the one with the highest F1.

``--write-model PATH`` writes the models :class:`kiekai.perception.people.PeoplePerception`
uses (:data:`SHIPPED`, most preferred first) to ``data/people-model.json``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from kiekai.eval import common as ec

RATINGS = ec.REPO / "data" / "people-rounds" / "photo-ratings.tsv"
#: Precision the threshold must reach on the fit half (the target also asks recall >= 0.80).
MIN_PRECISION = 0.90
TARGET_RECALL = 0.80
#: Inverse L2 strength of every logistic model (on standardised inputs), fixed beforehand.
C = 1.0
FOLDS = 5
#: The classifier's evidence: WordNet synsets whose ImageNet classes show people (or, for
#: animal, mostly do not); one input each, the log of the photo's probability mass under it.
CLASSIFIER_GROUPS = (
    "person.n.01",
    "clothing.n.01",
    "headdress.n.01",
    "musical_instrument.n.01",
    "sports_equipment.n.01",
    "animal.n.01",
)


def half_of(file_name: str) -> str:
    """``"fit"`` or ``"report"``: even or odd first 8 hex digits of the SHA-256 of the photo's
    file name (the last path part, e.g. ``n01440764.jpg``)."""
    name = PurePosixPath(file_name).name
    return (
        "fit"
        if int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) % 2 == 0
        else "report"
    )


def load_ratings(path: Path | str = RATINGS) -> dict[str, bool]:
    """Photo path (``photos/n01440764.jpg``) -> shows people (both raters said yes).

    Raises:
        EvalError: the file is missing or lacks the ``file``/``people`` columns.
    """
    path = ec.require_file(path, "ratings file", "--ratings")
    votes: dict[str, list[bool]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        if not reader.fieldnames or not {"file", "people"} <= set(reader.fieldnames):
            raise ec.EvalError(f"{path} needs the columns file and people (tab-separated)")
        for row in reader:
            votes.setdefault(row["file"].strip(), []).append(row["people"].strip().lower() == "yes")
    return {file: len(v) >= 2 and all(v) for file, v in votes.items()}


def precision_recall(
    scores: np.ndarray, truth: np.ndarray, threshold: float
) -> tuple[float, float]:
    """Precision and recall of ``scores >= threshold`` (precision 1.0 when nothing is predicted;
    recall 0.0 without positives)."""
    predicted = scores >= threshold
    hits = int((predicted & truth).sum())
    precision = hits / int(predicted.sum()) if predicted.any() else 1.0
    recall = hits / int(truth.sum()) if truth.any() else 0.0
    return precision, recall


def choose_threshold(
    scores: np.ndarray, truth: np.ndarray, min_precision: float = MIN_PRECISION
) -> tuple[float, bool]:
    """The threshold with the most recall at precision >= ``min_precision`` (the lowest such
    threshold), else the one with the highest F1; and whether the precision was reached."""
    best: tuple[tuple[float, float], float] | None = None
    met = False
    for t in np.unique(scores):
        p, r = precision_recall(scores, truth, float(t))
        if p >= min_precision:
            key, ok = (1.0 + r, -t), True
        else:
            key, ok = (2 * p * r / (p + r) if p + r else 0.0, -t), False
        if best is None or key > best[0]:
            best, met = (key, float(t)), ok
    if best is None:
        return 0.5, False
    return best[1], met


@dataclass(frozen=True)
class Candidate:
    """One thing to measure: a raw detector output (``inputs`` of one entry, ``fitted`` False)
    or a logistic model over ``inputs`` (``(detector, feature, transform)``)."""

    name: str
    inputs: tuple[tuple[str, str, str], ...]
    fitted: bool = True

    @property
    def detectors(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d for d, _, _ in self.inputs))


def _raw(name: str, detector: str, feature: str) -> Candidate:
    return Candidate(name, ((detector, feature, "identity"),), fitted=False)


#: The shipped models' single inputs: monotone in the raw detector output, so they rank photos
#: as the raw candidate does; the logistic only calibrates it into a probability.
MTCNN_INPUTS = (("mtcnn", "max_prob", "logit"),)
HAAR_FRONTAL_INPUTS = (("haar-frontal", "neighbours", "log1p"),)
OPENCV_INPUTS = HAAR_FRONTAL_INPUTS + (
    ("haar-frontal", "detections", "log1p"),
    ("haar-profile", "neighbours", "log1p"),
    ("haar-upperbody", "neighbours", "log1p"),
    ("hog", "max_score", "identity"),
)
CLASSIFIER_INPUTS = tuple(("classifier", g, "identity") for g in CLASSIFIER_GROUPS)
#: MediaPipe's legacy solutions (kiekai.perception.people.MediaPipe*), every feature of each.
MP_POSE_INPUTS = (
    ("mp-pose", "det_score", "identity"),
    ("mp-pose", "landmarks", "identity"),
    ("mp-pose", "visibility", "identity"),
    ("mp-pose", "box_area", "identity"),
)
MP_HANDS_INPUTS = (
    ("mp-hands", "max_score", "identity"),
    ("mp-hands", "palms", "log1p"),
    ("mp-hands", "hands", "log1p"),
    ("mp-hands", "largest_area", "identity"),
)
MP_FACE_INPUTS = (
    ("mp-face", "max_score", "identity"),
    ("mp-face", "faces", "log1p"),
    ("mp-face", "largest_area", "identity"),
)
MP_SELFIE_INPUTS = (("mp-selfie", "share", "identity"), ("mp-selfie", "mean", "identity"))
MEDIAPIPE_INPUTS = MP_POSE_INPUTS + MP_HANDS_INPUTS + MP_FACE_INPUTS + MP_SELFIE_INPUTS

#: The models written by ``--write-model``, most preferred first.
SHIPPED = (
    Candidate("mtcnn (logistic)", MTCNN_INPUTS),
    Candidate("haar-frontal (logistic)", HAAR_FRONTAL_INPUTS),
)
CANDIDATES = (
    _raw("hog", "hog", "max_score"),
    _raw("haar-frontal", "haar-frontal", "neighbours"),
    _raw("haar-profile", "haar-profile", "neighbours"),
    _raw("haar-upperbody", "haar-upperbody", "neighbours"),
    _raw("mtcnn", "mtcnn", "max_prob"),
    Candidate("opencv (logistic)", OPENCV_INPUTS),
    Candidate("classifier (logistic)", CLASSIFIER_INPUTS),
    *SHIPPED,
    Candidate(
        "mtcnn+opencv+classifier (logistic)", MTCNN_INPUTS + OPENCV_INPUTS + CLASSIFIER_INPUTS
    ),
    _raw("mp-pose", "mp-pose", "det_score"),
    _raw("mp-hands", "mp-hands", "max_score"),
    _raw("mp-face", "mp-face", "max_score"),
    _raw("mp-selfie", "mp-selfie", "share"),
    Candidate("mp-pose (logistic)", MP_POSE_INPUTS),
    Candidate("mp-hands (logistic)", MP_HANDS_INPUTS),
    Candidate("mp-face (logistic)", MP_FACE_INPUTS),
    Candidate("mp-selfie (logistic)", MP_SELFIE_INPUTS),
    Candidate("mediapipe (logistic)", MEDIAPIPE_INPUTS),
    Candidate("mtcnn+mp-face (logistic)", MTCNN_INPUTS + MP_FACE_INPUTS),
    Candidate("mtcnn+mp-pose (logistic)", MTCNN_INPUTS + MP_POSE_INPUTS),
    Candidate("mtcnn+mp-pose+mp-hands (logistic)", MTCNN_INPUTS + MP_POSE_INPUTS + MP_HANDS_INPUTS),
    Candidate(
        "mtcnn+mp-pose+mp-hands+mp-face (logistic)",
        MTCNN_INPUTS + MP_POSE_INPUTS + MP_HANDS_INPUTS + MP_FACE_INPUTS,
    ),
    Candidate("mtcnn+mediapipe (logistic)", MTCNN_INPUTS + MEDIAPIPE_INPUTS),
    Candidate(
        "mtcnn+mediapipe+opencv+classifier (logistic)",
        MTCNN_INPUTS + MEDIAPIPE_INPUTS + OPENCV_INPUTS + CLASSIFIER_INPUTS,
    ),
)


def design(
    candidate: Candidate, features: dict[str, np.ndarray], names: dict[str, tuple[str, ...]]
) -> np.ndarray:
    """(N, inputs) raw transformed inputs of a candidate (not standardised)."""
    from kiekai.perception.people import TRANSFORMS

    return np.stack(
        [
            TRANSFORMS[t](features[d][:, names[d].index(f)].astype(np.float64))
            for d, f, t in candidate.inputs
        ],
        axis=1,
    )


def fit_logistic(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """A logistic regression (C = :data:`C`) on standardised ``x``: ``mean``, ``scale``,
    ``coef``, ``intercept`` as lists/floats (the fields of a ``PeopleModel``)."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    model = LogisticRegression(C=C, max_iter=5000).fit((x - mean) / scale, y)
    return {
        "mean": [float(v) for v in mean],
        "scale": [float(v) for v in scale],
        "coef": [float(v) for v in model.coef_[0]],
        "intercept": float(model.intercept_[0]),
    }


def predict(params: dict[str, Any], x: np.ndarray) -> np.ndarray:
    z = ((x - np.asarray(params["mean"])) / np.asarray(params["scale"])) @ np.asarray(
        params["coef"]
    )
    return 1.0 / (1.0 + np.exp(-(z + params["intercept"])))


def cross_validated(x: np.ndarray, y: np.ndarray, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Out-of-fold probabilities of :func:`fit_logistic` (stratified folds, fixed seed)."""
    from sklearn.model_selection import StratifiedKFold

    folds = max(2, min(folds, int(y.sum()), int((~y).sum())))
    out = np.zeros(len(y))
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, y):
        out[test] = predict(fit_logistic(x[train], y[train]), x[test])
    return out


def evaluate(candidate: Candidate, x: np.ndarray, y: np.ndarray, fit: np.ndarray) -> dict[str, Any]:
    """Threshold (and weights) on the fit half, precision and recall on both halves."""
    scores = np.zeros(len(y))
    params = None
    if candidate.fitted:
        scores[fit] = cross_validated(x[fit], y[fit])
        params = fit_logistic(x[fit], y[fit])
        scores[~fit] = predict(params, x[~fit])
    else:
        scores = x[:, 0]
    threshold, met = choose_threshold(scores[fit], y[fit])
    fp, fr = precision_recall(scores[fit], y[fit], threshold)
    rp, rr = precision_recall(scores[~fit], y[~fit], threshold)
    at_half = None
    if candidate.fitted:
        hp, hr = precision_recall(scores[~fit], y[~fit], 0.5)
        at_half = {"precision": hp, "recall": hr}
    return {
        "candidate": candidate.name,
        "threshold": threshold,
        "fit": {
            "precision": fp,
            "recall": fr,
            "photos": int(fit.sum()),
            "people": int(y[fit].sum()),
        },
        "report": {
            "precision": rp,
            "recall": rr,
            "photos": int((~fit).sum()),
            "people": int(y[~fit].sum()),
        },
        "fit_precision_reached": met,
        "target_met": rp >= MIN_PRECISION and rr >= TARGET_RECALL,
        "params": params,
        "report_at_0.5": at_half,
    }


def classifier_features(cards: Sequence[Any], cache_root: Path | None) -> tuple[np.ndarray, float]:
    """(N, groups) log probability mass (``log(mass + 0.001)``) of the classifier under each of
    :data:`CLASSIFIER_GROUPS`, and the seconds it took (uncached photos only)."""
    from kiekai.lexicon import hypernym_closure, synset_for_wnid
    from kiekai.perception.classifier import ClassifierPerception

    classifier = ClassifierPerception(progress=False, cache_root=cache_root)
    start = time.perf_counter()
    probabilities = classifier.probabilities(cards).astype(np.float64)
    seconds = time.perf_counter() - start
    ancestors = [{s.name() for s in hypernym_closure(synset_for_wnid(w))} for w in classifier.wnids]
    masks = np.asarray([[g in a for a in ancestors] for g in CLASSIFIER_GROUPS], dtype=np.float64)
    return np.log(probabilities @ masks.T + 1e-3), seconds


def run(
    deck: Path | str = ec.DEFAULT_DECK,
    ratings: Path | str = RATINGS,
    *,
    limit: int | None = None,
    cache_root: Path | str | None = None,
    candidates: Sequence[Candidate] = CANDIDATES,
    echo: Any = None,
) -> dict[str, Any]:
    """Read every rated photo with every detector the candidates need and measure each.

    Args:
        cache_root: feature cache folder; ``None``: a new temporary folder, so the times are
            those of a first pass.
        limit: the first N rated photos of the deck only (quick checks).

    Returns:
        ``{"rows": [...evaluate() results, with "ms_per_photo" and "detectors"...],
        "notes": [...], "photos": N, "truth": ..., "split": ..., "skipped": {...}}``; a
        candidate whose detector did not load is left out with a note.
    """
    from kiekai.perception.people import PeoplePerception

    truth = load_ratings(ratings)
    cards = [card for card in ec.load_deck_cards(deck) if card.id in truth]
    if limit is not None:
        cards = cards[:limit]
    if not cards:
        raise ec.EvalError(f"no photo of {deck} is rated in {ratings}")
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="kiekai-people-eval-") as temp:
        root = Path(cache_root) if cache_root is not None else Path(temp)
        wanted = list(
            dict.fromkeys(d for c in candidates for d in c.detectors if d != "classifier")
        )
        people = PeoplePerception(wanted, models=[], echo=notes.append, cache_root=root)
        features: dict[str, np.ndarray] = {}
        names: dict[str, tuple[str, ...]] = {}
        seconds: dict[str, float] = {}
        for name, detector in people.detectors.items():
            features[name] = people.features(cards, name)
            names[name] = detector.feature_names
            seconds[name] = people.seconds[name] / max(1, people.computed[name])
        if any("classifier" in c.detectors for c in candidates):
            from kiekai.models import ModelUnavailable

            try:
                features["classifier"], total = classifier_features(cards, root)
                names["classifier"] = CLASSIFIER_GROUPS
                seconds["classifier"] = total / len(cards)
            except ModelUnavailable as exc:
                notes.append(f"the classifier is unavailable: {exc}")
    y = np.asarray([truth[card.id] for card in cards])
    fit = np.asarray([half_of(card.id) == "fit" for card in cards])
    rows = []
    for candidate in candidates:
        missing = [d for d in candidate.detectors if d not in features]
        if missing:
            notes.append(f"{candidate.name}: left out ({', '.join(missing)} unavailable)")
            continue
        x = design(candidate, features, names)
        readable = ~np.isnan(x).any(axis=1)
        if not readable.all():
            notes.append(
                f"{candidate.name}: {int((~readable).sum())} photos unreadable by its detectors, left out"
            )
        if not (y[fit & readable].any() and (~y[fit & readable]).any()):
            notes.append(
                f"{candidate.name}: left out (the fit half needs photos with and without people)"
            )
            continue
        row = evaluate(candidate, x[readable], y[readable], fit[readable])
        row["detectors"] = list(candidate.detectors)
        row["inputs"] = [list(i) for i in candidate.inputs]
        row["ms_per_photo"] = 1000 * sum(seconds[d] for d in candidate.detectors)
        rows.append(row)
    return {
        "rows": rows,
        "notes": notes,
        "photos": len(cards),
        "truth": "both raters said people (data/people-rounds/photo-ratings.tsv)",
        "split": "sha256(file name)[:8] as an integer: even = fit, odd = report",
        "skipped": {name: len(people.skipped(name)) for name in people.detectors},
    }


def shipped_models(result: dict[str, Any]) -> dict[str, Any]:
    """The ``people-model.json`` payload from a :func:`run` over :data:`SHIPPED`."""
    by_name = {row["candidate"]: row for row in result["rows"]}
    models = []
    for candidate in SHIPPED:
        row = by_name.get(candidate.name)
        if row is None:
            raise ec.EvalError(
                f"cannot write the model: {candidate.name} was not measured (see the notes)"
            )
        models.append(
            {
                "name": candidate.name,
                "inputs": row["inputs"],
                **row["params"],
                "threshold": row["threshold"],
                "fit_cross_validated": row["fit"],
                "report": row["report"],
            }
        )
    return {
        "format": 1,
        "what": "logistic models: detector features -> probability that a photo shows people; "
        "the first model whose detectors read a photo scores it",
        "truth": result["truth"],
        "split": result["split"],
        "fitted_on": "the fit half only; threshold = most recall at precision >= 0.90 on the "
        "fit half's cross-validated probabilities",
        "C": C,
        "made_by": "python scripts/eval_people_detector.py --write-model data/people-model.json",
        "models": models,
    }


def render(result: dict[str, Any]) -> str:
    """The table printed by the script (markdown)."""
    rows = [
        (
            r["candidate"],
            f"{r['threshold']:.3g}",
            f"{r['fit']['precision']:.3f}",
            f"{r['fit']['recall']:.3f}",
            f"{r['report']['precision']:.3f}",
            f"{r['report']['recall']:.3f}",
            "yes" if r["target_met"] else "no",
            "-"
            if r["report_at_0.5"] is None
            else f"{r['report_at_0.5']['precision']:.3f} / {r['report_at_0.5']['recall']:.3f}",
            f"{r['ms_per_photo']:.0f}",
        )
        for r in result["rows"]
    ]
    head = (
        f"{result['photos']} photos; truth: {result['truth']}; split: {result['split']}; "
        "fitted candidates: fit-half figures are 5-fold cross-validated"
    )
    table = ec.markdown_table(
        [
            "candidate",
            "threshold",
            "fit P",
            "fit R",
            "report P",
            "report R",
            "P>=0.9 & R>=0.8",
            "report P / R at p=0.5",
            "ms/photo",
        ],
        rows,
    )
    return head + "\n\n" + table


def add_rating_args(p: argparse.ArgumentParser) -> None:
    """The options every evaluation against the photo raters shares: ``--deck``, ``--ratings``,
    ``--limit`` and ``--json`` (this module's and :mod:`kiekai.eval.scenes`'s command lines)."""
    p.add_argument("--deck", type=Path, default=ec.DEFAULT_DECK, help="the rated deck folder")
    p.add_argument("--ratings", type=Path, default=RATINGS, help="photo-ratings.tsv")
    p.add_argument(
        "--limit", type=int, default=None, help="first N rated photos only (quick checks)"
    )
    p.add_argument("--json", type=Path, default=None, help="also write the results as JSON")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_rating_args(p)
    p.add_argument(
        "--cache",
        action="store_true",
        help="use kiekai's feature cache (default: a temporary one, so times are a first pass)",
    )
    p.add_argument(
        "--shipped-only", action="store_true", help="measure only the models --write-model writes"
    )
    p.add_argument(
        "--write-model",
        type=Path,
        default=None,
        help="write the shipped models (data/people-model.json)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        cache_root = None
        if args.cache:
            from kiekai.models import cache_dir

            cache_root = cache_dir() / "embeddings"
        candidates = SHIPPED if args.shipped_only else CANDIDATES
        result = run(
            args.deck, args.ratings, limit=args.limit, cache_root=cache_root, candidates=candidates
        )
        for note in result["notes"]:
            print(note, file=sys.stderr)
        print(render(result))
        if args.json:
            ec.write_json(args.json, result)
        if args.write_model:
            payload = shipped_models(result)
            args.write_model.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {ec.display_path(args.write_model)}")
        return 0

    return ec.run_main(body)
