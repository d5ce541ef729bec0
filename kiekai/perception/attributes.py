"""What a person sees in a photo of a kind of thing: settings, materials and qualities per class.

WordNet says what a thing *is* (a bighorn is a mammal), not what a person at the table sees
in a photo of it (outdoors, nature, wild, brown). ``data/class-attributes.tsv`` holds, for each
of the 1,000 ImageNet-1k classes, what most people would say of a typical photo of that class
(written from general knowledge by annotators who saw only the class names and definitions,
no photo and no people round; how it was made is in the file's header): the setting, water,
nature, alive, wild, pet, food, materials (metal, wooden, plastic, glass), soft, furry, wings,
wheels, round, size, a colour when nearly every photo of it is that colour, old, dangerous,
people, colourful. Each value is ``y``, ``n`` or ``?`` (varies from photo to photo).

:class:`AttributePerception` scores the words of :data:`WORD_COLUMNS` from a card's class
distribution ``p`` (float (N, 1000) over :attr:`ClassAttributes.wnids`): the labels' one class
(one-hot) or the classifier's softmax. A word's score is ``sum_c p_c v_c`` with ``v = YES``
(0.9) for ``y``, ``NO`` (0.1) for ``n`` and 0.5 for ``?``; so a labelled photo of a class
marked ``?`` stays undecided (0.5). Colour words take the class's colour where the table names
one, weighed equally with the pixels' colour (:data:`COLOUR_TABLE_WEIGHT`), and the pixels'
colour alone for the rest of the probability mass: a goldfinch reads yellow even where the
pixels see shaded brown; a pickup truck's colour is read from the pixels.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from kiekai import paths
from kiekai.perception.base import Perception

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

    from kiekai.deck import Card

#: The table shipped with kiekai (``data/class-attributes.tsv`` in a checkout, the wheel's copy
#: otherwise: :func:`kiekai.paths.data_file`).
ATTRIBUTES_FILE = paths.data_file("class-attributes.tsv")
#: Score of a word whose column says ``y`` (and ``n``): a person would say so of most photos
#: of the class, not all.
YES = 0.9
NO = 0.1
#: Weight of a class's typical colour against the pixels' colour for the part of the class
#: distribution whose class has one (the rest is the pixels' alone): the photo at hand may
#: show a black tench, and a shaded yellow reads brown in the pixels.
COLOUR_TABLE_WEIGHT = 0.5
#: Where a class has no typical colour, the pixels' colour score ``s`` counts as
#: ``0.5 + PIXEL_COLOUR_SHRINK * (s - 0.5)`` (at most 0.8): blind raters found 0 of 7 brown and
#: black words the bots wrote from the pixels true, so pixels alone never make a colour
#: certain enough for the active bot (its colour margin needs 0.85), while guessers still
#: see which colour is likelier.
PIXEL_COLOUR_SHRINK = 0.6
#: The 11 basic colour terms (Berlin & Kay 1969), as the table's ``colour`` column names them.
BASIC_COLOURS: tuple[str, ...] = (
    "black",
    "white",
    "red",
    "green",
    "yellow",
    "blue",
    "brown",
    "orange",
    "pink",
    "purple",
    "grey",
)
#: ``word -> (column, value meaning yes)``: the yes/no columns and the words they score;
#: ``indoors``/``outdoors`` read the ``setting`` column, ``small``/``big`` the ``size`` column.
WORD_COLUMNS: dict[str, tuple[str, str]] = {
    "indoors": ("setting", "indoors"),
    "outdoors": ("setting", "outdoors"),
    "water": ("water", "y"),
    "nature": ("nature", "y"),
    "wild": ("wild", "y"),
    "pet": ("pet", "y"),
    "metal": ("metal", "y"),
    "wooden": ("wooden", "y"),
    "plastic": ("plastic", "y"),
    "glass": ("glass", "y"),
    "soft": ("soft", "y"),
    "furry": ("furry", "y"),
    "wings": ("wings", "y"),
    "wheels": ("wheels", "y"),
    "round": ("round", "y"),
    "small": ("size", "small"),
    "big": ("size", "big"),
    "old": ("old", "y"),
    "dangerous": ("dangerous", "y"),
    "colourful": ("colourful", "y"),
    "colorful": ("colourful", "y"),
}
# (the singular nouns *fur*, *wing* and *wheel* stay with WordNet: a person writes *furry*,
# *wings*, *wheels* for three such photos, and a table-driven *wing* outranked *bird*)
COLUMNS: tuple[str, ...] = (
    "wnid",
    "setting",
    "water",
    "nature",
    "alive",
    "wild",
    "pet",
    "food",
    "metal",
    "wooden",
    "plastic",
    "glass",
    "soft",
    "furry",
    "wings",
    "wheels",
    "round",
    "size",
    "colour",
    "old",
    "dangerous",
    "people",
    "colourful",
)
_ALLOWED: dict[str, frozenset[str]] = {
    **{c: frozenset({"y", "n", "?"}) for c in COLUMNS[1:]},
    "setting": frozenset({"indoors", "outdoors", "?"}),
    "size": frozenset({"small", "medium", "big"}),
    "colour": frozenset({*BASIC_COLOURS, "?"}),
}


class AttributesError(ValueError):
    """The class-attributes table is missing or malformed (the message names file and line)."""


@dataclass(frozen=True)
class ClassAttributes:
    """The table, as arrays.

    Attributes:
        wnids: the C class ids (``n01440764``), in file order.
        values: float64 (C, K): for each word of :attr:`words`, its value per class (YES,
            NO or 0.5 for ``?``).
        words: the K words scored (:data:`WORD_COLUMNS` then :data:`BASIC_COLOURS`).
        colour_known: bool (C,): the class has one typical colour.
    """

    wnids: tuple[str, ...]
    values: np.ndarray
    words: tuple[str, ...]
    colour_known: np.ndarray

    @property
    def index(self) -> dict[str, int]:
        """``wnid -> row``."""
        return {w: i for i, w in enumerate(self.wnids)}


def _value(column: str, cell: str, yes: str) -> float:
    if cell == "?":
        return 0.5
    if column == "size" and cell == "medium":
        return NO
    return YES if cell == yes else NO


def load_attributes(path: Path | str = ATTRIBUTES_FILE) -> ClassAttributes:
    """Read the table (``#`` lines are comments; then a header of :data:`COLUMNS`).

    Raises:
        AttributesError: missing file, wrong header, a row with the wrong number of fields,
            a value outside the column's allowed ones, or a repeated wnid.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise AttributesError(f"cannot read the class-attributes table {path}: {exc}") from None
    lines = [
        (n, line)
        for n, line in enumerate(text.splitlines(), 1)
        if line and not line.startswith("#")
    ]
    if not lines or tuple(lines[0][1].split("\t")) != COLUMNS:
        raise AttributesError(f"{path}: the header must be the columns {', '.join(COLUMNS)}")
    words = tuple(WORD_COLUMNS) + BASIC_COLOURS
    wnids: list[str] = []
    rows: list[list[float]] = []
    colour_known: list[bool] = []
    seen: set[str] = set()
    for n, line in lines[1:]:
        cells = next(csv.reader([line], delimiter="\t"))
        if len(cells) != len(COLUMNS):
            raise AttributesError(f"{path} line {n}: {len(cells)} fields, expected {len(COLUMNS)}")
        row = dict(zip(COLUMNS, cells, strict=True))
        for column, allowed in _ALLOWED.items():
            if row[column] not in allowed:
                raise AttributesError(
                    f"{path} line {n}: {column} is {row[column]!r}; use one of {', '.join(sorted(allowed))}"
                )
        if row["wnid"] in seen:
            raise AttributesError(f"{path} line {n}: wnid {row['wnid']} is listed twice")
        seen.add(row["wnid"])
        wnids.append(row["wnid"])
        values = [_value(col, row[col], yes) for col, yes in WORD_COLUMNS.values()]
        colour = row["colour"]
        values += [0.5 if colour == "?" else (YES if colour == c else NO) for c in BASIC_COLOURS]
        rows.append(values)
        colour_known.append(colour != "?")
    return ClassAttributes(
        tuple(wnids),
        np.asarray(rows, dtype=np.float64).reshape(len(wnids), len(words)),
        words,
        np.asarray(colour_known, dtype=bool),
    )


#: ``cards -> float (N, C)``: each card's probability over the table's classes.
ClassDistribution = Callable[[Sequence["Card"]], np.ndarray]


class AttributePerception:
    """Scores the table's words from a class distribution (module docstring).

    Args:
        distribution: ``cards -> float (N, C)`` over ``attributes.wnids`` (rows sum to at most
            1; a card with no known class is a row of zeros and stays undecided).
        attributes: the table (default :func:`load_attributes`).
        colours: the perception colour words fall back to where a class has no typical
            colour (the pixels); ``None``: colour words are not this perception's.
        rest: the perception the other words fall back to for the part of a card's class
            distribution outside the table (a labelled photo of a class that is not one of
            ImageNet's, e.g. a moon or a printed page: WordNet's groundings through the labels);
            ``None``: that part is undecided (0.5).
        name: reported name.
    """

    def __init__(
        self,
        distribution: ClassDistribution,
        attributes: ClassAttributes | None = None,
        colours: Perception | None = None,
        rest: Perception | None = None,
        name: str = "attributes",
    ) -> None:
        self.distribution = distribution
        self.attributes = attributes if attributes is not None else load_attributes()
        self.colours = colours
        self.rest = rest
        self.name = name
        own = list(WORD_COLUMNS) + (list(BASIC_COLOURS) if colours is not None else [])
        self._column = {w: self.attributes.words.index(w) for w in own}

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): the words of :data:`WORD_COLUMNS` (and the basic colours with a fallback)."""
        return np.asarray([w in self._column for w in words], dtype=bool)

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Nothing to read up front (the class distribution's own perception reads the photos)."""
        return []

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """float32 (N, V) in [0, 1]; 0.5 for words it does not know and for cards of no known
        class.

        Raises:
            kiekai.deck.PhotoError: the class distribution cannot read a photo.
        """
        out = np.full((len(cards), len(words)), 0.5, dtype=np.float32)
        mine = [(j, self._column[w]) for j, w in enumerate(words) if w in self._column]
        if not cards or not mine:
            return out
        p = np.asarray(self.distribution(cards), dtype=np.float64)
        table = self.attributes.values
        mass = p.sum(axis=1, keepdims=True)
        # classes outside the table and missing mass count as "can't tell"
        scored = p @ table + (1.0 - mass) * 0.5
        columns = [j for j, _ in mine]
        out[:, columns] = scored[:, [k for _, k in mine]]
        outside = (1.0 - mass[:, 0]) > 1e-9
        if self.rest is not None and outside.any():
            plain = [(j, k) for j, k in mine if self.attributes.words[k] not in BASIC_COLOURS]
            known = np.asarray(self.rest.knows([words[j] for j, _ in plain]), dtype=bool)
            plain = [jk for jk, ok in zip(plain, known, strict=True) if ok]
            if plain:
                rows = np.flatnonzero(outside)
                picked = [cards[i] for i in rows.tolist()]
                other = np.asarray(
                    self.rest.scores(picked, [words[j] for j, _ in plain]), dtype=np.float64
                )
                share = (1.0 - mass[rows, 0])[:, None]
                inside = np.stack([p[rows] @ table[:, k] for _, k in plain], axis=1)
                out[np.ix_(rows, np.asarray([j for j, _ in plain]))] = inside + share * other
        colour_cols = [(j, k) for j, k in mine if self.attributes.words[k] in BASIC_COLOURS]
        fitted = getattr(self.colours, "term_scores", None)
        if colour_cols and fitted is not None:
            from kiekai.perception.colour import BASIC_TERMS

            which = np.where(p.max(axis=1) >= 1.0 - 1e-9, "labels", "classifier")
            terms = fitted(cards, class_colour(p, self.attributes), which)
            if terms is not None:
                for j, k in colour_cols:
                    out[:, j] = terms[:, BASIC_TERMS.index(self.attributes.words[k])]
                return out
        if colour_cols and self.colours is not None:
            known = p @ self.attributes.colour_known.astype(np.float64)
            from_table = p @ np.where(self.attributes.colour_known[:, None], table, 0.0)
            pixels = np.asarray(
                self.colours.scores(cards, [self.attributes.words[k] for _, k in colour_cols]),
                dtype=np.float64,
            )
            w = COLOUR_TABLE_WEIGHT
            # the pixels alone (no typical colour) are shrunk towards "can't tell": they name
            # shaded orange brown and shaded white grey
            alone = 0.5 + PIXEL_COLOUR_SHRINK * (pixels - 0.5)
            for i, (j, k) in enumerate(colour_cols):
                out[:, j] = (
                    w * from_table[:, k]
                    + (1.0 - w) * known * pixels[:, i]
                    + (1.0 - known) * alone[:, i]
                )
        return out


