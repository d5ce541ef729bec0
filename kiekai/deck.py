"""Decks of photo cards: safe reading of a photo folder, labels.csv and content hashes.

A *deck* is a folder of photographs (searched recursively) that become the cards of a game
of Kiek. The rulebook ("Preparations") deals four cards to each player and places three
face up, so a deck must hold at least ``4 * players + 3`` usable photos
(:func:`check_deck_size`).

Reading is defensive: a photo folder really contains truncated files, zero-byte files, text
named ``.jpg``, CMYK and 16-bit images, alpha channels, EXIF-rotated phone photos, animated
GIFs, thumbnails and decompression bombs. Every file that cannot become a card is *skipped*
with one reason (never a crash); every odd-but-valid file is decoded to correct 8-bit sRGB by
:func:`open_rgb`, the one function the rest of the package uses to get pixels.

``labels.csv`` (optional, UTF-8) in the deck folder names each photo's content::

    file,wnid,label,wordnet_lemmas
    photos/n01440764.jpg,n01440764,tench,tench;Tinca_tinca

``file`` is a path relative to the deck folder; ``label`` (a human word or phrase) and/or
``wnid`` (a WordNet 3.0 noun synset id, ``n`` + 8 digits) must be present; other columns are
kept in :attr:`Card.extra`.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import hashlib
import io
import os
import re
import struct
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Generic, TypeVar, overload

import numpy as np
from PIL import Image, ImageOps

from kiekai.display import printable
from kiekai.files import FileRefusedError, read_regular_bytes
from kiekai.kiek.rules import HAND_SIZE, TABLE_SIZE, cards_needed

#: File-name suffixes (compared case-insensitively) that are read as photos.
PHOTO_SUFFIXES: frozenset[str] = frozenset({".jpg", ".jpeg", ".png", ".webp", ".gif"})

#: Image formats (as Pillow names them) accepted whatever the file's suffix says.
PHOTO_FORMATS: frozenset[str] = frozenset({"JPEG", "MPO", "PNG", "WEBP", "GIF"})

#: Smallest usable side in pixels: a photo under 32 px a side cannot be shown or perceived
#: (CLIP's ViT-B/32 patch is 32 px; a 1x1 "photo" is a tracking pixel, not a card).
MIN_SIDE: int = 32

#: Largest accepted photo in pixels (width x height), Pillow's own default
#: ``Image.MAX_IMAGE_PIXELS`` (89,478,485 ≈ 0.25 GiB of 24-bit RGB, 1024 * 1024 * 1024 // 4 // 3).
#: Larger images are treated as decompression bombs and skipped.
MAX_PIXELS: int = 1024 * 1024 * 1024 // 4 // 3

#: Largest accepted photo file in bytes (200 MiB): files are read whole to hash and decode them,
#: and no playable photo is anywhere near this size.
MAX_FILE_BYTES: int = 200 * 1024 * 1024


LABELS_FILE = "labels.csv"
_WNID_RE = re.compile(r"^n\d{8}$")
#: A Windows drive path (``C:\\photos`` or ``d:/x``) in labels.csv: absolute, so outside the deck.
_DRIVE_RE = re.compile(r"^[A-Za-z]:/")


class DeckError(Exception):
    """A deck folder or its labels.csv cannot be used; the message names the path and the fix."""


class DeckTooSmallError(DeckError):
    """A deck has fewer usable photos than a game of Kiek deals (rulebook, "Preparations").

    Attributes:
        needed: cards the game deals (``4 * players + 3``).
        available: usable photos in the deck.
        players: number of players.
    """

    def __init__(self, needed: int, available: int, players: int) -> None:
        self.needed = needed
        self.available = available
        self.players = players
        super().__init__(
            f"needs {HAND_SIZE} cards a player + {TABLE_SIZE} = {needed} for "
            f"{players} player{'' if players == 1 else 's'}, this deck has {available} usable photos; add photos to the "
            f"deck folder or play with fewer players"
        )


class PhotoError(Exception):
    """A photo file cannot become a card; ``str(error)`` is the human reason."""


class DeckWarning(UserWarning):
    """A photo was skipped or a labels.csv row was ignored while reading a deck."""


#: ``on_skip(card id or relative path, reason)``: told of each photo left out.
OnSkip = Callable[[str, str], None]
#: ``on_problem(message)``: told of each labels.csv or folder problem.
OnProblem = Callable[[str], None]


@dataclass(frozen=True)
class Card:
    """One photo card of a deck.

    Attributes:
        id: the photo's path relative to the deck folder, with ``/`` separators
            (e.g. ``photos/n01440764.jpg``); unique within a deck.
        path: absolute path of the photo file.
        sha256: hex SHA-256 of the file's bytes (the embedding-cache key).
        label: human label from labels.csv (e.g. ``"tench"``), or ``None``.
        wnid: WordNet 3.0 noun id from labels.csv (e.g. ``"n01440764"``), or ``None``.
        width: decoded width in pixels (after EXIF rotation).
        height: decoded height in pixels (after EXIF rotation).
        mode: the file's own Pillow mode before conversion (``"RGB"``, ``"CMYK"``,
            ``"I;16"``, ``"RGBA"``, ``"P"`` …), or ``""`` when unknown.
        format: the file's Pillow format (``"JPEG"``, ``"PNG"``, ``"WEBP"``, ``"GIF"``), or ``""``.
        extra: other labels.csv columns of this photo's row as ``(column, value)`` pairs
            (e.g. ``(("wordnet_lemmas", "tench;Tinca_tinca"),)``).
    """

    id: str
    path: Path
    sha256: str
    label: str | None = None
    wnid: str | None = None
    width: int = 0
    height: int = 0
    mode: str = ""
    format: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    def extra_value(self, column: str) -> str | None:
        """The value of labels.csv column ``column`` for this card, or ``None`` if absent."""
        for name, value in self.extra:
            if name == column:
                return value
        return None


@dataclass
class Deck:
    """A read deck: its usable cards and what was left out, and why.

    Attributes:
        root: the deck folder (absolute).
        cards: usable cards, sorted by :attr:`Card.id` so that a seeded shuffle is
            reproducible across machines.
        skipped: ``(relative path, reason)`` for every photo-typed file that is not a card
            (cannot be decoded, too small, decompression bomb), sorted by path.
        ignored: relative paths of files that are not photos by their suffix (e.g. ``notes.txt``);
            hidden files and labels.csv are not listed.
        problems: human-readable labels.csv problems (rows ignored, unknown files), each
            naming the row and the fix.
    """

    root: Path
    cards: list[Card]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        """Number of usable cards."""
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        """Iterate the usable cards in id order."""
        return iter(self.cards)

    def labelled(self) -> list[Card]:
        """Cards with a label or a wnid from labels.csv, in id order."""
        return [c for c in self.cards if c.label is not None or c.wnid is not None]

    def by_id(self, card_id: str) -> Card:
        """The card with id ``card_id``.

        Raises:
            KeyError: no card of this deck has that id (the message names the deck folder).
        """
        index = self._index()
        if card_id not in index:
            raise KeyError(f"no card {card_id!r} in deck {self.root}")
        return index[card_id]

    def _index(self) -> dict[str, Card]:
        cache = self.__dict__.get("_by_id")
        if cache is None or len(cache) != len(self.cards):
            cache = {c.id: c for c in self.cards}
            self.__dict__["_by_id"] = cache
        return cache


def check_deck_size(deck_or_count: Deck | Sequence[Card] | int, players: int) -> int:
    """Check a deck holds enough usable photos to deal a game of Kiek; return the number needed.

    Args:
        deck_or_count: a :class:`Deck`, a sequence of cards, or a count of usable photos.
        players: number of players.

    Raises:
        DeckTooSmallError: fewer than ``4 * players + 3`` usable photos, e.g. "needs 4 cards a
            player + 3 = 19 for 4 players, this deck has 12 usable photos".
        ValueError: ``players`` is below 1.
    """
    available = deck_or_count if isinstance(deck_or_count, int) else len(deck_or_count)
    needed = cards_needed(players)
    if available < needed:
        raise DeckTooSmallError(needed, available, players)
    return needed


# --------------------------------------------------------------------------- decoding


def read_photo_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a photo file whole, refusing what is not a regular file or is too large.

    A named pipe called ``x.jpg`` would block a read forever and a link to ``/dev/zero`` would
    fill memory, so the file is read through :func:`kiekai.files.read_regular_bytes`: opened
    without blocking, its type checked on the opened file (through symbolic links), and at
    most :data:`MAX_FILE_BYTES` + 1 bytes ever read.

    Args:
        path: the photo file (symbolic links are followed).

    Returns:
        The file's bytes (at most :data:`MAX_FILE_BYTES`).

    Raises:
        PhotoError: not a regular file (the message names the kind: a named pipe, a
            character device …) or larger than :data:`MAX_FILE_BYTES`.
        OSError: the file does not exist or cannot be read (dangling link, link loop,
            permission denied).
    """
    try:
        return read_regular_bytes(path, MAX_FILE_BYTES)
    except FileRefusedError as exc:
        if exc.reason.startswith("not a regular file"):
            raise PhotoError(f"{exc.reason}; only photo files can be cards") from None
        raise PhotoError(f"file {exc.reason}") from None


