"""kiekai.eval.quality (the held-out check's word measures) and kiekai.eval.selfplay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiekai.eval import quality, selfplay

pytestmark = pytest.mark.slow


def _event(kind: str, turn: int, data: dict) -> str:
    return json.dumps({"type": kind, "turn": turn, "player": None, "data": data})


def write_log(path: Path, turns: list[tuple[str, list[str], list[str], list[str]]]) -> Path:
    lines = [_event("header", -1, {"game": "kiek"})]
    for t, (secret, three, two, guesses) in enumerate(turns):
        lines.append(_event("play", t, {"three": three, "two": two}))
        lines += [_event("guess", t, {"word": g}) for g in guesses]
        lines.append(_event("reveal", t, {"secret": secret}))
    path.write_text("\n".join(lines) + "\n{not json\n", encoding="utf-8")
    return path


DOGS = [
    "photos/n02085936.jpg",
    "photos/n02088364.jpg",
    "photos/n02099601.jpg",
]  # Maltese, beagle, retriever
TABBY, CAR = "photos/n02123045.jpg", "photos/n04285008.jpg"
LABELS = {
    "photos/n02085936.jpg": "n02085936",
    "photos/n02088364.jpg": "n02088364",
    "photos/n02099601.jpg": "n02099601",
    TABBY: "n02123045",
    CAR: "n04285008",
}


def test_word_measures() -> None:
    assert quality.rarest_zipf("dog") > 5.0
    assert quality.rarest_zipf("dog-less") == quality.rarest_zipf("dog")
    assert quality.rarest_zipf("living thing") == min(
        quality.rarest_zipf("living"), quality.rarest_zipf("thing")
    )
    assert quality.rarest_zipf("chordate") < quality.RARE_ZIPF
    assert quality.is_privative("animal-less") and quality.is_privative("dogless")
    assert not quality.is_privative("useless") and not quality.is_privative("dog")
    assert quality.unanimous(["dog", "dog", "dog"]) and not quality.unanimous(["dog", "animal"])
    assert not quality.unanimous(["dog", "", ""]) and not quality.unanimous([])


def test_measure_a_log(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "g.jsonl",
        [
            ("dog", DOGS, [TABBY, CAR], ["dog", "dog"]),  # true, unanimous
            ("animal", [DOGS[0], DOGS[1], CAR], [TABBY, DOGS[2]], ["dog", "car"]),  # false
            ("black", DOGS, [TABBY, CAR], ["white", ""]),  # not checkable
            ("cat-less", DOGS, [TABBY, CAR], ["cat", "cat"]),  # X-less: not checkable here
        ],
    )
    turns = quality.read_turns(log)
    assert [t.secret for t in turns] == ["dog", "animal", "black", "cat-less"]
    assert turns[0].three == tuple(DOGS) and turns[2].guesses == ["white", ""]
    out = quality.measure(turns, quality.TruthChecker(LABELS))
    assert out["turns"] == 4 and out["distinct_secrets"] == 4
    assert out["privative_share"] == 0.25 and out["unanimous_share"] == 0.5
    assert out["truth_checkable"] == 2 and out["truth"] == 0.5
    assert [u["word"] for u in out["untrue"]] == ["animal"]
    assert quality.measure([]) == {"turns": 0}


def test_figures_agree_with_the_held_out_checker(tmp_path: Path, shared_dir: Path) -> None:
    """Run the real ../shared/tools/bots_quality.py on the same log: every figure agrees."""
    tool = shared_dir / "tools" / "bots_quality.py"
    if not tool.is_file():
        pytest.skip("../shared/tools/bots_quality.py is absent")
    labels = tmp_path / "labels.csv"
    labels.write_text("file,wnid\n" + "".join(f"{k},{v}\n" for k, v in LABELS.items()))
    log = write_log(
        tmp_path / "g.jsonl",
        [
            ("dog", DOGS, [TABBY, CAR], ["dog", "dog"]),
            ("animal", [DOGS[0], DOGS[1], CAR], [TABBY, DOGS[2]], ["dog", "car"]),
            ("vertebrate", DOGS, [TABBY, CAR], ["dog", "mammal", "dog"]),
            ("car-less", DOGS, [TABBY, CAR], ["cat", "cat"]),
        ],
    )
    from kiekai.models import wordnet

    wordnet()  # make sure NLTK finds WordNet where kiekai keeps it
    import nltk

    env = dict(os.environ, NLTK_DATA=os.pathsep.join(nltk.data.path))
    done = subprocess.run(
        [sys.executable, str(tool), "--labels", str(labels), str(log)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    theirs = json.loads(done.stdout)
    ours = quality.measure_logs([log], labels)
    ours.pop("untrue")
    assert ours.pop("table_runs") == [4]  # our own addition: the longest stay on the table
    assert ours == theirs


@pytest.fixture(scope="module")
def default_table():
    from kiekai.default_deck import default_deck
    from kiekai.judge import Judge
    from kiekai.perception.labels import LabelsPerception

    cards = list(default_deck().cards)
    return cards, LabelsPerception(cards), Judge("standard")


def test_bot_only_games_repeat_exactly_and_are_measured(tmp_path: Path, default_table) -> None:
    cards, perception, judge = default_table
    first = selfplay.play_games(
        cards,
        perception,
        judge,
        level="normal",
        seeds=[3],
        bots=3,
        log_dir=tmp_path / "a",
        rounds=1,
    )
    again = selfplay.play_games(
        cards,
        perception,
        judge,
        level="normal",
        seeds=[3],
        bots=3,
        log_dir=tmp_path / "b",
        rounds=1,
    )

    def events(path: str) -> list[str]:
        return [line for line in Path(path).read_text().splitlines() if '"header"' not in line]

    assert events(first["logs"][0]) == events(again["logs"][0])  # same seed, identical game
    assert first["quality"]["turns"] == 3 and len(first["scores"][0]) == 3
    assert first["active_ms"]["count"] == 3 and first["guess_ms"]["count"] == 6
    assert first["active_ms"]["median"] > 0
    assert first["spread"]["max_minus_min"] >= 0


def test_games_dealt_from_samples_of_the_deck(tmp_path: Path, default_table) -> None:
    """``sample``: each game is dealt from its own cards of the deck, drawn by its seed, so
    one deck gives many of the held-out check's size; the same seed draws the same cards."""
    cards, perception, judge = default_table
    size = 20
    a = selfplay.sample_cards(cards, size, 3, 3)
    assert len(a) == size == len({c.id for c in a}) and set(a) <= set(cards)
    assert selfplay.sample_cards(cards, size, 3, 3) == a
    assert selfplay.sample_cards(cards, size, 4, 3) != a
    with pytest.raises(ValueError, match="cannot draw"):
        selfplay.sample_cards(cards, len(cards) + 1, 3, 3)
    result = selfplay.play_games(
        cards,
        perception,
        judge,
        level="normal",
        seeds=[3],
        bots=3,
        log_dir=tmp_path,
        rounds=1,
        sample=size,
    )
    ids = {c.id for c in a}
    played = {cid for t in quality.read_turns(Path(result["logs"][0])) for cid in t.three + t.two}
    assert played and played <= ids


def test_longest_table_runs_count_turns_running() -> None:
    from kiekai.eval.quality import Turn, longest_table_runs

    def turn(n: int, five: str) -> Turn:
        cards = tuple(five)
        return Turn(secret="w", three=cards[:3], two=cards[3:], turn=n)

    runs = longest_table_runs(
        [turn(0, "abcde"), turn(1, "abcfg"), turn(2, "ahijk"), turn(4, "almno"), turn(5, "apqrs")]
    )
    assert runs["a"] == 3  # turns 0-2; turn 3 is missing, so 4-5 is a new run of 2
    assert runs["b"] == 2 and runs["d"] == 1 and runs["l"] == 1
    assert longest_table_runs([]) == {}
