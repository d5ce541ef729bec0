"""Tests for kiekai.contact_sheet: numbered PNG sheets of cards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kiekai.contact_sheet import BACKGROUND, TILE_BACKGROUND, contact_sheet, sheet_layout
from kiekai.deck import load_deck

COLOURS = [
    (220, 20, 60),
    (30, 144, 255),
    (50, 205, 50),
    (255, 215, 0),
    (148, 0, 211),
    (255, 140, 0),
]


@pytest.fixture()
def cards(tmp_path: Path):
    folder = tmp_path / "deck"
    folder.mkdir()
    for i, colour in enumerate(COLOURS):
        size = (120, 80) if i % 2 == 0 else (80, 120)  # landscape and portrait
        Image.new("RGB", size, colour).save(folder / f"{i}.png")
    return load_deck(folder).cards


def _region(sheet: np.ndarray, box, fx0, fy0, fx1, fy1) -> np.ndarray:
    left, top, right, bottom = box
    w, h = right - left, bottom - top
    return sheet[top + int(h * fy0) : top + int(h * fy1), left + int(w * fx0) : left + int(w * fx1)]


def test_five_cards_in_one_row_numbered(cards, tmp_path: Path):
    out = contact_sheet(cards[:5], tmp_path / "out" / "sheet.png", tile=128)
    assert out == tmp_path / "out" / "sheet.png"
    sheet = np.asarray(Image.open(out).convert("RGB"))
    layout = sheet_layout(5, tile=128)
    gap = 8
    assert sheet.shape == (128 + 2 * gap, 5 * 128 + 6 * gap, 3)
    assert len(layout.tiles) == 5
    for i, box in enumerate(layout.tiles):
        centre_right = _region(sheet, box, 0.55, 0.45, 0.65, 0.55)
        assert (centre_right == COLOURS[i]).all(), i
        badge = _region(sheet, box, 0.03, 0.03, 0.28, 0.28).reshape(-1, 3)
        assert (badge.max(axis=1) < 30).any() and (badge.min(axis=1) > 225).any(), i
    # Gaps between tiles are sheet background: exactly 5 tiles, nothing else drawn.
    between = sheet[gap + 10 : gap + 118, gap + 128 : 2 * gap + 128]
    assert (between == BACKGROUND).all()


def test_without_numbers_tiles_are_plain_photos_letterboxed(cards, tmp_path: Path):
    contact_sheet(cards[:2], tmp_path / "plain.png", tile=128, numbers=False)
    sheet = np.asarray(Image.open(tmp_path / "plain.png").convert("RGB"))
    first, second = sheet_layout(2, tile=128).tiles
    # Landscape 120x80 -> 128x85 centred vertically: dark bands above and below.
    assert (_region(sheet, first, 0.03, 0.2, 0.28, 0.28) == COLOURS[0]).all()  # no badge
    assert (_region(sheet, first, 0.3, 0.0, 0.7, 0.15) == TILE_BACKGROUND).all()
    assert (_region(sheet, first, 0.3, 0.85, 0.7, 1.0) == TILE_BACKGROUND).all()
    # Portrait 80x120 -> 85x128 centred horizontally: dark bands left and right.
    assert (_region(sheet, second, 0.0, 0.3, 0.1, 0.7) == TILE_BACKGROUND).all()
    assert (_region(sheet, second, 0.4, 0.03, 0.6, 0.28) == COLOURS[1]).all()


def test_groups_get_their_own_captioned_rows(cards, tmp_path: Path):
    groups = [("three", 3), ("two", 2)]
    contact_sheet(cards[:5], tmp_path / "g.png", tile=100, groups=groups)
    sheet = np.asarray(Image.open(tmp_path / "g.png").convert("RGB"))
    layout = sheet_layout(5, tile=100, groups=groups)
    assert sheet.shape[:2] == (layout.size[1], layout.size[0])
    assert layout.size == (8 + 3 * 108, 8 + 2 * (20 + 108))
    assert [c for c, _ in layout.captions] == ["three", "two"]
    assert layout.tiles[3][1] > layout.tiles[2][3]  # group two starts on a new row
    for caption, (left, top, right, bottom) in layout.captions:
        band = sheet[top:bottom, left:right]
        assert (band.max(axis=2) < 60).any(), caption  # caption text drawn in black
    for i, box in enumerate(layout.tiles):
        assert (_region(sheet, box, 0.55, 0.45, 0.65, 0.55) == COLOURS[i]).all()


def test_many_cards_wrap_and_bad_arguments_are_errors(cards, tmp_path: Path):
    layout = sheet_layout(12, tile=64)
    assert len(layout.tiles) == 12 and layout.size == (8 + 5 * 72, 8 + 3 * 72)
    assert len(sheet_layout(6, tile=64, columns=3).tiles) == 6
    with pytest.raises(ValueError, match="add up to 5"):
        contact_sheet(cards[:5], tmp_path / "x.png", groups=[("three", 3), ("one", 1)])
    with pytest.raises(ValueError, match="at least 1 card"):
        contact_sheet([], tmp_path / "x.png")
    with pytest.raises(ValueError, match="at least 32"):
        sheet_layout(3, tile=8)
    assert not (tmp_path / "x.png").exists()


def test_unreadable_card_becomes_a_notice_and_file_is_replaced(cards, tmp_path: Path, bad_photos):
    target = tmp_path / "s.png"
    target.write_bytes(b"old")
    contact_sheet([cards[0], bad_photos / "truncated.jpg"], target, tile=64)
    sheet = np.asarray(Image.open(target).convert("RGB"))
    assert sheet.shape == (80, 8 + 2 * 72, 3)
    notice = _region(sheet, sheet_layout(2, tile=64).tiles[1], 0.0, 0.0, 1.0, 1.0)
    assert (notice == TILE_BACKGROUND).mean() > 0.5
    assert not list(tmp_path.glob(".sheet-*"))  # no temporary file left behind


@pytest.mark.parametrize("tile", [64, 128, 256])
def test_notice_of_an_unreadable_card_stays_inside_its_tile(cards, tmp_path: Path, tile):
    """A long reason (here a decompression bomb's) is wrapped to fit the tile, not cut off at
    its edges, and nothing is drawn over the gaps or the next photo."""
    import struct
    import zlib

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload))
            + kind
            + payload
            + struct.pack(">I", zlib.crc32(kind + payload))
        )

    bomb = tmp_path / "bomb.png"
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    bomb.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )
    missing = tmp_path / "a photo whose long file name does not exist anywhere.png"
    out = contact_sheet([bomb, missing, cards[0]], tmp_path / "s.png", tile=tile, numbers=False)
    sheet = np.asarray(Image.open(out).convert("RGB"))
    layout = sheet_layout(3, tile=tile)
    outside = np.ones(sheet.shape[:2], dtype=bool)
    for left, top, right, bottom in layout.tiles:
        outside[top:bottom, left:right] = False
    assert (sheet[outside] == BACKGROUND).all()  # nothing drawn between or around tiles
    for box in layout.tiles[:2]:
        notice = _region(sheet, box, 0.0, 0.0, 1.0, 1.0)
        assert (notice.reshape(-1, 3) != TILE_BACKGROUND).any(axis=1).sum() > 20  # text drawn
        edges = np.concatenate([notice[:, :3], notice[:, -3:]], axis=1)
        assert (edges == TILE_BACKGROUND).all(), "notice text cut off at the tile's edge"
    assert (_region(sheet, layout.tiles[2], 0.4, 0.4, 0.6, 0.6) == COLOURS[0]).all()


def test_absurd_sheet_sizes_are_refused_before_allocating(tmp_path: Path):
    with pytest.raises(ValueError, match="pixels"):
        sheet_layout(5, tile=100_000)  # 5 tiles of 100,000 px: a 40 GB image
    with pytest.raises(ValueError, match="pixels"):
        sheet_layout(100_000, tile=256)
    assert sheet_layout(50, tile=256).size == (16 + 5 * 272, 16 + 10 * 272)  # gap 256 // 16
