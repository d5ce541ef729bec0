"""A game's start-up does only what its first prompt needs (issue 22).

* the deck is checked by photo headers (:func:`kiekai.deck.inspect_header`), not decoded;
* the bots' perception reads the cards the game deals, and only those
  (:func:`kiekai.perception.perceive_dealt`); a dealt photo that fails then is left out,
  saying so, and another from the pile is dealt in its place;
* :func:`kiekai.commands.play.dealt_cards` is the engine's own deal.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from kiekai.commands.play import dealt_cards
from kiekai.deck import PhotoError, inspect_header, inspect_photo, load_deck
from kiekai.kiek.engine import KiekEngine
from kiekai.perception import perceive_dealt


def _photos(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        Image.new("RGB", (64, 48), (i * 37 % 256, i * 91 % 256, 120)).save(folder / f"p{i:02d}.png")
    return folder


def _truncated_jpeg() -> bytes:
    buffer = io.BytesIO()
    noise = np.random.default_rng(0).integers(0, 255, (96, 128, 3), dtype=np.uint8)
    Image.fromarray(noise).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()[:1500]  # header whole, pixel data cut short


@pytest.mark.parametrize(("seed", "players"), [(0, 3), (1, 4), (7, 8)])
def test_dealt_cards_are_the_engines_deal(tmp_path: Path, seed: int, players: int):
    cards = list(load_deck(_photos(tmp_path / "deck", 40), decode=False))
    engine = KiekEngine(cards, players, judge=None, seed=seed)  # type: ignore[arg-type]
    dealt = {card.id for hand in engine.hands for card in hand} | {c.id for c in engine.table}
    assert {card.id for card in dealt_cards(cards, seed, players)} == dealt


def test_a_header_check_passes_a_truncated_photo_that_a_decode_refuses():
    data = _truncated_jpeg()
    info = inspect_header(data)
    assert (info.width, info.height, info.format) == (128, 96, "JPEG")
    with pytest.raises(PhotoError, match="cannot decode"):
        inspect_photo(data)


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"", "empty file"), (b"hello, not a photo", "not an image")],
)
def test_a_header_check_still_refuses_what_is_no_photo(data: bytes, reason: str):
    with pytest.raises(PhotoError, match=reason):
        inspect_header(data)


def test_a_header_check_refuses_a_tiny_photo_and_a_png_with_a_bad_crc():
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, "PNG")
    with pytest.raises(PhotoError, match="too small"):
        inspect_header(buffer.getvalue())
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (9, 9, 9)).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    idat = data.index(b"IDAT")
    data[idat + 6] ^= 0xFF  # a flipped byte of the pixel data: its CRC fails
    with pytest.raises(PhotoError, match="CRC"):
        inspect_header(bytes(data))


def test_load_deck_without_decode_keeps_a_truncated_photo(tmp_path: Path):
    deck = _photos(tmp_path / "deck", 3)
    (deck / "cut.jpg").write_bytes(_truncated_jpeg())
    assert "cut.jpg" not in {c.id for c in load_deck(deck, on_skip=lambda *a: None)}
    assert "cut.jpg" in {c.id for c in load_deck(deck, decode=False)}


class _Reader:
    """A perception that can read every card but those named ``bad``, recording reads."""

    name = "reader"

    def __init__(self, bad: set[str]) -> None:
        self.bad = bad
        self.read: list[str] = []

    def prepare(self, cards):
        self.read += [card.id for card in cards]
        return [(card, "cannot decode (broken)") for card in cards if card.id in self.bad]


def test_only_the_dealt_cards_are_read_and_a_failed_one_is_replaced(tmp_path: Path):
    cards = list(load_deck(_photos(tmp_path / "deck", 30), decode=False))
    first = dealt_cards(cards, 3, 3)
    broken = first[4].id
    reader, lines = _Reader({broken}), []
    usable, dealt = perceive_dealt(reader, cards, lambda d: dealt_cards(d, 3, 3), lines.append)
    assert len(dealt) == len(first) == 15
    assert broken not in {c.id for c in usable} | {c.id for c in dealt}
    assert dealt == dealt_cards(usable, 3, 3)  # the engine deals exactly the cards read
    assert set(reader.read) <= {c.id for c in first} | {c.id for c in dealt}
    assert len(set(reader.read)) < len(cards)  # the pile is not read
    assert lines == [
        f"perception reader: left out {broken} (cannot decode (broken)); a photo from the "
        "pile is dealt instead"
    ]


def test_play_replaces_a_dealt_photo_that_fails_to_decode(tmp_path: Path):
    """The whole command: a truncated photo that the seed deals is left out with a line
    saying so, and the game reaches its first prompt."""
    from kiekai.cli import app

    deck = _photos(tmp_path / "deck", 24)
    cards = list(load_deck(deck, decode=False))
    victim = dealt_cards(cards, 5, 4)[0]
    (deck / victim.id).unlink()
    (deck / (Path(victim.id).stem + ".jpg")).write_bytes(_truncated_jpeg())
    result = CliRunner().invoke(
        app,
        ["play", "--deck", str(deck), "--seed", "5", "--bots", "3", "--perception", "colour",
         "--log", str(tmp_path / "game.jsonl")],
        input="",
    )  # fmt: skip
    assert "Traceback" not in result.output
    name = Path(victim.id).stem + ".jpg"
    assert f"left out {name} (cannot decode" in result.output
    assert "a photo from the pile is dealt instead" in result.output
    assert "Which 2 cards of your hand" in result.output
    shutil.rmtree(tmp_path / "game-cards", ignore_errors=True)


def test_decoding_in_threads_gives_the_same_photos_in_order(tmp_path: Path):
    from kiekai.deck import decode_photos

    deck = _photos(tmp_path / "deck", 9)
    (deck / "p03.png").write_bytes(b"broken")  # fails at decode, keeps its place
    paths = sorted(deck.iterdir())
    one = list(decode_photos(paths, 32))
    many = list(decode_photos(paths, 32, workers=3))
    assert [p.card for p in many] == [p.card for p in one] == paths
    assert [p.reason for p in many] == [p.reason for p in one]
    assert many[3].image is None and many[3].reason
    for a, b in zip(one, many, strict=True):
        if a.image is not None:
            assert b.image is not None and a.image.tobytes() == b.image.tobytes()
    skipped: list[str] = []
    kept = list(decode_photos(paths, 32, workers=2, on_skip=lambda n, r: skipped.append(n)))
    assert len(kept) == 8 and skipped == [str(paths[3])]


def test_clip_weights_are_looked_for_without_huggingface_hub_when_no_cache_holds_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """No folder of the repository in any hub cache: ``None`` at once, huggingface_hub not
    imported (0.5-0.8 s before a first prompt); a cached file is still found."""
    import subprocess
    import sys

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "kiekai"))
    code = (
        "import sys\nfrom kiekai.models import clip\n"
        "print(clip._clip_hub_cache_file('someone/model/'), "
        "'huggingface_hub' in sys.modules)"
    )

    def run() -> list[str]:  # a new process: huggingface_hub reads HF_HUB_CACHE on import
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        return done.stdout.split()

    assert run() == ["None", "False"]
    repo = tmp_path / "hub" / "models--someone--model"
    (repo / "snapshots" / "abc").mkdir(parents=True)
    (repo / "snapshots" / "abc" / "open_clip_model.safetensors").write_bytes(b"weights")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc")
    found, imported = run()
    assert found.endswith("abc/open_clip_model.safetensors") and imported == "True"


def test_zipf_frequencies_are_wordfreqs_and_come_from_disk_the_second_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import wordfreq

    from kiekai.lexicon import zipf_frequencies

    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))
    words = ["dog", "homeless", "fruitless", "zzqx"]
    expected = [wordfreq.zipf_frequency(w, "en") for w in words]
    assert zipf_frequencies(words).tolist() == pytest.approx(expected)

    def not_called(*args, **kwargs):
        raise AssertionError("wordfreq asked again")

    monkeypatch.setattr(wordfreq, "zipf_frequency", not_called)
    assert zipf_frequencies(words).tolist() == pytest.approx(expected)
    with pytest.raises(AssertionError, match="asked again"):
        zipf_frequencies([*words, "cat"])
