"""The photos of a web table: encoded once at the deal, for everyone, before anyone asks.

Issue 21: a photo cache filled on demand and shared by every seat answered a photo someone
had already seen in 2-7 ms and any other in 91-177 ms, so timing requests for every photo of
the deck told a player the other people's hands. :class:`DealtPhotos` closes that channel
by construction: every card the game can ever show (the deal: every hand and the three on
the table; the cards set aside are never used, and a redeal only deals discarded cards,
which were on the table) is decoded and encoded when the game deals, before the first
question, and each request only reads bytes already in memory. No request decodes
anything, so no answer depends on which photos another seat asked for earlier.

Which photos a seat may fetch at all is the table's decision
(:meth:`kiekai.web.table.WebTable.may_see`): its own hand, the cards on the table, and
every card that has been face up.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from kiekai.deck import Card

log = logging.getLogger(__name__)

#: Longer side of the photos sent to browsers, in pixels.
PHOTO_SIDE = 900
#: Photos decoded at the same time. Decoding holds the whole photo in memory (an
#: 89-megapixel PNG, the largest a deck accepts, is hundreds of MB while it is shrunk), so
#: a table of ten players must not decode forty photos at once.
PHOTO_DECODES = 2
#: JPEG quality of the photos sent to browsers.
JPEG_QUALITY = 86

#: A function from a card to its JPEG bytes, or ``None`` when it cannot be decoded.
Encoder = Callable[[Card], "bytes | None"]


def encode_photo(card: Card) -> bytes | None:
    """The card's photo as a JPEG of at most :data:`PHOTO_SIDE` pixels
    (:func:`kiekai.deck.open_rgb`, looked up at call time), or ``None`` for any failure (a
    photo that cannot be shown is a 404, not a 500; the page shows the card's name in its
    place). A failure is logged as one warning naming the card and the reason;
    :meth:`DealtPhotos.prepare` encodes each card once, so it is said once."""
    from kiekai import deck
    from kiekai.display import printable

    try:
        image = deck.open_rgb(card, max_side=PHOTO_SIDE)
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=JPEG_QUALITY)
        return buffer.getvalue()
    except Exception as exc:
        log.warning(
            "photo %s cannot be shown (%s); its seats get a 404 and see the card's name",
            printable(card.id),
            printable(str(exc) or type(exc).__name__),
        )
        return None


class DealtPhotos:
    """The JPEGs of the dealt cards, by content hash, made by :meth:`prepare` at the deal.

    Args:
        encode: card -> JPEG bytes or ``None`` (default :func:`encode_photo`).
        workers: photos decoded at once (default :data:`PHOTO_DECODES`).

    :meth:`jpeg` never encodes: it waits until :meth:`prepare` has finished (the same wait
    for every seat and every photo), then reads the dictionary. Thread-safe.
    """

    def __init__(self, encode: Encoder | None = None, workers: int = PHOTO_DECODES) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._encode = encode or encode_photo
        self._workers = workers
        self._jpegs: dict[str, bytes | None] = {}
        self._ready = threading.Event()
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        """Whether the deal's photos are encoded."""
        return self._ready.is_set()

    def prepare(self, cards: Iterable[Card]) -> None:
        """Encode every card of ``cards`` once (at most ``workers`` at a time), then open
        :meth:`jpeg`. Called by the game thread when the game deals; a second call encodes
        only cards not encoded yet (a card the first deal did not name)."""
        todo: dict[str, Card] = {}
        with self._lock:
            for card in cards:
                if card.sha256 not in self._jpegs:
                    todo.setdefault(card.sha256, card)
        if todo:
            with ThreadPoolExecutor(self._workers, thread_name_prefix="kiek-photo") as pool:
                encoded = dict(zip(todo, pool.map(self._encode, todo.values()), strict=True))
            with self._lock:
                self._jpegs.update(encoded)
        self._ready.set()

    def has(self, sha256: str) -> bool:
        """Whether the card with this content hash was encoded (dealt)."""
        with self._lock:
            return sha256 in self._jpegs

    def jpeg(self, sha256: str, timeout: float = 60.0) -> bytes | None:
        """The JPEG of the dealt card with this content hash, or ``None`` when it was not
        dealt, could not be decoded, or the deal's photos are not ready within ``timeout``
        seconds. Reads memory only."""
        if not self._ready.wait(timeout):
            return None
        with self._lock:
            return self._jpegs.get(sha256)
