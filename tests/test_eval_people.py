"""kiekai.eval.people: the people rounds, their reporting/fitting split, person -> bot and
bot -> person scoring, and the evaluation report's People rounds section."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kiekai.eval import common as ec
from kiekai.eval import guesser as eval_guesser
from kiekai.eval import people
from kiekai.eval import report as make_evaluation
from kiekai.judge import Judge

REPO_ROUNDS = Path(__file__).resolve().parents[1] / "data" / "people-rounds" / "rounds.jsonl"


def _reporting(deal: str) -> bool:
    """The README's rule, written out again here: SHA-256 hex, first 8 digits, mod 5 in 0-2."""
    value = int(hashlib.sha256(deal.encode()).hexdigest()[:8], 16)
    return value % 5 < 3


def _deal_in(part: str, start: int = 0) -> str:
    """A made-up deal id (``t0``, ``t1``, ...) that falls in ``part`` by :func:`_reporting`."""
    n = start
    while _reporting(f"t{n}") != (part == "report"):
        n += 1
    return f"t{n}"


@pytest.fixture(scope="module")
def dev_people_rounds(shared_dir: Path) -> Path:
    return shared_dir / "eval" / "people-rounds-dev" / "rounds.jsonl"


@pytest.fixture(scope="module")
def judge() -> Judge:
    return Judge("standard")


@pytest.fixture(scope="module")
def loaded(dev_deck: Path) -> tuple:
    cards = ec.load_deck_cards(dev_deck)
    perception, usable = ec.load_perception_for("labels", cards, echo=lambda line: None)
    return cards, perception, usable


# --------------------------------------------------------------------------- the split


@pytest.mark.parametrize("deal", ["k00", "k01", "d00", "d01", "d02", "m13", "r19", "q07", "d39"])
def test_part_of_follows_the_readme_rule(deal: str) -> None:
    assert people.part_of(deal) == ("report" if _reporting(deal) else "fit")


def test_both_parts_occur_among_made_up_deals() -> None:
    parts = [people.part_of(f"t{n}") for n in range(40)]
    assert parts == ["report" if _reporting(f"t{n}") else "fit" for n in range(40)]
    assert set(parts) == {"report", "fit"}


# --------------------------------------------------------------------------- loading


def test_load_both_files_joins_them_with_deals_and_parts(
    dev_people_rounds: Path, shared_dir: Path
) -> None:
    rounds = people.load_people_rounds([REPO_ROUNDS, dev_people_rounds])
    assert len(rounds) == 120 and len({r.id for r in rounds}) == 120
    # the README's count of the 120 turns, 66 report and 54 fit, by the rule written out here
    assert sum(_reporting(r.deal) for r in rounds) == 66
    assert all(r.part == ("report" if _reporting(r.deal) else "fit") for r in rounds)
    assert all(len(r.others) == 2 and r.source for r in rounds)

    repo = [r for r in rounds if r.source.startswith(str(REPO_ROUNDS))]
    assert len(repo) == 80
    raw = [json.loads(line) for line in REPO_ROUNDS.read_text().splitlines() if line.strip()]
    assert [r.deal for r in repo] == [o["deal"] for o in raw]
    assert all(r.active in {"A1", "A2", "A3", "A4"} and len(r.guessers) == 2 for r in repo)

    # the shared rounds name no deal: it comes from deals.jsonl beside them, p00 = d00 ...
    dev = [r for r in rounds if r not in repo]
    assert len(dev) == 40
    assert all(r.deal == "d" + r.id[1:] for r in dev)
    deals_file = shared_dir / "eval" / "people-rounds-dev" / "deals.jsonl"
    deals = {d["deal"]: d for d in map(json.loads, deals_file.read_text().splitlines())}
    for r in dev:
        five = {*r.three, *r.two}
        assert set(deals[r.deal]["table"]) <= five
        assert five - set(deals[r.deal]["table"]) <= set(deals[r.deal]["hand"])