@dataclass(frozen=True)
class PhotoInfo:
    """What validation learnt about one photo file.

    Attributes:
        width: width in pixels after EXIF rotation.
        height: height in pixels after EXIF rotation.
        mode: Pillow mode of the file (before conversion to RGB).
        format: Pillow format name.
    """

    width: int
    height: int
    mode: str
    format: str


# Validation results keyed by (sha256, max_pixels, min_side): a photo is decoded once a process.
_INFO_CACHE: dict[tuple[str, int, int], PhotoInfo | PhotoError] = {}

# EXIF orientations (tag 274) that turn the image a quarter turn, so width and height swap.
_QUARTER_TURNS = {5, 6, 7, 8}


def _open_checked(source: Path | io.BytesIO, max_pixels: int) -> Image.Image:
    """Open an image lazily, refusing unknown formats and decompression bombs.

    Raises:
        PhotoError: not an image Pillow knows, not a photo format, or more than ``max_pixels``.
    """
    try:
        with _pillow_warnings():
            image = Image.open(source)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        size = re.search(r"\((\d+) pixels\)", str(exc))
        if size is None:
            raise PhotoError(f"decompression bomb refused ({exc})") from exc
        raise PhotoError(
            f"decompression bomb refused: {int(size.group(1)):,} pixels is over the limit "
            f"of {min(max_pixels, MAX_PIXELS):,}"
        ) from exc
    except Image.UnidentifiedImageError as exc:
        raise PhotoError("not an image (Pillow cannot identify the file's contents)") from exc
    except Exception as exc:  # Pillow raises many types on hostile headers
        raise PhotoError(f"cannot read the image header ({type(exc).__name__}: {exc})") from exc
    if image.format not in PHOTO_FORMATS:
        image.close()
        raise PhotoError(f"{image.format} is not a photo format (use JPEG, PNG, WEBP or GIF)")
    width, height = image.size
    if width * height > max_pixels:
        image.close()
        raise PhotoError(
            f"decompression bomb refused: {width}x{height} = {width * height:,} pixels "
            f"is over the limit of {max_pixels:,}"
        )
    return image


