"""Tests for the embedded default deck (photos shipped inside installed dependencies)."""

from __future__ import annotations

import csv
import re

import pytest

import kiekai.default_deck as dd
from kiekai.deck import PhotoError, check_deck_size, open_rgb
from kiekai.default_deck import DefaultPhoto, default_deck, default_photos, resource_path


@pytest.fixture(scope="module")
def deck():
    return default_deck()


def test_enough_labelled_photos_for_four_players(deck):
    assert len(deck) >= 19
    assert deck.skipped == []
    assert check_deck_size(deck, 4) == 19
    assert deck.labelled() == deck.cards
    for card in deck.cards:
        assert card.label and re.fullmatch(r"n\d{8}", card.wnid or ""), card
        assert card.extra_value("licence") and card.extra_value("source"), card


def test_ids_are_unique_sorted_and_name_the_package(deck):
    ids = [c.id for c in deck.cards]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for card in deck.cards:
        _, package, name = card.id.split("/")
        assert card.id.startswith("default/")
        assert package in card.path.parts and card.path.stem == name
    assert len({c.sha256 for c in deck.cards}) == len(deck.cards)  # no photo twice


def test_every_photo_decodes_to_rgb_of_its_recorded_size(deck):
    for card in deck.cards:
        image = open_rgb(card, max_side=64)
        assert image.mode == "RGB" and max(image.size) <= 64
        assert min(card.width, card.height) >= 32


def test_listing_matches_the_cards(deck):
    rows = default_photos()
    assert sorted(r.card_id for r in rows) == [c.id for c in deck.cards]
    with dd.listing_path().open(encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle))
    assert tuple(header) == dd.COLUMNS


@pytest.mark.slow
def test_wnids_are_wordnet_nouns_that_agree_with_the_labels(deck):
    from kiekai.models import wordnet

    wn = wordnet()
    for card in deck.cards:
        synset = wn.synset_from_pos_and_offset("n", int(card.wnid[1:]))
        lemmas = {lemma.lower() for lemma in synset.lemma_names()}
        for hypernym in synset.closure(lambda s: s.hypernyms()):
            lemmas.update(lemma.lower() for lemma in hypernym.lemma_names())
        head = card.label.split()[-1]
        words = {card.label.replace(" ", "_"), head, wn.morphy(head, "n") or head}
        assert words & lemmas, (card.id, card.label, synset.name())


def test_missing_package_or_resource_is_skipped_not_fatal(monkeypatch):
    ghost = DefaultPhoto("no_such_package_kiekai", "x.png", "x", "n00000001", "-", "-")
    with pytest.raises(PhotoError, match="not installed"):
        resource_path(ghost)
    gone = DefaultPhoto("skimage", "data/not-there.png", "x", "n00000001", "-", "-")
    with pytest.raises(PhotoError, match="no longer ships"):
        resource_path(gone)
    real = default_photos()[:2]
    monkeypatch.setattr(dd, "default_photos", lambda: [*real, ghost])
    dd._load_default.cache_clear()
    try:
        seen: list[tuple[str, str]] = []
        deck = default_deck(on_skip=lambda cid, why: seen.append((cid, why)))
        assert len(deck) == 2
        assert seen == [("default/no_such_package_kiekai/x", seen[0][1])]
        assert "not installed" in seen[0][1]
    finally:
        dd._load_default.cache_clear()