def test_load_dedupes_by_id_and_limits(dev_people_rounds: Path) -> None:
    once = people.load_people_rounds(REPO_ROUNDS)
    twice = people.load_people_rounds([REPO_ROUNDS, REPO_ROUNDS])
    assert [r.id for r in twice] == [r.id for r in once]
    assert len(people.load_people_rounds([REPO_ROUNDS, dev_people_rounds], limit=5)) == 5


def _line(**overrides: Any) -> str:
    base = {
        "id": "x",
        "deal": "t0",
        "target": "dog",
        "group_of_three": ["a.jpg", "b.jpg", "c.jpg"],
        "group_of_two": ["d.jpg", "e.jpg"],
        "other_players_guessed": ["dog", "pet"],
    }
    base.update(overrides)
    return json.dumps({k: v for k, v in base.items() if v is not None})


@pytest.mark.parametrize(
    ("lines", "deals", "message"),
    [
        ([_line(), _line(id="y", other_players_guessed=None)], None, "r.jsonl:2: other_players"),
        ([_line(other_players_guessed=["dog", " "])], None, "r.jsonl:1: other_players"),
        ([_line(guessers=["G1"])], None, "r.jsonl:1: guessers must name"),
        ([_line(), _line(target="cat")], None, "r.jsonl:2: round id x was read before"),
        ([_line(deal=None)], None, "r.jsonl:1: the round names no deal"),
        (
            [_line(deal=None)],
            [{"deal": "z1", "table": ["a.jpg", "b.jpg", "q.jpg"], "hand": ["c.jpg"] * 4}],
            "r.jsonl:1: the round names no deal and no deal of",
        ),
        (
            [_line(deal="z1")],
            [{"deal": "z1", "table": ["a.jpg", "b.jpg", "q.jpg"], "hand": ["c.jpg"] * 4}],
            "r.jsonl:1: the photos are not deal z1's",
        ),
        ([_line(used_words="dog")], None, "r.jsonl:1: used_words must be a list of words"),
        (["{oops"], None, "r.jsonl:1: not a JSON object"),
        ([""], None, "holds no rounds"),
    ],
)
def test_load_rejects_bad_input_naming_file_and_line(
    tmp_path: Path, lines: list[str], deals: list[dict] | None, message: str
) -> None:
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n")
    if deals is not None:
        (tmp_path / "deals.jsonl").write_text("\n".join(json.dumps(d) for d in deals) + "\n")
    with pytest.raises(ec.EvalError, match=re.escape(message)):
        people.load_people_rounds(tmp_path / "r.jsonl")


def test_a_deal_is_found_from_the_photos_when_the_line_names_none(tmp_path: Path) -> None:
    (tmp_path / "deals.jsonl").write_text(
        json.dumps({"deal": "z1", "table": ["q.jpg", "r.jpg", "s.jpg"], "hand": list("wxyz")})
        + "\n"
        + json.dumps(
            {
                "deal": "z2",
                "table": ["a.jpg", "b.jpg", "d.jpg"],
                "hand": ["c.jpg", "e.jpg", "f", "g"],
            }
        )
        + "\n"
    )
    (tmp_path / "r.jsonl").write_text(_line(deal=None) + "\n")
    (rnd,) = people.load_people_rounds(tmp_path / "r.jsonl")
    assert rnd.deal == "z2" and rnd.part == people.part_of("z2")
    assert rnd.others == ("dog", "pet") and rnd.source.endswith("r.jsonl:1")


