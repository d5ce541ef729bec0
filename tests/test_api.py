"""The judge's HTTP API in-process (FastAPI TestClient): endpoints, validation, errors.

The app serves the real :class:`kiekai.judge.Judge` (WordNet + all-MiniLM-L6-v2, loaded
once per session); API answers are checked against the Python judge's own verdicts and
against rulebook examples ("Imperfect Guesses": word forms are allowed, "White" is no
match for "Black"). How well verdicts agree with people is tested with the judge itself.
"""

from __future__ import annotations

import json
import math

import pytest
from fastapi.testclient import TestClient

from kiekai.commands.serve import is_loopback
from kiekai.judge.protocol import JudgeLike
from kiekai.judge.server import (
    BATCH_CHUNK,
    MAX_BATCH_PAIRS,
    MAX_BODY_BYTES,
    MAX_USED_WORDS,
    MAX_WORD_CHARS,
    VerdictCache,
    create_app,
)
from kiekai.judge.verdict import Strictness, Verdict

pytestmark = pytest.mark.slow

LEVELS = [s.value for s in Strictness]


@pytest.fixture(scope="module")
def client(judges):
    with TestClient(create_app(judges)) as test_client:
        yield test_client


def post_raw(client: TestClient, path: str, body: bytes, content_type: str = "application/json"):
    headers = {"content-type": content_type} if content_type else {}
    return client.post(path, content=body, headers=headers)


def assert_verdict_equal(answer: dict, verdict: Verdict) -> None:
    assert answer["accepted"] == verdict.accepted
    assert answer["relation"] == verdict.relation
    assert answer["reason"] == verdict.reason
    assert math.isclose(answer["score"], min(1.0, max(0.0, verdict.score)), abs_tol=1e-9)


# ------------------------------------------------------------------------------ /v1/judge


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    ("secret", "guess"),
    [("people", "humans"), ("black", "white"), ("mice", "mouse"), ("dog", "cat"), ("sun", "sunny")],
)
def test_judge_answers_what_the_python_judge_answers(client, judges, level, secret, guess):
    response = client.post(
        "/v1/judge", json={"secret": secret, "guess": guess, "strictness": level}
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["secret"], answer["guess"], answer["strictness"]) == (secret, guess, level)
    assert_verdict_equal(answer, judges[Strictness(level)].match(secret, guess))


def test_judge_follows_the_rulebook_examples(client):
    """Word forms are accepted at every level; "White" is no match for "Black"."""
    for level in LEVELS:
        mice = client.post(
            "/v1/judge", json={"secret": "mice", "guess": "Mouse", "strictness": level}
        ).json()
        assert mice["accepted"] is True, mice
        white = client.post(
            "/v1/judge", json={"secret": "black", "guess": "white", "strictness": level}
        ).json()
        assert white["accepted"] is False, white


def test_strictness_name_is_case_and_space_insensitive(client):
    answer = client.post(
        "/v1/judge", json={"secret": "dog", "guess": "dogs", "strictness": "  LeNiEnT "}
    )
    assert answer.status_code == 200
    assert answer.json()["strictness"] == "lenient"


@pytest.mark.parametrize(("guess", "relation"), [("", "empty"), ("   ", "empty")])
def test_empty_guess_is_a_rejected_verdict_not_an_error(client, guess, relation):
    answer = client.post("/v1/judge", json={"secret": "dog", "guess": guess})
    assert answer.status_code == 200
    assert answer.json()["accepted"] is False
    assert answer.json()["relation"] == relation


def test_word_of_exactly_the_limit_is_judged(client):
    word = "a" * MAX_WORD_CHARS
    assert client.post("/v1/judge", json={"secret": "dog", "guess": word}).status_code == 200


# ------------------------------------------------------------------------ /v1/judge/batch


