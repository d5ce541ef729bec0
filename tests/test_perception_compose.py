"""Composite perceptions: each word from the first part that knows it (colours from pixels,
things from the classifier); labels.csv replaces the classifier's guesses for labelled photos
but never the colours; unknown words stay undecided (0.5)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from kiekai.deck import Card, read_card
from kiekai.perception.base import Perception
from kiekai.perception.classifier import ClassifierPerception
from kiekai.perception.colour import ColourPerception
from kiekai.perception.compose import CompositePerception, LabelledFirst
from kiekai.perception.labels import LabelsPerception


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")


@pytest.fixture(scope="module")
def cards():
    """The default deck's cat (labelled tench here, to tell labels from pixels), galaxies and
    printed page, as cards: the first labelled, the others not."""
    from kiekai.default_deck import default_deck

    by_label = {card.label: card for card in default_deck().cards}
    cat, galaxies, page = by_label["cat"], by_label["galaxies"], by_label["printed page"]
    labelled = Card(**{**cat.__dict__, "label": "tench", "wnid": "n01440764"})
    strip = {"label": None, "wnid": None}
    return [labelled, Card(**{**galaxies.__dict__, **strip}), Card(**{**page.__dict__, **strip})]


WORDS = ["black", "white", "brown", "fish", "cat", "animal", "moon", "gray"]


def test_each_word_comes_from_the_first_part_that_knows_it(cards):
    colour, classifier = ColourPerception(), ClassifierPerception(progress=False)
    composite = CompositePerception([colour, classifier])
    assert isinstance(composite, Perception) and composite.name == "colour+classifier"
    scores = composite.scores(cards, WORDS)
    assert scores.shape == (3, len(WORDS)) and scores.dtype == np.float32
    colour_cols, classifier_cols = [0, 1, 2, 7], [3, 4, 5]
    assert np.array_equal(
        scores[:, colour_cols], colour.scores(cards, [WORDS[j] for j in colour_cols])
    )
    np.testing.assert_allclose(
        scores[:, classifier_cols],
        classifier.scores(cards, [WORDS[j] for j in classifier_cols]),
        rtol=1e-5,
    )
    assert (scores[:, WORDS.index("moon")] == 0.5).all()  # nobody knows it: undecided
    assert composite.knows(WORDS).tolist() == [True] * 6 + [False, True]
    routes = composite.routes(WORDS)
    assert routes[0].tolist() == [True, True, True, False, False, False, False, True]
    assert routes[1].tolist() == [False, False, False, True, True, True, False, False]
    # what the pixels say about these photos: a cat, a black sky, a white page
    assert scores[0, WORDS.index("cat")] > 0.5 and scores[0, WORDS.index("brown")] > 0.5
    assert scores[1, WORDS.index("black")] > 0.5
    assert scores[2, WORDS.index("white")] > scores[1, WORDS.index("white")]  # a grey-white page
    assert composite.card_synset(cards[0]) is None  # pixels name no synset


def test_labels_replace_the_classifier_for_labelled_photos_but_never_the_colours(cards):
    colour, classifier = ColourPerception(), ClassifierPerception(progress=False)
    labels = LabelsPerception(cards, use_embeddings=False)
    objects = LabelledFirst(labels, classifier)
    assert objects.name == "labels+classifier"
    composite = CompositePerception([colour, objects])
    scores = composite.scores(cards, WORDS)
    fish, cat = WORDS.index("fish"), WORDS.index("cat")
    # the first card's labels.csv says tench: a fish, not a cat, whatever its pixels show
    assert scores[0, fish] == 1.0 and scores[0, cat] == 0.0
    assert classifier.scores(cards[:1], ["cat"])[0, 0] > 0.5
    # the unlabelled cards are the classifier's
    assert np.array_equal(scores[1:, [fish, cat]], classifier.scores(cards[1:], ["fish", "cat"]))
    # colours always come from the pixels, also for the labelled card
    assert np.array_equal(scores[:, :3], colour.scores(cards, WORDS[:3]))
    assert composite.card_synset(cards[0]).name() == "tench.n.01"
    assert composite.card_synset(cards[1]) is None


def test_prepare_reports_each_unreadable_card_once(tmp_path, cards):
    path = tmp_path / "late.png"
    Image.fromarray(np.full((40, 40, 3), 90, np.uint8)).save(path)
    late = read_card(path, "late.png")
    path.write_bytes(b"broken after the deck was read")
    composite = CompositePerception(
        [
            ColourPerception(cache_root=tmp_path / "e"),
            ClassifierPerception(progress=False, cache_root=tmp_path / "e"),
        ]
    )
    skipped = composite.prepare([*cards, late])
    assert [card.id for card, _ in skipped] == ["late.png"]
    assert skipped[0][1] == "not an image (Pillow cannot identify the file's contents)"


def test_a_composite_needs_parts():
    with pytest.raises(ValueError, match="at least one part"):
        CompositePerception([])
