"""Numbered contact sheets: one PNG that shows a human the cards on the table.

In a turn of Kiek the active player lays out five cards and splits them into a group of three
and a group of two (rulebook, "A Turn"); the terminal UI cannot show photos inline, so it
writes a contact sheet and points the player at it. Each tile carries a big number (1..N) that
the player types to choose cards; optional group captions ("three", "two") head each group.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import cast

from PIL import Image, ImageDraw, ImageFont, ImageOps

from kiekai.deck import MAX_PIXELS, Card, decode_photos
from kiekai.display import printable
from kiekai.files import replacing

#: Sheet background and the letterbox colour around photos that are not square (RGB).
BACKGROUND = (255, 255, 255)
TILE_BACKGROUND = (40, 40, 40)

#: Largest sheet in pixels (width x height): the deck's decompression-bomb limit
#: (:data:`kiekai.deck.MAX_PIXELS`, about 0.25 GiB of RGB), so an absurd ``tile`` or card count
#: is an error instead of an allocation that exhausts memory.
MAX_SHEET_PIXELS = MAX_PIXELS


@dataclass(frozen=True)
class SheetLayout:
    """Where each tile and caption goes on a contact sheet (all numbers in pixels).

    Attributes:
        size: (width, height) of the whole sheet.
        tiles: one (left, top, right, bottom) box per card, in card order; each is
            ``tile`` x ``tile`` pixels.
        captions: (text, (left, top, right, bottom)) per captioned group, in group order.
    """

    size: tuple[int, int]
    tiles: list[tuple[int, int, int, int]]
    captions: list[tuple[str, tuple[int, int, int, int]]]


def sheet_layout(
    count: int,
    *,
    tile: int = 256,
    groups: Sequence[tuple[str, int]] | None = None,
    columns: int | None = None,
) -> SheetLayout:
    """Lay out ``count`` square tiles: rows of ``columns`` tiles, or one row per group.

    Args:
        count: number of cards (at least 1).
        tile: side of each square tile in pixels (at least 32).
        groups: optional ``(caption, size)`` runs of consecutive cards, e.g.
            ``[("three", 3), ("two", 2)]``; each group gets its own row under its caption.
            Sizes must add up to ``count``.
        columns: tiles a row without groups; default ``min(count, 5)`` (a Kiek table shows 5).

    Returns:
        The :class:`SheetLayout`. The gap between tiles and around the edge is
        ``max(8, tile // 16)`` pixels; a caption band is ``tile // 5`` pixels high.

    Raises:
        ValueError: ``count`` < 1, ``tile`` < 32, ``columns`` < 1, group sizes that do not
            add up to ``count`` (or a group smaller than 1), or a sheet over
            :data:`MAX_SHEET_PIXELS` pixels.
    """
    if count < 1:
        raise ValueError(f"a contact sheet needs at least 1 card, got {count}")
    if tile < 32:
        raise ValueError(f"tile must be at least 32 pixels, got {tile}")
    gap = max(8, tile // 16)
    caption_h = tile // 5
    rows: list[tuple[str | None, int]]
    if groups:
        sizes = [size for _, size in groups]
        if any(size < 1 for size in sizes) or sum(sizes) != count:
            raise ValueError(
                f"group sizes {sizes} must each be at least 1 and add up to {count} cards"
            )
        rows = [(caption, size) for caption, size in groups]
    else:
        per_row = min(count, 5) if columns is None else columns
        if per_row < 1:
            raise ValueError(f"columns must be at least 1, got {per_row}")
        rows = []
        left = count
        while left > 0:
            rows.append((None, min(per_row, left)))
            left -= per_row
    width_tiles = max(size for _, size in rows)
    width = gap + width_tiles * (tile + gap)
    tiles: list[tuple[int, int, int, int]] = []
    captions: list[tuple[str, tuple[int, int, int, int]]] = []
    y = gap
    for caption, size in rows:
        if caption is not None:
            captions.append((caption, (gap, y, width - gap, y + caption_h)))
            y += caption_h
        for i in range(size):
            x = gap + i * (tile + gap)
            tiles.append((x, y, x + tile, y + tile))
        y += tile + gap
    if width * y > MAX_SHEET_PIXELS:
        raise ValueError(
            f"a contact sheet of {count} tiles of {tile} px would be {width}x{y} = "
            f"{width * y:,} pixels, over the limit of {MAX_SHEET_PIXELS:,}; use a smaller "
            f"tile or fewer cards"
        )
    return SheetLayout(size=(width, y), tiles=tiles, captions=captions)


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A bold scalable font of ``size`` pixels: Matplotlib's DejaVu Sans Bold, else Pillow's."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations)))
        bold = folder / "mpl-data" / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
        if bold.is_file():
            return ImageFont.truetype(str(bold), size)
    return ImageFont.load_default(size=size)


def _draw_number(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], number: int) -> None:
    """A white number on a black disc with a white ring, at the tile's top-left corner."""
    left, top, right, _ = box
    side = right - left
    diameter = max(28, side // 4)
    pad = max(3, side // 40)
    disc = (left + pad, top + pad, left + pad + diameter, top + pad + diameter)
    draw.ellipse(disc, fill=(0, 0, 0), outline=(255, 255, 255), width=max(2, diameter // 14))
    text = str(number)
    font = _font(int(diameter * (0.62 if len(text) < 2 else 0.5)))
    centre = ((disc[0] + disc[2]) / 2, (disc[1] + disc[3]) / 2)
    draw.text(centre, text, fill=(255, 255, 255), font=font, anchor="mm")


def _fit_lines(
    text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: float, max_lines: int
) -> list[str]:
    """Wrap ``text`` into at most ``max_lines`` lines each at most ``width`` pixels wide in
    ``font`` (words broken by characters when one alone is too wide; "…" marks a cut)."""
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and font.getlength(candidate) <= width:
            lines[-1] = candidate
            continue
        piece = ""
        for char in word:
            if piece and font.getlength(piece + char) > width:
                lines.append(piece)
                piece = ""
            piece += char
        lines.append(piece)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and font.getlength(last + "…") > width:
            last = last[:-1]
        lines[-1] = last + "…"
    return lines


def _tile_image(card: Card | str | os.PathLike[str], tile: int) -> tuple[Image.Image, str | None]:
    """The card's photo letterboxed into a ``tile`` x ``tile`` RGB square, and ``None``; a
    card that cannot be read (:func:`kiekai.deck.decode_photos` gives the reason) becomes a
    notice ("unreadable" and the short reason, wrapped to the tile), returned with the reason."""
    square = Image.new("RGB", (tile, tile), TILE_BACKGROUND)
    decoded = next(decode_photos([card], max_side=tile))
    photo = decoded.image
    if photo is None:
        draw = ImageDraw.Draw(square)
        margin = max(4, tile // 16)
        size = max(10, tile // 16)
        while size > 6 and _font(size).getlength("unreadable") > tile - 2 * margin:
            size -= 1  # small tiles: a smaller font, so at least the heading fits
        font = _font(size)
        # below the number disc of _draw_number (its diameter and padding)
        top = max(28, tile // 4) + 2 * max(3, tile // 40)
        line_height = cast(int, font.getbbox("Ag")[3]) + 2  # Pillow's boxes are whole pixels
        max_lines = max(1, (tile - top - margin) // line_height - 1)
        # the reason without technical detail in brackets, control characters shown as escapes
        reason = printable((decoded.reason or "").split(" (")[0])
        lines = ["unreadable", *_fit_lines(reason, font, tile - 2 * margin, max_lines)]
        draw.multiline_text(
            (tile / 2, (top + tile - margin) / 2),
            "\n".join(lines),
            fill=(255, 120, 120),
            font=font,
            anchor="mm",
            align="center",
            spacing=2,
        )
        return square, decoded.reason or "cannot be decoded"
    if photo.size != (tile, tile):
        photo = ImageOps.contain(photo, (tile, tile), Image.Resampling.LANCZOS)
    square.paste(photo, ((tile - photo.width) // 2, (tile - photo.height) // 2))
    return square, None


def contact_sheet(
    cards: Sequence[Card | str | os.PathLike[str]],
    path: str | os.PathLike[str],
    *,
    numbers: bool = True,
    tile: int = 256,
    groups: Sequence[tuple[str, int]] | None = None,
    columns: int | None = None,
    on_unreadable: Callable[[int, str], None] | None = None,
) -> Path:
    """Write a PNG contact sheet of ``cards`` and return its path.

    Each card becomes a ``tile`` x ``tile`` pixel square (photo decoded by
    :func:`kiekai.deck.open_rgb`, scaled to fit with its aspect kept, letterboxed on dark
    grey); with ``numbers`` each tile shows its 1-based position in ``cards`` in a big disc
    (a quarter of the tile wide) at its top-left corner. See :func:`sheet_layout` for the geometry.

    Args:
        cards: cards (or photo paths) in the order to number them.
        path: where to write the PNG; parent folders are created; an existing file is
            replaced atomically (a crash never leaves half a file).
        numbers: draw the numbers 1..N.
        tile: side of each tile in pixels.
        groups: optional ``(caption, size)`` runs, e.g. ``[("three", 3), ("two", 2)]`` for
            the active player's split (rulebook, "A Turn").
        columns: tiles a row when there are no groups (default: up to 5).
        on_unreadable: called with the 1-based position and the reason of each card whose
            photo cannot be read now (removed, emptied or cut short since the deck was
            read), which is drawn as an "unreadable" notice instead of a photo.

    Returns:
        The path written (as given, made a :class:`~pathlib.Path`).

    Raises:
        ValueError: no cards, or a bad ``tile``/``groups``/``columns`` (see :func:`sheet_layout`).
        OSError: the file cannot be written.
    """
    layout = sheet_layout(len(cards), tile=tile, groups=groups, columns=columns)
    sheet = Image.new("RGB", layout.size, BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    for number, (card, box) in enumerate(zip(cards, layout.tiles, strict=True), start=1):
        square, reason = _tile_image(card, tile)
        sheet.paste(square, box[:2])
        if reason is not None and on_unreadable is not None:
            on_unreadable(number, reason)
        if numbers:
            _draw_number(draw, box, number)
    for text, (left, top, _right, bottom) in layout.captions:
        font = _font(max(12, int((bottom - top) * 0.7)))
        draw.text((left, (top + bottom) / 2), text, fill=(0, 0, 0), font=font, anchor="lm")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with replacing(target) as out:
        sheet.save(out, format="PNG")
    return target


__all__ = ["SheetLayout", "contact_sheet", "sheet_layout"]
