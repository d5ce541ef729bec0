"""The server's house rulings are read per request (issue 20, point 2): a ruling written to
the ``--house-rules`` file holds from the next request on, in every worker, and no verdict
cached under the old rulings is served under the new ones.

:class:`kiekai.judge.server.rulings.FileRulings` is tested on real files; the service and
its cache through the real app (FastAPI TestClient) with a small judge that decides by the
house rules alone and counts its calls, so that what the cache serves is visible. Two real
worker processes are tested in ``test_serve_workers.py``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pytest
from fastapi.testclient import TestClient

from kiekai.judge import batching
from kiekai.judge.house_rules import HouseRules, HouseRuling
from kiekai.judge.server import create_app
from kiekai.judge.server.rulings import FileRulings, RulingsSource, StaticRulings
from kiekai.judge.verdict import Strictness, Verdict


class RulesOnlyJudge:
    """A judge that accepts a pair only by a house ruling (``house_rules``, which the
    service sets) and counts the pairs it was asked."""

    def __init__(self, level: Strictness) -> None:
        self.strictness = level
        self.house_rules: HouseRules | None = None
        self.calls = 0

    def match(self, secret: str, guess: str, *, rulings: HouseRules | None = None) -> Verdict:
        self.calls += 1
        for rules in (rulings, self.house_rules):
            found = rules.lookup(secret, guess, self.strictness.value) if rules else None
            if found is not None:
                return Verdict(found.accepted, float(found.accepted), "house-rule", "ruled")
        return Verdict(False, 0.0, "unrelated", "no ruling")

    def match_many(self, pairs, *, rulings=None) -> list[Verdict]:
        return [self.match(s, g, rulings=rulings) for s, g in pairs]

    def is_repeat(
        self, candidate: str, used: Sequence[str], *, rulings: HouseRules | None = None
    ) -> Verdict:
        for word in used:
            verdict = self.match(word, candidate, rulings=rulings)
            if verdict.accepted:
                return Verdict(True, 1.0, verdict.relation, verdict.reason, matched=word)
        return Verdict(False, 0.0, "unrelated", "no ruling")


def add_ruling(path, secret: str, guess: str, accepted: bool, level: str = "*") -> None:
    """Append a ruling as ``kiekai play`` does (:meth:`HouseRules.add` on the file)."""
    HouseRules(path=path).add(HouseRuling(secret, guess, accepted, level))


# ----------------------------------------------------------------------------- the source


def test_a_missing_file_is_no_rulings_until_it_is_written(tmp_path) -> None:
    path = tmp_path / "house-rules.tsv"
    source = FileRulings(path)
    assert isinstance(source, RulingsSource)
    first = source.snapshot()
    assert first.rules is None
    add_ruling(path, "sofa", "couch", True)
    second = source.snapshot()
    assert second.version != first.version
    assert second.rules is not None and second.rules.lookup("sofa", "couch", "standard")


def test_an_unchanged_file_is_not_read_again(tmp_path) -> None:
    path = tmp_path / "house-rules.tsv"
    add_ruling(path, "sofa", "couch", True)
    source = FileRulings(path)
    snapshots = [source.snapshot() for _ in range(50)]
    assert source.reads == 1
    assert all(s is snapshots[0] for s in snapshots)
    add_ruling(path, "pets", "dogs", False)
    assert source.snapshot().version != snapshots[0].version and source.reads == 2


def test_rulings_given_at_start_are_not_read_again(tmp_path) -> None:
    path = tmp_path / "house-rules.tsv"
    add_ruling(path, "sofa", "couch", True)
    rules = HouseRules.load(path)
    source = FileRulings(path, rules)
    assert source.snapshot().rules is rules and source.reads == 0


def test_a_half_written_line_keeps_the_rulings_read_before(tmp_path, caplog) -> None:
    path = tmp_path / "house-rules.tsv"
    add_ruling(path, "sofa", "couch", True)
    source = FileRulings(path)
    before = source.snapshot()
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("pets\tdogs\tmaybe")  # a writer caught mid-line (an unreadable cell)
    torn = source.snapshot()
    assert torn.rules is not None and len(torn.rules) == 1  # the torn line is left out
    assert torn.rules.lookup("sofa", "couch", "standard").accepted is True  # the old hold
    assert torn.rules.lookup("pets", "dogs", "strict") is None
    assert "without a line" in caplog.text and "cut short" in caplog.text
    assert source.snapshot() is torn  # not read again until the file changes
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("x\n")  # a bad last line, now finished: the file does not read
    assert source.snapshot() is torn  # the rulings read before hold
    assert "not reloaded" in caplog.text
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("sofa\tcouch\tyes\t*\npets\tdogs\tno\t*\n")
    fixed = source.snapshot()
    assert fixed.version != before.version
    assert fixed.rules is not None and fixed.rules.lookup("pets", "dogs", "strict") is not None


def test_a_file_replaced_by_a_rename_is_read(tmp_path) -> None:
    path = tmp_path / "house-rules.tsv"
    add_ruling(path, "sofa", "couch", True)
    source = FileRulings(path)
    assert source.snapshot().rules.lookup("sofa", "couch", "standard").accepted is True
    new = tmp_path / "new.tsv"
    new.write_text("sofa\tcouch\tno\t*\n", encoding="utf-8")
    os.replace(new, path)
    assert source.snapshot().rules.lookup("sofa", "couch", "standard").accepted is False
    path.unlink()
    assert source.snapshot().rules is None


def test_static_rulings_never_change() -> None:
    rules = HouseRules([HouseRuling("sofa", "couch", True, "*")])
    source = StaticRulings(rules)
    assert source.snapshot() is source.snapshot() and source.snapshot().rules is rules


# ------------------------------------------------------------------- the service and cache


@pytest.fixture
def served(tmp_path, monkeypatch):
    """A client of the app with RulesOnlyJudge judges and the rulings of a file."""
    monkeypatch.setattr(batching, "needs_encoder", lambda words: False)  # no model here
    path = tmp_path / "house-rules.tsv"
    judges = {level: RulesOnlyJudge(level) for level in Strictness}
    with TestClient(create_app(judges, rulings=FileRulings(path))) as client:
        yield client, path, judges


def test_a_ruling_written_to_the_file_holds_from_the_next_request(served) -> None:
    client, path, judges = served
    ask = {"secret": "sofa", "guess": "couch"}
    assert client.post("/v1/judge", json=ask).json()["accepted"] is False
    calls = judges[Strictness.STANDARD].calls
    assert client.post("/v1/judge", json=ask).json()["accepted"] is False
    assert judges[Strictness.STANDARD].calls == calls  # the second came from the cache
    add_ruling(path, "sofa", "couch", True)
    answer = client.post("/v1/judge", json=ask).json()
    assert answer["accepted"] is True and answer["relation"] == "house-rule"
    add_ruling(path, "sofa", "couch", False)  # overruled again: the newest line wins
    assert client.post("/v1/judge", json=ask).json()["accepted"] is False


def test_batch_and_repeat_follow_the_file_too(served) -> None:
    client, path, _ = served
    batch = {"pairs": [{"secret": "sofa", "guess": "couch"}, {"secret": "dog", "guess": "cat"}]}
    repeat = {"candidate": "couch", "used": ["sofa", "lamp"]}
    assert [v["accepted"] for v in client.post("/v1/judge/batch", json=batch).json()] == [
        False,
        False,
    ]
    assert client.post("/v1/repeat", json=repeat).json()["accepted"] is False
    add_ruling(path, "couch", "sofa", True)  # either order: rulings hold both ways
    assert [v["accepted"] for v in client.post("/v1/judge/batch", json=batch).json()] == [
        True,
        False,
    ]
    answer = client.post("/v1/repeat", json=repeat).json()
    assert answer["accepted"] is True and answer["matched"] == "sofa"


def test_a_request_rulings_still_come_first(served) -> None:
    client, path, _ = served
    add_ruling(path, "sofa", "couch", True)
    body = {
        "secret": "sofa",
        "guess": "couch",
        "house_rules": [{"secret": "sofa", "guess": "couch", "accepted": False}],
    }
    assert client.post("/v1/judge", json=body).json()["accepted"] is False
    assert client.post("/v1/judge", json={"secret": "sofa", "guess": "couch"}).json()["accepted"]


def test_healthz_names_the_worker(served) -> None:
    client, _, _ = served
    health = client.get("/healthz").json()
    assert health["worker_pid"] == os.getpid()
    assert health["memory_mb"] is None or health["memory_mb"] > 10


# ------------------------------------------------------------------ worker settings


def test_worker_settings_travel_in_the_environment(tmp_path) -> None:
    from kiekai.judge.server.workers import SETTINGS_ENV, WorkerSettings

    settings = WorkerSettings(house_rules=str(tmp_path / "rules.tsv"))
    assert WorkerSettings.from_env({SETTINGS_ENV: settings.to_env()}) == settings
    assert WorkerSettings.from_env({}) == WorkerSettings()
    with pytest.raises(ValueError, match=SETTINGS_ENV):
        WorkerSettings.from_env({SETTINGS_ENV: "{not json"})
    with pytest.raises(ValueError, match="keys among"):
        WorkerSettings.from_env({SETTINGS_ENV: '{"house_rule": "x"}'})


def test_a_worker_starts_with_a_malformed_rules_file(tmp_path, monkeypatch, caplog) -> None:
    """The parent checked the file at start; a worker (re)started while it is malformed
    serves without it (one warning) instead of failing to start again and again."""
    from kiekai.judge.server.workers import SETTINGS_ENV, WorkerSettings, worker_app

    path = tmp_path / "rules.tsv"
    path.write_text("sofa\tcouch\tmaybe\n", encoding="utf-8")
    monkeypatch.setenv(SETTINGS_ENV, WorkerSettings(house_rules=str(path)).to_env())
    app = worker_app()
    assert app.title == "kiekai judge"
    assert "not reloaded" in caplog.text