def _rotated_size(image: Image.Image, size: tuple[int, int]) -> tuple[int, int]:
    """(width, height) in pixels of an image of header ``size`` after its EXIF orientation.

    Call it on a loaded image only: Pillow's ``getexif()`` decodes a PNG whole to find an
    eXIf chunk after the pixel data, and a decoding error there would be lost.
    """
    width, height = size
    try:
        with _pillow_warnings():
            orientation = image.getexif().get(274, 1)
    except Exception:  # a corrupt EXIF block: exif_transpose ignores it too
        orientation = 1
    return (height, width) if orientation in _QUARTER_TURNS else (width, height)


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_crc_problem(data: bytes) -> str | None:
    """Why a PNG's critical chunks (IHDR, PLTE, IDAT, IEND) fail their CRC-32, or ``None``.

    The PNG specification (ISO/IEC 15948, section 5.3) gives every chunk a CRC-32 over its
    type and data; a decoder must treat a bad one in a critical chunk as an error, and may
    ignore an ancillary chunk (lower-case first letter, e.g. ``tEXt``) whose CRC fails, as
    libpng does. Pillow's decoder does not check IDAT CRCs, so this walk does.
    """
    offset = len(_PNG_SIGNATURE)
    size = len(data)
    while offset + 12 <= size:
        (length,) = struct.unpack_from(">I", data, offset)
        kind = data[offset + 4 : offset + 8]
        end = offset + 8 + length
        if end + 4 > size:
            return None  # truncated: the decoder reports it
        (stored,) = struct.unpack_from(">I", data, end)
        if kind[:1].isupper() and zlib.crc32(data[offset + 4 : end]) != stored:
            name = kind.decode("latin-1")
            return (
                f"corrupt PNG: its {printable(name)} chunk at byte {offset:,} fails its CRC check"
            )
        if kind == b"IEND":
            return None
        offset = end + 4
    return None


def inspect_photo(
    data: bytes, *, max_pixels: int = MAX_PIXELS, min_side: int = MIN_SIDE
) -> PhotoInfo:
    """Validate one photo's bytes by decoding them whole, once (JPEGs at 1/8 scale via draft
    mode, which still reads every byte).

    That one decode decides: it runs the whole of :func:`open_rgb`'s conversion (EXIF
    rotation, ICC, mode conversion), and any error in it (a PNG chunk that fails its CRC, a
    broken zlib stream, a truncated file) refuses the photo, so a photo that passes decodes
    later. A PNG's critical chunks must also pass their CRC check (:func:`_png_crc_problem`).
    The size is read from the header before decoding and turned by the EXIF orientation
    after it.

    Args:
        data: the file's bytes.
        max_pixels: decompression-bomb limit in pixels (width x height).
        min_side: smallest usable side in pixels (after EXIF rotation).

    Returns:
        The photo's :class:`PhotoInfo` (size after EXIF rotation, original mode and format).

    Raises:
        PhotoError: empty, not an image, truncated or corrupt, a decompression bomb, or
            smaller than ``min_side`` pixels a side; the message is the reason.
    """
    if not data:
        raise PhotoError("empty file (0 bytes)")
    image = _open_checked(io.BytesIO(data), max_pixels)
    with image:
        mode, fmt, size = image.mode, image.format or "", image.size
        if fmt == "PNG" and (problem := _png_crc_problem(data)) is not None:
            raise PhotoError(problem)
        try:
            _decode_rgb(image, draft_side=1)
        except Exception as exc:  # truncated or corrupt data: OSError, SyntaxError, ValueError…
            raise PhotoError(f"cannot decode ({type(exc).__name__}: {exc})") from exc
        width, height = _rotated_size(image, size)
        if min(width, height) < min_side:
            raise PhotoError(
                f"too small to show: {width}x{height} pixels, under {min_side} px a side"
            )
    return PhotoInfo(width=width, height=height, mode=mode, format=fmt)


def _sixteen_bit_to_l(image: Image.Image) -> Image.Image:
    """Scale a 16-bit or 32-bit integer grey image to 8-bit ``L`` (0..65535 -> 0..255, rounded).

    Pillow's ``convert("L")`` clips such images at 255 (turning most pixels white); here values
    are divided by 257 (65535 / 255) instead. 32-bit ``I`` images whose values fit in 0..255
    are kept as they are.
    """
    array = np.asarray(image).astype(np.float64)
    if image.mode == "F":
        scale = 255.0 if array.size and array.max() <= 1.0 else 1.0
        array = array * scale
    elif image.mode.startswith("I;16") or (array.size and array.max() > 255):
        array = array / 257.0
    return Image.fromarray(np.clip(np.rint(array), 0, 255).astype(np.uint8), mode="L")


