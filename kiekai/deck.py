"""Decks of photo cards: safe reading of a photo folder, labels.csv and content hashes.

(The card record below is the interface the rest of the package uses; the folder reader
is filled in by the deck module's owner.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
    """

    id: str
    path: Path
    sha256: str
    label: str | None = None
    wnid: str | None = None
    width: int = 0
    height: int = 0
