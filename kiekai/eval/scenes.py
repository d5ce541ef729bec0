"""Measure scene and subject-colour words against the stand-in raters (``scripts/eval_scenes.py``).

Ground truth: ``data/people-rounds/photo-ratings.tsv``, two stand-in raters per dev photo, each
giving ``setting`` (indoors / outdoors / unclear), ``water`` (yes / no) and ``colour`` (the one
basic colour term of the main subject, or ``mixed``). Rules (:func:`scene_truth`,
:func:`colour_truth`), fixed before measuring:

* **indoors** is true of a photo when **both** raters said ``indoors``; **outdoors** when both
  said ``outdoors``; **water** when both said ``yes``. Every other photo counts as *not* showing
  it: ``unclear`` (a close-up that shows no setting) and a split between the raters (one
  ``indoors``, one ``unclear``) are negatives, so a perception that calls an unclear close-up
  *indoors* pays for it in precision, as it would at a table.
* **subject colour**: only photos where both raters wrote the same colour and it is not
  ``mixed`` are compared; the perception's colour of a photo is its highest-scoring basic colour
  term (:data:`kiekai.perception.colour.BASIC_TERMS`, *gray* read as grey).

Halves: :func:`kiekai.eval.people_detector.half_of` (SHA-256 of the photo's file name, first 8
hex digits as an integer: even = **fit**, odd = **report**). The threshold of a scene word is
chosen on the fit half only (:func:`choose_threshold`: the most recall among thresholds with
precision >= :data:`MIN_PRECISION`, else the best F1); precision and recall, each with its 95 %
Wilson interval, are reported on both halves. Targets: report precision >= 0.85 and recall
>= 0.75 for each scene word; subject-colour agreement >= 0.85 on at least 100 report photos.

Perceptions are loaded through :func:`kiekai.eval.common.load_perception_for` (default kinds
``classifier``, pixels only, and ``labels``, labels.csv's WordNet ids) and asked only through
``Perception.scores(cards, words) -> float32 [N, V]``.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kiekai.eval import common as ec
from kiekai.eval.people_detector import RATINGS, add_rating_args, half_of, precision_recall
from kiekai.eval.people_detector import choose_threshold as _choose_threshold

#: The scene words measured, in report order.
SCENE_WORDS = ("indoors", "outdoors", "water")
#: Precision the threshold must reach on the fit half, and the targets on the report half.
MIN_PRECISION = 0.85
TARGET_RECALL = 0.75
TARGET_COLOUR = 0.85
MIN_COLOUR_PHOTOS = 100
#: Perception kinds measured by default (``kiekai.perception.KINDS``).
KINDS = ("classifier", ec.GAME_LABELS)
SETTINGS = ("indoors", "outdoors", "unclear")


@dataclass(frozen=True)
class PhotoRatings:
    """The two (or more) raters' answers for one photo, in file order.

    Attributes:
        setting: ``indoors`` / ``outdoors`` / ``unclear`` per rater (lower case).
        water: ``True`` for ``yes`` per rater.
        colour: the colour word per rater (lower case, *gray* read as grey; ``mixed`` kept).
    """

    setting: tuple[str, ...]
    water: tuple[bool, ...]
    colour: tuple[str, ...]


def load_ratings(path: Path | str = RATINGS) -> dict[str, PhotoRatings]:
    """Photo path (``photos/n01440764.jpg``) -> its raters' answers.

    Raises:
        EvalError: the file is missing, lacks one of the columns ``file``, ``setting``,
            ``water``, ``colour``, or holds a setting other than indoors/outdoors/unclear.
    """
    path = ec.require_file(path, "ratings file", "--ratings")
    rows: dict[str, list[tuple[str, bool, str]]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        needed = {"file", "setting", "water", "colour"}
        if not reader.fieldnames or not needed <= set(reader.fieldnames):
            raise ec.EvalError(
                f"{path} needs the columns {', '.join(sorted(needed))} (tab-separated)"
            )
        for number, row in enumerate(reader, start=2):
            setting = (row["setting"] or "").strip().lower()
            if setting not in SETTINGS:
                raise ec.EvalError(
                    f"{path}:{number}: setting {setting!r} is not one of {', '.join(SETTINGS)}"
                )
            colour = (row["colour"] or "").strip().lower()
            colour = "grey" if colour == "gray" else colour
            water = (row["water"] or "").strip().lower() == "yes"
            rows.setdefault(row["file"].strip(), []).append((setting, water, colour))
    return {
        file: PhotoRatings(
            tuple(s for s, _, _ in answers),
            tuple(w for _, w, _ in answers),
            tuple(c for _, _, c in answers),
        )
        for file, answers in rows.items()
    }


def scene_truth(ratings: PhotoRatings, word: str) -> bool:
    """Whether ``word`` (one of :data:`SCENE_WORDS`) is true of the photo: every rater (at least
    two) said so (module docstring).

    Raises:
        ValueError: ``word`` is not a scene word.
    """
    if word == "water":
        answers: tuple[bool, ...] = ratings.water
    elif word in ("indoors", "outdoors"):
        answers = tuple(s == word for s in ratings.setting)
    else:
        raise ValueError(f"{word!r} is not one of {', '.join(SCENE_WORDS)}")
    return len(answers) >= 2 and all(answers)


def colour_truth(ratings: PhotoRatings) -> str | None:
    """The raters' colour of the subject when at least two raters gave it, all the same and not
    ``mixed``; else ``None`` (the photo is not compared)."""
    colours = set(ratings.colour)
    if len(ratings.colour) < 2 or len(colours) != 1:
        return None
    (colour,) = colours
    return None if colour == "mixed" else colour


def choose_threshold(
    scores: np.ndarray, truth: np.ndarray, min_precision: float = MIN_PRECISION
) -> tuple[float, bool]:
    """The threshold with the most recall at precision >= ``min_precision`` on these photos
    (the lowest such threshold), else the one with the best F1; and whether the precision was
    reached (:func:`kiekai.eval.people_detector.choose_threshold` at this precision).

    Args:
        scores: float (N,) the perception's scores.
        truth: bool (N,).
    """
    return _choose_threshold(
        np.asarray(scores, dtype=np.float64), np.asarray(truth, dtype=bool), min_precision
    )


def rate(count: int, total: int) -> dict[str, Any]:
    """``{"count", "total", "share", "ci95"}``: a share in [0, 1] and its 95 % Wilson interval."""
    low, high = ec.wilson_interval(count, total)
    return {"count": count, "total": total, "share": ec.share(count, total), "ci95": [low, high]}


def figures(scores: np.ndarray, truth: np.ndarray, threshold: float) -> dict[str, Any]:
    """Precision and recall of ``scores >= threshold`` against ``truth`` as :func:`rate` dicts
    (precision over the photos called, recall over the true photos), plus ``photos``."""
    called = np.asarray(scores) >= threshold
    truth = np.asarray(truth, dtype=bool)
    hits = int((called & truth).sum())
    precision = rate(hits, int(called.sum()))
    if not called.any():
        precision["share"] = precision_recall(np.asarray(scores), truth, threshold)[0]
    return {
        "precision": precision,
        "recall": rate(hits, int(truth.sum())),
        "photos": int(len(truth)),
    }


def evaluate_scene(scores: np.ndarray, truth: np.ndarray, fit: np.ndarray) -> dict[str, Any]:
    """One scene word: threshold chosen on the fit half, figures on both halves.

    Args:
        scores: float (N,) the perception's score of the word on each photo.
        truth: bool (N,) :func:`scene_truth` of each photo.
        fit: bool (N,) True for the fit half.

    Returns:
        ``{"threshold", "fit_precision_reached", "fit": figures(...), "report": figures(...),
        "target_met"}``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    truth = np.asarray(truth, dtype=bool)
    fit = np.asarray(fit, dtype=bool)
    threshold, met = choose_threshold(scores[fit], truth[fit])
    fit_fig = figures(scores[fit], truth[fit], threshold)
    report = figures(scores[~fit], truth[~fit], threshold)
    return {
        "threshold": threshold,
        "fit_precision_reached": met,
        "fit": fit_fig,
        "report": report,
        "target_met": report["precision"]["share"] >= MIN_PRECISION
        and report["recall"]["share"] >= TARGET_RECALL,
    }


