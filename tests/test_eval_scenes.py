"""kiekai/eval/scenes.py (scripts/eval_scenes.py): the ratings, the truth rules, the halves,
the threshold rule, a run with a tiny synthetic perception, and the command line."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from kiekai.eval import common as ec
from kiekai.eval import scenes as sc
from kiekai.perception.colour import BASIC_TERMS

HEADER = "file\trater\tpeople\tsetting\twater\tcolour\n"


def _ratings(tmp_path, rows: list[tuple[str, str, str, str]], name: str = "r.tsv"):
    """A ratings file: each row (file, setting, water, colour) given by two raters alike,
    unless the setting/colour is written "a|b" (first rater a, second b)."""
    lines = [HEADER]
    for file, setting, water, colour in rows:
        s1, _, s2 = setting.partition("|")
        c1, _, c2 = colour.partition("|")
        lines.append(f"{file}\tR1\tno\t{s1}\t{water}\t{c1}\n")
        lines.append(f"{file}\tR2\tno\t{s2 or s1}\t{water}\t{c2 or c1}\n")
    path = tmp_path / name
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_the_real_ratings_and_their_halves():
    ratings = sc.load_ratings()
    assert len(ratings) == 600 and all(len(r.setting) == 2 for r in ratings.values())
    name = "n01440764.jpg"
    even = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % 2 == 0
    assert sc.half_of(f"photos/{name}") == ("fit" if even else "report")
    counts = sc.truth_counts(ratings)
    assert counts["fit"]["photos"] == 299 and counts["report"]["photos"] == 301
    for half in counts.values():
        # every photo is either compared on colour, or mixed, or split between the raters
        assert (
            half["colour_compared"] + half["colour_mixed"] + half["colour_split"] == half["photos"]
        )
        assert (
            half["indoors"] + half["outdoors"] + half["setting_unclear"] + half["setting_split"]
            == half["photos"]
        )
        assert half["colour_compared"] >= 100  # the target's minimum of rated photos


def test_truth_rules(tmp_path):
    path = _ratings(
        tmp_path,
        [
            ("a.jpg", "indoors", "no", "black"),
            ("b.jpg", "indoors|unclear", "no", "black|brown"),
            ("c.jpg", "unclear", "yes", "mixed"),
            ("d.jpg", "outdoors", "yes", "Gray"),
        ],
    )
    r = sc.load_ratings(path)
    assert sc.scene_truth(r["a.jpg"], "indoors") and not sc.scene_truth(r["a.jpg"], "outdoors")
    assert not sc.scene_truth(r["b.jpg"], "indoors")  # the raters split: not indoors
    assert not sc.scene_truth(r["c.jpg"], "indoors") and not sc.scene_truth(r["c.jpg"], "outdoors")
    assert sc.scene_truth(r["c.jpg"], "water") and not sc.scene_truth(r["a.jpg"], "water")
    assert sc.scene_truth(r["d.jpg"], "outdoors")
    assert [sc.colour_truth(r[f]) for f in ("a.jpg", "b.jpg", "c.jpg", "d.jpg")] == [
        "black",
        None,
        None,
        "grey",
    ]
    with pytest.raises(ValueError, match="not one of"):
        sc.scene_truth(r["a.jpg"], "kitchen")
    one = tmp_path / "one.tsv"
    one.write_text(HEADER + "a.jpg\tR1\tno\tindoors\tyes\tred\n", encoding="utf-8")
    only = sc.load_ratings(one)["a.jpg"]
    assert (
        not sc.scene_truth(only, "indoors") and sc.colour_truth(only) is None
    )  # one rater is not both


def test_malformed_ratings(tmp_path):
    with pytest.raises(ec.EvalError, match="--ratings"):
        sc.load_ratings(tmp_path / "missing.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_text("file\tpeople\na.jpg\tyes\n", encoding="utf-8")
    with pytest.raises(ec.EvalError, match="setting"):
        sc.load_ratings(bad)
    odd = tmp_path / "odd.tsv"
    odd.write_text(HEADER + "a.jpg\tR1\tno\tunderwater\tyes\tred\n", encoding="utf-8")
    with pytest.raises(ec.EvalError, match=":2: setting 'underwater'"):
        sc.load_ratings(odd)


def test_threshold_rule_and_figures():
    scores = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9])
    truth = np.array([False, True, False, False, True, True, True])
    # precision >= .85 with the most recall: 0.7 (3 of 4 true photos, precision 1); at 0.6 the
    # precision is 0.75
    assert sc.choose_threshold(scores, truth) == (0.7, True)
    assert sc.choose_threshold(scores, truth, 0.7) == (0.6, True)  # 0.75 precision now enough
    row = sc.figures(scores, truth, 0.7)
    assert row["precision"]["count"] == 3 and row["precision"]["total"] == 3
    assert row["recall"]["share"] == 0.75 and row["photos"] == 7
    low, high = row["recall"]["ci95"]
    assert low < 0.75 < high
    nothing = sc.figures(scores, truth, 2.0)
    assert nothing["precision"]["share"] == 1.0 and nothing["recall"]["share"] == 0.0


def test_evaluate_scene_chooses_on_the_fit_half_only():
    rng = np.random.default_rng(0)
    truth = rng.random(400) < 0.3
    scores = np.clip(truth * 0.5 + rng.normal(0.25, 0.15, 400), 0, 1)
    fit = np.arange(400) % 2 == 0
    row = sc.evaluate_scene(scores, truth, fit)
    assert row["fit_precision_reached"] and row["fit"]["precision"]["share"] >= sc.MIN_PRECISION
    assert row["threshold"] in scores[fit]
    # the report half does not move the threshold
    shuffled = scores.copy()
    shuffled[~fit] = rng.permutation(scores[~fit])
    again = sc.evaluate_scene(shuffled, truth, fit)
    assert again["threshold"] == row["threshold"] and again["fit"] == row["fit"]
    assert again["report"]["recall"]["share"] < row["report"]["recall"]["share"]


def test_colour_agreement():
    fit = np.array([True, True, False, False, False])
    said = ["red", "blue", "grey", "black", "white"]
    truth = ["red", None, "grey", "white", None]
    row = sc.evaluate_colour(said, truth, fit)
    assert row["fit"]["count"] == 1 and row["fit"]["total"] == 1
    assert row["report"]["count"] == 1 and row["report"]["total"] == 2
    assert row["confusions"] == {"white->black": 1} and not row["target_met"]  # too few photos
    scores = np.zeros((2, len(BASIC_TERMS)))
    scores[0, BASIC_TERMS.index("brown")] = 0.9
    scores[1, BASIC_TERMS.index("green")] = 0.4
    assert sc.top_colours(scores) == ["brown", "green"]


class _Toy:
    """A synthetic perception: indoors/outdoors/water from a fixed table, colours from another."""

    name = "toy"

    def __init__(self, table: dict[str, dict[str, float]]) -> None:
        self.table = table

    def knows(self, words):
        return np.ones(len(words), dtype=bool)

    def scores(self, cards, words):
        return np.asarray(
            [[self.table[card.id].get(w, 0.0) for w in words] for card in cards], dtype=np.float32
        )


def _tiny_deck(tmp_path, dev_deck):
    """A 'deck' of 8 dev photos copied to tmp_path with made-up ratings, 4 per half."""
    import shutil

    files = sorted(p.name for p in (dev_deck / "photos").glob("*.jpg"))
    fit = [f for f in files if sc.half_of(f) == "fit"][:4]
    report = [f for f in files if sc.half_of(f) == "report"][:4]
    (tmp_path / "deck" / "photos").mkdir(parents=True)
    for f in fit + report:
        shutil.copyfile(dev_deck / "photos" / f, tmp_path / "deck" / "photos" / f)
    settings = ["indoors", "outdoors", "unclear", "indoors|unclear"]
    rows = [
        (
            f"photos/{f}",
            settings[i % 4],
            "yes" if i % 4 == 1 else "no",
            ["red", "blue", "mixed", "grey"][i % 4],
        )
        for i, f in enumerate(fit + report)
    ]
    return tmp_path / "deck", _ratings(tmp_path, rows), fit, report


def test_run_with_a_synthetic_perception(tmp_path, dev_deck, capsys):
    deck, ratings, fit, report = _tiny_deck(tmp_path, dev_deck)
    table = {}
    for i, f in enumerate(fit + report):
        kind = i % 4
        table[f"photos/{f}"] = {
            "indoors": 0.9 if kind == 0 else 0.2,
            "outdoors": 0.8 if kind == 1 else 0.1,
            "water": 0.7 if kind == 1 else 0.0,
            "red": 0.9 if kind == 0 else 0.0,
            "blue": 0.9 if kind == 1 else 0.0,
            "grey": 0.1,
        }
    seen = []

    def load(kind, cards):
        seen.append((kind, len(cards)))
        return _Toy(table), list(cards)

    result = sc.run(deck, ratings, kinds=["toy"], load=load)
    assert seen == [("toy", 8)] and result["photos"] == 8
    block = result["perceptions"]["toy"]
    for word in sc.SCENE_WORDS:
        row = block["scenes"][word]
        assert (
            row["report"]["precision"]["share"] == 1.0 and row["report"]["recall"]["share"] == 1.0
        )
        assert row["target_met"]
    assert block["colour"]["report"]["count"] == 3 and block["colour"]["report"]["total"] == 3
    assert not block["colour"]["target_met"]  # under 100 photos compared
    table_text = sc.render(result)
    assert "| toy | indoors |" in table_text and "colour agreement, report" in table_text


def test_main_reports_user_errors(tmp_path, capsys):
    assert sc.main(["--deck", str(tmp_path / "nowhere")]) == 2
    assert "error:" in capsys.readouterr().err
