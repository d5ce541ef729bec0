"""The embedded default deck: real photographs that ship inside installed dependencies.

No download and no photo files of our own: the cards are sample photographs bundled in the
wheels of scikit-image (``skimage/data``), scikit-learn (``sklearn/datasets/images``) and
Matplotlib (``mpl-data/sample_data``). ``data/default-deck.csv`` lists each one with its
package, resource path inside the package, a human label, a WordNet 3.0 noun id (wnid), its
licence and its source; ``docs/decks.md`` shows the list.

The deck has 20 photos, enough for 4 players (4 cards a player + 3 face up = 19; rulebook,
"Preparations"). Every card has a label and a wnid, so the labels perception can play with it.
"""

from __future__ import annotations

import csv
import importlib.util
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kiekai import paths
from kiekai.deck import Card, Deck, DeckError, DeckWarning, PhotoError, read_card

#: Where the listing lives: the repository's ``data/default-deck.csv`` in a checkout, else the
#: copy the wheel ships in ``kiekai/_data`` (see :mod:`kiekai.paths`).
LISTING_PATH = paths.data_file("default-deck.csv")

#: Columns of data/default-deck.csv.
COLUMNS = ("package", "resource", "label", "wnid", "licence", "source")


@dataclass(frozen=True)
class DefaultPhoto:
    """One row of data/default-deck.csv.

    Attributes:
        package: the importable package that ships the photo (``"skimage"``).
        resource: the photo's path inside the package folder (``"data/chelsea.png"``).
        label: what the photo shows, in everyday words (``"cat"``).
        wnid: WordNet 3.0 noun synset id of what it shows (``"n02121808"`` = domestic_cat.n.01).
        licence: the photo's licence as its package documents it.
        source: where the package got it (photographer, archive, URL).
    """

    package: str
    resource: str
    label: str
    wnid: str
    licence: str
    source: str

    @property
    def card_id(self) -> str:
        """``default/<package>/<file stem>``, e.g. ``default/skimage/chelsea``."""
        return f"default/{self.package}/{Path(self.resource).stem}"


def listing_path() -> Path:
    """Path of default-deck.csv.

    Raises:
        DeckError: the listing is missing (a broken checkout or install; the message names
            the file and the fix).
    """
    if LISTING_PATH.is_file():
        return LISTING_PATH
    raise DeckError(paths.missing_file_message(LISTING_PATH, "default deck listing"))


def default_photos() -> list[DefaultPhoto]:
    """Read data/default-deck.csv (UTF-8) into :class:`DefaultPhoto` rows, in file order.

    Raises:
        DeckError: the listing is missing or lacks one of :data:`COLUMNS`.
    """
    path = listing_path()
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise DeckError(f"{path}: missing columns {missing}; expected {list(COLUMNS)}")
        return [DefaultPhoto(**{c: (row[c] or "").strip() for c in COLUMNS}) for row in reader]


def _package_dir(package: str) -> Path | None:
    """The folder of an installed package, found without importing it (None if not installed)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def resource_path(photo: DefaultPhoto) -> Path:
    """Absolute path of a default photo inside its installed package.

    Raises:
        PhotoError: the package is not installed or no longer ships the file.
    """
    folder = _package_dir(photo.package)
    if folder is None:
        raise PhotoError(f"package {photo.package!r} is not installed (pip install it)")
    path = folder / photo.resource
    if not path.is_file():
        raise PhotoError(f"{photo.package} no longer ships {photo.resource}")
    return path


def _warn_skip(card_id: str, reason: str) -> None:
    warnings.warn(f"{card_id}: skipped, {reason}", DeckWarning, stacklevel=3)


def default_deck(on_skip: Callable[[str, str], None] | None = None, *, decode: bool = True) -> Deck:
    """The embedded default deck of real photographs, cards sorted by id.

    Card ids are ``default/<package>/<name>`` (not paths under ``Deck.root``, which is the
    folder of default-deck.csv); ``Card.path`` is the file inside the installed package.
    Each card has ``label`` and ``wnid`` from the listing and ``extra`` holding
    ``("licence", …)`` and ``("source", …)``.

    Args:
        on_skip: called as ``on_skip(card_id, reason)`` for a photo that is missing from its
            package or cannot be decoded; default: one :class:`DeckWarning` each.
        decode: validate each photo by one whole decode; ``False``: by its header alone
            (see :func:`kiekai.deck.load_deck`; ``kiekai play`` does this).

    Returns:
        A fresh :class:`Deck` (the cards are cached; the list is a copy).

    Raises:
        DeckError: the listing is missing or malformed, or no photo at all is available.
    """
    cards, skipped = _load_default(decode)
    for card_id, reason in skipped:
        (on_skip or _warn_skip)(card_id, reason)
    if not cards:
        raise DeckError(
            "no default photo is available (scikit-image, scikit-learn and matplotlib ship "
            "them); install them or give a deck folder"
        )
    return Deck(root=listing_path().parent, cards=list(cards), skipped=list(skipped))


@lru_cache(maxsize=2)
def _load_default(decode: bool = True) -> tuple[tuple[Card, ...], tuple[tuple[str, str], ...]]:
    cards: list[Card] = []
    skipped: list[tuple[str, str]] = []
    for photo in default_photos():
        try:
            card = read_card(
                resource_path(photo),
                photo.card_id,
                label=photo.label or None,
                wnid=photo.wnid or None,
                extra=(("licence", photo.licence), ("source", photo.source)),
                decode=decode,
            )
        except PhotoError as exc:
            skipped.append((photo.card_id, str(exc)))
            continue
        cards.append(card)
    cards.sort(key=lambda c: c.id)
    return tuple(cards), tuple(skipped)
