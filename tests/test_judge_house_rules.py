"""A table's house rules in the judge, the command line and the HTTP API (issue 10, item 4).

The rulebook ("Imperfect Guesses") leaves it to each group of players to decide which guess
is correct; a table's rulings come before any of the judge's own evidence and are named in
the reason. The API is also tested against a real ``kiekai serve --house-rules FILE``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from kiekai.cli import app as cli_app
from kiekai.judge import Judge, Strictness
from kiekai.judge.house_rules import HouseRules, HouseRuling
from kiekai.judge.server import MAX_HOUSE_RULINGS, create_app

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
RULES = (
    "# our table\n"
    "secret\tguess\taccepted\tlevel\n"
    "sofa\tcouch\tno\tstandard\n"  # the judge alone accepts this pair at standard
    "dog\tcat\tyes\t*\n"  # and rejects this one at every level
    "tree\toak\tyes\tstandard\n"
)


@pytest.fixture()
def rules_file(tmp_path: Path) -> Path:
    path = tmp_path / "house-rules.tsv"
    path.write_text(RULES, encoding="utf-8")
    return path


def test_judge_applies_rulings_before_its_evidence(rules_file: Path) -> None:
    rules = HouseRules.load(rules_file)
    plain = Judge("standard", lexicon=None)
    ruled = Judge("standard", house_rules=rules, lexicon=None)
    assert plain.match("sofa", "couch").accepted  # the judge's own verdict ...
    v = ruled.match("sofa", "couch")
    assert not v.accepted and v.relation == "house-rule"  # ... overruled by the table
    assert "house rule (house-rules.tsv)" in v.reason and v.reason.startswith("Rejected")
    v = ruled.match("cat", "dog")  # a ruling holds both ways, at every level with '*'
    assert v.accepted and v.score == 1.0 and "this table accepts" in v.reason
    assert Judge("lenient", house_rules=rules, lexicon=None).match("dog", "cat").accepted
    # a ruling made at standard holds at standard only
    assert ruled.match("tree", "oak").accepted
    assert not Judge("strict", house_rules=rules, lexicon=None).match("tree", "oak").accepted
    # the input check still comes first: a ruling cannot make a phrase one word
    assert not ruled.match("dog", "a cat and a dog").accepted


def test_a_ruling_added_mid_game_holds_at_once_and_is_saved(tmp_path: Path) -> None:
    rules = HouseRules(path=tmp_path / "rules.tsv")
    judge = Judge("standard", house_rules=rules, lexicon=None)
    assert not judge.match("dog", "cat").accepted
    assert not judge.is_repeat("cat", ["dog"]).accepted
    rules.add(HouseRuling("dog", "cat", True, "standard"))  # the humans overrule at the reveal
    v = judge.match("dog", "cat")
    assert v.accepted and v.relation == "house-rule"  # no stale verdict from a cache
    r = judge.is_repeat("cat", ["sky", "dog"])  # ne bis in idem follows the same ruling
    assert r.accepted and r.matched == "dog" and "house rule" in r.reason
    reloaded = Judge("standard", house_rules=HouseRules.load(tmp_path / "rules.tsv"), lexicon=None)
    assert reloaded.match("dog", "cat").accepted  # the next game reads it back


def test_rulings_per_call_come_first(rules_file: Path) -> None:
    judge = Judge("standard", house_rules=HouseRules.load(rules_file), lexicon=None)
    mine = HouseRules([HouseRuling("sofa", "couch", True, "*")])
    v = judge.match("sofa", "couch", rulings=mine)
    assert v.accepted and "sent with this request" in v.reason
    assert judge.match_many([("sofa", "couch")], rulings=mine)[0].accepted
    assert judge.is_repeat("couch", ["sofa"], rulings=mine).accepted
    assert not judge.match("sofa", "couch").accepted  # nothing kept from the call


# ----------------------------------------------------------------------- command line


def test_cli_judge_and_repeat_take_house_rules(rules_file: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(cli_app, ["judge", "sofa", "couch", "--house-rules", str(rules_file)])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("REJECTED") and "house-rule" in r.stdout
    r = runner.invoke(
        cli_app,
        ["judge", "dog", "cat", "-s", "lenient", "--json", "--house-rules", str(rules_file)],
    )
    data = json.loads(r.stdout)
    assert data["accepted"] is True and data["relation"] == "house-rule"
    r = runner.invoke(
        cli_app, ["repeat", "cat", "--used", "sky,dog", "--house-rules", str(rules_file)]
    )
    assert r.exit_code == 0 and r.stdout.startswith("REPEAT of 'dog'"), r.output
    batch = rules_file.parent / "pairs.tsv"
    batch.write_text("secret\tguess\nsofa\tcouch\nmice\tmouse\n", encoding="utf-8")
    r = runner.invoke(cli_app, ["judge", "--batch", str(batch), "--house-rules", str(rules_file)])
    rows = [line.split("\t") for line in r.stdout.splitlines()[1:]]
    assert [(row[2], row[4]) for row in rows] == [("0", "house-rule"), ("1", "same-lemma")]


def test_cli_malformed_house_rules_is_one_error_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("sofa\tcouch\tyes\n\ndog\tcat\tmaybe\tstandard\n", encoding="utf-8")
    r = CliRunner().invoke(cli_app, ["judge", "dog", "cat", "--house-rules", str(bad)])
    assert r.exit_code == 2
    assert "line 3" in r.output and "accepted must be yes or no" in r.output
    r = CliRunner().invoke(
        cli_app, ["repeat", "dog", "--used", "cat", "--house-rules", str(tmp_path)]
    )
    assert r.exit_code == 2 and "not a regular file" in r.output


# -------------------------------------------------------------------------- HTTP (in process)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    judges = {lv: Judge(lv, lexicon=None) for lv in Strictness}
    with TestClient(create_app(judges)) as test_client:
        yield test_client


def test_api_per_request_rulings(client: TestClient) -> None:
    body = {"secret": "dog", "guess": "cat"}
    assert client.post("/v1/judge", json=body).json()["accepted"] is False
    ruled = {**body, "house_rules": [{"secret": "cat", "guess": "dog", "accepted": True}]}
    answer = client.post("/v1/judge", json=ruled).json()
    assert answer["accepted"] is True and answer["relation"] == "house-rule"
    assert "sent with this request" in answer["reason"]
    assert client.post("/v1/judge", json=body).json()["accepted"] is False  # not cached
    batch = client.post(
        "/v1/judge/batch",
        json={
            "pairs": [body, {"secret": "mice", "guess": "mouse"}],
            "house_rules": ruled["house_rules"],
        },
    ).json()
    assert [a["relation"] for a in batch] == ["house-rule", "same-lemma"]
    repeat = client.post(
        "/v1/repeat",
        json={"candidate": "cat", "used": ["dog"], "house_rules": ruled["house_rules"]},
    ).json()
    assert repeat["accepted"] is True and repeat["matched"] == "dog"
    # a ruling at another level changes nothing at this one
    other = {
        **body,
        "house_rules": [{"secret": "dog", "guess": "cat", "accepted": True, "level": "strict"}],
    }
    assert client.post("/v1/judge", json=other).json()["accepted"] is False


@pytest.mark.parametrize(
    ("rulings", "field"),
    [
        ([{"secret": "dog", "guess": "cat"}], "body.house_rules[0].accepted"),
        (
            [{"secret": "dog", "guess": "cat", "accepted": True, "level": "loose"}],
            "body.house_rules[0].level",
        ),
        ([{"secret": "!!", "guess": "cat", "accepted": True}], "body.house_rules[0]"),
        ([{"secret": "d\tog", "guess": "cat", "accepted": True}], "body.house_rules[0].secret"),
        (
            [{"secret": "dog", "guess": "cat", "accepted": True, "why": "x"}],
            "body.house_rules[0].why",
        ),
        (
            [{"secret": "a", "guess": "b", "accepted": True}] * (MAX_HOUSE_RULINGS + 1),
            "body.house_rules",
        ),
        ("dog", "body.house_rules"),
    ],
)
def test_api_bad_rulings_are_422_naming_the_field(client: TestClient, rulings, field) -> None:
    response = client.post(
        "/v1/judge", json={"secret": "dog", "guess": "cat", "house_rules": rulings}
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == field


def test_api_schema_documents_rulings(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    ruling = schema["components"]["schemas"]["RulingIn"]
    assert set(ruling["properties"]) == {"secret", "guess", "accepted", "level"}
    for name in ("JudgeRequest", "BatchRequest", "RepeatRequest"):
        prop = schema["components"]["schemas"][name]["properties"]["house_rules"]
        assert prop["maxItems"] == MAX_HOUSE_RULINGS and "house rulings" in prop["description"]


# -------------------------------------------------------------------------- HTTP (real server)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory) -> Iterator[str]:
    """``kiekai serve --house-rules FILE`` on a free port; stopped at the end."""
    from test_api_server import STARTUP_TIMEOUT_S, start_serve

    folder = tmp_path_factory.mktemp("rules")
    (folder / "house-rules.tsv").write_text(RULES, encoding="utf-8")
    handle = start_serve(
        "--no-embedding-table", "--house-rules", str(folder / "house-rules.tsv"),
        prefix="kiekai-serve-rules-",
        timeout_s=max(STARTUP_TIMEOUT_S, 480.0),  # a busy shared machine loads slowly
    )  # fmt: skip
    try:
        assert "house rules: 3 rulings" in handle.log()
        yield handle.url
    finally:
        handle.stop()
        handle.log_path.unlink(missing_ok=True)


def test_real_server_applies_file_and_request_rulings(server_url: str) -> None:
    with httpx.Client(base_url=server_url, timeout=60.0) as http:
        v = http.post("/v1/judge", json={"secret": "sofa", "guess": "couch"}).json()
        assert v["accepted"] is False and "house rule (house-rules.tsv)" in v["reason"]
        v = http.post(
            "/v1/judge", json={"secret": "cat", "guess": "dog", "strictness": "strict"}
        ).json()
        assert v["accepted"] is True and v["relation"] == "house-rule"
        r = http.post("/v1/repeat", json={"candidate": "cat", "used": ["dog"]}).json()
        assert r["accepted"] is True and r["matched"] == "dog"
        # the request's own rulings come before the server's file
        mine = [{"secret": "sofa", "guess": "couch", "accepted": True}]
        v = http.post(
            "/v1/judge", json={"secret": "sofa", "guess": "couch", "house_rules": mine}
        ).json()
        assert v["accepted"] is True and "sent with this request" in v["reason"]
        bad = http.post("/v1/judge", json={"secret": "sofa", "guess": "couch", "house_rules": [{}]})
        assert bad.status_code == 422 and bad.json()["error"] == "invalid-request"


def test_serve_refuses_a_malformed_house_rules_file(tmp_path: Path) -> None:
    from test_api_server import free_port

    bad = tmp_path / "bad.tsv"
    bad.write_text("sofa\tcouch\n", encoding="utf-8")
    port = str(free_port())
    result = subprocess.run(
        [sys.executable, "-m", "kiekai", "serve", "--port", port, "--house-rules", str(bad)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert "line 1" in result.stderr and "3 to 6 tab-separated cells" in result.stderr
