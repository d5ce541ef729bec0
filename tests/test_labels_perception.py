"""The labels perception: WordNet hypernyms of each card's synset, plus embeddings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kiekai.deck import Card, load_deck
from kiekai.lexicon import hypernym_closure, load_vocabulary, synset_for_wnid
from kiekai.models import wordnet
from kiekai.perception.base import Perception
from kiekai.perception.labels import HYPONYM, LINKED, MENTIONED, LabelsPerception

pytestmark = pytest.mark.slow


def card(label: str | None, wnid: str | None = None, extra=()) -> Card:
    """A hand-made card (no photo file is read by the labels perception)."""
    name = wnid or (label or "x").replace(" ", "_")
    return Card(
        id=f"photos/{name}.jpg",
        path=Path(f"/nowhere/{name}.jpg"),
        sha256="0" * 64,
        label=label,
        wnid=wnid,
        extra=tuple(extra),
    )


TENCH = card("tench", "n01440764")
MALTESE = card("Maltese dog", "n02085936")
TABBY = card("tabby", "n02123045")
SPORTS_CAR = card("sports car", "n04285008")
RED_WINE = card("red wine", "n07892512")
LABEL_ONLY = card("golden retriever")


@pytest.fixture(scope="module")
def wordnet_only() -> LabelsPerception:
    return LabelsPerception([TENCH, MALTESE, TABBY, SPORTS_CAR, RED_WINE], use_embeddings=False)


@pytest.fixture(scope="module")
def with_embeddings() -> LabelsPerception:
    return LabelsPerception([TENCH, MALTESE, TABBY, SPORTS_CAR, RED_WINE])


def test_protocol_shape_dtype_range(wordnet_only: LabelsPerception) -> None:
    assert isinstance(wordnet_only, Perception) and wordnet_only.name == "labels"
    words = ["animal", "dog", "vehicle", "Fish", "zorblax"]
    s = wordnet_only.scores([TENCH, MALTESE, SPORTS_CAR], words)
    assert s.shape == (3, 5) and s.dtype == np.float32
    assert ((s >= 0) & (s <= 1)).all()
    assert wordnet_only.scores([], words).shape == (0, 5)
    assert wordnet_only.scores([TENCH], []).shape == (1, 0)


def test_hypernyms_score_one_and_others_stay_false(wordnet_only: LabelsPerception) -> None:
    s = wordnet_only.scores(
        [TENCH, MALTESE, TABBY, SPORTS_CAR], ["animal", "fish", "dog", "cat", "car", "vehicle"]
    )
    assert s[0].tolist() == [LINKED, LINKED, 0, 0, 0, 0]
    assert s[1].tolist() == [LINKED, 0, LINKED, 0, 0, 0]
    assert s[2].tolist() == [LINKED, 0, 0, LINKED, 0, 0]
    assert s[3].tolist() == [0, 0, 0, 0, LINKED, LINKED]


def test_agrees_with_wordnet_on_the_dev_deck(dev_deck: Path) -> None:
    deck = load_deck(dev_deck, on_skip=lambda *_: None, on_problem=lambda *_: None)
    perception = LabelsPerception(deck.cards, use_embeddings=False)
    assert len(perception.cards) == len(deck.cards) == 600
    s = perception.scores(deck.cards, ["dog", "bird", "vehicle"])
    wn = wordnet()
    for j, name in enumerate(["dog.n.01", "bird.n.01", "vehicle.n.01"]):
        expected = np.asarray(
            [wn.synset(name) in hypernym_closure(synset_for_wnid(c.wnid)) for c in deck.cards]
        )
        assert ((s[:, j] >= 0.5) == expected).all()
        assert expected.sum() >= 20  # the deck has many dogs, birds and vehicles


def test_words_outside_the_vocabulary_use_their_usual_senses(
    wordnet_only: LabelsPerception,
) -> None:
    assert "canine" not in load_vocabulary()
    s = wordnet_only.scores([MALTESE, TABBY], ["canine", "feline", "poodle"])
    assert s[0, 0] == LINKED and s[0, 1] == 0.0
    assert s[1, 1] == LINKED and s[1, 0] == 0.0
    assert s[0, 2] == 0.0  # a poodle is a dog, but a Maltese is not a poodle


def test_more_specific_word_is_undecided_low(wordnet_only: LabelsPerception) -> None:
    generic_dog = card("dog", "n02084071")
    s = wordnet_only.scores([generic_dog], ["terrier", "animal"])
    assert s[0, 0] == pytest.approx(HYPONYM) and s[0, 1] == LINKED


def test_label_only_cards_map_to_a_synset(wordnet_only: LabelsPerception) -> None:
    assert wordnet_only.card_synset(LABEL_ONLY).name() == "golden_retriever.n.01"
    s = wordnet_only.scores([LABEL_ONLY, card("spotted dog")], ["dog", "vehicle"])
    assert s[:, 0].tolist() == [LINKED, LINKED] and s[:, 1].tolist() == [0, 0]


def test_colour_in_the_label_is_mentioned(wordnet_only: LabelsPerception) -> None:
    s = wordnet_only.scores([RED_WINE, TENCH], ["red", "wine", "drink"])
    assert s[0, 0] == pytest.approx(MENTIONED) and s[1, 0] < 0.5
    assert s[0, 1] == LINKED and s[0, 2] == LINKED


def test_usable_and_unusable_cards(wordnet_only: LabelsPerception) -> None:
    blank = card(None, None)
    assert wordnet_only.usable([TENCH, blank, LABEL_ONLY]) == [TENCH, LABEL_ONLY]
    with pytest.raises(ValueError, match="no label and no wnid"):
        wordnet_only.scores([blank], ["dog"])


def test_bad_wnid_falls_back_to_the_label(wordnet_only: LabelsPerception) -> None:
    wrong = card("beagle", "n99999999")
    assert wordnet_only.scores([wrong], ["dog"])[0, 0] == LINKED


def test_cached_results_repeat(wordnet_only: LabelsPerception) -> None:
    words = ["animal", "canine", "red"]
    first = wordnet_only.scores([MALTESE, RED_WINE], words)
    again = wordnet_only.scores([RED_WINE, MALTESE], list(reversed(words)))
    np.testing.assert_array_equal(first, again[::-1, ::-1])


def test_embeddings_grade_what_wordnet_does_not_link(with_embeddings: LabelsPerception) -> None:
    s = with_embeddings.scores([TENCH, SPORTS_CAR], ["river", "keyboard", "fast", "animal", "road"])
    water, keyboard, fast, animal, road = s.T
    assert animal[0] == LINKED
    # unlinked noun categories stay below 0.5 whatever the similarity ...
    assert (s[:, [0, 1, 4]] < 0.5).all()
    # ... but related words score above unrelated ones
    assert road[1] > keyboard[1]
    assert road[1] > road[0]
    assert fast[1] > fast[0]
    assert water[0] >= 0.0


def test_perceptions_share_one_wordnet_index() -> None:
    """The WordNet index of the vocabulary (about 14,700 words) is built once per process:
    a second perception (a second game) reuses it and scores the same."""
    tench = Card(
        id="t.jpg", path=Path("/nowhere/t.jpg"), sha256="0" * 64, label="tench", wnid="n01440764"
    )
    first = LabelsPerception([tench], use_embeddings=False)
    second = LabelsPerception([tench], use_embeddings=False)
    assert first._vocabulary_index() is second._vocabulary_index()
    np.testing.assert_array_equal(
        first.scores([tench], ["fish", "animal", "car"]),
        second.scores([tench], ["fish", "animal", "car"]),
    )
    assert first.scores([tench], ["fish", "car"]).tolist() == [[1.0, 0.0]]
