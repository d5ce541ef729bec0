"""The judge server as a package: the ``kiekai.api`` names, the service dependency, and the
judge's batch encoding that the server asks for (no models loaded: test doubles only)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import kiekai.api
import kiekai.judge.server
from kiekai.judge import batching
from kiekai.judge.server import create_app
from kiekai.judge.verdict import Strictness, Verdict


class EchoJudge:
    """A judge double: a guess matches when it is the secret word itself."""

    def check_word(self, text: str) -> Verdict:
        return Verdict(True, 1.0, "one-word", "one word")

    def match(self, secret: str, guess: str) -> Verdict:
        same = secret == guess
        return Verdict(same, float(same), "same-word" if same else "unrelated", "double")

    def is_repeat(self, word: str, used_words) -> Verdict:
        hit = word in used_words
        return Verdict(hit, float(hit), "same-word", "double", matched=word if hit else None)


def test_kiekai_api_re_exports_every_public_name_of_the_package():
    assert kiekai.api.__all__ == kiekai.judge.server.__all__
    for name in kiekai.judge.server.__all__:
        assert getattr(kiekai.api, name) is getattr(kiekai.judge.server, name), name


def test_without_its_lifespan_the_app_says_the_judges_are_loading():
    client = TestClient(create_app({level: EchoJudge() for level in Strictness}))  # no `with`
    answer = client.post("/v1/judge", json={"secret": "dog", "guess": "dog"})
    assert answer.status_code == 503
    assert answer.json()["error"] == "judge-unavailable"
    assert "still loading" in answer.json()["message"]
    health = client.get("/healthz").json()
    assert health["status"] == "degraded" and health["strictness_levels"] == []


def test_with_its_lifespan_the_routes_get_the_service():
    with TestClient(create_app({level: EchoJudge() for level in Strictness})) as client:
        answer = client.post("/v1/judge", json={"secret": "dog", "guess": "dog"})
        assert answer.status_code == 200 and answer.json()["accepted"] is True
        assert client.get("/healthz").json()["strictness_levels"] == [s.value for s in Strictness]


@pytest.fixture
def encoded(monkeypatch) -> list[tuple[list[str], bool]]:
    """The batches :mod:`kiekai.judge.batching` hands to the sentence model (none encoded)."""
    calls: list[tuple[list[str], bool]] = []
    monkeypatch.setattr(
        batching,
        "encode",
        lambda words, *, single_thread=True: calls.append((list(words), single_thread)),
    )
    return calls


def test_prefetch_encodes_one_batch_of_normalised_text_words(encoded):
    batching.prefetch(["Dogs ", 3, "", "cats"], single_thread=True)
    assert len(encoded) == 1
    words, single = encoded[0]
    assert single is True and len(words) == 2 and all(isinstance(w, str) and w for w in words)


def test_prefetch_below_its_threshold_encodes_nothing(encoded):
    batching.prefetch(["dog", "cat"], at_least=9)
    assert encoded == []
    batching.prefetch([f"word{i}" for i in range(9)], at_least=9)
    assert len(encoded) == 1 and len(encoded[0][0]) == 9


def test_match_many_encodes_once_then_asks_each_pair_through_the_protocol(encoded):
    verdicts = batching.match_many(EchoJudge(), [("dog", "dog"), ("dog", "cat")])
    assert [v.accepted for v in verdicts] == [True, False]
    assert len(encoded) == 1 and encoded[0][1] is True
    repeat = batching.is_repeat(EchoJudge(), "cat", ["dog", "cat"])
    assert repeat.accepted and repeat.matched == "cat"
    assert len(encoded) == 2
