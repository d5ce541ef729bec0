"""Surface normalisation and the one-word check (no models except WordNet for compounds)."""

from __future__ import annotations

import pytest

from kiekai.judge.normalize import compound_key, normalise, numeral_to_words, strip_diacritics


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Water", "water"),
        ("  water  ", "water"),
        ("Water!", "water"),
        ("\u201cwater\u201d", "water"),
        ("the sea", "sea"),
        ("A dog", "dog"),
        ("an apple", "apple"),
        ("Caf\u00e9", "cafe"),
        ("na\u00efve", "naive"),
        ("2", "two"),
        ("21", "twenty-one"),
        ("sea - side", "sea-side"),
        ("sea\u2013side", "sea-side"),
        ("ice   cream", "ice cream"),
        ("the", "the"),  # an article alone stays a word
        ("", ""),
        ("!!!", ""),
    ],
)
def test_normalise(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_normalise_rejects_non_text() -> None:
    with pytest.raises(TypeError, match="must be text"):
        normalise(None)  # type: ignore[arg-type]


def test_compound_key_equates_open_hyphenated_closed() -> None:
    assert compound_key("sea side") == compound_key("sea-side") == compound_key("seaside")
    assert compound_key("sea side") != compound_key("sea")


def test_numerals_and_diacritics() -> None:
    assert numeral_to_words("3") == "three"
    assert numeral_to_words("three") == "three"
    assert numeral_to_words("3rd") == "3rd"
    assert strip_diacritics("cr\u00e8me br\u00fbl\u00e9e") == "creme brulee"