def class_colour(p: np.ndarray, attributes: ClassAttributes) -> np.ndarray:
    """The colour model's class inputs from a class distribution.

    Args:
        p: float (N, C) over ``attributes.wnids``.

    Returns:
        float64 (N, 12): the mass on classes whose typical colour is each of
        :data:`kiekai.perception.colour.BASIC_TERMS` (11), then the mass on classes with a
        typical colour at all (the ``colour`` column of ``data/class-attributes.tsv``).
    """
    from kiekai.perception.colour import BASIC_TERMS

    values = attributes.values[:, [attributes.words.index(t) for t in BASIC_TERMS]]
    onehot = np.where(attributes.colour_known[:, None], (values > 0.5).astype(np.float64), 0.0)
    p = np.asarray(p, dtype=np.float64)
    return np.concatenate(
        [p @ onehot, (p @ attributes.colour_known.astype(np.float64))[:, None]], axis=1
    )


class _SynsetOfCard(Protocol):
    """What :func:`labels_distribution` reads of a labels perception."""

    def card_synset(self, card: Card) -> Synset | None:
        """The WordNet synset a card's label or wnid names, or ``None``."""
        ...


class _ClassProbabilities(Protocol):
    """What :func:`classifier_distribution` reads of a classifier perception."""

    @property
    def wnids(self) -> Sequence[str]:
        """The class ids (WordNet 3.0 noun ids) in the order of :meth:`probabilities`."""
        ...

    def probabilities(self, cards: Sequence[Card]) -> np.ndarray:
        """float (N, len(wnids)): each card's softmax over the classes."""
        ...