def _to_rgb(image: Image.Image) -> Image.Image:
    """Convert a loaded first frame of any mode to 8-bit RGB; transparency is composited on white."""
    mode = image.mode
    if mode in ("I", "I;16", "I;16L", "I;16B", "I;16N", "F"):
        return _sixteen_bit_to_l(image).convert("RGB")
    has_alpha = mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        mode in ("P", "L", "RGB") and "transparency" in image.info
    )
    if has_alpha:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    if mode == "RGB":
        return image
    return image.convert("RGB")  # CMYK (Adobe inversion handled by Pillow), P, L, 1, YCbCr, LAB


def _apply_icc(image: Image.Image) -> Image.Image:
    """Convert an RGB or CMYK image with an embedded ICC profile to sRGB; unchanged on failure."""
    icc = image.info.get("icc_profile")
    if not icc or image.mode not in ("RGB", "CMYK"):
        return image
    try:
        from PIL import ImageCms

        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        target = ImageCms.createProfile("sRGB")
        converted = ImageCms.profileToProfile(image, source, target, outputMode="RGB")
    except Exception:  # a broken or unsupported profile: fall back to Pillow's conversion
        return image
    return converted if converted is not None else image


@contextlib.contextmanager
def _pillow_warnings() -> Iterator[None]:
    """Pillow's warnings while a photo is read: a decompression bomb is an error, and the
    ``UserWarning`` messages it gives about a file it still decodes ("Corrupt EXIF data",
    "Truncated File Read" ...) are silenced: they would reach the terminal as raw
    ``warnings.warn`` lines naming Pillow's source, not the photo, and change nothing (a
    broken EXIF block is ignored, as :func:`PIL.ImageOps.exif_transpose` does)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        yield


#: Modes whose pixels :meth:`PIL.Image.Image.reduce` averages correctly. Others (a palette
#: "P" or "PA", whose indices cannot be averaged; 1-bit; 16-bit "I;16", which Pillow cannot
#: reduce) are converted whole by :func:`_to_rgb` and shrunk after.
_REDUCIBLE_MODES = frozenset({"L", "LA", "RGB", "RGBA", "RGBa", "La", "I", "F", "CMYK", "YCbCr"})


def _shrink_early(image: Image.Image, max_side: int) -> Image.Image:
    """``image`` box-averaged by a whole factor so that its longer side stays at least
    ``2 * max_side`` pixels (the final Lanczos step then has enough detail), before any
    mode conversion: a 9000x9000 PNG shown at 900 px is converted at 1800 px, a 25th of
    the memory (a full-size RGB copy of an 89-megapixel photo is 268 MB, and conversions
    made several). Images of another mode, or small enough, come back unchanged."""
    factor = max(image.size) // (2 * max_side)
    if factor < 2 or image.mode not in _REDUCIBLE_MODES:
        return image
    try:
        return image.reduce(factor)
    except (ValueError, NotImplementedError):  # a mode this Pillow cannot reduce
        return image


def _decode_rgb(image: Image.Image, draft_side: int | None) -> Image.Image:
    """Decode an opened image's first frame to upright 8-bit RGB (JPEG drafted to >= draft_side;
    other formats shrunk by :func:`_shrink_early` before conversion when ``draft_side`` is
    given, so that memory follows the size asked for rather than the photo's).

    Raises whatever Pillow raises on corrupt data, and DecompressionBombWarning as an error.
    """
    with _pillow_warnings():
        if draft_side is not None and image.format in ("JPEG", "MPO"):
            image.draft(None, (draft_side, draft_side))
        image.load()  # the first frame of a GIF/WEBP animation
        upright = ImageOps.exif_transpose(image) or image
        upright.load()
        if draft_side is not None:
            upright = _shrink_early(upright, draft_side)
        return _to_rgb(_apply_icc(upright))


def open_rgb(
    card_or_path: Card | str | os.PathLike[str],
    max_side: int | None = None,
    *,
    max_pixels: int = MAX_PIXELS,
) -> Image.Image:
    """Decode a photo to an upright 8-bit RGB Pillow image.

    Handles every mode a photo folder really holds: CMYK (and embedded ICC profiles, converted
    to sRGB), 16-bit grey (scaled 0..65535 -> 0..255, not clipped), alpha and transparent
    palettes (composited on white), palette and 1-bit images, EXIF orientation
    (``ImageOps.exif_transpose``), the first frame of animated GIF/WEBP.

    Args:
        card_or_path: a :class:`Card` or a path to a photo file.
        max_side: if given, the image is shrunk (aspect kept, Lanczos) so that its longer side
            is at most this many pixels; JPEGs use draft mode to decode at a smaller scale.
        max_pixels: decompression-bomb limit in pixels (width x height).

    Returns:
        A loaded ``PIL.Image.Image`` in mode ``"RGB"``, size (width, height) in pixels after
        EXIF rotation (and after shrinking).

    Raises:
        PhotoError: the file cannot be decoded, is a decompression bomb, is not a regular file
            (pipe, device, folder) or is over :data:`MAX_FILE_BYTES`.
        FileNotFoundError: the path does not exist (other ``OSError``: it cannot be read).
    """
    path = Path(card_or_path.path if isinstance(card_or_path, Card) else card_or_path)
    try:
        data = read_photo_bytes(path)
    except PhotoError as exc:
        raise PhotoError(f"{path}: {exc}") from exc
    if not data:
        raise PhotoError(f"{path}: empty file (0 bytes)")
    try:
        image = _open_checked(io.BytesIO(data), max_pixels)
    except PhotoError as exc:
        raise PhotoError(f"{path}: {exc}") from exc
    try:
        rgb = _decode_rgb(image, draft_side=max_side)
    except Exception as exc:
        raise PhotoError(f"{path}: cannot decode ({type(exc).__name__}: {exc})") from exc
    if max_side is not None and max(rgb.size) > max_side:
        rgb = rgb.copy()
        rgb.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    if rgb is image:
        rgb = image.copy()
    image.close()
    return rgb


#: the type of :attr:`DecodedPhoto.card`: :class:`Card` when only cards were asked for
_CardOrPath = TypeVar("_CardOrPath", bound="Card | Path", covariant=True)


@dataclass(frozen=True)
class DecodedPhoto(Generic[_CardOrPath]):
    """One photo as :func:`decode_photos` gives it: the image, or why there is none.

    Attributes:
        card: the :class:`Card` (or path) asked for.
        image: upright 8-bit ``RGB`` image (see :func:`open_rgb`), or ``None``.
        reason: why ``image`` is ``None``, short and without the path (e.g. ``"cannot decode
            (OSError: broken data stream when reading image file)"``, ``"No such file or
            directory"``); ``None`` when the photo decoded.
    """

    card: _CardOrPath
    image: Image.Image | None
    reason: str | None = None

    @property
    def name(self) -> str:
        """The card's id (or the path) to name it in a message."""
        return self.card.id if isinstance(self.card, Card) else str(self.card)


def _short_reason(path: Path, exc: Exception) -> str:
    """The reason of an ``open_rgb`` failure without the path it starts with."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc).removeprefix(f"{path}: ")


@overload
def decode_photos(
    cards: Iterable[Card],
    max_side: int | None = None,
    *,
    on_skip: OnSkip | None = None,
    max_pixels: int = MAX_PIXELS,
) -> Iterator[DecodedPhoto[Card]]: ...


@overload
def decode_photos(
    cards: Iterable[Card | str | os.PathLike[str]],
    max_side: int | None = None,
    *,
    on_skip: OnSkip | None = None,
    max_pixels: int = MAX_PIXELS,
) -> Iterator[DecodedPhoto[Card | Path]]: ...


def decode_photos(
    cards: Iterable[Card | str | os.PathLike[str]],
    max_side: int | None = None,
    *,
    on_skip: OnSkip | None = None,
    max_pixels: int = MAX_PIXELS,
) -> Iterator[DecodedPhoto[Card | Path]]:
    """Decode photos one by one with :func:`open_rgb`, never stopping at one that fails.

    The one way to get the pixels of many cards (contact sheets, CLIP embeddings, any
    perception): a card validated when the deck was read can still fail later (the file was
    replaced, removed or damaged since), and that must cost that card, not the game.

    Args:
        cards: cards (or photo paths), in the order wanted.
        max_side: longest side of each image in pixels (see :func:`open_rgb`).
        on_skip: if given, a photo that cannot be decoded is passed to it as
            ``on_skip(card id or path, reason)`` and *not* yielded (use :func:`warn_skipped`
            for a :class:`DeckWarning`); if ``None``, it is yielded with ``image=None``.
        max_pixels: decompression-bomb limit (width x height, pixels).

    Yields:
        :class:`DecodedPhoto` per card, in order (with ``on_skip``: only those that decoded).
    """
    for card in cards:
        path = Path(card.path if isinstance(card, Card) else card)
        try:
            photo = DecodedPhoto(
                card if isinstance(card, Card) else path,
                open_rgb(card, max_side, max_pixels=max_pixels),
            )
        except (PhotoError, OSError) as exc:
            photo = DecodedPhoto(
                card if isinstance(card, Card) else path, None, _short_reason(path, exc)
            )
            if on_skip is not None:
                on_skip(photo.name, photo.reason or "")
                continue
        yield photo


# --------------------------------------------------------------------------- folder reading


def warn_skipped(relative: str, reason: str) -> None:
    """The default ``on_skip``: one :class:`DeckWarning` "<photo>: skipped, <reason>"."""
    warnings.warn(f"{printable(relative)}: skipped, {printable(reason)}", DeckWarning, stacklevel=3)


def _warn_problem(message: str) -> None:
    warnings.warn(printable(message), DeckWarning, stacklevel=3)


def _walk_files(root: Path, on_problem: OnProblem | None = None) -> list[str]:
    """Relative ``/``-separated paths of every non-hidden file under ``root`` (no symlinked dirs).

    A sub-folder that cannot be listed (permission denied) is reported through ``on_problem``
    (its photos are left out) instead of vanishing silently.
    """
    found: list[str] = []

    def unreadable(error: OSError) -> None:
        folder = Path(error.filename or "?")
        try:
            name = folder.relative_to(root).as_posix()
        except ValueError:
            name = str(folder)
        if on_problem is not None:
            on_problem(
                f"folder {name} cannot be read ({error.strerror or error}); its photos are "
                f"left out (make it readable, e.g. 'chmod -R u+rX')"
            )

    for directory, subdirs, files in os.walk(root, onerror=unreadable, followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in files:
            if name.startswith("."):
                continue
            rel = Path(directory, name).relative_to(root).as_posix()
            found.append(rel)
    return sorted(found)


@dataclass(frozen=True)
class _LabelRow:
    line: int
    label: str | None
    wnid: str | None
    extra: tuple[tuple[str, str], ...]


def _normalise_relative(raw: str) -> str | None:
    """A labels.csv ``file`` value as a clean relative posix path, or None if it escapes the deck."""
    text = raw.strip().replace("\\", "/")
    if not text or _DRIVE_RE.match(text):
        return None
    posix = PurePosixPath(text)
    if posix.is_absolute() or ".." in posix.parts:
        return None
    parts = [p for p in posix.parts if p not in (".", "")]
    return "/".join(parts) if parts else None


#: Largest labels.csv read, in bytes (64 MiB: about half a million rows).
MAX_LABELS_BYTES: int = 64 * 1024 * 1024

#: labels.csv and folder problems passed on to ``on_problem`` one by one; beyond these, one
#: line says how many more there are (a labels.csv of a whole dataset dropped into a folder
#: of a few of its photos named 200,000 missing files, one warning each, for a minute).
#: :attr:`Deck.problems` keeps them all.
MAX_PROBLEMS_SHOWN: int = 20

#: Longest label kept, in characters. A label is "a human word or phrase" shown as the card's
#: name and written into the game log's header and deal; ImageNet's longest class names are
#: under 100 characters. Without a bound, labels of 100,000 characters made a log whose
#: first lines are too long to replay (:data:`kiekai.events.MAX_LINE_BYTES`).
MAX_LABEL_CHARS: int = 200

#: ``known_wnid(wnid) -> bool``: whether a well-formed wnid names a WordNet 3.0 noun synset.
KnownWnid = Callable[[str], bool]


class WordNetNounIds:
    """A ``known_wnid`` check for :func:`load_deck` backed by WordNet 3.0.

    Calling it with a wnid (``"n01440764"``) says whether a WordNet 3.0 noun synset has that
    offset (:func:`kiekai.lexicon.synset_for_wnid`). WordNet is loaded on the first call (a
    few seconds; once per process). When WordNet cannot be loaded every id counts as known
    and :attr:`unavailable` holds the reason, so a deck still loads without it.

    Attributes:
        unavailable: why WordNet could not be loaded, or ``None``.
    """

    def __init__(self) -> None:
        self.unavailable: str | None = None
        self._known: dict[str, bool] = {}  # a labels.csv names the same wnid on many rows

    def __call__(self, wnid: str) -> bool:
        """Whether ``wnid`` is a WordNet 3.0 noun synset id (True when WordNet is unavailable)."""
        if self.unavailable is not None:
            return True
        if wnid in self._known:
            return self._known[wnid]
        from kiekai.lexicon import synset_for_wnid
        from kiekai.models import ModelUnavailable

        try:
            synset_for_wnid(wnid)
        except ValueError:
            self._known[wnid] = False
            return False
        except (ModelUnavailable, LookupError, OSError) as exc:
            self.unavailable = str(exc).split(". ", 1)[0]
            return True
        self._known[wnid] = True
        return True


def _csv_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """``(first line number, fields)`` of each CSV record of ``text`` (1-based lines).

    A quoted field may span lines, so a record's number is the line it starts on, counted
    from the lines the reader consumed before it. Blank lines give no record.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    consumed = 0
    for fields in reader:
        start = consumed + 1
        consumed = reader.line_num
        if fields:
            yield start, fields


def read_labels(
    path: Path, on_problem: OnProblem | None = None, *, known_wnid: KnownWnid | None = None
) -> dict[str, _LabelRow]:
    """Read a deck's labels.csv: ``file`` plus ``label`` and/or ``wnid`` columns.

    Args:
        path: the labels.csv file.
        on_problem: called with one message per ignored row or value; default: a
            :class:`DeckWarning`.
        known_wnid: if given, a well-formed wnid it rejects (``n99999999``: no WordNet 3.0
            noun has that offset) is reported and ignored (see :class:`WordNetNounIds`).

    Returns:
        Rows keyed by the normalised relative photo path (``/`` separators).

    Column names ``file``, ``label`` and ``wnid`` may be in any case. The file is UTF-8
    (a BOM is allowed) or UTF-16 with a BOM; the separator is a comma, or
    a semicolon or tab when the header line has no comma (spreadsheet exports). Problems name
    the line a row starts on (a quoted label may span lines). Reported, and the rest read: an
    empty file; a path that is not a regular file (a folder, a named pipe, a device: never
    read); a row whose file is empty, outside the deck or listed twice; a wnid that is not
    ``n`` + 8 digits or (with ``known_wnid``) names no synset; a row with neither a label
    nor a wnid.

    Raises:
        DeckError: unreadable, over :data:`MAX_LABELS_BYTES`, not UTF-8, not CSV, no
            ``file`` column, or neither ``label`` nor ``wnid``; the message names the file
            and the fix.
    """
    report = on_problem or _warn_problem
    try:
        raw = read_regular_bytes(path, MAX_LABELS_BYTES)
    except FileRefusedError as exc:
        if exc.reason.startswith("not a regular file"):
            report(
                f"{path.name} is {exc.reason.removeprefix('not a regular file (').rstrip(')')}, "
                f"not a file; no labels read (make it a CSV file or remove it: a deck needs no "
                f"labels.csv)"
            )
            return {}
        raise DeckError(f"{path}: {exc.reason}; a deck's labels.csv is far smaller") from None
    except FileNotFoundError:
        report(
            f"{path.name} is a symbolic link to nothing; no labels read (point it at a CSV "
            f"file or remove it)"
        )
        return {}
    except OSError as exc:
        raise DeckError(
            f"{path}: cannot be read ({exc.strerror or exc}); make it readable or remove it "
            f"(a deck needs no labels.csv)"
        ) from exc
    try:
        if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            text = raw.decode("utf-16")  # spreadsheets' "Unicode text" export
        else:
            text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeckError(
            f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); "
            f"save labels.csv as UTF-8 (e.g. 'iconv -f latin1 -t utf-8')"
        ) from exc
    if not text.strip():
        report(
            f"{path.name} is empty; no labels read (write a header such as 'file,label' and "
            f"one row per photo, or delete the file)"
        )
        return {}
    first_line = text.lstrip().splitlines()[0]
    delimiter = ","
    if "," not in first_line:  # spreadsheets in many locales save with ';' or tabs
        delimiter = next((d for d in (";", "\t") if d in first_line), ",")
    records = _csv_rows(text, delimiter)
    try:
        _, fields = next(records)
    except csv.Error as exc:
        raise DeckError(
            f"{path}: not valid CSV ({exc}); write it as comma-separated values"
        ) from exc
    header = [h.strip() for h in fields]
    # "File", "Label", "WNID" (spreadsheet habits) name the same columns
    header = [h.lower() if h.lower() in ("file", "label", "wnid") else h for h in header]
    if "file" not in header:
        raise DeckError(
            f"{path}: no 'file' column (header is {header!r}); the first line must name the "
            f"columns, e.g. 'file,label,wnid', and 'file' must give each photo's path relative "
            f"to the deck folder"
        )
    if "label" not in header and "wnid" not in header:
        raise DeckError(
            f"{path}: needs a 'label' and/or a 'wnid' column besides 'file' (header is {header!r})"
        )
    rows: dict[str, _LabelRow] = {}
    line_no = 1
    try:
        for line_no, fields in records:
            row = dict(zip(header, [*fields, *[""] * (len(header) - len(fields))], strict=False))
            raw_file = row.get("file", "").strip()
            relative = _normalise_relative(raw_file)
            if relative is None:
                report(
                    f"{path.name} line {line_no}: file {raw_file!r} is empty or outside the deck "
                    f"folder; give a path relative to the deck folder (row ignored)"
                )
                continue
            if relative in rows:
                report(
                    f"{path.name} line {line_no}: {relative!r} is listed again; keep one row "
                    f"per photo (the first row is used)"
                )
                continue
            # a spreadsheet cell may hold line breaks and tabs: one space between words
            label = " ".join(row.get("label", "").split()) or None
            wnid = row.get("wnid", "").strip() or None
            if label is not None and len(label) > MAX_LABEL_CHARS:
                report(
                    f"{path.name} line {line_no}: the label of {relative!r} is {len(label):,} "
                    f"characters long, over {MAX_LABEL_CHARS}; a label names what the photo "
                    f"shows in a few words (label ignored)"
                )
                label = None
            if label is None and wnid is None:
                report(
                    f"{path.name} line {line_no}: {relative!r} has neither a label nor a wnid; "
                    f"add one (e.g. '{relative},dog') or delete the row"
                )
            if wnid is not None and not _WNID_RE.match(wnid):
                report(
                    f"{path.name} line {line_no}: wnid {wnid!r} is not a WordNet noun id "
                    f"('n' + 8 digits, e.g. n01440764); wnid ignored"
                )
                wnid = None
            elif wnid is not None and known_wnid is not None and not known_wnid(wnid):
                report(
                    f"{path.name} line {line_no}: wnid {wnid!r} names no WordNet 3.0 noun "
                    f"synset (ImageNet wnids are WordNet 3.0 noun offsets, e.g. n01440764 = "
                    f"tench); wnid ignored"
                )
                wnid = None
            extra = tuple(
                (k, v.strip()) for k, v in row.items() if k not in ("file", "label", "wnid")
            )
            rows[relative] = _LabelRow(line=line_no, label=label, wnid=wnid, extra=extra)
    except csv.Error as exc:
        raise DeckError(f"{path}: not valid CSV after line {line_no} ({exc})") from exc
    return rows


