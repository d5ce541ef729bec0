"""kiekai/eval/people_detector.py (scripts/eval_people_detector.py): the split, the truth, the
threshold rule, the fitted candidates, and a short end-to-end run on real dev photos."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from kiekai.eval import common as ec
from kiekai.eval import people_detector as pd
from kiekai.perception.people import PeopleModel, load_models


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))


def test_the_split_is_by_the_hash_of_the_file_name():
    name = "n01440764.jpg"
    even = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % 2 == 0
    assert pd.half_of(name) == ("fit" if even else "report")
    assert pd.half_of(f"photos/{name}") == pd.half_of(name)  # the file name, not the path
    truth = pd.load_ratings()
    halves = {"fit": [0, 0], "report": [0, 0]}
    for file, yes in truth.items():
        halves[pd.half_of(file)][0] += 1
        halves[pd.half_of(file)][1] += yes
    assert halves == {"fit": [299, 67], "report": [301, 52]}


def test_truth_is_both_raters_yes(tmp_path):
    truth = pd.load_ratings()
    assert len(truth) == 600 and sum(truth.values()) == 119
    assert truth["photos/n03538406.jpg"] is False  # the one photo the raters split on
    one = tmp_path / "one.tsv"
    one.write_text("file\trater\tpeople\na.jpg\tR1\tyes\n", encoding="utf-8")
    assert pd.load_ratings(one) == {"a.jpg": False}  # one rater is not both
    bad = tmp_path / "bad.tsv"
    bad.write_text("file\tsetting\na.jpg\tindoors\n", encoding="utf-8")
    with pytest.raises(ec.EvalError, match="people"):
        pd.load_ratings(bad)
    with pytest.raises(ec.EvalError, match="--ratings"):
        pd.load_ratings(tmp_path / "missing.tsv")


def test_precision_recall_and_the_threshold_rule():
    scores = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9])
    truth = np.array([False, True, False, False, True, True, True])
    assert pd.precision_recall(scores, truth, 0.7) == (1.0, 0.75)
    assert pd.precision_recall(scores, truth, 0.95) == (1.0, 0.0)
    assert pd.precision_recall(scores, np.zeros(7, bool), 0.5) == (0.0, 0.0)
    # precision >= 0.9 with the most recall: 0.7 (3 of 4, precision 1); 0.6 has precision 0.75
    assert pd.choose_threshold(scores, truth) == (0.7, True)
    # nobody reaches precision 0.99 at recall > 0 except 0.7..0.9; all give precision 1
    assert pd.choose_threshold(scores, truth, 0.99) == (0.7, True)
    # unreachable precision: the best F1 instead, flagged
    noisy = np.array([True, False, True, False, True, True, False])
    threshold, met = pd.choose_threshold(scores, noisy, 0.99)
    assert not met and threshold in scores


def test_a_fitted_candidate_is_thresholded_on_cross_validated_fit_scores():
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.3
    x = (y * 2.5 + rng.normal(size=200))[:, None]
    fit = np.arange(200) % 2 == 0
    row = pd.evaluate(pd.Candidate("toy", (("d", "f", "identity"),)), x, y, fit)
    assert row["fit_precision_reached"] and row["fit"]["precision"] >= 0.9
    assert 0.0 < row["threshold"] < 1.0 and row["report"]["photos"] == 100
    assert row["params"]["coef"][0] > 0
    raw = pd.evaluate(pd.Candidate("raw", (("d", "f", "identity"),), fitted=False), x, y, fit)
    assert raw["params"] is None and raw["threshold"] in x[fit, 0]


def _small_deck(dev_deck: Path, folder: Path, per_group: int = 4) -> tuple[Path, Path]:
    """A deck of 4 x per_group rated dev photos (people/no people x fit/report halves) and its
    ratings file, in ``folder`` (a temporary folder: photos are never copied into the repo)."""
    truth = pd.load_ratings()
    chosen: dict[tuple[str, bool], list[str]] = {}
    for file in sorted(truth):
        group = chosen.setdefault((pd.half_of(file), truth[file]), [])
        if len(group) < per_group:
            group.append(file)
    (folder / "photos").mkdir(parents=True)
    lines = ["file\trater\tpeople"]
    for files in chosen.values():
        for file in files:
            shutil.copyfile(dev_deck / file, folder / file)
            answer = "yes" if truth[file] else "no"
            lines += [f"{file}\tR1\t{answer}", f"{file}\tR2\t{answer}"]
    ratings = folder / "ratings.tsv"
    ratings.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder, ratings


def test_run_measures_candidates_on_real_photos(dev_deck, tmp_path):
    deck, ratings = _small_deck(dev_deck, tmp_path / "deck")
    candidates = (pd.CANDIDATES[1], pd.SHIPPED[1])  # haar-frontal raw and fitted (OpenCV only)
    result = pd.run(deck, ratings, cache_root=tmp_path / "emb", candidates=candidates)
    assert result["photos"] == 16 and [r["candidate"] for r in result["rows"]] == [
        c.name for c in candidates
    ]
    for row in result["rows"]:
        assert row["fit"]["photos"] == row["report"]["photos"] == 8
        for half in ("fit", "report"):
            assert 0.0 <= row[half]["precision"] <= 1.0 and 0.0 <= row[half]["recall"] <= 1.0
        assert row["ms_per_photo"] > 0
    table = pd.render(result)
    assert "| haar-frontal |" in table and "report P" in table
    with pytest.raises(ec.EvalError, match="was not measured"):
        pd.shipped_models(result)


def test_main_writes_models_the_perception_reads(dev_deck, tmp_path, capsys):
    from kiekai import models

    try:
        models.resolve_face_detector()
    except models.ModelUnavailable as exc:
        pytest.skip(str(exc))
    deck, ratings = _small_deck(dev_deck, tmp_path / "deck", per_group=3)
    out = tmp_path / "people-model.json"
    status = pd.main(
        [
            "--deck",
            str(deck),
            "--ratings",
            str(ratings),
            "--shipped-only",
            "--write-model",
            str(out),
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "| mtcnn (logistic) |" in printed and "wrote" in printed
    written = load_models(out)
    assert [m.detectors for m in written] == [("mtcnn",), ("haar-frontal",)]
    assert all(isinstance(m, PeopleModel) and m.info["report"]["photos"] == 6 for m in written)


def test_main_reports_user_errors(tmp_path, capsys):
    assert pd.main(["--deck", str(tmp_path / "nowhere")]) == 2
    assert "error:" in capsys.readouterr().err
