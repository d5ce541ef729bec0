"""Photo files to pixels: safe reading, validation by one whole decode, and 8-bit sRGB.

A photo folder really contains truncated files, zero-byte files, text named ``.jpg``, CMYK
and 16-bit images, alpha channels, EXIF-rotated phone photos, animated GIFs, thumbnails and
decompression bombs. :func:`read_card` validates one file (a file that cannot become a card
raises :class:`~kiekai.deck.model.PhotoError` with one reason, never another exception);
every odd-but-valid file is decoded to correct 8-bit sRGB by :func:`open_rgb`, the one
function the rest of the package uses to get pixels (:func:`decode_photos` for many cards).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import os
import re
import struct
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar, overload

import numpy as np
from PIL import Image, ImageOps

from kiekai.deck.model import Card, OnSkip, PhotoError
from kiekai.display import printable
from kiekai.files import FileRefusedError, read_regular_bytes

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


# Validation results keyed by (sha256, max_pixels, min_side, decoded): a photo is decoded
# once a process (a header-only check is kept apart: it does not vouch for the pixels).
_INFO_CACHE: dict[tuple[str, int, int, bool], PhotoInfo | PhotoError] = {}

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


def inspect_header(
    data: bytes, *, max_pixels: int = MAX_PIXELS, min_side: int = MIN_SIDE
) -> PhotoInfo:
    """Validate one photo's bytes from its header only, without decoding its pixels.

    The checks of :func:`inspect_photo` that need no decode: not empty, an image Pillow
    identifies, a photo format, no decompression bomb, no side under ``min_side``, and for
    a PNG, every critical chunk's CRC (:func:`_png_crc_problem`, a checksum of the bytes,
    about a millisecond a megabyte). Pillow's ``Image.open`` reads the header alone and
    decodes nothing; this takes about 0.3 ms a photo against 5-25 ms for
    :func:`inspect_photo`'s decode (docs/benchmarks.md). A photo whose pixel data is
    truncated or broken passes here and fails when it is first decoded: the game perceives
    the cards it deals before the first prompt and deals another photo from the pile in
    place of one that fails (:func:`kiekai.perception.load_perception`, ``deal``).

    The size is turned by the EXIF orientation where the header holds it (JPEG, WEBP, a
    PNG whose eXIf chunk comes before its pixels); a PNG's later eXIf chunk is not looked
    for (Pillow would decode the image to find it), so its size is the header's.

    Args:
        data: the file's bytes.
        max_pixels: decompression-bomb limit in pixels (width x height).
        min_side: smallest usable side in pixels (the same after any rotation).

    Returns:
        The photo's :class:`PhotoInfo`.

    Raises:
        PhotoError: empty, not an image, not a photo format, a decompression bomb, a PNG
            chunk that fails its CRC, or smaller than ``min_side`` pixels a side.
    """
    if not data:
        raise PhotoError("empty file (0 bytes)")
    image = _open_checked(io.BytesIO(data), max_pixels)
    with image:
        mode, fmt, size = image.mode, image.format or "", image.size
        if fmt == "PNG" and (problem := _png_crc_problem(data)) is not None:
            raise PhotoError(problem)
        if min(size) < min_side:
            raise PhotoError(
                f"too small to show: {size[0]}x{size[1]} pixels, under {min_side} px a side"
            )
        if fmt == "PNG" and "exif" not in image.info:
            width, height = size
        else:
            width, height = _rotated_size(image, size)
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
    workers: int = 1,
) -> Iterator[DecodedPhoto[Card]]: ...


@overload
def decode_photos(
    cards: Iterable[Card | str | os.PathLike[str]],
    max_side: int | None = None,
    *,
    on_skip: OnSkip | None = None,
    max_pixels: int = MAX_PIXELS,
    workers: int = 1,
) -> Iterator[DecodedPhoto[Card | Path]]: ...


def decode_photos(
    cards: Iterable[Card | str | os.PathLike[str]],
    max_side: int | None = None,
    *,
    on_skip: OnSkip | None = None,
    max_pixels: int = MAX_PIXELS,
    workers: int = 1,
) -> Iterator[DecodedPhoto[Card | Path]]:
    """Decode photos with :func:`open_rgb`, in order, never stopping at one that fails.

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
        workers: photos decoded at once in a thread pool (Pillow's decoders release the
            GIL), up to ``2 * workers`` ahead of the one yielded, so that a caller's model
            forward on one batch overlaps the decoding of the next; 1 decodes each photo
            when it is asked for. The photos and their order are the same either way.

    Yields:
        :class:`DecodedPhoto` per card, in order (with ``on_skip``: only those that decoded).
    """

    def one(card: Card | str | os.PathLike[str]) -> DecodedPhoto[Card | Path]:
        path = Path(card.path if isinstance(card, Card) else card)
        named = card if isinstance(card, Card) else path
        try:
            return DecodedPhoto(named, open_rgb(card, max_side, max_pixels=max_pixels))
        except (PhotoError, OSError) as exc:
            return DecodedPhoto(named, None, _short_reason(path, exc))

    photos = map(one, cards) if workers <= 1 else _prefetched(one, cards, workers)
    for photo in photos:
        if photo.image is None and on_skip is not None:
            on_skip(photo.name, photo.reason or "")
            continue
        yield photo


_In = TypeVar("_In")
_Out = TypeVar("_Out")


def _prefetched(
    function: Callable[[_In], _Out], items: Iterable[_In], workers: int
) -> Iterator[_Out]:
    """``map(function, items)`` computed in a pool of ``workers`` threads, at most
    ``2 * workers`` results ahead of the one yielded, in order."""
    from concurrent.futures import Future, ThreadPoolExecutor

    ahead = 2 * workers
    source = iter(items)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kiekai-decode") as pool:
        queue: collections.deque[Future[_Out]] = collections.deque()
        for item in source:
            queue.append(pool.submit(function, item))
            if len(queue) >= ahead:
                break
        while queue:
            result = queue.popleft().result()
            for item in source:
                queue.append(pool.submit(function, item))
                break
            yield result


def _photo_info_cached(
    data: bytes, digest: str, max_pixels: int, min_side: int, decode: bool = True
) -> PhotoInfo:
    key = (digest, max_pixels, min_side, decode)
    cached = _INFO_CACHE.get(key)
    if cached is None and not decode:  # a photo that decoded whole has a good header too
        decoded = _INFO_CACHE.get((digest, max_pixels, min_side, True))
        cached = decoded if isinstance(decoded, PhotoInfo) else None
    if cached is None:
        inspect = inspect_photo if decode else inspect_header
        try:
            cached = inspect(data, max_pixels=max_pixels, min_side=min_side)
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
    decode: bool = True,
) -> Card:
    """Hash and validate one photo file and make it a :class:`Card`.

    The file is read once; its SHA-256 is the card's content hash and the key of an
    in-process cache of validation results, so a photo is decoded at most once a process.
    With ``decode=False`` only its header is checked (:func:`inspect_header`): the photo
    may still fail when its pixels are first decoded.

    Args:
        path: the photo file.
        card_id: the card's id (a deck-relative path with ``/`` separators).
        label: human label, or ``None``.
        wnid: WordNet 3.0 noun id, or ``None``.
        extra: other label columns as ``(column, value)`` pairs.
        max_pixels: decompression-bomb limit in pixels (width x height).
        min_side: smallest usable side in pixels.
        decode: validate by one whole decode (:func:`inspect_photo`); ``False``: by the
            header alone (:func:`inspect_header`).

    Raises:
        PhotoError: the file cannot be read, is not a regular file (pipe, device), is over
            :data:`MAX_FILE_BYTES`, or is not a usable photo (see :func:`inspect_photo`,
            or :func:`inspect_header` without ``decode``).
    """
    try:
        data = read_photo_bytes(path)
    except OSError as exc:
        raise PhotoError(f"cannot read the file ({exc.strerror or exc})") from exc
    digest = hashlib.sha256(data).hexdigest()
    info = _photo_info_cached(data, digest, max_pixels, min_side, decode)
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
