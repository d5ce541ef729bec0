"""Tests for kiekai.deck: reading photo folders, labels.csv, decoding awkward photos."""

from __future__ import annotations

import csv
import hashlib
import struct
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kiekai.deck import (
    Card,
    DeckError,
    DeckTooSmallError,
    DeckWarning,
    PhotoError,
    cards_needed,
    check_deck_size,
    load_deck,
    open_rgb,
)

NANDU = "ñandú photo (1).jpg"
EXPECTED_SKIPS = {
    "truncated.jpg": "truncated",
    "zero-bytes.jpg": "empty",
    "not-an-image.jpg": "not an image",
    "one-pixel.png": "too small",
}


def _pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image).astype(np.int32)


def _photo(path: Path, size: tuple[int, int] = (64, 48), colour=(200, 30, 40)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)
    return path


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def _bomb_png(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims width x height 8-bit grey pixels."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(b""))
        + _png_chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def bad_deck(bad_photos: Path):
    calls: list[tuple[str, str]] = []
    deck = load_deck(bad_photos, on_skip=lambda rel, why: calls.append((rel, why)))
    return deck, calls


# ----------------------------------------------------------------------- bad-inputs folder


def test_bad_inputs_skips_exactly_the_undecodable_with_one_reason_each(bad_deck):
    deck, calls = bad_deck
    assert sorted(rel for rel, _ in calls) == sorted(EXPECTED_SKIPS)
    assert sorted(deck.skipped) == sorted(calls)
    for rel, reason in deck.skipped:
        assert EXPECTED_SKIPS[rel] in reason, (rel, reason)
    ids = {c.id for c in deck.cards}
    assert ids == {
        "animated.gif",
        "cmyk.jpg",
        "exif-rotated.jpg",
        "gray16.png",
        "photo.WEBP",
        "with-alpha.png",
        NANDU,
    }
    assert [c.id for c in deck.cards] == sorted(ids)


def test_default_reporting_is_one_warning_per_skipped_file(bad_photos: Path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_deck(bad_photos)
    messages = [str(w.message) for w in caught if issubclass(w.category, DeckWarning)]
    assert len(messages) == len(EXPECTED_SKIPS)
    for name in EXPECTED_SKIPS:
        assert sum(m.startswith(name + ":") for m in messages) == 1


def test_cards_record_hash_mode_and_size(bad_deck, bad_photos: Path):
    deck, _ = bad_deck
    for card in deck.cards:
        assert card.sha256 == hashlib.sha256(card.path.read_bytes()).hexdigest()
        assert card.path == bad_photos.resolve() / card.id
        image = open_rgb(card)
        assert image.mode == "RGB"
        assert image.size == (card.width, card.height)
    modes = {c.id: c.mode for c in deck.cards}
    assert modes["cmyk.jpg"] == "CMYK"
    assert modes["gray16.png"].startswith("I")
    assert modes["with-alpha.png"] == "RGBA"
    assert modes["animated.gif"] == "P"


def test_cmyk_decodes_to_the_same_colours_as_the_rgb_copy(bad_photos: Path):
    rgb = _pixels(open_rgb(bad_photos / NANDU))
    cmyk = _pixels(open_rgb(bad_photos / "cmyk.jpg"))
    assert cmyk.shape == rgb.shape
    assert np.abs(cmyk - rgb).mean() < 5  # JPEG re-encoding noise only
    # The raw inks read as RGB would be far off, so the comparison can fail.
    raw = np.asarray(Image.open(bad_photos / "cmyk.jpg"))[..., :3].astype(np.int32)
    assert np.abs(raw - rgb).mean() > 40


def test_exif_rotation_is_applied(bad_photos: Path):
    stored = np.asarray(Image.open(bad_photos / "exif-rotated.jpg").convert("RGB"))
    assert stored.shape[:2] == (288, 384)  # landscape on disk, orientation tag 6
    upright = np.asarray(open_rgb(bad_photos / "exif-rotated.jpg"))
    assert upright.shape[:2] == (384, 288)
    np.testing.assert_array_equal(upright, np.rot90(stored, k=-1))  # a quarter turn clockwise
    small = open_rgb(bad_photos / "exif-rotated.jpg", max_side=96)
    assert small.size == (72, 96)


def test_gray16_is_scaled_not_clipped(bad_photos: Path):
    raw = np.asarray(Image.open(bad_photos / "gray16.png")).astype(np.float64)
    assert raw.max() > 255
    decoded = _pixels(open_rgb(bad_photos / "gray16.png"))
    np.testing.assert_array_equal(decoded[..., 0], decoded[..., 1])
    np.testing.assert_array_equal(decoded[..., 0], decoded[..., 2])
    np.testing.assert_array_equal(decoded[..., 0], np.rint(raw / 257).astype(np.int32))
    assert (decoded == 255).mean() < 0.05


def test_alpha_png_keeps_its_opaque_colours(bad_photos: Path):
    rgba = np.asarray(Image.open(bad_photos / "with-alpha.png"))
    decoded = np.asarray(open_rgb(bad_photos / "with-alpha.png"))
    opaque = rgba[..., 3] == 255
    np.testing.assert_array_equal(decoded[opaque], rgba[..., :3][opaque])


def test_transparency_is_composited_on_white(tmp_path: Path):
    array = np.zeros((40, 40, 4), dtype=np.uint8)
    array[..., 0] = 255  # red
    array[:, :20, 3] = 0  # left half fully transparent
    array[:, 20:, 3] = 128  # right half half transparent
    Image.fromarray(array, "RGBA").save(tmp_path / "a.png")
    decoded = _pixels(open_rgb(tmp_path / "a.png"))
    assert (decoded[:, :20] == 255).all()
    np.testing.assert_allclose(decoded[5, 30], [255, 127, 127], atol=1)

    palette = Image.new("P", (40, 40), 0)
    palette.putpalette([0, 0, 0, 0, 0, 255] + [0] * 762)
    palette.paste(1, (20, 0, 40, 40))
    palette.save(tmp_path / "p.gif", transparency=0)
    decoded = _pixels(open_rgb(tmp_path / "p.gif"))
    assert (decoded[:, :20] == 255).all()
    assert (decoded[:, 20:] == [0, 0, 255]).all()


def test_gif_first_frame_and_webp(bad_photos: Path):
    gif = Image.open(bad_photos / "animated.gif")
    first = np.asarray(gif.convert("RGB")).astype(np.int32)
    gif.seek(1)
    second = np.asarray(gif.convert("RGB")).astype(np.int32)
    decoded = _pixels(open_rgb(bad_photos / "animated.gif"))
    np.testing.assert_array_equal(decoded, first)
    assert np.abs(decoded - second).mean() > 1
    webp = _pixels(open_rgb(bad_photos / "photo.WEBP"))
    assert np.abs(webp - _pixels(open_rgb(bad_photos / NANDU))).mean() < 8


def test_open_rgb_errors_name_the_file(bad_photos: Path, tmp_path: Path):
    for name in EXPECTED_SKIPS:
        if name == "one-pixel.png":
            continue  # decodable, only too small for a card
        with pytest.raises(PhotoError, match=name):
            open_rgb(bad_photos / name)
    card = Card(id="x.jpg", path=bad_photos / "not-an-image.jpg", sha256="0")
    with pytest.raises(PhotoError, match="not an image"):
        open_rgb(card)


# ----------------------------------------------------------------------- folders


def test_recursive_search_any_suffix_case_hidden_and_ignored(tmp_path: Path):
    _photo(tmp_path / "a.JPG")
    _photo(tmp_path / "sub" / "deeper" / "b.jpeg")
    _photo(tmp_path / "c.Png")
    _photo(tmp_path / ".hidden.jpg")
    _photo(tmp_path / ".cache" / "d.jpg")
    (tmp_path / "notes.txt").write_text("not a photo")
    deck = load_deck(tmp_path)
    assert [c.id for c in deck.cards] == ["a.JPG", "c.Png", "sub/deeper/b.jpeg"]
    assert deck.ignored == ["notes.txt"]
    assert deck.skipped == []
    assert deck.by_id("sub/deeper/b.jpeg").width == 64
    with pytest.raises(KeyError, match="nope.jpg"):
        deck.by_id("nope.jpg")


def test_decompression_bomb_is_skipped(tmp_path: Path):
    (tmp_path / "bomb.png").write_bytes(_bomb_png(100_000, 100_000))
    _photo(tmp_path / "big.png", size=(300, 300))
    _photo(tmp_path / "ok.png")
    reasons: dict[str, str] = {}
    deck = load_deck(tmp_path, on_skip=reasons.__setitem__, max_pixels=200 * 200)
    assert [c.id for c in deck.cards] == ["ok.png"]
    assert "decompression bomb" in reasons["bomb.png"]
    assert "decompression bomb" in reasons["big.png"] and "90,000" in reasons["big.png"]
    with pytest.raises(PhotoError, match="decompression bomb"):
        open_rgb(tmp_path / "bomb.png")


def test_wrong_suffix_is_read_by_content(tmp_path: Path):
    _photo(tmp_path / "really-a.png")
    (tmp_path / "really-a.png").rename(tmp_path / "named.jpg")
    deck = load_deck(tmp_path)
    assert deck.cards[0].format == "PNG"


def test_missing_path_file_and_empty_folder_are_clear_errors(tmp_path: Path):
    with pytest.raises(DeckError, match="does not exist"):
        load_deck(tmp_path / "nowhere")
    _photo(tmp_path / "x.png")
    with pytest.raises(DeckError, match="not a folder"):
        load_deck(tmp_path / "x.png")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "readme.txt").write_text("hi")
    with pytest.raises(DeckError, match=r"has no photos.*\.jpg"):
        load_deck(empty)


# ----------------------------------------------------------------------- labels.csv


def test_labels_are_attached_and_extra_columns_kept(tmp_path: Path):
    _photo(tmp_path / "photos" / "a.jpg")
    _photo(tmp_path / "photos" / "b.jpg")
    _photo(tmp_path / "c.jpg")
    (tmp_path / "labels.csv").write_text(
        "file,wnid,label,wordnet_lemmas\n"
        "photos/a.jpg,n01440764,tench,tench;Tinca_tinca\n"
        "photos\\b.jpg,,bicycle,\n",
        encoding="utf-8",
    )
    deck = load_deck(tmp_path)
    a, b, c = (deck.by_id(i) for i in ("photos/a.jpg", "photos/b.jpg", "c.jpg"))
    assert (a.label, a.wnid, a.extra_value("wordnet_lemmas")) == (
        "tench",
        "n01440764",
        "tench;Tinca_tinca",
    )
    assert (b.label, b.wnid) == ("bicycle", None)
    assert (c.label, c.wnid) == (None, None)
    assert [x.id for x in deck.labelled()] == ["photos/a.jpg", "photos/b.jpg"]
    assert deck.problems == []


def test_label_rows_naming_missing_files_or_bad_wnids_are_reported(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text(
        "file,label,wnid\na.jpg,apple,apple\nmissing.jpg,pear,\na.jpg,again,\n../x.jpg,up,\n",
        encoding="utf-8",
    )
    seen: list[str] = []
    deck = load_deck(tmp_path, on_problem=seen.append)
    assert seen == deck.problems
    assert len(seen) == 4
    assert any("line 2" in m and "wnid 'apple'" in m for m in seen)
    assert any("line 3" in m and "missing.jpg" in m and "delete the row" in m for m in seen)
    assert any("line 4" in m and "listed again" in m for m in seen)
    assert any("line 5" in m and "outside the deck" in m for m in seen)
    assert deck.by_id("a.jpg").label == "apple" and deck.by_id("a.jpg").wnid is None


def test_labels_without_file_column_or_in_latin1_are_errors(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text("path,label\na.jpg,apple\n", encoding="utf-8")
    with pytest.raises(DeckError, match="no 'file' column"):
        load_deck(tmp_path)
    (tmp_path / "labels.csv").write_text("file,other\na.jpg,apple\n", encoding="utf-8")
    with pytest.raises(DeckError, match="'label' and/or a 'wnid'"):
        load_deck(tmp_path)
    (tmp_path / "labels.csv").write_bytes("file,label\na.jpg,jalapeño\n".encode("latin-1"))
    with pytest.raises(DeckError, match="UTF-8"):
        load_deck(tmp_path)
    (tmp_path / "labels.csv").write_bytes("\ufefffile,label\na.jpg,jalapeño\n".encode())
    assert load_deck(tmp_path).cards[0].label == "jalapeño"  # a BOM from Excel is fine


def test_dev_deck_loads_all_labelled(dev_deck: Path):
    deck = load_deck(dev_deck)
    assert len(deck) == 600
    assert len(deck.labelled()) == 600
    assert deck.skipped == [] and deck.problems == []
    ids = [c.id for c in deck.cards]
    assert ids == sorted(ids)
    tench = deck.by_id("photos/n01440764.jpg")
    assert (tench.label, tench.wnid) == ("tench", "n01440764")


# ----------------------------------------------------------------------- deck size


def test_deck_size_follows_the_preparations_rule(tmp_path: Path):
    assert cards_needed(4) == 19
    assert cards_needed(3) == 15
    assert check_deck_size(19, 4) == 19
    with pytest.raises(DeckTooSmallError) as info:
        check_deck_size(12, 4)
    assert str(info.value).startswith(
        "needs 4 cards a player + 3 = 19 for 4 players, this deck has 12 usable photos"
    )
    assert (info.value.needed, info.value.available) == (19, 12)
    for i in range(3):
        _photo(tmp_path / f"{i}.png")
    deck = load_deck(tmp_path)
    with pytest.raises(DeckTooSmallError, match="this deck has 3 usable photos"):
        check_deck_size(deck, 2)
    with pytest.raises(ValueError):
        cards_needed(0)


# ----------------------------------------------------------------------- kiekai deck commands


@pytest.fixture()
def deck_cli():
    import typer

    from kiekai.commands import deck as deck_commands

    app = typer.Typer()
    deck_commands.register(app)

    @app.callback()
    def _root() -> None:
        """Keep `deck` a sub-command even when it is the only one."""

    return app


def _invoke(app, *args: str):
    from typer.testing import CliRunner

    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_deck_info_lists_every_bad_input_with_its_status(deck_cli, bad_photos: Path):
    result = _invoke(deck_cli, "deck", "info", str(bad_photos))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()

    def line_of(name: str) -> str:
        hits = [line for line in lines if f" {name} " in line]
        assert len(hits) == 1, (name, result.output)
        return hits[0]

    for name, reason in EXPECTED_SKIPS.items():
        assert "skipped" in line_of(name) and reason in line_of(name)
    expected_ok = {
        "animated.gif": "64x64 px, GIF P",
        "cmyk.jpg": "384x288 px, JPEG CMYK",
        "exif-rotated.jpg": "288x384 px, JPEG RGB",
        "gray16.png": "64x64 px, PNG I;16",
        "photo.WEBP": "384x288 px, WEBP RGB",
        "with-alpha.png": "384x288 px, PNG RGBA",
        NANDU: "384x288 px, JPEG RGB",
    }
    for name, details in expected_ok.items():
        assert " ok " in line_of(name) and details in line_of(name)
    assert "7 usable, 4 skipped, 0 labelled" in result.output
    assert "Traceback" not in result.output


def test_deck_info_labels_problems_and_player_check(deck_cli, tmp_path: Path):
    for i in range(7):
        _photo(tmp_path / f"p{i}.jpg")
    (tmp_path / "labels.csv").write_text("file,label\np0.jpg,apple\ngone.jpg,pear\n")
    result = _invoke(deck_cli, "deck", "info", str(tmp_path), "--players", "1")
    assert result.exit_code == 0, result.output
    assert "apple" in result.output and "gone.jpg" in result.output
    assert "7 usable, 0 skipped, 1 labelled" in result.output
    assert "enough for 1 player (7 cards dealt)" in result.output
    result = _invoke(deck_cli, "deck", "info", str(tmp_path), "--players", "2")
    assert result.exit_code == 1
    assert "needs 4 cards a player + 3 = 11 for 2 players, this deck has 7" in result.output


def test_deck_info_errors_are_one_line_without_traceback(deck_cli, tmp_path: Path):
    result = _invoke(deck_cli, "deck", "info", str(tmp_path / "nowhere"))
    assert result.exit_code == 1
    assert "does not exist" in result.output and "Traceback" not in result.output
    (tmp_path / "labels.csv").write_text("name,label\n")
    _photo(tmp_path / "a.jpg")
    result = _invoke(deck_cli, "deck", "info", str(tmp_path))
    assert result.exit_code == 1 and "no 'file' column" in result.output


def test_deck_info_without_path_shows_the_default_deck(deck_cli):
    result = _invoke(deck_cli, "deck", "info")
    assert result.exit_code == 0, result.output
    assert "default/sklearn/china" in result.output and "pagoda" in result.output
    assert "20 usable, 0 skipped, 20 labelled" in result.output


def test_deck_embed_reports_model_unavailable_and_exits_1(deck_cli, bad_photos, monkeypatch):
    import types

    from kiekai.models import ModelUnavailable

    class Unloadable:
        def __init__(self, cards=(), **kwargs):
            raise ModelUnavailable(
                "No CLIP weights for ViT-B-32. Fix: run `kiekai models --fetch`."
            )

    fake = types.ModuleType("kiekai.perception.clip")
    fake.ClipPerception = Unloadable
    monkeypatch.setitem(__import__("sys").modules, "kiekai.perception.clip", fake)
    result = _invoke(deck_cli, "deck", "embed", str(bad_photos), "--clip-model", "ViT-B-32")
    assert result.exit_code == 1
    assert "error: No CLIP weights for ViT-B-32. Fix: run `kiekai models --fetch`." in result.output
    assert "Traceback" not in result.output
    for name in EXPECTED_SKIPS:  # each skipped file reported once
        assert result.output.count(f"{name}: skipped") == 1


def test_deck_embed_embeds_every_usable_card_once(deck_cli, bad_photos, monkeypatch, tmp_path):
    import types

    seen: list[str] = []
    made: dict[str, object] = {}

    class Recording:
        def __init__(self, cards=(), *, model_name=None, checkpoint=None, progress=True):
            made.update(model_name=model_name, checkpoint=checkpoint, progress=progress)

        def embed_images(self, cards, progress=None, *, on_skip=None):
            assert progress is False and callable(on_skip)
            seen.extend(c.id for c in cards)
            return np.stack(
                [np.asarray(open_rgb(c, 8), np.float32).mean(axis=(0, 1)) for c in cards]
            )

    fake = types.ModuleType("kiekai.perception.clip")
    fake.ClipPerception = Recording
    monkeypatch.setitem(__import__("sys").modules, "kiekai.perception.clip", fake)
    checkpoint = tmp_path / "w.safetensors"
    result = _invoke(
        deck_cli, "deck", "embed", str(bad_photos), "--clip-checkpoint", str(checkpoint)
    )
    assert result.exit_code == 0, result.output
    assert sorted(seen) == sorted(c.id for c in load_deck(bad_photos, on_skip=lambda *a: None))
    assert made == {"model_name": None, "checkpoint": str(checkpoint), "progress": False}
    assert "embedded 7 photos (3 dimensions); 7 usable, 4 skipped, 0 labelled" in result.output


def test_oversized_file_is_skipped_without_reading_it(tmp_path: Path, monkeypatch):
    import kiekai.deck.decode as deck_module

    _photo(tmp_path / "big.png", size=(200, 200))
    _photo(tmp_path / "small.png", size=(40, 40))
    limit = (tmp_path / "big.png").stat().st_size - 1
    assert (tmp_path / "small.png").stat().st_size <= limit
    monkeypatch.setattr(deck_module, "MAX_FILE_BYTES", limit)
    reasons: dict[str, str] = {}
    deck = load_deck(tmp_path, on_skip=reasons.__setitem__)
    assert [c.id for c in deck.cards] == ["small.png"]
    assert reasons["big.png"].startswith("file too large")


def test_sixteen_bit_int_grey_and_grey_alpha_modes(tmp_path: Path):
    from kiekai.deck.decode import _to_rgb

    ramp = np.linspace(0, 65535, 64 * 64).reshape(64, 64)
    Image.fromarray(ramp.astype(np.uint16)).save(tmp_path / "ramp16.png")
    decoded = _pixels(open_rgb(tmp_path / "ramp16.png"))
    np.testing.assert_array_equal(decoded[..., 0], np.rint(ramp.astype(np.uint16) / 257))
    assert decoded[0, 0, 0] == 0 and decoded[-1, -1, 0] == 255
    # 32-bit "I" images (Pillow has no PNG writer for them): 16-bit range scaled, 8-bit kept.
    wide = _pixels(_to_rgb(Image.fromarray(ramp.astype(np.int32), mode="I")))
    np.testing.assert_array_equal(wide[..., 0], np.rint(ramp.astype(np.int32) / 257))
    narrow = np.arange(64 * 64).reshape(64, 64).astype(np.int32) % 256
    np.testing.assert_array_equal(
        _pixels(_to_rgb(Image.fromarray(narrow, mode="I")))[..., 1], narrow
    )

    grey_alpha = Image.new("LA", (40, 40), (0, 0))  # black, fully transparent
    grey_alpha.paste((0, 255), (0, 0, 20, 40))  # left half black, opaque
    grey_alpha.save(tmp_path / "la.png")
    decoded = _pixels(open_rgb(tmp_path / "la.png"))
    assert (decoded[:, :20] == 0).all() and (decoded[:, 20:] == 255).all()


def test_embedded_icc_profile_is_applied(tmp_path: Path):
    from PIL import ImageCms

    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    array = np.zeros((40, 60, 3), dtype=np.uint8)
    array[:, :20] = (200, 40, 40)
    array[:, 20:40] = (40, 200, 40)
    array[:, 40:] = (40, 40, 200)
    Image.fromarray(array).save(tmp_path / "tagged.png", icc_profile=srgb)
    assert Image.open(tmp_path / "tagged.png").info.get("icc_profile")
    decoded = _pixels(open_rgb(tmp_path / "tagged.png"))
    assert np.abs(decoded - array.astype(np.int32)).max() <= 3  # sRGB -> sRGB: unchanged
    (tmp_path / "broken.png").write_bytes(b"")
    Image.fromarray(array).save(tmp_path / "broken.png", icc_profile=b"not a profile")
    np.testing.assert_array_equal(open_rgb(tmp_path / "broken.png"), array)  # ignored, kept


# ----------------------------------------------------------------------- hostile folders


def _load_in_thread(path: Path, fifo: Path, **kwargs):
    """load_deck in a thread; if it blocks on ``fifo`` for 10 s, unblock it and fail."""
    import os
    import threading

    result: dict[str, object] = {}
    worker = threading.Thread(
        target=lambda: result.setdefault("deck", load_deck(path, **kwargs)), daemon=True
    )
    worker.start()
    worker.join(10)
    if worker.is_alive():  # blocked opening the pipe: give it a writer so the thread ends
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join(10)
        pytest.fail("load_deck blocked reading a named pipe called .jpg")
    return result["deck"]


def test_pipes_and_devices_named_like_photos_are_skipped_without_reading(tmp_path: Path):
    import os

    _photo(tmp_path / "ok.jpg")
    os.mkfifo(tmp_path / "pipe.jpg")
    (tmp_path / "null.png").symlink_to("/dev/null")  # /dev/zero would never end
    (tmp_path / "folder.gif").mkdir()  # a folder named like a photo is walked into, not read
    _photo(tmp_path / "folder.gif" / "inner.png")
    reasons: dict[str, str] = {}
    deck = _load_in_thread(tmp_path, tmp_path / "pipe.jpg", on_skip=reasons.__setitem__)
    assert [c.id for c in deck.cards] == ["folder.gif/inner.png", "ok.jpg"]
    assert set(reasons) == {"pipe.jpg", "null.png"}
    assert "not a regular file (a named pipe)" in reasons["pipe.jpg"]
    assert "not a regular file (a character device)" in reasons["null.png"]
    with pytest.raises(PhotoError, match=r"null\.png: not a regular file"):
        open_rgb(tmp_path / "null.png")


def test_symlink_loops_and_dangling_links_are_skipped_with_reasons(tmp_path: Path):
    _photo(tmp_path / "ok.jpg")
    (tmp_path / "self").symlink_to(tmp_path)  # a folder loop: not followed
    (tmp_path / "a.jpg").symlink_to("b.jpg")
    (tmp_path / "b.jpg").symlink_to("a.jpg")
    (tmp_path / "gone.png").symlink_to(tmp_path / "nowhere.png")
    reasons: dict[str, str] = {}
    deck = load_deck(tmp_path, on_skip=reasons.__setitem__)
    assert [c.id for c in deck.cards] == ["ok.jpg"]
    assert "symbolic links" in reasons["a.jpg"] and "symbolic links" in reasons["b.jpg"]
    assert "No such file" in reasons["gone.png"]


def test_unreadable_labels_csv_is_a_clear_error(tmp_path: Path, monkeypatch):
    import kiekai.deck.labels as deck_module

    _photo(tmp_path / "a.jpg")
    labels = tmp_path / "labels.csv"
    labels.write_text("file,label\na.jpg,apple\n")
    real = deck_module.read_regular_bytes

    def denied(path, limit):  # tests run as root, which chmod cannot keep out
        if Path(path).name == "labels.csv":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, limit)

    monkeypatch.setattr(deck_module, "read_regular_bytes", denied)
    with pytest.raises(DeckError, match=r"labels\.csv: cannot be read \(Permission denied\)"):
        load_deck(tmp_path)


def test_unreadable_sub_folder_is_reported_not_silently_dropped(tmp_path: Path, monkeypatch):
    import os

    _photo(tmp_path / "a.jpg")
    _photo(tmp_path / "locked" / "b.jpg")
    real = os.scandir

    def scandir(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    deck = load_deck(tmp_path, on_problem=lambda m: None)
    assert [c.id for c in deck.cards] == ["a.jpg"]
    assert any(
        "folder locked" in m and "Permission denied" in m and "left out" in m for m in deck.problems
    ), deck.problems


@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_semicolon_and_tab_separated_labels_from_spreadsheets_are_read(tmp_path: Path, delimiter):
    _photo(tmp_path / "a.jpg")
    _photo(tmp_path / "b.jpg")
    (tmp_path / "labels.csv").write_text(
        f"file{delimiter}label{delimiter}wnid\na.jpg{delimiter}red, round apple{delimiter}\n"
        f"b.jpg{delimiter}ball{delimiter}n02778669\n"
    )
    deck = load_deck(tmp_path)
    assert deck.by_id("a.jpg").label == "red, round apple"
    assert (deck.by_id("b.jpg").label, deck.by_id("b.jpg").wnid) == ("ball", "n02778669")
    assert deck.problems == []


def test_utf16_labels_csv_with_bom_is_read(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_bytes("file\tlabel\na.jpg\tjalapeño\n".encode("utf-16"))
    assert load_deck(tmp_path).cards[0].label == "jalapeño"  # Excel's "Unicode text"


def test_empty_labels_csv_is_reported_and_the_deck_still_loads(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text("\n  \n")
    seen: list[str] = []
    deck = load_deck(tmp_path, on_problem=seen.append)
    assert [c.id for c in deck.cards] == ["a.jpg"] and deck.labelled() == []
    assert len(seen) == 1 and "labels.csv is empty" in seen[0]


def test_windows_absolute_label_paths_are_outside_the_deck(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text("file,label\nC:\\photos\\a.jpg,apple\nd:/a.jpg,pear\n")
    deck = load_deck(tmp_path, on_problem=lambda m: None)
    assert len(deck.problems) == 2
    assert all("outside the deck folder" in m for m in deck.problems), deck.problems


def test_deck_embed_with_no_usable_photo_says_so_without_loading_clip(
    deck_cli, tmp_path: Path, monkeypatch
):
    import types

    class NeverLoaded:
        def __init__(self, *args, **kwargs):
            raise AssertionError("CLIP loaded for a deck with nothing to embed")

    fake = types.ModuleType("kiekai.perception.clip")
    fake.ClipPerception = NeverLoaded
    monkeypatch.setitem(__import__("sys").modules, "kiekai.perception.clip", fake)
    (tmp_path / "a.jpg").write_bytes(b"")
    (tmp_path / "b.png").write_text("not a photo")
    result = _invoke(deck_cli, "deck", "embed", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert "no usable photo to embed (0 usable, 2 skipped" in result.output
    assert result.output.count(": skipped, ") == 2 and "Traceback" not in result.output


def test_deck_commands_never_send_control_characters_from_file_names(deck_cli, tmp_path: Path):
    """A file name can hold escape sequences (colours, window titles, cursor moves) or a
    newline; printed raw they would act on the user's terminal or forge output lines."""
    _photo(tmp_path / "ok.jpg")
    _photo(tmp_path / "\x1b]0;owned\x07title.jpg")
    _photo(tmp_path / "new\nline.jpg")
    (tmp_path / "\x1b[2Jclear.png").write_bytes(b"junk")
    for command in ("info", "embed"):
        result = _invoke(deck_cli, "deck", command, str(tmp_path))
        assert "\x1b" not in result.output and "\x07" not in result.output, command
    info = _invoke(deck_cli, "deck", "info", str(tmp_path)).output
    assert "\\x1b]0;owned\\x07title.jpg" in info and "new\\nline.jpg" in info
    embed = _invoke(deck_cli, "deck", "embed", str(tmp_path)).output
    assert "warning: \\x1b[2Jclear.png: skipped" in embed


def test_printable_escapes_only_control_characters():
    from kiekai.display import printable

    assert printable("ñandú photo (1).jpg") == "ñandú photo (1).jpg"
    assert printable("😀/çafé.JPG") == "😀/çafé.JPG"
    assert printable("a\x1b[31mb\tc\nd\x7f\u202ee.jpg") == "a\\x1b[31mb\\tc\\nd\\x7f\\u202ee.jpg"


def test_label_column_names_in_any_case_from_spreadsheets(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text("File,Label,WNID,Notes\na.jpg,apple,n07739125,red\n")
    card = load_deck(tmp_path).cards[0]
    assert (card.label, card.wnid, card.extra_value("Notes")) == ("apple", "n07739125", "red")


def test_label_row_differing_only_in_case_names_the_real_file(tmp_path: Path):
    _photo(tmp_path / "Holiday" / "Dog.jpg")
    (tmp_path / "labels.csv").write_text("file,label\nholiday/dog.JPG,dog\n")
    deck = load_deck(tmp_path, on_problem=lambda m: None)
    assert deck.cards[0].label is None  # not guessed: the row is reported, not applied
    assert len(deck.problems) == 1
    assert "'Holiday/Dog.jpg' exists (names are case-sensitive)" in deck.problems[0]


def test_deck_path_that_is_a_broken_or_looping_link_says_so(tmp_path: Path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    for name in ("loop", "gone"):
        with pytest.raises(DeckError, match="symbolic link that leads to no folder"):
            load_deck(tmp_path / name)


def test_bomb_reason_gives_the_size_and_the_documented_limit(tmp_path: Path):
    """Pillow's own message quotes twice its limit (its error threshold); the reason names
    the pixels and kiekai's limit, as docs/decks.md documents it."""
    _photo(tmp_path / "ok.png")
    (tmp_path / "bomb.png").write_bytes(_bomb_png(100_000, 100_000))
    reasons: dict[str, str] = {}
    load_deck(tmp_path, on_skip=reasons.__setitem__)
    assert reasons["bomb.png"] == (
        "decompression bomb refused: 10,000,000,000 pixels is over the limit of 89,478,485"
    )


# ----------------------------------------------------------------------- issue 11: corrupt PNG


def _png_with_broken_idat(path: Path, *, keep_crc: bool) -> Path:
    """A 384x288 RGB PNG (noise, so the IDAT is large) with one byte of its first IDAT chunk's
    data flipped; ``keep_crc`` recomputes the chunk's CRC so only the zlib stream is broken."""
    pixels = np.random.default_rng(0).integers(0, 256, (288, 384, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(path, format="PNG")
    data = bytearray(path.read_bytes())
    at = data.index(b"IDAT")
    (length,) = struct.unpack(">I", data[at - 4 : at])
    data[at + 4 + length // 2] ^= 0xFF
    if keep_crc:
        crc = zlib.crc32(bytes(data[at : at + 4 + length])) & 0xFFFFFFFF
        data[at + 4 + length : at + 8 + length] = struct.pack(">I", crc)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("keep_crc", [False, True], ids=["idat-crc-fails", "zlib-broken"])
def test_a_png_with_a_corrupt_idat_is_skipped_not_listed_ok(deck_cli, tmp_path: Path, keep_crc):
    """Issue 11 point 3: the inspection used to decode twice (the first, failing decode lost in
    getexif(), the second giving a black image) and list this file as ok."""
    _png_with_broken_idat(tmp_path / "broken.png", keep_crc=keep_crc)
    _photo(tmp_path / "fine.png")
    deck = load_deck(tmp_path, on_skip=lambda rel, why: None)
    assert [c.id for c in deck.cards] == ["fine.png"]
    ((relative, reason),) = deck.skipped
    assert relative == "broken.png"
    expected = "cannot decode" if keep_crc else "IDAT chunk at byte 33 fails its CRC check"
    assert expected in reason
    info = _invoke(deck_cli, "deck", "info", str(tmp_path)).output
    line = next(line for line in info.splitlines() if " broken.png " in line)
    assert "skipped" in line and " ok " not in line
    assert "1 usable, 1 skipped" in info


def test_a_bad_crc_in_an_ancillary_chunk_is_ignored_as_libpng_does(tmp_path: Path):
    path = _photo(tmp_path / "text.png")
    data = path.read_bytes()
    end = data.index(b"IEND") - 4
    text = _png_chunk(b"tEXt", b"Comment\x00hello")
    text = text[:-4] + b"\x00\x00\x00\x00"  # wrong CRC in an ancillary chunk
    path.write_bytes(data[:end] + text + data[end:])
    assert [c.id for c in load_deck(tmp_path).cards] == ["text.png"]


def test_decode_photos_yields_images_or_reasons_and_never_raises(tmp_path: Path):
    """The one way callers of open_rgb get many photos: a card broken after the deck was read
    (removed, overwritten with junk) costs that card, with its reason."""
    from kiekai.deck import decode_photos

    for name in ("a.png", "b.png", "c.png"):
        _photo(tmp_path / name)
    deck = load_deck(tmp_path)
    (tmp_path / "b.png").write_bytes(b"not a photo any more")
    (tmp_path / "c.png").unlink()
    photos = list(decode_photos(deck.cards, max_side=16))
    assert [p.name for p in photos] == ["a.png", "b.png", "c.png"]
    assert (
        photos[0].image is not None
        and photos[0].image.mode == "RGB"
        and max(photos[0].image.size) <= 16
    )
    assert photos[1].image is None and photos[1].reason.startswith("not an image")
    assert photos[2].image is None and photos[2].reason == "No such file or directory"
    skipped: list[tuple[str, str]] = []
    kept = list(decode_photos(deck.cards, on_skip=lambda card, why: skipped.append((card, why))))
    assert [p.name for p in kept] == ["a.png"]
    assert [card for card, _ in skipped] == ["b.png", "c.png"]
    from kiekai.deck import warn_skipped

    with pytest.warns(DeckWarning) as record:
        list(decode_photos(deck.cards, on_skip=warn_skipped))
    assert [str(w.message).split(",")[0] for w in record] == ["b.png: skipped", "c.png: skipped"]


def test_contact_sheet_draws_a_card_broken_since_loading_as_unreadable(tmp_path: Path):
    from kiekai.contact_sheet import contact_sheet

    _photo(tmp_path / "a.png", colour=(0, 200, 0))
    _png_with_broken_idat(tmp_path / "b.png", keep_crc=False)
    sheet = contact_sheet(
        [tmp_path / "a.png", tmp_path / "b.png"], tmp_path / "sheet.png", tile=128, numbers=False
    )
    pixels = np.asarray(Image.open(sheet).convert("RGB")).astype(int)
    gap = 8
    first = pixels[gap : gap + 128, gap : gap + 128]
    second = pixels[gap : gap + 128, 2 * gap + 128 : 2 * gap + 256]
    assert (np.abs(first - (0, 200, 0)).sum(axis=2) < 10).mean() > 0.5  # the photo
    reddish = (second[..., 0] > 200) & (second[..., 1] < 170) & (second[..., 2] < 170)
    assert reddish.sum() > 20  # "unreadable" and the reason, in the notice colour
    assert (np.abs(second - (40, 40, 40)).sum(axis=2) < 10).mean() > 0.5


# ----------------------------------------------------------------------- issue 11: labels.csv


def test_rows_with_only_a_file_or_an_unknown_wnid_are_reported(tmp_path: Path):
    for name in ("a.jpg", "b.jpg", "c.jpg", "d.jpg"):
        _photo(tmp_path / name)
    (tmp_path / "labels.csv").write_text(
        "file,label,wnid\na.jpg,,\nb.jpg\nc.jpg,,n99999999\nd.jpg,dog,n02084071\n", encoding="utf-8"
    )
    known = {"n02084071"}
    seen: list[str] = []
    deck = load_deck(tmp_path, on_problem=seen.append, known_wnid=known.__contains__)
    assert any("line 2" in m and "'a.jpg' has neither a label nor a wnid" in m for m in seen)
    assert any("line 3" in m and "'b.jpg' has neither a label nor a wnid" in m for m in seen)
    assert any(
        "line 4" in m and "wnid 'n99999999' names no WordNet 3.0 noun synset" in m for m in seen
    )
    assert len(seen) == 3
    assert deck.by_id("c.jpg").wnid is None and deck.by_id("d.jpg").wnid == "n02084071"
    # without a check, a well-formed wnid is kept (no WordNet needed to read a deck)
    assert load_deck(tmp_path, on_problem=lambda m: None).by_id("c.jpg").wnid == "n99999999"


def test_wordnet_noun_ids_knows_imagenet_ids(shared_dir: Path):
    """The check `kiekai play` and `kiekai deck info` use: WordNet 3.0 noun offsets (the
    ImageNet wnids of the dev deck are all known; n99999999 is none)."""
    from kiekai.deck import WordNetNounIds

    known = WordNetNounIds()
    assert known("n01440764") and not known("n99999999")
    assert known.unavailable is None


def test_warnings_after_a_multi_line_label_name_the_line_the_row_starts_on(tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text(
        'file,label\na.jpg,"two\nlines\nlong"\n\nmissing.jpg,pear\nb.jpg,,\n', encoding="utf-8"
    )
    seen: list[str] = []
    load_deck(tmp_path, on_problem=seen.append)
    assert any("line 6" in m and "missing.jpg" in m for m in seen), seen
    assert any("line 7" in m and "'b.jpg'" in m for m in seen), seen


@pytest.mark.parametrize("kind", ["folder", "fifo", "device", "dangling"])
def test_a_labels_csv_that_is_not_a_file_is_one_warning(tmp_path: Path, kind):
    import os

    _photo(tmp_path / "a.jpg")
    labels = tmp_path / "labels.csv"
    if kind == "folder":
        labels.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("named pipes need POSIX")
        os.mkfifo(labels)
    elif kind == "device":
        if not Path("/dev/zero").exists():
            pytest.skip("needs /dev/zero")
        labels.symlink_to("/dev/zero")
    else:
        labels.symlink_to(tmp_path / "gone.csv")
    seen: list[str] = []
    deck = load_deck(tmp_path, on_problem=seen.append)  # returns: nothing is read from it
    assert len(deck.cards) == 1 and deck.cards[0].label is None
    assert len(seen) == 1 and seen[0].startswith("labels.csv is "), seen
    words = {"folder": "a folder", "fifo": "a named pipe", "device": "a character device",
             "dangling": "a symbolic link to nothing"}  # fmt: skip
    assert words[kind] in seen[0] and "no labels read" in seen[0]


def test_deck_info_reports_unknown_wnids_with_their_line(deck_cli, tmp_path: Path):
    _photo(tmp_path / "a.jpg")
    _photo(tmp_path / "b.jpg")
    (tmp_path / "labels.csv").write_text("file,wnid\na.jpg,n99999999\nb.jpg,n01440764\n")
    result = _invoke(deck_cli, "deck", "info", str(tmp_path))
    assert result.exit_code == 0, result.output
    if "were not checked against WordNet" not in result.output:
        assert (
            "labels.csv line 2: wnid 'n99999999' names no WordNet 3.0 noun synset" in result.output
        )
        assert "n01440764" in result.output


def _jpeg_with_broken_exif(path: Path) -> Path:
    """A JPEG whose EXIF block is cut off inside its first IFD (Pillow: "Corrupt EXIF data")."""
    import io

    exif = Image.Exif()
    exif[274] = 6
    buffer = io.BytesIO()
    Image.new("RGB", (80, 60), (10, 120, 200)).save(buffer, "JPEG", exif=exif.tobytes())
    data = bytearray(buffer.getvalue())
    at = data.find(b"Exif\x00\x00") + 6  # the TIFF header: byte order, 42, IFD offset
    data[at + 4 : at + 8] = (0x7FFFFFF0).to_bytes(4, "little" if data[at] == 0x49 else "big")
    path.write_bytes(bytes(data))
    return path


def test_a_broken_exif_block_gives_no_stray_pillow_warning(tmp_path: Path):
    """Pillow warns "Corrupt EXIF data" from its own source line; that raw line must not reach
    the terminal of ``deck info`` or ``play``: the photo decodes (orientation ignored) and
    the only warnings are the deck's own."""
    deck = tmp_path / "deck"
    deck.mkdir()
    photo = _jpeg_with_broken_exif(deck / "broken-exif.jpg")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_deck(deck)
        image = open_rgb(photo, max_side=40)
    assert [c.id for c in loaded.cards] == ["broken-exif.jpg"]
    assert image.size == (40, 30)
    assert [str(w.message) for w in caught if not issubclass(w.category, DeckWarning)] == []


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P", "I;16"])
def test_open_rgb_shrinks_a_huge_photo_before_converting_it(tmp_path: Path, monkeypatch, mode):
    """A 6000x4000 PNG asked for at 300 px is box-reduced before any mode conversion (only
    the palette and 16-bit modes, which cannot be averaged, are converted whole), so memory
    follows the size asked for (the web table's photos, contact sheets, perception); the
    colours are those of the photo."""
    import kiekai.deck.decode as deck_module

    colour = {"L": 90, "RGB": (200, 30, 40), "RGBA": (200, 30, 40, 255), "P": 0, "I;16": 30000}[
        mode
    ]
    image = Image.new(mode, (6000, 4000), colour)
    if mode == "P":
        image.putpalette([200, 30, 40] * 256)
    path = tmp_path / "big.png"
    image.save(path)
    converted: list[tuple[int, int]] = []
    real = deck_module._to_rgb
    monkeypatch.setattr(deck_module, "_to_rgb", lambda im: converted.append(im.size) or real(im))
    rgb = open_rgb(path, max_side=300)
    assert rgb.size == (300, 200) and rgb.mode == "RGB"
    if mode in ("P", "I;16"):
        assert converted == [(6000, 4000)]
    else:
        assert converted and max(converted[0]) <= 2 * 300 * 2, converted
    expected = {"L": (90, 90, 90), "I;16": (117, 117, 117)}.get(mode, (200, 30, 40))
    assert np.abs(_pixels(rgb).reshape(-1, 3).mean(axis=0) - expected).max() < 1.5


def test_labels_are_one_line_and_bounded(tmp_path: Path):
    """A spreadsheet cell's line breaks and tabs become single spaces; a label of 100,000
    characters (whose game log's first lines grew past what replay reads) is reported and
    ignored, the photo kept."""
    from kiekai.deck import MAX_LABEL_CHARS

    for name in ("a.png", "b.png", "c.png"):
        _photo(tmp_path / name)
    long = "dog " * 25_000
    with open(tmp_path / "labels.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["file", "label", "wnid"])
        writer.writerows([["a.png", "golden\r\nretriever\t dog", ""], ["b.png", long, "n02084071"],
                          ["c.png", "x" * MAX_LABEL_CHARS, ""]])  # fmt: skip
    problems: list[str] = []
    deck = load_deck(tmp_path, on_problem=problems.append)
    labels = {card.id: card.label for card in deck.cards}
    assert labels == {
        "a.png": "golden retriever dog",
        "b.png": None,
        "c.png": "x" * MAX_LABEL_CHARS,
    }
    assert deck.by_id("b.png").wnid == "n02084071"
    assert problems == [
        f"labels.csv line 4: the label of 'b.png' is {len(long.strip()):,} characters long, over "
        f"{MAX_LABEL_CHARS}; a label names what the photo shows in a few words (label ignored)"
    ]


def test_a_labels_csv_of_a_larger_deck_gives_a_few_warnings_and_a_count(tmp_path: Path):
    """A dataset's whole labels.csv dropped into a folder of a few of its photos: 200,000
    rows naming missing files printed 200,000 warnings (a minute of scrolling). The first
    MAX_PROBLEMS_SHOWN are passed on, then one line with the count; Deck.problems has all."""
    from kiekai.deck import MAX_PROBLEMS_SHOWN

    _photo(tmp_path / "here.png")
    rows = "".join(f"gone/p{i:04d}.png,dog\n" for i in range(500))
    (tmp_path / "labels.csv").write_text("file,label\nhere.png,cat\n" + rows, encoding="utf-8")
    told: list[str] = []
    deck = load_deck(tmp_path, on_problem=told.append)
    assert deck.by_id("here.png").label == "cat"
    assert len(deck.problems) == 500
    assert told[:MAX_PROBLEMS_SHOWN] == deck.problems[:MAX_PROBLEMS_SHOWN]
    assert len(told) == MAX_PROBLEMS_SHOWN + 1
    assert told[-1].startswith(
        f"... and {500 - MAX_PROBLEMS_SHOWN:,} more problems like these, 500 in all"
    )


def test_skipped_photos_are_capped_like_labels_problems_with_a_count(tmp_path: Path):
    """Issue 21: a folder of 100,000 empty .jpg files printed 100,000 "Skipped" lines. The
    first MAX_PROBLEMS_SHOWN skipped photos are told one by one, then one line counts the
    rest; Deck.skipped keeps them all."""
    from kiekai.deck import MAX_PROBLEMS_SHOWN

    for n in range(130):
        (tmp_path / f"empty{n:03d}.jpg").write_bytes(b"")
    _photo(tmp_path / "good.png")
    skips: list[str] = []
    told: list[str] = []
    deck = load_deck(tmp_path, on_skip=lambda rel, why: skips.append(rel), on_problem=told.append)
    assert len(deck.skipped) == 130 and len(deck.cards) == 1
    assert skips == [rel for rel, _ in deck.skipped[:MAX_PROBLEMS_SHOWN]]
    assert told == [
        f"... and {130 - MAX_PROBLEMS_SHOWN} more photos skipped, 130 in all (the first "
        f"{MAX_PROBLEMS_SHOWN} are named; 'kiekai deck info' lists every file with its reason)"
    ]
    every: list[str] = []
    load_deck(tmp_path, on_skip=lambda rel, why: every.append(rel), max_skips_shown=None)
    assert len(every) == 130


def test_play_prints_at_most_20_skipped_lines_and_the_count(tmp_path: Path):
    import io

    import typer
    from rich.console import Console

    from kiekai.commands.play import _load_cards

    for n in range(60):
        (tmp_path / f"empty{n:02d}.jpg").write_bytes(b"")
    for n in range(20):
        _photo(tmp_path / f"good{n:02d}.png", colour=(n * 10, 30, 40))
    out = io.StringIO()
    err = Console(file=out, width=200, highlight=False)
    try:
        _load_cards(err, tmp_path, 3)
    except typer.Exit:
        pass  # a deck too small is fine here: the lines before it are what is checked
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("Skipped ") for line in lines) == 20
    assert "... and 40 more photos skipped, 60 in all" in out.getvalue()
    assert "labels.csv: ..." not in out.getvalue()


def test_deck_info_shows_a_wordnet_index_build_on_stderr(deck_cli, tmp_path: Path, monkeypatch):
    """Checking wnids opens WordNet; when that builds the index (15-60 s, once), ``deck info``
    prints its lines on stderr as ``play`` does: the build with its estimate, progress lines."""
    from kiekai.judge import resources as resources_module
    from kiekai.judge import wordnet_index

    class Index:
        def install_lemminflect(self) -> None:
            pass

        def synset_from_pos_and_offset(self, pos: str, offset: int):
            return object() if offset == 1440764 else None

    def building(*, build=True, report=None, **_):
        if report is not None:
            report("building the judge's WordNet index in /cache (... 15-60 s on 2 cores) ...")
            report("  WordNet index: 20,000 synsets read")
        return Index()

    fresh = resources_module.Resources(embedding_table=None)  # no WordNet open yet
    monkeypatch.setattr(resources_module, "default_resources", lambda: fresh)
    monkeypatch.setattr(wordnet_index, "open_index", building)
    monkeypatch.delenv("KIEKAI_WORDNET_INDEX", raising=False)
    _photo(tmp_path / "a.jpg")
    (tmp_path / "labels.csv").write_text("file,wnid\na.jpg,n01440764\n")
    result = _invoke(deck_cli, "deck", "info", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "building the judge's WordNet index" in result.stderr
    assert "15-60 s" in result.stderr and "20,000 synsets read" in result.stderr
    assert "WordNet index" not in result.stdout
    assert "1 usable, 0 skipped, 1 labelled" in result.stdout


def test_deck_embed_shows_its_progress_bar_on_stderr(deck_cli, bad_photos, monkeypatch):
    """The CLIP pass of ``deck embed`` has play's bar: on stderr, even when it is not a
    terminal (a log), with the count; stdout keeps only the summary."""
    import types

    class Fake:
        def __init__(self, cards=(), **_):
            pass

        def embed_images(self, cards, progress=None, *, on_skip=None):
            return np.ones((len(cards), 3), np.float32)

    fake = types.ModuleType("kiekai.perception.clip")
    fake.ClipPerception = Fake
    monkeypatch.setitem(__import__("sys").modules, "kiekai.perception.clip", fake)
    result = _invoke(deck_cli, "deck", "embed", str(bad_photos))
    assert result.exit_code == 0, result.output
    assert "CLIP: embedding photos" in result.stderr and "7/7" in result.stderr
    assert "embedding photos" not in result.stdout
    assert "embedded 7 photos (3 dimensions)" in result.stdout
