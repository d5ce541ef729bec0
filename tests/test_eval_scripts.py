"""Tests of the evaluation package (kiekai/eval; command lines scripts/eval_*.py, scripts/make_evaluation.py).

Plumbing (rounds files, WordNet truth, the baseline, statistics, tables, the dealer) is
tested on its own; the end-to-end tests run each script's ``main(argv)`` on a handful of
rounds, cards and games and check that the figures are in range and that the baseline does
not depend on the guesser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from kiekai.eval import active as eval_active
from kiekai.eval import common as ec
from kiekai.eval import guesser as eval_guesser
from kiekai.eval import perception as eval_perception
from kiekai.eval import report as make_evaluation
from kiekai.eval import tournament as eval_tournament


@pytest.fixture(scope="session")
def taxonomy() -> ec.Taxonomy:
    """WordNet ground truth, loaded once (kiekai.models.wordnet)."""
    return ec.Taxonomy()


@pytest.fixture(scope="session")
def dev_rounds(shared_dir: Path) -> Path:
    """The 200 development rounds."""
    return shared_dir / "eval" / "kiek-rounds-dev.jsonl"


def _round_line(**overrides: object) -> str:
    base = {
        "id": "x",
        "target": "dog",
        "valid_words": ["dog", "animal"],
        "group_of_three": ["a.jpg", "b.jpg", "c.jpg"],
        "group_of_two": ["d.jpg", "e.jpg"],
    }
    base.update(overrides)
    return json.dumps(base)


# --------------------------------------------------------------------------- rounds files


def test_load_rounds_reads_fields_and_adds_target_to_valid_words(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        _round_line() + "\n\n" + _round_line(id="y", target="cat", valid_words=["pet"]) + "\n"
    )
    rounds = ec.load_rounds(path)
    assert [r.id for r in rounds] == ["x", "y"]
    assert rounds[0].three == ("a.jpg", "b.jpg", "c.jpg") and rounds[0].two == ("d.jpg", "e.jpg")
    assert rounds[1].valid_words == ("cat", "pet")
    assert len(ec.load_rounds(path, limit=1)) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "holds no rounds"),
        ("{not json\n", ":1: not a JSON object"),
        (_round_line() + "\n" + json.dumps({"target": "x"}) + "\n", ":2: missing field"),
        (_round_line(group_of_two=["d.jpg"]) + "\n", "3 + 2 photos, got 3 + 1"),
    ],
)
def test_load_rounds_rejects_bad_files_with_line_numbers(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(text)
    with pytest.raises(ec.EvalError, match=re.escape(message)):
        ec.load_rounds(path)


def test_missing_files_are_user_errors_with_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope"
    assert eval_guesser.main(["--rounds", str(missing), "--deck", str(tmp_path)]) == 2
    assert "rounds file" in capsys.readouterr().err
    assert eval_active.main(["--deck", str(missing)]) == 2
    assert eval_tournament.main(["--deck", str(missing)]) == 2
    assert eval_perception.main(["--deck", str(missing), "--perception", "labels"]) == 2
    assert make_evaluation.main(["--deck", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 4 and "--deck" in err and "Traceback" not in err


# --------------------------------------------------------------------------- WordNet truth


def test_true_of_needs_an_ancestor_of_all_three_and_none_of_the_two(taxonomy: ec.Taxonomy) -> None:
    wn = taxonomy.wn
    three = [wn.synset("beagle.n.01"), wn.synset("collie.n.01"), wn.synset("pug.n.01")]
    two = [wn.synset("tabby.n.01"), wn.synset("goldfish.n.01")]
    assert taxonomy.true_of("dog", three, two)
    assert taxonomy.true_of("Dogs", three, two)  # inflection through morphy
    assert not taxonomy.true_of("animal", three, two)  # also true of the two
    assert not taxonomy.true_of("cat", three, two)  # not true of the three
    assert not taxonomy.true_of("blue", three, two)  # no noun sense covering them
    assert taxonomy.baseline_word(three, two) == "dog"
    # the rulebook's "X-less" categories: X true of each of the two, of none of the three
    assert taxonomy.true_of("dog-less", two + [wn.synset("sparrow.n.01")], three[:2])
    assert not taxonomy.true_of("dog-less", three, two)
    assert not taxonomy.true_of("cat-less", three, two)  # only one of the two is a cat
    assert taxonomy.checkable("dog-less") and not taxonomy.checkable("qwzx-less")
    # quality words are not judged by the noun hierarchy (their noun senses are rare)
    assert not taxonomy.checkable("natural") and not taxonomy.checkable("white")
    assert taxonomy.checkable("animal") and taxonomy.checkable("food")
    assert taxonomy.baseline_word(three, three[:2]) is None  # nothing separates


def test_true_of_is_false_when_any_sense_covers_a_card_of_the_two(taxonomy: ec.Taxonomy) -> None:
    # rulebook, "A Turn": the word must NOT be shown by the two, in whatever sense a reader
    # takes it: "crane" names the bird (crane.n.05) and the machine (crane.n.04)
    wn = taxonomy.wn
    birds = [wn.synset("crane.n.05")] * 3
    machines = [wn.synset("crane.n.04")] * 2
    assert not taxonomy.true_of("crane", birds, machines)
    assert not taxonomy.true_of("crane", machines + birds[:1], birds[:2])
    assert taxonomy.true_of("crane", birds, [wn.synset("tabby.n.01")] * 2)
    # the same for X-less: X true of the two, and of none of the three in any sense
    cats = [wn.synset("tabby.n.01")] * 3
    assert taxonomy.true_of("crane-less", cats, machines)
    assert not taxonomy.true_of("crane-less", [*cats[:2], birds[0]], machines)


def test_true_of_refuses_cards_without_a_synset(taxonomy: ec.Taxonomy) -> None:
    wn = taxonomy.wn
    three = [wn.synset("beagle.n.01"), wn.synset("collie.n.01"), wn.synset("pug.n.01")]
    with pytest.raises(ValueError, match="no WordNet synset"):
        taxonomy.true_of("dog", three, [wn.synset("tabby.n.01"), None])
    with pytest.raises(ValueError, match="no WordNet synset"):
        taxonomy.true_of("dog", [*three[:2], None], [wn.synset("tabby.n.01")])


def test_synset_match_accepts_same_synset_only(taxonomy: ec.Taxonomy) -> None:
    assert taxonomy.synset_match("automobile", "car")
    assert taxonomy.synset_match("Car", " car ")
    assert not taxonomy.synset_match("car", "vehicle")
    assert not taxonomy.synset_match("car", "")


def test_synset_of_wnid_rejects_bad_ids(taxonomy: ec.Taxonomy) -> None:
    assert taxonomy.synset_of_wnid("n01440764").name() == "tench.n.01"
    with pytest.raises(ec.EvalError, match="not a WordNet noun id"):
        taxonomy.synset_of_wnid("tench")


# --------------------------------------------------------------------------- guesser scoring


def test_baseline_is_computed_without_the_guesser(
    taxonomy: ec.Taxonomy, dev_rounds: Path, dev_cards: list
) -> None:
    rounds = ec.load_rounds(dev_rounds)
    scorable, skipped = eval_guesser.resolve_round_cards(rounds, dev_cards, dev_cards)
    assert not skipped and len(scorable) == len(rounds)
    target_of = {tuple(c.id for c in three): rnd.target for rnd, three, _ in scorable}

    def oracle(three, two, used):
        return [target_of[tuple(c.id for c in three)]]

    def wrong(three, two, used):
        return ["zzzz"]

    good = eval_guesser.evaluate(scorable, oracle, taxonomy, taxonomy.synset_match)
    bad = eval_guesser.evaluate(scorable, wrong, taxonomy, taxonomy.synset_match)
    for key in ("baseline_top1", "baseline_synset", "baseline_valid", "target_valid"):
        assert good["summary"][key] == bad["summary"][key]
    assert [r["baseline"] for r in good["rounds"]] == [r["baseline"] for r in bad["rounds"]]
    assert good["summary"]["guesser_top1"]["share"] == 1.0
    assert bad["summary"]["guesser_top1"]["share"] == 0.0
    assert bad["summary"]["guesser_top1_valid"]["share"] == 0.0
    # the reference: the baseline scores about 75% with a synset-match judge
    assert 0.6 <= good["summary"]["baseline_synset"]["share"] <= 0.85
    # the baseline's word is true of its split whenever it exists (by construction)
    assert (
        good["summary"]["baseline_valid"]["count"] == len(rounds) - good["summary"]["baseline_none"]
    )
    for row in good["per_target"]:
        assert 0.0 <= row["baseline_top1"] <= 1.0 and row["top1"] == 1.0


def test_rounds_naming_photos_outside_the_deck_are_an_error(dev_cards: list) -> None:
    rnd = ec.Round(
        "r",
        "dog",
        ("dog",),
        ("photos/a.jpg", "photos/b.jpg", "photos/c.jpg"),
        ("photos/d.jpg", "photos/e.jpg"),
    )
    with pytest.raises(ec.EvalError, match="not in the deck"):
        eval_guesser.resolve_round_cards([rnd], dev_cards, dev_cards)


def test_rounds_with_photos_the_perception_cannot_score_are_left_out(
    dev_rounds: Path, dev_cards: list
) -> None:
    rounds = ec.load_rounds(dev_rounds, limit=3)
    first = rounds[0].three[0]
    scorable, skipped = eval_guesser.resolve_round_cards(
        rounds, dev_cards, [c for c in dev_cards if c.id != first]
    )
    assert len(scorable) == 2 and len(skipped) == 1 and first in skipped[0]


# --------------------------------------------------------------------------- statistics, tables


def test_statistics_helpers() -> None:
    assert ec.entropy_bits(["a", "b"]) == pytest.approx(1.0)
    assert ec.entropy_bits(["a", "a", "a"]) == 0.0
    assert ec.entropy_bits([]) == 0.0
    low, high = ec.wilson_interval(0, 10)
    assert low == 0.0 and 0.2 < high < 0.35
    low, high = ec.wilson_interval(50, 100)
    assert low < 0.5 < high and high - 0.5 == pytest.approx(0.5 - low)
    assert ec.share(1, 0) == 0.0
    table = ec.markdown_table(["a", "b"], [[1, "x|y"]])
    assert table.splitlines() == ["| a | b |", "| --- | --- |", "| 1 | x\\|y |"]


def test_rank_of_counts_ties_against_the_card() -> None:
    scores = np.array([0.1, 0.9, 0.5, 0.9], dtype=np.float32)
    assert eval_perception.rank_of(scores, 1) == 2
    assert eval_perception.rank_of(scores, 2) == 3
    assert eval_perception.rank_of(scores, 0) == 4
    stats = eval_perception.rank_stats([1, 2, 6])
    assert stats["top1"] == pytest.approx(1 / 3) and stats["top5"] == pytest.approx(2 / 3)
    assert stats["mean_rank"] == pytest.approx(3.0)


@dataclass(frozen=True)
class _FakeCard:
    id: str


@dataclass(frozen=True)
class _WnidCard:
    id: str
    wnid: str | None
    label: str = ""


def _cards(*wnids: str | None) -> list[_WnidCard]:
    return [_WnidCard(f"c{i}", wnid) for i, wnid in enumerate(wnids)]


TABBY, CAR, APPLE = "n02123045", "n02958343", "n07739125"
BEAGLE, COLLIE = "n02088364", "n02106030"
CRANE_BIRD, CRANE_MACHINE = "n02012849", "n03126707"


def test_feasible_words_counts_x_less_and_asks_the_judge_about_repeats(
    taxonomy: ec.Taxonomy,
) -> None:
    index = eval_active.synset_index(["dog"], taxonomy)
    five = _cards(TABBY, CAR, APPLE, BEAGLE, COLLIE)
    table, hand = five[:3], five[3:]
    # two dogs only: "dog" fits no 3, but "dog-less" fits cat, car, apple vs the two dogs
    found = eval_active.feasible_words(table, hand, [], index, taxonomy)
    assert found.possible and found.example == "dog-less" and found.true_words == 1
    assert not eval_active.feasible_words(table, hand, ["Dog-less"], index, taxonomy).possible
    asked: list[tuple[str, list[str]]] = []

    def repeats(word: str, used: list[str]) -> bool:
        asked.append((word, used))
        return True

    found = eval_active.feasible_words(table, hand, ["hound"], index, taxonomy, repeats)
    assert not found.possible and asked == [("dog-less", ["hound"])]
    found = eval_active.feasible_words(table, hand, ["hound"], index, taxonomy, lambda w, u: False)
    assert found.possible


def test_feasible_words_uses_every_sense_and_counts_cards_without_a_synset(
    taxonomy: ec.Taxonomy,
) -> None:
    index = eval_active.synset_index(["crane"], taxonomy)
    birds_vs_machines = _cards(CRANE_BIRD, CRANE_BIRD, CRANE_BIRD, CRANE_MACHINE, CRANE_MACHINE)
    found = eval_active.feasible_words(
        birds_vs_machines[:3], birds_vs_machines[3:], [], index, taxonomy
    )
    assert not found.possible and found.true_words == 0 and found.unjudged_plays == 0
    birds_vs_cats = _cards(CRANE_BIRD, CRANE_BIRD, CRANE_BIRD, TABBY, TABBY)
    found = eval_active.feasible_words(birds_vs_cats[:3], birds_vs_cats[3:], [], index, taxonomy)
    assert found.possible and found.example == "crane"
    unlabelled = _cards(CRANE_BIRD, CRANE_BIRD, CRANE_BIRD, TABBY, None)
    found = eval_active.feasible_words(unlabelled[:3], unlabelled[3:], [], index, taxonomy)
    assert not found.possible and found.unjudged_plays == 10  # 1 pair x 10 splits


class _OraclePerception:
    """Scores 1.0 for words WordNet calls true of a card, else 0.0 (a test double)."""

    name = "oracle"

    def __init__(self, taxonomy: ec.Taxonomy, invert: bool = False) -> None:
        self.taxonomy, self.invert = taxonomy, invert

    def scores(self, cards, words):
        out = np.zeros((len(cards), len(words)), dtype=np.float32)
        for i, card in enumerate(cards):
            synset = self.taxonomy.synset_of_card(card)
            for j, word in enumerate(words):
                hit = card.label == word or any(
                    s in self.taxonomy.ancestors(synset) for s in self.taxonomy.noun_senses(word)
                )
                out[i, j] = float(hit != self.invert)
        return out


def test_category_and_label_tasks_score_an_oracle_high_and_its_inverse_low(
    taxonomy: ec.Taxonomy, dev_cards: list
) -> None:
    cards = dev_cards[::60]  # 10 varied cards
    vocabulary = [
        "animal",
        "dog",
        "fish",
        "bird",
        "tool",
        "container",
        "vehicle",
        "food",
        "building",
        "clothing",
    ]
    good = eval_perception.category_task(_OraclePerception(taxonomy), cards, vocabulary, taxonomy)
    bad = eval_perception.category_task(
        _OraclePerception(taxonomy, invert=True), cards, vocabulary, taxonomy
    )
    assert 0 < good["covered"] <= len(cards)
    assert good["best"]["top1"] == 1.0 and good["precision_at_1"] == 1.0
    assert bad["best"]["top1"] < 1.0 and bad["precision_at_1"] == 0.0
    labels = eval_perception.label_task(_OraclePerception(taxonomy), cards)
    assert labels["candidates"] == len(cards) and 0.0 <= labels["top1"] <= 1.0


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def loaded(dev_cards: list) -> tuple:
    """``(cards, labels perception, usable cards)`` shared by the end-to-end tests."""
    perception, usable = ec.load_perception_for("labels", dev_cards, echo=lambda line: None)
    return dev_cards, perception, usable


def _png(path: Path) -> bool:
    return path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_eval_guesser_main_writes_figures_in_range(
    dev_deck: Path, dev_rounds: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code = eval_guesser.main(
        [
            "--rounds",
            str(dev_rounds),
            "--deck",
            str(dev_deck),
            "--limit",
            "6",
            "--levels",
            "hard",
            "--out",
            str(out),
        ]  # fmt: skip
    )
    assert code == 0
    result = json.loads((out / "guesser.json").read_text())
    summary = result["summary"]
    assert summary["rounds"] == 6 and len(result["rounds"]) == 6
    shares = [v["share"] for v in summary.values() if isinstance(v, dict) and "share" in v]
    assert shares and all(0.0 <= s <= 1.0 for s in shares)
    assert summary["guesser_top1"]["count"] <= summary["guesser_top5"]["count"]
    assert set(summary["levels"]) == {"hard"}
    assert sum(row["rounds"] for row in result["per_target"]) == 6
    for record in result["rounds"]:
        assert 1 <= len(record["guesses"]) <= 5
        assert record["top1"] <= record["top5"]
    assert _png(out / "guesser.png")
    assert "baseline" in (out / "guesser.md").read_text()


def test_eval_active_scores_every_turn_and_counts_variety(
    dev_deck: Path, loaded: tuple, tmp_path: Path, taxonomy: ec.Taxonomy
) -> None:
    result = eval_active.run(dev_deck, games=1, players=3, levels=["hard"], seed=1, loaded=loaded)
    s = result["levels"]["hard"]
    records = result["records"]["hard"]
    assert s["turns"] == len(records) == 9  # 3 players x 3 rounds
    assert s["legal"] == 1.0  # 2 cards from the hand, the five split 3/2
    assert s["repeats"] == 0  # ne bis in idem: the bot never writes a used word
    for key in (
        "truthful",
        "truthful_of_checkable",
        "truthful_declared",
        "guessability",
        "distinct_per_game",
    ):
        assert 0.0 <= s[key] <= 1.0
    assert s["truthful_count"] == sum(r["true"] for r in records)
    assert s["cards_without_synset"] == 0  # the dealer deals labelled cards only
    assert s["feasible_count"] == sum(r["feasible"] for r in records)
    for r in records:  # a possible word is named, and is a true word of the turn's hand
        assert (r["feasible_example"] is not None) == r["feasible"]
        assert r["feasible"] <= (r["feasible_true_words"] > 0)
    assert 0.0 <= s["points_per_turn"] <= 3.0  # at most one match per panel guesser
    assert 0.0 <= s["entropy_bits"] <= np.log2(9) + 1e-9
    again = eval_active.run(dev_deck, games=1, players=3, levels=["hard"], seed=1, loaded=loaded)
    assert [r["word"] for r in again["records"]["hard"]] == [r["word"] for r in records]
    # the games are the engine's: its deal for the game's seed and its turn order; the
    # table each turn is the 3 of the last five the bots kept
    from kiekai.kiek.engine import KiekEngine

    labelled = [c for c in loaded[2] if taxonomy.synset_of_card(c) is not None]
    first = KiekEngine(labelled, 3, judge=ec.make_judge("standard"), seed=1000).active_view()
    assert records[0]["table"] == [c.id for c in first.table]
    assert records[0]["hand"] == [c.id for c in first.hand]
    assert [r["seat"] for r in records] == [(first.seat + t) % 3 for t in range(9)]
    for before, after in zip(records, records[1:], strict=False):
        assert set(after["table"]) <= set(before["table"]) | set(before["played"])
    assert _png(eval_active.plot(result, tmp_path / "active.png"))
    assert "| hard | 9 |" in eval_active.render_markdown(result, None)


def test_eval_tournament_is_deterministic_given_seeds(
    dev_deck: Path, loaded: tuple, tmp_path: Path
) -> None:
    first = eval_tournament.run(dev_deck, games=1, players=3, seed=5, loaded=loaded)
    second = eval_tournament.run(dev_deck, games=1, players=3, seed=5, loaded=loaded)
    assert first["games"] == second["games"]
    seats = first["games"][0]["seats"]
    assert sorted(s["level"] for s in seats) == ["easy", "hard", "normal"]
    assert sum(s["won"] for s in seats) == 1
    for s in seats:
        assert s["score"] == s["active_points"] + s["guess_points"]
        assert s["active_turns"] == 3
    assert _png(eval_tournament.plot(first, tmp_path / "t.png"))
    assert "| easy |" in eval_tournament.render_markdown(first, None)


def test_eval_perception_labels_accuracy_on_a_few_cards(
    dev_deck: Path, loaded: tuple, tmp_path: Path
) -> None:
    result = eval_perception.run(dev_deck, "labels", limit=20, speed_images=0, loaded=loaded)
    acc = result["accuracy"]
    assert acc["cards"] == 20 and acc["label_task"]["candidates"] == 20
    for stats in (
        acc["label_task"],
        acc["category_task"]["best"],
        acc["category_task"]["most_specific"],
    ):
        assert 0.0 <= stats["top1"] <= stats["top5"] <= 1.0 and stats["mean_rank"] >= 1.0
    assert (
        acc["category_task"]["best"]["mean_rank"]
        <= acc["category_task"]["most_specific"]["mean_rank"]
    )
    assert result["speed"] is None
    assert any("not vision" in note for note in result["notes"])


TINY_CLIP = "kiekai-eval-tiny"
TINY_CLIP_CONFIG = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 64, "patch_size": 8, "head_width": 32},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


@pytest.fixture()
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No network, no user CLIP settings, a private cache folder."""
    for var in ("KIEKAI_CLIP_CHECKPOINT", "KIEKAI_CLIP_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def tiny_clip_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny open_clip architecture registered under TINY_CLIP, randomly initialised and
    saved by :func:`eval_perception.random_checkpoint` (speed and plumbing only)."""
    open_clip = pytest.importorskip("open_clip")
    folder = tmp_path_factory.mktemp("tiny-clip")
    config = folder / f"{TINY_CLIP}.json"
    config.write_text(json.dumps(TINY_CLIP_CONFIG))
    open_clip.add_model_config(config)
    return eval_perception.random_checkpoint(TINY_CLIP, folder)


def test_clip_speed_times_the_project_and_raw_paths_on_the_same_images(
    offline: None, tiny_clip_checkpoint: Path, dev_cards: list
) -> None:
    speed = eval_perception.measure_speed(dev_cards[:3], TINY_CLIP, str(tiny_clip_checkpoint))
    assert speed["images"] == 3
    assert speed["model_key"].startswith(f"{TINY_CLIP}/sha256:")
    for key in ("raw_encode", "raw_decode_encode", "project_cold", "project_warm"):
        assert speed[key]["seconds"] > 0
        assert speed[key]["images_per_second"] == pytest.approx(3 / speed[key]["seconds"])
    assert speed["raw_decode_encode"]["seconds"] > speed["raw_encode"]["seconds"]
    assert speed["overhead"] == pytest.approx(
        speed["raw_encode"]["images_per_second"] / speed["project_cold"]["images_per_second"]
    )


def test_missing_clip_weights_are_said_plainly_and_give_no_accuracy(
    offline: None, dev_deck: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = eval_perception.main(
        ["--deck", str(dev_deck), "--perception", "clip", "--speed-images", "0"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "CLIP weights are missing, so no zero-shot accuracy is reported" in out
    assert "top-1" not in out


def test_clip_checkpoint_runs_the_accuracy_path(
    offline: None, tiny_clip_checkpoint: Path, dev_deck: Path
) -> None:
    result = eval_perception.run(
        dev_deck,
        "clip",
        TINY_CLIP,
        str(tiny_clip_checkpoint),
        limit=4,
        speed_images=2,
        max_words=30,
    )
    acc = result["accuracy"]
    assert acc["cards"] == 4 and acc["label_task"]["candidates"] == 4
    assert 1.0 <= acc["label_task"]["mean_rank"] <= 4.0
    assert acc["category_task"]["candidates"] == 30
    assert result["speed_random_init"] is False and result["speed"]["images"] == 2


def test_make_evaluation_writes_the_report_from_nothing(
    offline: None, dev_deck: Path, dev_rounds: Path, tmp_path: Path
) -> None:
    doc = tmp_path / "docs" / "EVALUATION.md"
    stale = tmp_path / "docs" / "eval" / "perception.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"stale")
    argv = [
        "--deck", str(dev_deck), "--rounds", str(dev_rounds), "--limit", "3",
        "--active-games", "1", "--players", "3", "--active-levels", "hard",
        "--tournament-games", "1", "--speed-images", "0", "--doc", str(doc),
        "--selfplay-games", "1", "--bots", "3",
    ]  # fmt: skip
    assert make_evaluation.main(argv) == 0
    text = doc.read_text()
    # the bot-only games, measured like the held-out check
    assert "Bot-only games, measured like the held-out check" in text
    assert "median Zipf" in text and "all guessers same word" in text
    for heading in (
        "## Headline",
        "## 1. Guesser",
        "## 2. Active bot",
        "## 3. Perception",
        "## 4. Self-play",
    ):
        assert heading in text
    assert "| torch |" in text and "CPU cores" in text and "| seed | 0 |" in text
    assert "CLIP weights are missing" in text
    for name in ("guesser.png", "active.png", "perception.png", "tournament.png"):
        assert _png(doc.parent / "eval" / name)
    results = json.loads((doc.parent / "eval" / "results.json").read_text())
    assert results["guesser"]["summary"]["rounds"] == 3


def test_tournament_falls_back_to_the_embedded_default_deck() -> None:
    cards = eval_tournament._default_deck_cards()
    assert len(cards) >= 4 * 3 + 3  # enough for the tournament's 3 bots
    assert all(card.wnid for card in cards)  # the labels perception can score them all


def test_display_path_is_relative_to_the_repository_for_shared_files(tmp_path: Path) -> None:
    # A clone directly in a temporary folder, with pytest's other temporary folders beside it
    # (the layout of a clone in /tmp), and the shared folder somewhere else ($KIEKAI_SHARED).
    repo = tmp_path / "clone"
    shared = tmp_path / "elsewhere" / "shared-copy"
    beside = tmp_path / "pytest-of-root" / "deck"
    for folder in (repo / "docs", shared / "decks" / "x", beside):
        folder.mkdir(parents=True)

    def shown(path):
        return ec.display_path(path, repo=repo, shared=shared)

    assert shown(shared / "decks" / "x") == "../shared/decks/x"
    assert shown(repo / "docs" / "EVALUATION.md") == "docs/EVALUATION.md"
    outside = shown(beside)  # one ".." away from the clone, yet not the shared folder
    assert outside == beside.as_posix()
    assert shown(None) is None
    # Through a symbolic link to the clone, the text is still relative.
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert shown(link / "docs" / "x.md") == "docs/x.md"
    # The defaults: this checkout and its shared folder.
    assert ec.display_path(ec.REPO / "docs" / "EVALUATION.md") == "docs/EVALUATION.md"
    assert ec.display_path(ec.SHARED / "decks" / "x") == "../shared/decks/x"


def test_shared_folder_comes_from_kiekai_shared_or_beside_the_clone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from kiekai import paths

    monkeypatch.delenv("KIEKAI_SHARED", raising=False)
    assert paths.shared_dir() == paths.REPO_ROOT.parent / "shared"
    monkeypatch.setenv("KIEKAI_SHARED", str(tmp_path))
    assert paths.shared_dir() == tmp_path
    monkeypatch.setenv("KIEKAI_SHARED", " ")
    with pytest.raises(ValueError, match="KIEKAI_SHARED"):
        paths.shared_dir()