def _photo_info_cached(data: bytes, digest: str, max_pixels: int, min_side: int) -> PhotoInfo:
    key = (digest, max_pixels, min_side)
    cached = _INFO_CACHE.get(key)
    if cached is None:
        try:
            cached = inspect_photo(data, max_pixels=max_pixels, min_side=min_side)
        except PhotoError as exc:
            cached = exc
        _INFO_CACHE[key] = cached
    if isinstance(cached, PhotoError):
        raise cached
    return cached


def read_card(
    path: Path,
    card_id: str,
    *,
    label: str | None = None,
    wnid: str | None = None,
    extra: tuple[tuple[str, str], ...] = (),
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
) -> Card:
    """Hash and validate one photo file and make it a :class:`Card`.

    The file is read once; its SHA-256 is the card's content hash and the key of an
    in-process cache of validation results, so a photo is decoded at most once a process.

    Args:
        path: the photo file.
        card_id: the card's id (a deck-relative path with ``/`` separators).
        label: human label, or ``None``.
        wnid: WordNet 3.0 noun id, or ``None``.
        extra: other label columns as ``(column, value)`` pairs.
        max_pixels: decompression-bomb limit in pixels (width x height).
        min_side: smallest usable side in pixels.

    Raises:
        PhotoError: the file cannot be read, is not a regular file (pipe, device), is over
            :data:`MAX_FILE_BYTES`, or is not a usable photo (see :func:`inspect_photo`).
    """
    try:
        data = read_photo_bytes(path)
    except OSError as exc:
        raise PhotoError(f"cannot read the file ({exc.strerror or exc})") from exc
    digest = hashlib.sha256(data).hexdigest()
    info = _photo_info_cached(data, digest, max_pixels, min_side)
    return Card(
        id=card_id,
        path=Path(path),
        sha256=digest,
        label=label,
        wnid=wnid,
        width=info.width,
        height=info.height,
        mode=info.mode,
        format=info.format,
        extra=extra,
    )