def test_batch_keeps_order_across_chunks_and_matches_single_calls(client, judges):
    words = ["dog", "puppy", "cat", "people", "humans", "mice", "mouse", "boat", "ship", "tea",
             "river", "creek"]  # fmt: skip
    distinct = [{"secret": a, "guess": b} for a in words for b in words][: BATCH_CHUNK * 2 + 5]
    pairs = distinct + distinct[:7]  # more than two chunks of new pairs, then repeats
    response = client.post("/v1/judge/batch", json={"pairs": pairs, "strictness": "lenient"})
    assert response.status_code == 200, response.text
    answers = response.json()
    assert [(a["secret"], a["guess"]) for a in answers] == [
        (p["secret"], p["guess"]) for p in pairs
    ]
    judge = judges[Strictness.LENIENT]
    for answer, pair in zip(answers, pairs, strict=True):
        assert_verdict_equal(answer, judge.match(pair["secret"], pair["guess"]))


def test_verdict_cache_is_bounded_and_drops_the_least_recently_used():
    cache = VerdictCache(max_entries=2)
    verdicts = [Verdict(True, 1.0, "same-lemma", f"reason {i}") for i in range(3)]
    cache.put(("a",), verdicts[0])
    cache.put(("b",), verdicts[1])
    assert cache.get(("a",)) is verdicts[0]  # "a" is now the most recently used
    cache.put(("c",), verdicts[2])
    assert len(cache) == 2
    assert cache.get(("b",)) is None
    assert cache.get(("a",)) is verdicts[0] and cache.get(("c",)) is verdicts[2]


def test_empty_batch_gives_empty_list(client):
    response = client.post("/v1/judge/batch", json={"pairs": []})
    assert response.status_code == 200
    assert response.json() == []


def test_batch_over_the_limit_is_rejected_with_the_limit_named(client):
    pairs = [{"secret": "a", "guess": "b"}] * (MAX_BATCH_PAIRS + 1)
    response = client.post("/v1/judge/batch", json={"pairs": pairs})
    assert response.status_code == 422
    body = response.json()
    assert body["errors"][0]["field"] == "body.pairs"
    assert str(MAX_BATCH_PAIRS) in body["errors"][0]["problem"]


def test_batch_error_names_the_pair(client):
    pairs = [{"secret": "a", "guess": "b"}, {"secret": "a", "guess": 5}]
    response = client.post("/v1/judge/batch", json={"pairs": pairs})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "body.pairs[1].guess"


# ----------------------------------------------------------------------------- /v1/repeat


