"""Reasons a player reads (issue 20, point 6): a verdict's ``reason`` says in plain words why;
model names and numbers are in ``details`` (Python, API) and ``kiekai judge --explain``.

The banned vocabulary is :data:`kiekai.judge.reasons.TECHNICAL_TERMS` (model and data names
such as MiniLM and WordNet, what the models compute, lexicographers' relation names) plus
any digit or percent sign outside the players' own quoted words.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from kiekai.judge import Judge
from kiekai.judge.reasons import TECHNICAL_TERMS, technical_terms_in

LEVELS = ("strict", "standard", "lenient")

#: What the plain reason says for each relation the judge names: the words a player reads.
PLAIN_WORDS = {
    "synonym": "are synonyms",
    "same-lemma": "forms of the same word",
    "spelling": "spellings of one word",
    "hyponym": "is a kind of",
    "hypernym": "is a kind of",
    "antonym": "opposites",
    "negation": "opposites",
    "cohyponym": "different",
    "typo": "misspelling",
    "near-synonym": "close in meaning",
    "derivation": "words of one family",
    "rare-sense": "rare meaning",
    "related": "related",
    "unrelated": "different things",
    "different-word": "different words",
}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture(scope="module")
def pairs(shared_dir: Path) -> list[dict[str, str]]:
    """The judge's dev pairs (the file tests/test_judge_dev.py reads)."""
    return _rows(shared_dir / "eval" / "judge-pairs-dev.tsv")


# ------------------------------------------------------------------- the banned vocabulary


def test_the_old_reasons_are_caught_and_player_words_are_not() -> None:
    """The check sees each term of today's model-speaking reasons, and lets the players'
    own words through even when they hold a banned term or a digit."""
    old = (
        "Rejected at standard level: 'bare' and 'bear' have no close link in WordNet or by "
        "sentence embedding (fitted model: score 0.06, needs 0.50; MiniLM cosine 0.47)."
    )
    found = {t.lower() for t in technical_terms_in(old, ("bear", "bare"))}
    assert {"wordnet", "embedding", "fitted", "model", "score", "needs", "minilm"} <= found
    assert {"cosine", "0", "5", "."} - found == {"."}
    assert technical_terms_in("everyday lexicon v3: 'rock' and 'stone' name the same thing")
    assert technical_terms_in("share the WordNet synset night.n.01 (3 % of its uses)")
    plain = "Accepted at standard level: 'model' and 'MiniLM 3' are synonyms."
    assert technical_terms_in(plain, ("model", "MiniLM 3")) == []
    assert technical_terms_in("Accepted: 'R2D2' and 'r2d2' differ only in letter case.") == []
    assert all(t == t.lower() for t in TECHNICAL_TERMS)


# ------------------------------------------------------------ every dev pair, every level


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("level", LEVELS)
def test_no_dev_pair_reason_names_a_model_or_a_number(judges, pairs, level) -> None:
    """Done-when of issue 20: no model name or number in any dev pair's reason; the
    evidence (source, and the model's numbers where it decided) is in ``details``."""
    verdicts = judges[level].match_many([(r["secret"], r["guess"]) for r in pairs])
    bad = []
    for r, v in zip(pairs, verdicts, strict=True):
        terms = technical_terms_in(v.reason, (r["secret"], r["guess"]))
        if terms:
            bad.append((r["secret"], r["guess"], terms, v.reason))
        assert v.reason.startswith("Accepted" if v.accepted else "Rejected"), v
        assert v.details.get("source"), v
        assert v.details.get("level", level) == level, v
        if v.details["source"] == "fitted model":
            assert v.details["model_score"] == v.score, v
            assert 0.0 < v.details["model_threshold"] < 1.0, v
            assert v.details["encoder"] == "all-MiniLM-L6-v2" and -1 <= v.details["cosine"] <= 1
            assert len(v.details["features"]) == 12, v
        json.dumps(v.details)  # JSON-serialisable, as the API and --json send it
    assert bad == []


@pytest.mark.slow
@pytest.mark.shared
def test_dev_reasons_say_the_relation_in_plain_words(judges, pairs) -> None:
    """A synonym reads as synonyms, an opposite as opposites, a kind as "is a kind of"...:
    the relation the judge found, in the words of :data:`PLAIN_WORDS`, at every level."""
    wrong, seen = [], set()
    for level in LEVELS:
        for r in pairs:
            v = judges[level].match(r["secret"], r["guess"])
            words = PLAIN_WORDS.get(v.relation)
            seen.add(v.relation)
            if words is not None and words not in v.reason:
                wrong.append((level, v.relation, r["secret"], r["guess"], v.reason))
    assert wrong == []
    assert len(seen & set(PLAIN_WORDS)) >= 12, seen  # the dev pairs reach most relations


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("level", LEVELS)
def test_no_dev_repeat_reason_names_a_model_or_a_number(judges, shared_dir, level) -> None:
    rows = _rows(shared_dir / "eval" / "repeats-dev.tsv")
    bad = []
    for r in rows:
        used = r["used"].split(";")
        v = judges[level].is_repeat(r["candidate"], used)
        if technical_terms_in(v.reason, (r["candidate"], *used)):
            bad.append((r["candidate"], used, v.reason))
        assert v.details["used_count"] == len([u for u in used if u.strip()]), v
        assert v.details["closest"] in used, v
    assert bad == []


