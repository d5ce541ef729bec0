"""House rules: a table's own rulings, parsed, looked up and saved (kiekai.judge.house_rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiekai.judge.house_rules import HouseRules, HouseRulesError, HouseRuling, parse_lines


def test_lookup_normalises_words_and_holds_in_both_directions():
    rules = HouseRules([HouseRuling("Sofa", "the couch", True, "standard")])
    assert rules.lookup("sofa", "COUCH", "standard").accepted is True
    assert rules.lookup("couch", "sofa", "standard").accepted is True
    assert rules.lookup("sofa", "couch", "strict") is None


def test_exact_order_beats_reversed_and_any_level_applies_everywhere():
    rules = HouseRules(
        [
            HouseRuling("dogs", "pets", False, "*"),
            HouseRuling("pets", "dogs", True, "lenient"),
        ]
    )
    assert rules.lookup("pets", "dogs", "lenient").accepted is True
    assert rules.lookup("dogs", "pets", "lenient").accepted is False  # exact order at '*'
    assert rules.lookup("pets", "dogs", "strict").accepted is False  # reversed, '*'


def test_later_line_replaces_earlier_one():
    rulings = parse_lines(["sofa\tcouch\tno\tstandard", "sofa\tcouch\tyes\tstandard"])
    assert HouseRules(rulings).lookup("sofa", "couch", "standard").accepted is True


def test_file_round_trip_appends_with_header(tmp_path: Path):
    path = tmp_path / "sub" / "house.tsv"
    rules = HouseRules.load(path, missing_ok=True)
    assert len(rules) == 0
    rules.add(HouseRuling("car", "auto\tmobile", True, "strict"))
    rules.add(HouseRuling("hot", "warm", False, "*"))
    again = HouseRules.load(path)
    assert len(again) == 2
    assert again.lookup("car", "auto mobile", "strict").accepted is True
    assert again.lookup("warm", "hot", "lenient").accepted is False
    assert path.read_text().splitlines()[1] == "secret\tguess\taccepted\tlevel\truled_by\truled_at"


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("sofa\tcouch", "expected 3 to 6"),
        ("sofa\tcouch\tmaybe\tstandard", "accepted must be yes or no"),
        ("sofa\tcouch\tyes\tloose", "unknown level"),
        ("\tcouch\tyes", "needs a word as secret"),
    ],
)
def test_malformed_line_is_one_error_naming_the_line(tmp_path: Path, line: str, needle: str):
    path = tmp_path / "h.tsv"
    path.write_text("# comment\nsecret\tguess\taccepted\tlevel\n" + line + "\n")
    with pytest.raises(HouseRulesError) as info:
        HouseRules.load(path)
    assert "line 3" in str(info.value) and needle in str(info.value)


def test_missing_file_folder_and_non_utf8_are_clear_errors(tmp_path: Path):
    with pytest.raises(HouseRulesError, match="does not exist"):
        HouseRules.load(tmp_path / "nope.tsv")
    with pytest.raises(HouseRulesError, match="not a regular file"):
        HouseRules.load(tmp_path)
    bad = tmp_path / "latin1.tsv"
    bad.write_bytes("caf\xe9\tcoffee\tyes\n".encode("latin-1"))
    with pytest.raises(HouseRulesError, match="not UTF-8"):
        HouseRules.load(bad)


def test_an_unreadable_file_a_pipe_and_a_device_are_clear_errors(tmp_path: Path, monkeypatch):
    """A house-rules file the user cannot read (``chmod 000``) was a PermissionError traceback
    out of ``kiekai play``; a named pipe is refused without waiting for a writer."""
    import os

    import kiekai.judge.house_rules as house_rules

    fifo = tmp_path / "rules.tsv"
    os.mkfifo(fifo)
    with pytest.raises(HouseRulesError, match="not a regular file"):
        HouseRules.load(fifo)
    with pytest.raises(HouseRulesError, match="not a regular file"):
        HouseRules.load("/dev/zero")
    locked = tmp_path / "locked.tsv"
    locked.write_text("sofa\tcouch\tyes\tstandard\n", encoding="utf-8")

    def denied(path, max_bytes):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(house_rules, "read_regular_bytes", denied)  # root reads through chmod 000
    with pytest.raises(HouseRulesError, match="cannot be read \\(Permission denied\\)"):
        HouseRules.load(locked)