def load_deck(
    path: str | os.PathLike[str],
    *,
    on_skip: OnSkip | None = None,
    on_problem: OnProblem | None = None,
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
    known_wnid: KnownWnid | None = None,
) -> Deck:
    """Read a photo folder (recursively) and its optional labels.csv into a :class:`Deck`.

    Photos are files ending in .jpg, .jpeg, .png, .webp or .gif (any case); each is hashed
    (SHA-256 of its bytes) and validated by decoding it once (validation results are cached
    by hash within the process). Hidden files and folders (``.name``) are not read.

    Args:
        path: the deck folder.
        on_skip: called as ``on_skip(relative_path, reason)`` once per skipped photo;
            default: one :class:`DeckWarning` per skipped photo.
        on_problem: called with one message per labels.csv problem (row naming a missing
            photo, malformed wnid, duplicate row, empty file) and per sub-folder that cannot
            be listed, for the first :data:`MAX_PROBLEMS_SHOWN`, then once with how many more
            there are (:attr:`Deck.problems` has them all); default: a :class:`DeckWarning`.
        max_pixels: decompression-bomb limit (width x height, pixels); larger photos are skipped.
        min_side: photos with a side under this many pixels (after EXIF rotation) are skipped.
        known_wnid: checks each well-formed wnid of labels.csv (e.g. :class:`WordNetNounIds`);
            one it rejects is reported and ignored. ``None``: wnids are checked for their
            form only (no WordNet needed).

    Returns:
        The deck, cards sorted by id.

    Raises:
        DeckError: the path is missing or not a folder, the folder has no photo files at
            all, or labels.csv is unreadable (see :func:`read_labels`).
    """
    root = Path(path).expanduser()
    if not root.exists():
        if root.is_symlink():
            raise DeckError(
                f"deck folder {root} is a symbolic link that leads to no folder (its target is "
                f"missing, or links loop); point it at a folder of photos or give that folder"
            )
        raise DeckError(f"deck folder {root} does not exist; give the path of a folder of photos")
    if not root.is_dir():
        raise DeckError(
            f"{root} is a file, not a folder; give the folder that holds the photos "
            f"(and optionally labels.csv)"
        )
    root = root.resolve()
    skip = on_skip or warn_skipped
    problems: list[str] = []
    report = on_problem or _warn_problem

    def problem(message: str) -> None:
        problems.append(message)
        if len(problems) <= MAX_PROBLEMS_SHOWN:
            report(message)

    try:
        return _read_deck(root, skip, problem, labels_path=root / LABELS_FILE, problems=problems,
                          max_pixels=max_pixels, min_side=min_side, known_wnid=known_wnid)  # fmt: skip
    finally:
        if len(problems) > MAX_PROBLEMS_SHOWN:
            report(
                f"... and {len(problems) - MAX_PROBLEMS_SHOWN:,} more problems like these, "
                f"{len(problems):,} in all (the first {MAX_PROBLEMS_SHOWN} are shown; a "
                f"labels.csv copied from a larger deck names many missing files: keep the rows "
                f"of this folder's photos)"
            )