def top_colours(scores: np.ndarray) -> list[str]:
    """The highest-scoring basic colour term of each photo.

    Args:
        scores: float (N, 11) the scores of :data:`kiekai.perception.colour.BASIC_TERMS`.
    """
    from kiekai.perception.colour import BASIC_TERMS

    return [BASIC_TERMS[int(i)] for i in np.argmax(np.asarray(scores), axis=1)]


def evaluate_colour(
    predicted: Sequence[str], truth: Sequence[str | None], fit: np.ndarray
) -> dict[str, Any]:
    """Agreement of the perception's subject colour with the raters' on each half.

    Args:
        predicted: the perception's colour of each photo (:func:`top_colours`).
        truth: the raters' agreed colour (:func:`colour_truth`) or ``None`` (not compared).
        fit: bool (N,) True for the fit half.

    Returns:
        ``{"fit": rate(...), "report": rate(...), "confusions": {"truth->said": n, ...}
        (report half), "target_met"}``.
    """
    out: dict[str, Any] = {}
    confusions: dict[str, int] = {}
    for half, mask in (("fit", np.asarray(fit, bool)), ("report", ~np.asarray(fit, bool))):
        pairs = [
            (p, t) for p, t, m in zip(predicted, truth, mask, strict=True) if m and t is not None
        ]
        out[half] = rate(sum(p == t for p, t in pairs), len(pairs))
        if half == "report":
            for p, t in pairs:
                if p != t:
                    confusions[f"{t}->{p}"] = confusions.get(f"{t}->{p}", 0) + 1
    out["confusions"] = dict(sorted(confusions.items(), key=lambda kv: (-kv[1], kv[0])))
    out["target_met"] = (
        out["report"]["share"] >= TARGET_COLOUR and out["report"]["total"] >= MIN_COLOUR_PHOTOS
    )
    return out


