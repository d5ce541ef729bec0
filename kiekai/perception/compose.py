"""Combining perceptions: by word (colours from pixels, objects from the classifier) and by card
(labels.csv for the labelled photos, the classifier for the rest).

* :class:`CompositePerception` takes each word from the first of its parts that
  :meth:`~kiekai.perception.base.Perception.knows` it; a word no part knows scores 0.5
  (undecided). ``CompositePerception([colour, classifier])`` reads *black* from the pixels and
  *dog* from the classifier.
* :class:`LabelledFirst` scores the cards that have a label or wnid in labels.csv with the
  labels perception and the other cards with another perception (the classifier); labels
  replace the classifier's object guesses, never the colours (the colour part comes first in
  the composite around it).

Both keep the :class:`~kiekai.perception.base.Perception` interface (``scores``, ``knows``,
``prepare``, ``name``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kiekai.deck import Card
from kiekai.perception.base import Perception
from kiekai.perception.labels import LabelsPerception

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

#: Score of a word no part knows.
UNDECIDED = 0.5


def _merge_skipped(
    groups: Sequence[list[tuple[Card, str]]], cards: Sequence[Card]
) -> list[tuple[Card, str]]:
    """One ``(card, reason)`` per skipped card (the first reason), in the order of ``cards``."""
    reasons: dict[str, str] = {}
    for group in groups:
        for card, reason in group:
            reasons.setdefault(card.id, reason)
    return [(card, reasons[card.id]) for card in cards if card.id in reasons]


class LabelledFirst:
    """Labels for the labelled cards, another perception for the others.

    Args:
        labels: the labels perception (its :meth:`~LabelsPerception.usable` cards are scored by
            it).
        other: scores the cards without a label or wnid (the classifier).

    Attributes:
        name: ``"labels+" + other.name``.
    """

    def __init__(self, labels: LabelsPerception, other: Perception) -> None:
        self.labels = labels
        self.other = other
        self.name = f"labels+{other.name}"

    def _split(self, cards: Sequence[Card]) -> tuple[list[int], list[int]]:
        labelled = {card.id for card in LabelsPerception.usable(cards)}
        first = [i for i, card in enumerate(cards) if card.id in labelled]
        rest = [i for i, card in enumerate(cards) if card.id not in labelled]
        return first, rest

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): what either part knows (the labels perception knows every word)."""
        known: np.ndarray = self.labels.knows(words) | self.other.knows(words)
        return known

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Prepare the unlabelled cards with the other perception; return those it cannot
        see (labelled cards need no reading)."""
        _, rest = self._split(cards)
        return self.other.prepare([cards[i] for i in rest])

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """float32 (N, V): labelled cards' rows from the labels perception, the others' from
        the other perception.

        Raises:
            kiekai.deck.PhotoError: an unlabelled card's photo cannot be decoded.
        """
        words = list(words)
        out = np.full((len(cards), len(words)), UNDECIDED, dtype=np.float32)
        first, rest = self._split(cards)
        if first:
            out[first] = self.labels.scores([cards[i] for i in first], words)
        if rest:
            out[rest] = self.other.scores([cards[i] for i in rest], words)
        return out

    def card_synset(self, card: Card) -> Synset | None:
        """The card's WordNet synset from labels.csv, or ``None`` for an unlabelled card (the
        classifier's guesses are probabilities, not a synset to check words against)."""
        if not LabelsPerception.usable([card]):
            return None
        return self.labels.card_synset(card)


class CompositePerception:
    """Each word from the first part that knows it (module docstring).

    Args:
        parts: perceptions in order of precedence (e.g. ``[colour, classifier]``).
        name: the name to report (default: the parts' names joined by ``+``, in the order
            given).

    Attributes:
        name: see above.
        parts: the parts.

    Raises:
        ValueError: no parts.
    """

    def __init__(self, parts: Sequence[Perception], name: str | None = None) -> None:
        if not parts:
            raise ValueError("a composite perception needs at least one part")
        self.parts: list[Perception] = list(parts)
        self.name = name or "+".join(part.name for part in self.parts)
        self._routes: dict[tuple[str, ...], list[np.ndarray]] = {}
        labels = [p for p in self.parts if isinstance(p, LabelsPerception | LabelledFirst)]
        self._synsets: Any = labels[0].card_synset if labels else None

    def routes(self, words: Sequence[str]) -> list[np.ndarray]:
        """Per part, a bool (V,) mask of the words it scores (the first part that knows a
        word scores it). Cached per word list (players ask about the same vocabulary)."""
        key = tuple(words)
        route = self._routes.get(key)
        if route is None:
            left = np.ones(len(key), dtype=bool)
            route = []
            for part in self.parts:
                mine = np.asarray(part.knows(key), dtype=bool) & left
                left &= ~mine
                route.append(mine)
            if len(self._routes) >= 32:
                self._routes.clear()
            self._routes[key] = route
        return route

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): True where some part knows the word."""
        known = np.zeros(len(words), dtype=bool)
        for mine in self.routes(words):
            known |= mine
        return known

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Prepare the cards with every part; a card any part cannot see is returned with the
        first part's reason."""
        return _merge_skipped([part.prepare(cards) for part in self.parts], cards)

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """float32 (N, V): each column from the part that knows the word, 0.5 where none does.

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded by a part that scores it.
        """
        words = list(words)
        out = np.full((len(cards), len(words)), UNDECIDED, dtype=np.float32)
        if not cards or not words:
            return out
        for part, mine in zip(self.parts, self.routes(words), strict=True):
            if mine.any():
                columns = np.flatnonzero(mine)
                out[:, columns] = part.scores(cards, [words[j] for j in columns])
        return out

    def card_synset(self, card: Card) -> Synset | None:
        """The card's WordNet synset from labels.csv when a part reads labels and the card has
        one; ``None`` otherwise (pixels give probabilities, not a synset)."""
        return self._synsets(card) if self._synsets is not None else None
