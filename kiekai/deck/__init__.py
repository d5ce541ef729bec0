"""Decks of photo cards: safe reading of a photo folder, labels.csv and content hashes.

A *deck* is a folder of photographs (searched recursively) that become the cards of a game
of Kiek. The rulebook ("Preparations") deals four cards to each player and places three
face up, so a deck must hold at least ``4 * players + 3`` usable photos
(:func:`check_deck_size`).

Reading is defensive: every file that cannot become a card is *skipped* with one reason
(never a crash); every odd-but-valid file is decoded to correct 8-bit sRGB by
:func:`open_rgb`, the one function the rest of the package uses to get pixels.

The package holds one job a module, and this module re-exports the public names:

* :mod:`kiekai.deck.model`: :class:`Card`, :class:`Deck`, the errors and warnings, the
  default reporters (:func:`warn_skipped`);
* :mod:`kiekai.deck.size`: the deal rule check (:func:`check_deck_size`);
* :mod:`kiekai.deck.decode`: photo files to validated cards and pixels (:func:`read_card`,
  :func:`open_rgb`, :func:`decode_photos`);
* :mod:`kiekai.deck.labels`: labels.csv (:func:`read_labels`);
* :mod:`kiekai.deck.wnids`: the WordNet 3.0 noun-id check (:class:`WordNetNounIds`);
* :mod:`kiekai.deck.folder`: a folder to a :class:`Deck` (:func:`load_deck`).
"""

from __future__ import annotations

from kiekai.deck.decode import (
    MAX_FILE_BYTES,
    MAX_PIXELS,
    MIN_SIDE,
    PHOTO_FORMATS,
    DecodedPhoto,
    PhotoInfo,
    decode_photos,
    inspect_header,
    inspect_photo,
    open_rgb,
    read_card,
    read_photo_bytes,
)
from kiekai.deck.folder import MAX_PROBLEMS_SHOWN, PHOTO_SUFFIXES, load_deck
from kiekai.deck.labels import (
    LABELS_FILE,
    MAX_LABEL_CHARS,
    MAX_LABELS_BYTES,
    KnownWnid,
    read_labels,
)
from kiekai.deck.model import (
    Card,
    Deck,
    DeckError,
    DeckWarning,
    OnProblem,
    OnSkip,
    PhotoError,
    warn_problem,
    warn_skipped,
)
from kiekai.deck.size import DeckTooSmallError, cards_needed, check_deck_size
from kiekai.deck.wnids import WordNetNounIds

__all__ = [
    "LABELS_FILE",
    "MAX_FILE_BYTES",
    "MAX_LABELS_BYTES",
    "MAX_LABEL_CHARS",
    "MAX_PIXELS",
    "MAX_PROBLEMS_SHOWN",
    "MIN_SIDE",
    "PHOTO_FORMATS",
    "PHOTO_SUFFIXES",
    "Card",
    "DecodedPhoto",
    "Deck",
    "DeckError",
    "DeckTooSmallError",
    "DeckWarning",
    "KnownWnid",
    "OnProblem",
    "OnSkip",
    "PhotoError",
    "PhotoInfo",
    "WordNetNounIds",
    "cards_needed",
    "check_deck_size",
    "decode_photos",
    "inspect_header",
    "inspect_photo",
    "load_deck",
    "open_rgb",
    "read_card",
    "read_labels",
    "read_photo_bytes",
    "warn_problem",
    "warn_skipped",
]