def evaluate_perception(
    scene_scores: np.ndarray,
    colour_scores: np.ndarray,
    ratings: Sequence[PhotoRatings],
    files: Sequence[str],
    knows_colours: bool = True,
) -> dict[str, Any]:
    """Every measure for one perception.

    Args:
        scene_scores: float (N, 3) scores of :data:`SCENE_WORDS`.
        colour_scores: float (N, 11) scores of the basic colour terms.
        ratings: the N photos' ratings; files: their file names (for the halves).
        knows_colours: False when the perception knows no colour word (colour left out).

    Returns:
        ``{"scenes": {word: evaluate_scene(...)}, "colour": evaluate_colour(...) or None}``.
    """
    fit = np.asarray([half_of(f) == "fit" for f in files])
    scenes = {
        word: evaluate_scene(
            scene_scores[:, j], np.asarray([scene_truth(r, word) for r in ratings]), fit
        )
        for j, word in enumerate(SCENE_WORDS)
    }
    colour = None
    if knows_colours:
        colour = evaluate_colour(
            top_colours(colour_scores), [colour_truth(r) for r in ratings], fit
        )
    return {"scenes": scenes, "colour": colour}


def truth_counts(ratings: Mapping[str, PhotoRatings]) -> dict[str, dict[str, int]]:
    """Per half: photos, true photos of each scene word, photos whose setting the raters split
    on or called unclear, and photos with an agreed colour."""
    out: dict[str, dict[str, int]] = {}
    for file, r in ratings.items():
        half = out.setdefault(
            half_of(file),
            {
                "photos": 0,
                **dict.fromkeys(SCENE_WORDS, 0),
                "setting_split": 0,
                "setting_unclear": 0,
                "colour_compared": 0,
                "colour_mixed": 0,
                "colour_split": 0,
            },
        )
        half["photos"] += 1
        for word in SCENE_WORDS:
            half[word] += scene_truth(r, word)
        if len(set(r.setting)) > 1:
            half["setting_split"] += 1
        elif r.setting[0] == "unclear":
            half["setting_unclear"] += 1
        if colour_truth(r) is not None:
            half["colour_compared"] += 1
        elif len(set(r.colour)) > 1:
            half["colour_split"] += 1
        else:
            half["colour_mixed"] += 1
    return dict(sorted(out.items()))