def _read_deck(
    root: Path,
    skip: OnSkip,
    problem: OnProblem,
    *,
    labels_path: Path,
    problems: list[str],
    max_pixels: int,
    min_side: int,
    known_wnid: KnownWnid | None,
) -> Deck:
    """The body of :func:`load_deck` once ``root`` is a folder (arguments as there)."""
    has_labels = os.path.lexists(labels_path)
    labels = read_labels(labels_path, problem, known_wnid=known_wnid) if has_labels else {}

    files = _walk_files(root, problem)
    photos = [f for f in files if PurePosixPath(f).suffix.lower() in PHOTO_SUFFIXES]
    photo_set = set(photos)
    ignored = [f for f in files if f not in photo_set and f != LABELS_FILE]
    if not photos:
        raise DeckError(
            f"deck folder {root} has no photos (.jpg, .jpeg, .png, .webp or .gif, searched in "
            f"sub-folders too); put photos in it or give another folder"
        )

    cards: list[Card] = []
    skipped: list[tuple[str, str]] = []
    for relative in photos:
        row = labels.get(relative)
        try:
            card = read_card(
                root / relative,
                relative,
                label=row.label if row else None,
                wnid=row.wnid if row else None,
                extra=row.extra if row else (),
                max_pixels=max_pixels,
                min_side=min_side,
            )
        except PhotoError as exc:
            skipped.append((relative, str(exc)))
            skip(relative, str(exc))
            continue
        cards.append(card)

    by_folded = {f.casefold(): f for f in photos}
    for relative, row in labels.items():
        if relative not in photo_set:
            near = by_folded.get(relative.casefold())
            hint = f" ({near!r} exists (names are case-sensitive))" if near else ""
            problem(
                f"{LABELS_FILE} line {row.line}: file {relative!r} is not a photo in {root}"
                f"{hint}; fix the path (relative to the deck folder) or delete the row"
            )
    return Deck(root=root, cards=cards, skipped=skipped, ignored=ignored, problems=problems)