def labels_distribution(labels: _SynsetOfCard, attributes: ClassAttributes) -> ClassDistribution:
    """A one-hot class distribution from a deck's labels: ``labels.card_synset(card)`` (a
    :class:`kiekai.perception.labels.LabelsPerception`) names the class; a card whose synset is
    not one of the table's classes is a row of zeros (undecided)."""
    index = attributes.index

    def distribution(cards: Sequence[Card]) -> np.ndarray:
        out = np.zeros((len(cards), len(attributes.wnids)))
        for i, card in enumerate(cards):
            synset = labels.card_synset(card)
            if synset is None:
                continue
            row = index.get(f"n{synset.offset():08d}")
            if row is not None:
                out[i, row] = 1.0
        return out

    return distribution


def classifier_distribution(
    classifier: _ClassProbabilities, attributes: ClassAttributes
) -> ClassDistribution:
    """The classifier's softmax (``classifier.probabilities(cards)``, float (N, 1000) over
    ``classifier.wnids``) reordered to the table's classes (classes the table lacks dropped)."""
    wnids = tuple(classifier.wnids)
    index = attributes.index
    source = np.asarray([i for i, w in enumerate(wnids) if w in index], dtype=np.intp)
    target = np.asarray([index[wnids[i]] for i in source], dtype=np.intp)

    def distribution(cards: Sequence[Card]) -> np.ndarray:
        p = np.asarray(classifier.probabilities(cards), dtype=np.float64)
        out = np.zeros((len(cards), len(attributes.wnids)))
        out[:, target] = p[:, source]
        return out

    return distribution