@pytest.mark.parametrize("level", LEVELS)
def test_repeat_names_the_used_word_and_matches_python_judge(client, judges, level):
    used = ["dogs", "grass", "cat"]
    response = client.post(
        "/v1/repeat", json={"candidate": "cats", "used": used, "strictness": level}
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    verdict = judges[Strictness(level)].is_repeat("cats", used)
    assert_verdict_equal(answer, verdict)
    assert answer["matched"] == verdict.matched
    # "cats" is the same word as "cat" in any form, so it repeats it at every level
    assert answer["accepted"] is True and answer["matched"] == "cat"


def test_repeat_of_nothing_used(client):
    answer = client.post("/v1/repeat", json={"candidate": "tree", "used": []}).json()
    assert answer["accepted"] is False and answer["matched"] is None


def test_repeat_used_list_limit(client):
    response = client.post(
        "/v1/repeat", json={"candidate": "tree", "used": ["x"] * (MAX_USED_WORDS + 1)}
    )
    assert response.status_code == 422
    assert str(MAX_USED_WORDS) in response.json()["errors"][0]["problem"]


# ----------------------------------------------------------------------- validation errors

BAD_BODIES = [
    # (path, raw JSON body, field named in the error)
    ("/v1/judge", {"guess": "dog"}, "body.secret"),
    ("/v1/judge", {"secret": 3, "guess": "dog"}, "body.secret"),
    ("/v1/judge", {"secret": None, "guess": "dog"}, "body.secret"),
    ("/v1/judge", {"secret": ["dog"], "guess": "dog"}, "body.secret"),
    ("/v1/judge", {"secret": "dog", "guess": "g" * (MAX_WORD_CHARS + 1)}, "body.guess"),
    ("/v1/judge", {"secret": "dog", "guess": "ca\x00t"}, "body.guess"),
    ("/v1/judge", {"secret": "dog", "guess": "ca\nt"}, "body.guess"),
    ("/v1/judge", {"secret": "dog", "guess": "cat", "strictness": "loose"}, "body.strictness"),
    ("/v1/judge", {"secret": "dog", "guess": "cat", "strictness": 10**30}, "body.strictness"),
    ("/v1/judge", {"secret": "dog", "guess": "cat", "strictnes": "strict"}, "body.strictnes"),
    ("/v1/judge", ["dog", "cat"], "body"),
    ("/v1/judge", "dog", "body"),
    ("/v1/judge/batch", {"pairs": "dog,cat"}, "body.pairs"),
    ("/v1/judge/batch", {"pairs": [["dog", "cat"]]}, "body.pairs[0]"),
    ("/v1/repeat", {"candidate": "dog", "used": "cat"}, "body.used"),
    ("/v1/repeat", {"candidate": "dog", "used": ["cat", 1.5]}, "body.used[1]"),
    ("/v1/repeat", {"candidate": "dog"}, "body.used"),
]


@pytest.mark.parametrize(("path", "body", "field"), BAD_BODIES)
def test_bad_bodies_get_422_naming_the_field(client, path, body, field):
    response = post_raw(client, path, json.dumps(body).encode())
    assert response.status_code == 422, response.text
    answer = response.json()
    assert answer["error"] == "invalid-request"
    assert answer["errors"][0]["field"] == field
    assert field in answer["message"]


RAW_BODIES = [
    b'{"secret": "\\ud800", "guess": "dog"}',  # lone surrogate
    b'{"secret": "dog", "guess": "cat", "\\udfff": 1}',  # lone surrogate in a key
    b'{"secret": "dog", "guess": ',  # truncated JSON
    b"\xff\xfe\x00garbage",  # not UTF-8
    b"",  # no body
    b"[" * 50_000,  # nesting deeper than the JSON parser's recursion limit
    b'{"secret": "dog", "guess": 1' + b"0" * 5000 + b"}",  # integer over Python's digit limit
    b'{"secret": 1e999, "guess": NaN}',  # infinity and NaN
    b'{"secret": "dog", "guess": "cat"}' * 2,  # two documents
]


@pytest.mark.parametrize("body", RAW_BODIES)
def test_malformed_json_gets_4xx_json_error(client, body):
    response = post_raw(client, "/v1/judge", body)
    assert 400 <= response.status_code < 500, response.text
    answer = response.json()
    assert answer["message"]
    response.content.decode("utf-8")  # the error body itself is valid UTF-8


def test_body_without_json_content_type_is_refused_with_the_fix(client):
    response = post_raw(client, "/v1/judge", b'{"secret": "dog", "guess": "cat"}', "text/plain")
    assert response.status_code == 422
    assert "application/json" in response.json()["message"]


def test_oversized_body_gets_413(client):
    response = post_raw(client, "/v1/judge/batch", b" " * (MAX_BODY_BYTES + 1))
    assert response.status_code == 413
    assert response.json()["error"] == "body-too-large"


def test_largest_valid_batch_fits_in_the_body_limit():
    word = "\U0001f600" * MAX_WORD_CHARS  # outside the BMP: 12 bytes per character escaped
    body = {"pairs": [{"secret": word, "guess": word}] * MAX_BATCH_PAIRS, "strictness": "lenient"}
    assert len(json.dumps(body).encode()) <= MAX_BODY_BYTES


def test_oversized_streamed_body_without_length_gets_413(client):
    def chunks():
        for _ in range(MAX_BODY_BYTES // 65536 + 1):
            yield b" " * 65536  # just over the limit in all, sent chunked

    response = client.post(
        "/v1/judge/batch", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["error"] == "body-too-large"


def test_streamed_body_within_the_limit_is_judged(client):
    def chunks():
        yield b'{"secret": "dog", '
        yield b'"guess": "dogs"}'

    response = client.post(
        "/v1/judge", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["guess"] == "dogs"


def test_unknown_path_and_method_get_json_4xx(client):
    missing = client.get("/v2/judge")
    assert missing.status_code == 404 and missing.json()["error"] == "not-found"
    wrong = client.get("/v1/judge")
    assert wrong.status_code == 405 and "GET" in wrong.json()["message"]


# ---------------------------------------------------------------------- judge failures


class FailingJudge:
    """Fault-injection double: a judge whose every call raises ``error`` (or returns NaN)."""

    def __init__(self, error: Exception | None) -> None:
        self.error = error

    def _answer(self) -> Verdict:
        if self.error is not None:
            raise self.error
        return Verdict(True, float("nan"), "synonym", "broken score")

    def match(self, secret: str, guess: str) -> Verdict:
        return self._answer()

    def is_repeat(self, candidate: str, used: list[str]) -> Verdict:
        return self._answer()


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (ValueError("cannot normalise this word"), 422, "judge-rejected-input"),
        (RuntimeError("embedding model file vanished"), 503, "judge-unavailable"),
        (MemoryError(), 503, "judge-unavailable"),
        (None, 503, "judge-unavailable"),  # a NaN score
    ],
)
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/judge", {"secret": "dog", "guess": "cat"}),
        ("/v1/judge/batch", {"pairs": [{"secret": "dog", "guess": "cat"}]}),
        ("/v1/repeat", {"candidate": "dog", "used": ["cat"]}),
    ],
)
def test_judge_errors_become_clear_4xx_or_503(error, status, code, path, body):
    app = create_app({level: FailingJudge(error) for level in Strictness})
    with TestClient(app) as test_client:
        response = test_client.post(path, json=body)
        assert response.status_code == status
        assert response.json()["error"] == code
        assert test_client.get("/healthz").status_code == 200  # the server stays up