def run(
    deck: Path | str = ec.DEFAULT_DECK,
    ratings: Path | str = RATINGS,
    kinds: Sequence[str] = KINDS,
    *,
    limit: int | None = None,
    load: Callable[[str, Sequence[Any]], tuple[Any, list[Any]]] | None = None,
    echo: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Score every rated photo of the deck with each perception kind and measure it.

    Args:
        deck: the rated deck's folder; ratings: ``photo-ratings.tsv``.
        kinds: perception kinds (``kiekai.perception.KINDS``).
        limit: the first N rated photos of the deck only (quick checks).
        load: ``(kind, cards) -> (perception, usable cards)``; default
            :func:`kiekai.eval.common.load_perception_for` (tests pass a synthetic one).
        echo: receives the perceptions' lines (default: stderr).

    Returns:
        ``{"photos", "truth", "split", "counts": truth_counts(...), "perceptions": {kind:
        evaluate_perception(...) + "name", "photos"}}``.

    Raises:
        EvalError: the deck or the ratings file is missing or malformed, or no photo of the deck
            is rated.
    """
    from kiekai.perception.colour import BASIC_TERMS

    truth = load_ratings(ratings)
    cards = [card for card in ec.load_deck_cards(deck) if card.id in truth]
    if limit is not None:
        cards = cards[:limit]
    if not cards:
        raise ec.EvalError(f"no photo of {deck} is rated in {ratings}")
    load = load or (lambda kind, cs: ec.load_perception_for(kind, cs, echo=echo))
    by_kind: dict[str, Any] = {}
    for kind in kinds:
        perception, usable = load(kind, cards)
        if not usable:
            raise ec.EvalError(f"the {kind} perception can score no rated photo")
        scene_scores = np.asarray(perception.scores(usable, list(SCENE_WORDS)), dtype=np.float64)
        colour_scores = np.asarray(perception.scores(usable, list(BASIC_TERMS)), dtype=np.float64)
        knows = bool(np.asarray(perception.knows(list(BASIC_TERMS))).any())
        result = evaluate_perception(
            scene_scores,
            colour_scores,
            [truth[c.id] for c in usable],
            [c.id for c in usable],
            knows,
        )
        result["name"] = getattr(perception, "name", kind)
        result["photos"] = len(usable)
        by_kind[kind] = result
    return {
        "photos": len(cards),
        "truth": "indoors/outdoors/water: both raters said so; colour: both raters gave the same "
        "non-mixed colour (data/people-rounds/photo-ratings.tsv)",
        "split": "sha256(file name)[:8] as an integer: even = fit, odd = report",
        "counts": truth_counts({c.id: truth[c.id] for c in cards}),
        "perceptions": by_kind,
    }


def _share(r: dict[str, Any]) -> str:
    low, high = r["ci95"]
    return f"{r['share']:.3f} ({r['count']}/{r['total']}; {low:.2f}-{high:.2f})"


def render(result: dict[str, Any]) -> str:
    """The tables printed by the script (markdown): scene words, then subject colour."""
    scene_rows, colour_rows = [], []
    for block in result["perceptions"].values():
        for word, row in block["scenes"].items():
            scene_rows.append(
                (
                    block["name"],
                    word,
                    f"{row['threshold']:.3g}",
                    _share(row["fit"]["precision"]),
                    _share(row["fit"]["recall"]),
                    _share(row["report"]["precision"]),
                    _share(row["report"]["recall"]),
                    "yes" if row["target_met"] else "no",
                )
            )
        colour = block["colour"]
        if colour is None:
            colour_rows.append((block["name"], "-", "- (knows no colour word)", "no"))
        else:
            colour_rows.append(
                (
                    block["name"],
                    _share(colour["fit"]),
                    _share(colour["report"]),
                    "yes" if colour["target_met"] else "no",
                )
            )
    head = f"{result['photos']} rated photos; truth: {result['truth']}; split: {result['split']}"
    scenes = ec.markdown_table(
        [
            "perception",
            "word",
            "threshold",
            "fit P",
            "fit R",
            "report P",
            "report R",
            "P>=.85 & R>=.75",
        ],
        scene_rows,
    )
    colours = ec.markdown_table(
        ["perception", "colour agreement, fit", "colour agreement, report", ">= .85"], colour_rows
    )
    return f"{head}\n\n{scenes}\n\n{colours}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_rating_args(p)
    p.add_argument(
        "--perception",
        dest="kinds",
        nargs="+",
        default=list(KINDS),
        help="perception kinds to measure (default: classifier labels+colour)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        result = run(args.deck, args.ratings, args.kinds, limit=args.limit)
        print(render(result))
        if args.json:
            ec.write_json(args.json, result)
        return 0

    return ec.run_main(body)