@pytest.mark.slow
def test_model_decided_pairs_keep_their_numbers_in_details(judges) -> None:
    """dog / puppy (WordNet and the fitted model, no lexicon) at standard: the reason says a
    puppy is a kind of dog and what standard leaves to lenient tables; the score, the
    threshold and the cosine are in details, and the old reason's wording is in
    details["evidence"]."""
    v = Judge("standard", lexicon=None).match("dog", "puppy")
    assert v.reason == (
        "Rejected at standard level: 'puppy' is a kind of 'dog'; standard leaves broader and "
        "narrower kinds to lenient tables."
    )
    assert v.details["source"] == "fitted model" and v.details["model_score"] == v.score
    assert v.details["model_threshold"] == 0.5 and "cosine" in v.details
    assert "WordNet" in v.details["evidence"]


# ------------------------------------------------------------------------ API and CLI


@pytest.mark.slow
def test_the_api_answers_details_beside_a_plain_reason(judges) -> None:
    from kiekai.judge.server import create_app

    with TestClient(create_app(judges)) as client:
        answer = client.post("/v1/judge", json={"secret": "beach", "guess": "sand"}).json()
        assert technical_terms_in(answer["reason"], ("beach", "sand")) == []
        details = answer["details"]
        assert details["source"] == "fitted model" and details["model_score"] == answer["score"]
        assert details["encoder"] == "all-MiniLM-L6-v2" and isinstance(details["cosine"], float)
        repeat = client.post("/v1/repeat", json={"candidate": "stones", "used": ["rocks", "sky"]})
        assert repeat.json()["details"]["closest"] == "rocks"
        assert repeat.json()["details"]["used_count"] == 2
        schema = client.get("/openapi.json").json()["components"]["schemas"]
        assert schema["JudgeResponse"]["properties"]["details"]["$ref"].endswith("VerdictDetails")
        fields = schema["VerdictDetails"]["properties"]
        assert {"source", "evidence", "model_score", "model_threshold", "cosine"} <= set(fields)
        assert schema["JudgeResponse"]["properties"]["reason"]["type"] == "string"


@pytest.mark.slow
def test_explain_prints_the_details_and_plain_output_does_not() -> None:
    from kiekai.cli import app

    runner = CliRunner()
    plain = runner.invoke(app, ["judge", "beach", "sand"])
    assert plain.exit_code == 0, plain.output
    assert "details:" not in plain.stdout and "MiniLM" not in plain.stdout
    explained = runner.invoke(app, ["judge", "beach", "sand", "--explain"])
    assert explained.exit_code == 0, explained.output
    lines = explained.stdout.splitlines()
    assert lines[1] == plain.stdout.splitlines()[1]  # the same plain reason
    assert "details:" in lines and "  source: fitted model" in lines
    assert any(line.startswith("  model score: 0.") for line in lines)
    assert any(line.startswith("  encoder: all-MiniLM-L6-v2") for line in lines)
    repeat = runner.invoke(app, ["repeat", "stones", "--used", "rocks", "--explain"])
    assert repeat.exit_code == 0 and "  closest: rocks" in repeat.stdout.splitlines()
    refused = runner.invoke(app, ["judge", "--batch", "-", "--explain"], input="secret\tguess\n")
    assert refused.exit_code == 2 and "--explain" in refused.output
    as_json = json.loads(runner.invoke(app, ["judge", "beach", "sand", "--json"]).stdout)
    assert as_json["details"]["source"] == "fitted model"


# ---------------------------------------------------------------------------- the game


def test_the_game_log_shows_the_plain_reason_without_the_relation_name() -> None:
    """The describer (terminal and replay) shows the reason a player reads, not the
    relation's name ("cohyponym"), which stays in the log's data."""
    from kiekai.events import Event, KiekVerdict
    from kiekai.kiek.describe import Describer

    reason = "Rejected at standard level: 'lion' and 'tiger' are different kinds of animal."
    data = KiekVerdict(secret="tiger", guess="lion", accepted=False, relation="cohyponym",
                       reason=reason)  # fmt: skip
    text = " ".join(
        span.text
        for line in Describer().describe(Event.of(data, player=1, turn=0))
        for span in line.spans
    )
    assert reason in text and "cohyponym" not in text