class MalformedJudge:
    """Fault-injection double: returns something that is not a verdict."""

    def match(self, secret: str, guess: str) -> None:
        return None

    def is_repeat(self, candidate: str, used: list[str]) -> None:
        return None


def test_a_judge_returning_no_verdict_is_503_not_500():
    app = create_app({level: MalformedJudge() for level in Strictness})
    with TestClient(app) as test_client:
        response = test_client.post("/v1/judge", json={"secret": "dog", "guess": "cat"})
        assert response.status_code == 503
        assert response.json()["error"] == "server-error"


class ProtocolOnlyJudge:
    """A :class:`JudgeLike` double: the server must serve every route through the
    protocol's ``match`` and ``is_repeat`` alone."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def check_word(self, text: str) -> Verdict:
        return Verdict(True, 1.0, "one-word", "Accepted: one word.")

    def match(self, secret: str, guess: str) -> Verdict:
        self.pairs.append((secret, guess))
        same = secret == guess
        return Verdict(same, float(same), "same-word" if same else "unrelated", "double")

    def is_repeat(self, word: str, used_words) -> Verdict:
        hit = word in used_words
        return Verdict(hit, float(hit), "same-word", "double", matched=word if hit else None)

    # Batch forms outside the protocol: a server that probes for them fails the test.
    def match_many(self, pairs):
        raise AssertionError("the server called match_many, which JudgeLike does not have")

    def is_repeat_many(self, items):
        raise AssertionError("the server called is_repeat_many, which JudgeLike does not have")


def test_a_judge_with_only_the_protocol_methods_serves_every_route():
    judge = ProtocolOnlyJudge()
    assert isinstance(judge, JudgeLike)
    with TestClient(create_app({level: judge for level in Strictness})) as test_client:
        small = [{"secret": "dog", "guess": w} for w in ("dog", "cat")]
        words = "dog cat car tree house water bread chair table horse".split()
        large = [{"secret": w, "guess": words[i % 3]} for i, w in enumerate(words * 2)]
        for pairs in (small, large):
            response = test_client.post("/v1/judge/batch", json={"pairs": pairs})
            assert response.status_code == 200, response.text
            got = [r["accepted"] for r in response.json()]
            assert got == [p["secret"] == p["guess"] for p in pairs]
        asked = [(p["secret"], p["guess"]) for p in small + large]
        assert judge.pairs == list(dict.fromkeys(asked))  # each new pair once, in order
        repeat = test_client.post("/v1/repeat", json={"candidate": "cat", "used": ["dog", "cat"]})
        assert repeat.status_code == 200 and repeat.json()["matched"] == "cat"


def test_any_uncaught_error_is_a_json_503(judges):
    app = create_app(judges)

    @app.get("/crash")
    async def crash() -> None:
        raise KeyError("a bug")

    with TestClient(app, raise_server_exceptions=False) as test_client:
        response = test_client.get("/crash")
        assert response.status_code == 503
        assert response.json()["error"] == "server-error"
        assert "KeyError" in response.json()["message"]


def test_missing_level_is_503_and_health_says_degraded(judges):
    app = create_app({"strict": judges[Strictness.STRICT]})
    with TestClient(app) as test_client:
        assert test_client.post("/v1/judge", json={"secret": "a", "guess": "a"}).status_code == 503
        ok = test_client.post(
            "/v1/judge", json={"secret": "a", "guess": "a", "strictness": "strict"}
        )
        assert ok.status_code == 200
        health = test_client.get("/healthz").json()
        assert health["status"] == "degraded" and health["strictness_levels"] == ["strict"]


def test_create_app_rejects_unknown_level_names():
    with pytest.raises(ValueError, match="unknown strictness"):
        create_app({"loose": object()})


# ------------------------------------------------------------------------ health, schema


def test_lifespan_loads_one_judge_per_level_when_none_given():
    with TestClient(create_app()) as test_client:
        health = test_client.get("/healthz").json()
        assert health["strictness_levels"] == LEVELS
        assert test_client.post("/v1/judge", json={"secret": "a", "guess": "a"}).status_code == 200


def test_healthz_reports_levels_versions_and_loaded_models(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    health = response.json()
    assert health["status"] == "ok"
    assert health["strictness_levels"] == LEVELS
    assert health["versions"]["kiekai"]
    assert health["versions"]["fastapi"]
    assert health["models"]["wordnet"] is True
    head = client.head("/healthz")
    assert head.status_code == 200 and head.content == b""


def test_openapi_schema_documents_limits_examples_and_errors(client):
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert {"/v1/judge", "/v1/judge/batch", "/v1/repeat", "/healthz"} <= set(paths)
    components = schema["components"]["schemas"]
    assert components["JudgeRequest"]["properties"]["secret"]["maxLength"] == MAX_WORD_CHARS
    assert components["BatchRequest"]["properties"]["pairs"]["maxItems"] == MAX_BATCH_PAIRS
    assert components["RepeatRequest"]["properties"]["used"]["maxItems"] == MAX_USED_WORDS
    assert components["JudgeRequest"]["examples"]
    for path in ("/v1/judge", "/v1/judge/batch", "/v1/repeat"):
        operation = paths[path]["post"]
        assert operation["description"] and operation["summary"]
        error_ref = operation["responses"]["422"]["content"]["application/json"]["schema"]
        assert error_ref["$ref"].endswith("/ErrorResponse")
    strictness = components["Strictness"]
    assert strictness["enum"] == LEVELS


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.3.4.5", True), ("localhost", True), ("::1", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.10", False), ("example.org", False)],
)  # fmt: skip
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_serve_warns_before_binding_a_non_loopback_address():
    from typer.testing import CliRunner

    from kiekai.cli import app

    # an invalid --log-level stops the command after the host check, before any bind
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--log-level", "loud"])
    assert result.exit_code == 2
    assert "warning: binding '0.0.0.0'" in result.output
    assert "unknown --log-level 'loud'" in result.output
    local = CliRunner().invoke(app, ["serve", "--host", "127.0.0.1", "--log-level", "loud"])
    assert local.exit_code == 2
    assert "warning: binding" not in local.output


def test_serve_refuses_a_taken_port_before_loading_models():
    import socket

    from typer.testing import CliRunner

    from kiekai.cli import app

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "loading the judge" not in result.output
