"""The deck model: :class:`Card`, :class:`Deck`, the errors and warnings of reading one, and
the default reporters of skipped photos and labels.csv problems.

A *deck* is a folder of photographs (searched recursively) that become the cards of a game
of Kiek; :func:`kiekai.deck.load_deck` reads one (:mod:`kiekai.deck.folder`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kiekai.display import printable


class DeckError(Exception):
    """A deck folder or its labels.csv cannot be used; the message names the path and the fix."""


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


def warn_skipped(relative: str, reason: str) -> None:
    """The default ``on_skip``: one :class:`DeckWarning` "<photo>: skipped, <reason>"."""
    warnings.warn(f"{printable(relative)}: skipped, {printable(reason)}", DeckWarning, stacklevel=3)


def warn_problem(message: str) -> None:
    """The default ``on_problem``: one :class:`DeckWarning` with ``message`` (escaped)."""
    warnings.warn(printable(message), DeckWarning, stacklevel=3)
