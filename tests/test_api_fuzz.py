"""Property-based fuzzing of the judge's HTTP API (hypothesis): never a 5xx.

Bodies are arbitrary JSON values, near-valid bodies with arbitrary field values, raw
bytes, and valid bodies whose words are arbitrary Unicode (lone surrogates, control
characters, combining marks, emoji, right-to-left text). The app serves the real judge
in-process. Each property runs a bounded number of examples so the module stays
under ~30 s on 2 cores.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiekai.judge.server import MAX_WORD_CHARS, create_app

pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PATHS = ["/v1/judge", "/v1/judge/batch", "/v1/repeat"]
LEVELS = ["strict", "standard", "lenient"]


@pytest.fixture(scope="module")
def client(judges):
    with TestClient(create_app(judges)) as test_client:
        yield test_client


# Any JSON value: scalars (huge integers, extreme floats, any text) nested in lists/objects.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
# Any text, including lone surrogates (category Cs) and control characters (Cc).
any_char = st.characters(codec=None, categories=None) | st.characters(
    min_codepoint=0xD800, max_codepoint=0xDFFF
)
any_text = st.text(alphabet=any_char, max_size=MAX_WORD_CHARS + 8)
# Text a client may legitimately send: valid Unicode, no control characters.
plain_text = st.text(
    alphabet=st.characters(exclude_categories=("Cs", "Cc")), max_size=MAX_WORD_CHARS
)
strictness = st.sampled_from(LEVELS) | json_values


def near_valid_body(path: str) -> st.SearchStrategy:
    """Objects with the endpoint's field names and arbitrary values (and stray fields)."""
    word = any_text | json_values
    if path == "/v1/judge":
        fields = {"secret": word, "guess": word}
    elif path == "/v1/judge/batch":
        pair = st.fixed_dictionaries({"secret": word, "guess": word}) | json_values
        fields = {"pairs": st.lists(pair, max_size=5) | json_values}
    else:
        fields = {"candidate": word, "used": st.lists(word, max_size=5) | json_values}
    return st.fixed_dictionaries(fields, optional={"strictness": strictness, "extra": json_values})


def encode(body: object) -> bytes:
    """JSON with ASCII escapes, so lone surrogates travel as ``\\udXXX``."""
    return json.dumps(body, ensure_ascii=True).encode()


def assert_no_server_error(response) -> None:
    assert response.status_code < 500, response.text
    answer = response.json()  # every answer, error or not, is JSON
    if response.status_code == 200:
        verdicts = answer if isinstance(answer, list) else [answer]
        for verdict in verdicts:
            assert isinstance(verdict["accepted"], bool)
            assert 0.0 <= verdict["score"] <= 1.0
            assert verdict["relation"] and verdict["reason"]
    else:
        assert answer["message"]


@FUZZ
@given(path=st.sampled_from(PATHS), body=json_values)
def test_arbitrary_json_never_gives_5xx(client, path, body):
    assert_no_server_error(
        client.post(path, content=encode(body), headers={"content-type": "application/json"})
    )


@FUZZ
@given(data=st.data(), path=st.sampled_from(PATHS))
def test_near_valid_bodies_never_give_5xx(client, data, path):
    body = data.draw(near_valid_body(path))
    assert_no_server_error(
        client.post(path, content=encode(body), headers={"content-type": "application/json"})
    )


@FUZZ
@given(path=st.sampled_from(PATHS), raw=st.binary(max_size=300))
def test_raw_bytes_never_give_5xx(client, path, raw):
    assert_no_server_error(
        client.post(path, content=raw, headers={"content-type": "application/json"})
    )


@FUZZ
@given(secret=plain_text, guess=plain_text, level=st.sampled_from(LEVELS))
def test_any_valid_word_gets_a_verdict(client, secret, guess, level):
    """Valid Unicode without control characters is always judged (200), never refused:
    the judge answers odd words with a rejected verdict (``empty``, ``not-one-word``)."""
    response = client.post(
        "/v1/judge",
        content=encode({"secret": secret, "guess": guess, "strictness": level}),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 200, response.text
    assert_no_server_error(response)


@FUZZ
@given(candidate=plain_text, used=st.lists(plain_text, max_size=4))
def test_any_valid_repeat_gets_a_verdict(client, candidate, used):
    response = client.post(
        "/v1/repeat",
        content=encode({"candidate": candidate, "used": used}),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["matched"] is None or answer["matched"] in used


@FUZZ
@given(word=any_text)
def test_words_with_surrogates_or_controls_are_refused_with_422(client, word):
    bad = any(unicodedata.category(c) in ("Cs", "Cc") for c in word)
    response = client.post(
        "/v1/judge",
        content=encode({"secret": "dog", "guess": word}),
        headers={"content-type": "application/json"},
    )
    if bad or len(word) > MAX_WORD_CHARS:
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["field"] in ("body.guess", "body")
    else:
        assert response.status_code == 200, response.text