def test_a_whole_game_turn_keeps_its_used_words(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text(
        _line(id="w1t02", deal="wg1", used_words=["animals", "red", " "])
        + "\n"
        + _line(id="y", deal="wg1")
        + "\n"
    )
    turn, single = people.load_people_rounds(tmp_path / "r.jsonl")
    assert turn.used == ("animals", "red") and single.used == ()
    assert turn.part == single.part == people.part_of("wg1")  # a whole game is one deal


def test_evaluate_gives_the_guessers_the_used_words() -> None:
    rnd = people.PeopleRound(
        id="w", target="red", valid_words=("red",), three=("a", "b", "c"), two=("d", "e"),
        deal="wg1", part=people.part_of("wg1"), others=("red",), used=("animals",),
    )  # fmt: skip
    seen: list[Any] = []

    def guesser(three: Any, two: Any, used: Any) -> list[str]:
        seen.append(tuple(used))
        return ["red"]

    result = people.evaluate(
        [(rnd, [], [])], lambda: {"g": guesser}, lambda s, g: s == g, resamples=10
    )
    assert seen == [("animals",)] and result["rounds"][0]["used"] == ["animals"]


# --------------------------------------------------------------------------- person -> bot


def _round(rid: str, target: str, others: tuple[str, ...], deal: str = "t0") -> people.PeopleRound:
    return people.PeopleRound(
        id=rid,
        target=target,
        valid_words=(target,),
        three=("a", "b", "c"),
        two=("d", "e"),
        deal=deal,
        part=people.part_of(deal),
        others=others,
    )


def test_persons_rate_on_handmade_rounds(judge: Judge) -> None:
    rounds = [
        _round("r1", "animals", ("animals", "animal")),  # both matches (same word, singular)
        _round("r2", "outdoors", ("outdoors", "dog")),  # one
        _round("r3", "metal", ("water", "bread")),  # none
    ]
    result = people.persons_rate(rounds, lambda s, g: judge.match(s, g).accepted)
    assert (result["count"], result["total"]) == (3, 6)
    assert result["share"] == pytest.approx(0.5)
    assert result["ci95"] == pytest.approx(list(ec.wilson_interval(3, 6)))
    assert (result["exact"]["count"], result["exact"]["total"]) == (2, 6)


def test_evaluate_scores_each_part_with_fresh_guessers() -> None:
    report, fit = _deal_in("report"), _deal_in("fit")
    rounds = [
        _round("a", "dog", ("dog", "cat"), report),
        _round("b", "cat", ("cat", "cat"), report),
        _round("c", "sun", ("sun", "sky"), fit),
        _round("d", "sky", ("sea", "sky"), report),
    ]
    # the "cards" carry the target so the fake guessers can be right or wrong on purpose
    scorable = [(r, [r.target], []) for r in rounds]
    made = []

    def factory() -> dict:
        calls = []

        def first_only(three: Any, two: Any, used: Any) -> list[str]:
            calls.append(1)
            return [three[0]] if len(calls) == 1 else ["zzz"]

        made.append(calls)
        return {
            "right": lambda three, two, used: [three[0]],
            "wrong": lambda three, two, used: ["zzz"],
            "first": first_only,
        }

    result = people.evaluate(
        scorable, factory, lambda secret, guess: secret == guess, resamples=300
    )
    assert len(made) == 2  # one set of guessers per part
    rep, fitted = result["parts"]["report"], result["parts"]["fit"]
    assert rep["rounds"] == 3 and fitted["rounds"] == 1
    assert (rep["persons"]["count"], rep["persons"]["total"]) == (4, 6)
    g = rep["guessers"]
    assert g["right"]["count"] == 3 and g["wrong"]["count"] == 0 and g["first"]["count"] == 1
    assert g["right"]["ratio"] == pytest.approx(1 / (4 / 6))
    assert g["wrong"]["ratio"] == 0 and g["wrong"]["ratio_ci95"] == [0.0, 0.0]
    low, high = g["right"]["ratio_ci95"]
    assert low <= g["right"]["ratio"] <= high
    assert fitted["guessers"]["first"]["count"] == 1  # fresh in the fitting part
    assert [r["id"] for r in result["rounds"]] == ["a", "b", "d", "c"]
    assert result["rounds"][0]["persons_accepted"] == [True, False]


def test_bootstrap_ratio_is_seeded_and_brackets_the_estimate() -> None:
    bot = [(1, 1), (0, 1), (1, 1), (0, 1), (0, 1), (1, 1)]
    persons = [(2, 2), (1, 2), (2, 2), (1, 2), (2, 2), (1, 2)]
    first = people.bootstrap_ratio(bot, persons, paired=True, resamples=500, seed=4)
    assert first == people.bootstrap_ratio(bot, persons, paired=True, resamples=500, seed=4)
    assert first is not None and first[0] <= (3 / 6) / (9 / 12) <= first[1]
    assert people.bootstrap_ratio([], persons, paired=False) is None
    assert people.bootstrap_ratio(bot, [(0, 2)], paired=False, resamples=50) is None
    assert people.bootstrap_ratio([(1, 1)] * 4, [(1, 2)] * 4, paired=True) == [2.0, 2.0]


def test_person_to_bot_on_real_dev_rounds_with_labels(
    dev_people_rounds: Path, dev_deck: Path, loaded: tuple, judge: Judge
) -> None:
    from kiekai.kiek.bots import rank_guesses

    result = people.run(
        [dev_people_rounds], dev_deck, perceptions=["labels"], levels=["hard"], limit=6,
        loaded={"labels": loaded}, resamples=200,
    )  # fmt: skip
    assert result["split"]["report"] + result["split"]["fit"] == 6
    res = result["perceptions"]["labels"]
    assert len(res["rounds"]) == 6 and not res["skipped"]
    rounds = {r.id: r for r in people.load_people_rounds(dev_people_rounds, limit=6)}
    by_id = {eval_guesser.normalise_id(c.id): c for c in loaded[0]}
    vocabulary = ec.load_vocabulary()
    for record in res["rounds"]:
        rnd = rounds[record["id"]]
        assert record["part"] == rnd.part
        assert record["persons_accepted"] == [
            judge.match(rnd.target, g).accepted for g in rnd.others
        ]
        for name, word in record["guesses"].items():
            assert record["accepted"][name] == (
                bool(word) and judge.match(rnd.target, word).accepted
            )
        # the plain guesser's word is rank_guesses' best for these photos
        three = [by_id[c] for c in rnd.three]
        two = [by_id[c] for c in rnd.two]
        best = ec.ranked_words(
            rank_guesses(loaded[1], three, two, (), vocabulary, k=5, judge=ec.make_judge())
        )[0]
        assert record["guesses"][people.PLAIN] == best
    for part, block in res["parts"].items():
        mine = [r for r in res["rounds"] if r["part"] == part]
        assert block["rounds"] == len(mine) == result["split"][part]
        hits = sum(sum(r["persons_accepted"]) for r in mine)
        assert (block["persons"]["count"], block["persons"]["total"]) == (hits, 2 * len(mine))
        for name in (people.PLAIN, "hard"):
            g = block["guessers"][name]
            assert g["count"] == sum(r["accepted"][name] for r in mine)
            if block["persons"]["share"]:
                assert g["ratio"] == pytest.approx(g["share"] / block["persons"]["share"])
    table = people.person_to_bot_table(result, "report")
    assert "the other persons" in table and "`KiekBot` hard" in table


# --------------------------------------------------------------------------- bot -> person


def _pool(folder: Path) -> tuple[Path, list[Path]]:
    """A blind pool as people_rounds.py mix writes its KEY, and two GUESS files."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / "key.jsonl"
    rows = [
        ("s00", "animals", "person"),
        ("s01", "metal", "person"),
        ("s02", "outdoors", "bot"),
        ("s03", "pet", "bot"),
        ("s04", "water", "bot"),
    ]
    key.write_text(
        "".join(
            json.dumps({"split": s, "orig": f"o{i}", "word": w, "by": by, "three": [], "two": []})
            + "\n"
            for i, (s, w, by) in enumerate(rows)
        )
    )
    g1, g2 = folder / "g1.tsv", folder / "g2.tsv"
    g1.write_text("split\tword\ns00\tanimals\ns01\twood\ns02\toutdoors\ns03\tcar\n")
    g2.write_text("split\tword\ns00\tanimal\ns01\tMetal\ns02\tcar\ns03\tbread\ns04\t\n")
    return key, [g1, g2]


def test_bot_to_person_rates_per_source_on_tiny_files(tmp_path: Path, judge: Judge) -> None:
    key, guesses = _pool(tmp_path)
    result = people.score_bot_to_person(key, guesses, resamples=300)
    person, bot = result["sources"]["person"], result["sources"]["bot"]
    # person words: animals ok, animal ok, wood no, Metal ok; bot words: outdoors ok, the rest no
    assert (person["count"], person["total"], person["splits"]) == (3, 4, 2)
    assert (bot["count"], bot["total"], bot["splits"]) == (1, 5, 3)
    assert (person["exact"]["count"], bot["exact"]["count"]) == (2, 1)
    assert person["ci95"] == pytest.approx(list(ec.wilson_interval(3, 4)))
    assert result["ratio"] == pytest.approx((1 / 5) / (3 / 4))
    low, high = result["ratio_ci95"]
    assert low <= result["ratio"] <= high
    files = {Path(k).name: v for k, v in result["per_file"].items()}
    assert (files["g1.tsv"]["person"]["count"], files["g1.tsv"]["bot"]["count"]) == (1, 1)
    assert (files["g2.tsv"]["person"]["count"], files["g2.tsv"]["bot"]["total"]) == (2, 3)
    assert result["bot_perceptions"] == {}  # the key names no perception
    # a judge passed in is the one used
    strict = people.score_bot_to_person(key, guesses, accepts=lambda s, g: s == g)
    assert strict["sources"]["person"]["count"] == 1  # only "animals" is the word exactly


def test_bot_to_person_per_perception(tmp_path: Path) -> None:
    """Bot words of games with labels and pixels only are rated separately."""
    key = tmp_path / "key.jsonl"
    rows = [
        {"split": "s00", "word": "dog", "by": "person"},
        {"split": "s01", "word": "cat", "by": "person"},
        {"split": "s02", "word": "red", "by": "bot", "perception": "labels"},
        {"split": "s03", "word": "sky", "by": "bot", "perception": "pixels"},
        {"split": "s04", "word": "sea", "by": "bot", "perception": "pixels"},
    ]
    key.write_text("".join(json.dumps(r) + "\n" for r in rows))
    g = tmp_path / "g.tsv"
    g.write_text("split\tword\ns00\tdog\ns01\tcow\ns02\tred\ns03\tsky\ns04\tsand\n")
    result = people.score_bot_to_person(key, [g], accepts=lambda s, w: s == w, resamples=100)
    by = result["bot_perceptions"]
    assert (by["labels"]["count"], by["labels"]["total"], by["labels"]["splits"]) == (1, 1, 1)
    assert (by["pixels"]["count"], by["pixels"]["total"]) == (1, 2)
    assert by["labels"]["ratio"] == pytest.approx(1.0 / 0.5)
    assert by["pixels"]["ratio"] == pytest.approx(0.5 / 0.5)
    assert "bots' words, pixels" in people.bot_to_person_table(result)


@pytest.mark.parametrize(
    ("key_text", "guess_text", "message"),
    [
        (None, "split\tword\ns00\tdog\ns99\tcat\n", "g.tsv:3: split 's99' is not in the key"),
        (None, "id\tguess\ns00\tdog\n", "g.tsv:1: expected a tab-separated header"),
        ('{"split": "s00", "word": "dog", "by": "robot"}\n', "split\tword\n", "key.jsonl:1: by"),
        ('{"split": "s00", "word": "dog"}\n', "split\tword\n", "key.jsonl:1: expected"),
        (
            '{"split": "s00", "word": "dog", "by": "bot"}\n' * 2,
            "split\tword\n",
            "key.jsonl:2: split s00 is in the key twice",
        ),
    ],
)
def test_bot_to_person_rejects_bad_files(
    tmp_path: Path, key_text: str | None, guess_text: str, message: str
) -> None:
    key = tmp_path / "key.jsonl"
    key.write_text(key_text or '{"split": "s00", "word": "dog", "by": "person"}\n')
    (tmp_path / "g.tsv").write_text(guess_text)
    with pytest.raises(ec.EvalError, match=re.escape(message)):
        people.score_bot_to_person(key, [tmp_path / "g.tsv"], accepts=lambda s, g: s == g)


def test_recorded_pools_are_found_and_pooled(tmp_path: Path) -> None:
    def same(secret: str, guess: str) -> bool:
        return secret.lower() == guess.lower()

    assert people.score_recorded(tmp_path / "absent", accepts=same) is None
    assert people.score_recorded(tmp_path, accepts=same) is None
    _pool(tmp_path / "pool-a")
    _pool(tmp_path / "pool-b")
    (tmp_path / "pool-c").mkdir()  # a key without guesses is not a pool yet
    (tmp_path / "pool-c" / "key.jsonl").write_text('{"split": "s0", "word": "x", "by": "bot"}\n')
    result = people.score_recorded(tmp_path, accepts=same, resamples=100)
    assert result is not None and len(result["pools"]) == 2
    one = result["pools"][0]["sources"]
    for source in people.SOURCES:
        assert result["sources"][source]["total"] == 2 * one[source]["total"]
        assert result["sources"][source]["count"] == 2 * one[source]["count"]
    assert result["ratio"] == pytest.approx(result["pools"][0]["ratio"])
    assert result["title"] is None  # no README: no round named
    (tmp_path / "README.md").write_text(
        "intro\n# bot -> person, a round (bots of commit abc1234)\n"
    )
    named = people.score_recorded(tmp_path, accepts=same, resamples=10)
    assert named is not None and named["title"] == "bot -> person, a round (bots of commit abc1234)"


# --------------------------------------------------------------------------- script and report


def _small_rounds(tmp_path: Path, dev_people_rounds: Path, n: int = 2) -> Path:
    """The first ``n`` report and ``n`` fit rounds of the shared dev file, deals written in."""
    picked = {"report": [], "fit": []}
    for rnd in people.load_people_rounds(dev_people_rounds):
        if len(picked[rnd.part]) < n:
            picked[rnd.part].append(rnd)
    path = tmp_path / "rounds" / "rounds.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": r.id,
                    "deal": r.deal,
                    "target": r.target,
                    "group_of_three": list(r.three),
                    "group_of_two": list(r.two),
                    "other_players_guessed": list(r.others),
                }
            )
            + "\n"
            for r in picked["report"] + picked["fit"]
        )  # fmt: skip
    )
    return path


def test_report_section_reports_the_reporting_part_and_recorded_pools(
    tmp_path: Path, dev_people_rounds: Path, dev_deck: Path, loaded: tuple
) -> None:
    rounds = _small_rounds(tmp_path, dev_people_rounds)
    recorded = tmp_path / "recorded"
    _pool(recorded / "pool-a")
    args = argparse.Namespace(
        people_rounds=[rounds], people_deck=dev_deck, people_recorded=recorded,
        deck=dev_deck, seed=0, limit=None,
    )  # fmt: skip
    text, figures = make_evaluation.people_section(args, {"labels": loaded})
    assert figures is not None and figures["split"] == {"report": 2, "fit": 2}
    assert "**2 in the reporting part** and 2 in the fitting part" in text
    assert "the other persons" in text and "4 guesses" in text  # report part: 2 turns x 2
    for who in ("plain guesser", "`KiekBot` easy", "`KiekBot` normal", "`KiekBot` hard"):
        assert who in text
    assert text.count("/2 rounds") == 4  # each guesser on the 2 reporting turns, not the fit
    assert "Recorded pools" in text and "bots' words" in text and "Ratio bot / person" in text
    assert figures["bot_to_person"]["sources"]["bot"]["total"] == 5
    assert set(figures["person_to_bot"]["labels"]["parts"]) == {"report", "fit"}

    args.people_recorded = tmp_path / "nothing-here"
    text, figures = make_evaluation.people_section(args, {"labels": loaded})
    assert "Not yet recorded" in text and figures["bot_to_person"] is None
    args.people_rounds = []
    text, figures = make_evaluation.people_section(args, {"labels": loaded})
    assert figures is None and "Not run" in text


def test_script_prints_tables_and_writes_json_and_md(
    tmp_path: Path, dev_people_rounds: Path, dev_deck: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rounds = _small_rounds(tmp_path, dev_people_rounds, n=1)
    key, guesses = _pool(tmp_path / "pool")
    out = tmp_path / "out"
    code = people.main(
        ["--rounds", str(rounds), "--deck", str(dev_deck), "--perceptions", "labels",
         "--levels", "", "--bootstrap", "50", "--key", str(key), "--guesses",
         *map(str, guesses), "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "## person -> bot, report part (1 rounds)" in printed
    assert "| labels | the other persons |" in printed and "persons guessing" in printed
    saved = json.loads((out / "people.json").read_text())
    assert saved["split"] == {"report": 1, "fit": 1}
    assert saved["bot_to_person"]["sources"]["person"]["total"] == 4
    assert "People guessing the bots' words" in (out / "people.md").read_text()
    assert people.main(["--rounds", str(tmp_path / "none.jsonl")]) == 2
    assert "error:" in capsys.readouterr().err


def test_tables_keep_the_guesser_order_when_read_back_from_sorted_json() -> None:
    def g(count: int) -> dict:
        return {**people.rate(count, 10), "ratio": count / 8, "ratio_ci95": [0.0, 1.0]}

    # as people.json holds it: keys sorted, so "guesser" is no longer first
    block = {
        "rounds": 10,
        "persons": {**people.rate(16, 20), "exact": people.rate(15, 20)},
        "guessers": {"easy": g(1), "guesser": g(4), "hard": g(3), "normal": g(2)},
    }
    result = {
        "config": {"levels": ["easy", "normal", "hard"]},
        "perceptions": {"labels": {"name": "labels", "parts": {"report": block}}},
    }
    assert people.guesser_names(block, ["easy", "normal", "hard"]) == [
        "guesser",
        "easy",
        "normal",
        "hard",
    ]
    what, value = make_evaluation.people_headline("labels", block, ["easy", "normal", "hard"])
    assert "plain guesser / KiekBot easy / KiekBot normal / KiekBot hard" in what
    assert value.startswith("40.0% / 10.0% / 20.0% / 30.0% vs **80.0%**")
    lines = people.person_to_bot_table(result).splitlines()[2:]
    assert [line.split(" | ")[1] for line in lines] == [
        "the other persons",
        "plain guesser (`rank_guesses` top-1)",
        "`KiekBot` easy",
        "`KiekBot` normal",
        "`KiekBot` hard",
    ]
    assert "| 40.0% | 4/10 rounds |" in lines[1] and "| 0.50 |" in lines[1]


def test_section_says_so_when_no_reporting_turn_was_scored() -> None:
    block = {"rounds": 1, "persons": people.rate(1, 2), "guessers": {}}
    result = {
        "config": {},
        "split": {"report": 0, "fit": 1},
        "perceptions": {"labels": {"name": "labels", "parts": {"fit": block}}},
    }
    text = people.render_markdown(result, None, None)
    assert "No turn of the reporting part" in text and "| the other persons |" not in text
    assert "Not yet recorded:" in text


def test_blind_ratings_per_source_and_perception(tmp_path: Path) -> None:
    path = tmp_path / "ratings.tsv"
    path.write_text(
        "split\tby\tperception\tword\trater\ttrue_three\tfalse_two\tnatural\n"
        "p1\tperson\t\tdogs\tR\tyes\tyes\t5\n"
        "p2\tperson\t\tred\tR\tyes\tno\t4\n"
        "b1\tbot\tlabels\tanimal\tR\tyes\tyes\t5\n"
        "b2\tbot\tpixels\tlegs\tR\tno\tyes\t2\n"
        "b3\tbot\tpixels\tdog\tR\tYes\tyes\t4\n"
    )
    groups = people.score_ratings(path)["groups"]
    assert (groups["person"]["turns"], groups["person"]["true"]["count"]) == (2, 1)
    assert groups["person"]["natural"] == pytest.approx(4.5)
    assert (groups["bot"]["turns"], groups["bot"]["true"]["count"]) == (3, 2)
    assert (groups["bot pixels"]["true"]["count"], groups["bot pixels"]["turns"]) == (1, 2)
    assert groups["bot labels"]["natural"] == 5.0
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        "split\tby\tperception\tword\ttrue_three\tfalse_two\tnatural\np\tbot\t\tx\tyes\tyes\t9\n"
    )
    with pytest.raises(ec.EvalError, match="bad.tsv:2: natural must be 1 to 5"):
        people.score_ratings(bad)
    bad.write_text("split\tby\tword\n")
    with pytest.raises(ec.EvalError, match="lacks perception"):
        people.score_ratings(bad)
