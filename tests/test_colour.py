"""The colour perception's hand-set rule (the fallback without data/colour-model.json; the fitted
model is tested in test_colour_model.py): pixel naming (CIELAB, XKCD survey names -> basic colour terms), the
photo rule (centre-weighted share plus subject-over-border), light and colourfulness words,
on synthetic images and real photos (the default deck and the dev deck)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kiekai.deck import PhotoError, read_card
from kiekai.perception.base import Perception
from kiekai.perception.colour import (
    BASIC_TERMS,
    COLOUR_WORDS,
    ColourPerception,
    colourfulness,
    name_pixels,
    xkcd_table,
)


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))


def _save(tmp_path: Path, name: str, pixels: np.ndarray):
    path = tmp_path / f"{name}.png"
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(path)
    return read_card(path, path.name)


def _flat(rgb, size=(96, 128)) -> np.ndarray:
    return np.broadcast_to(np.asarray(rgb, dtype=np.uint8), (*size, 3)).copy()


def _subject(background, subject, size=(96, 128), fraction=0.45) -> np.ndarray:
    """A centred ellipse of ``subject`` colour on ``background``: a photo of a thing."""
    image = _flat(background, size)
    h, w = size
    yy, xx = np.mgrid[0:h, 0:w]
    inside = ((yy - h / 2) / (fraction * h)) ** 2 + ((xx - w / 2) / (fraction * w)) ** 2 <= 1
    image[inside] = subject
    return image


def _noisy(image: np.ndarray, seed: int, amount: int = 12) -> np.ndarray:
    """Photo-like: brightness noise and a little shading."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(-amount, amount + 1, size=image.shape[:2])[..., None]
    return np.clip(image.astype(int) + noise, 0, 255).astype(np.uint8)


def _scores(perception, cards, words):
    return dict(zip(words, perception.scores(cards, words).T, strict=True))


# -- naming ----------------------------------------------------------------------------------


def test_the_xkcd_table_is_mapped_by_head_term():
    names, lab, term = xkcd_table()
    assert len(names) == len(lab) == len(term) == 577
    head = dict(zip(names, (BASIC_TERMS[t] for t in term), strict=True))
    assert head["greenish blue"] == "blue" and head["blue green"] == "green"
    assert head["dark grey"] == "grey" and head["light pink"] == "pink"
    assert "teal" not in head and "mauve" not in head  # no basic term in the name


@pytest.mark.parametrize(
    ("rgb", "term"),
    [
        ((0, 0, 0), "black"), ((255, 255, 255), "white"), ((128, 128, 128), "grey"),
        ((220, 20, 30), "red"), ((255, 140, 0), "orange"), ((250, 230, 40), "yellow"),
        ((30, 160, 40), "green"), ((20, 60, 220), "blue"), ((120, 30, 160), "purple"),
        ((255, 130, 190), "pink"), ((110, 60, 20), "brown"), ((25, 22, 28), "black"),
    ],
)  # fmt: skip
def test_pixels_are_named_with_basic_terms(rgb, term):
    image = _flat(rgb, (8, 8))
    image[0, 0] = (255, 255, 255)  # one white pixel: no exposure gain
    terms, _ = name_pixels(image)
    assert BASIC_TERMS[terms[4, 4]] == term


def test_dim_whites_read_white_after_the_exposure_step():
    dim_white = _flat((160, 160, 165), (16, 16))  # a white wall photographed a stop under
    assert BASIC_TERMS[name_pixels(dim_white)[0][8, 8]] == "white"
    with_light = dim_white.copy()
    with_light[:2] = 255  # the real white is brighter: the wall is light grey
    assert BASIC_TERMS[name_pixels(with_light)[0][8, 8]] == "grey"


def test_colourfulness_follows_hasler_and_susstrunk():
    assert colourfulness(_flat((128, 128, 128))) == pytest.approx(0.0)
    stripes = np.zeros((60, 120, 3), dtype=np.uint8)
    for i, rgb in enumerate(
        [(255, 0, 0), (0, 200, 0), (0, 0, 255), (255, 255, 0), (255, 0, 255), (0, 255, 255)]
    ):
        stripes[:, 20 * i : 20 * (i + 1)] = rgb
    assert colourfulness(stripes) > 109  # "extremely colourful"


# -- the photo rule ----------------------------------------------------------------------------


def test_the_rulebook_example_three_black_cards_against_two_white(tmp_path):
    """Rulebook, "Imperfect Guesses": three black cards, two white: "Black", not "White"."""
    black = [
        _save(tmp_path, f"black{i}", _noisy(_subject((90 + 20 * i, 140, 70), (20, 20, 22)), i))
        for i in range(3)
    ]
    white = [
        _save(
            tmp_path, f"white{i}", _noisy(_subject((60, 110 + 30 * i, 50), (240, 240, 236)), 10 + i)
        )
        for i in range(2)
    ]
    perception = ColourPerception(model_path=False)
    s = _scores(perception, black + white, ["black", "white", "Black"])
    assert (s["black"][:3] > 0.5).all() and (s["black"][3:] < 0.5).all()
    assert (s["white"][3:] > 0.5).all() and (s["white"][:3] < 0.5).all()
    assert np.array_equal(s["Black"], s["black"])  # any case


def test_a_subject_counts_more_than_its_background(tmp_path):
    # a white thing filling a fifth of the photo on green grass: white (the subject) and
    # green (most of the photo); the same white only in the corners: not white
    subject = _save(
        tmp_path, "subject", _noisy(_subject((40, 140, 40), (245, 245, 245), fraction=0.28), 1)
    )
    corners = _flat((40, 140, 40))
    corners[:25, :30] = corners[-25:, -30:] = 245
    corner = _save(tmp_path, "corner", _noisy(corners, 2))
    s = _scores(ColourPerception(model_path=False), [subject, corner], ["white", "green"])
    assert s["white"][0] > 0.5 and s["white"][1] < 0.5
    assert (s["green"] > 0.5).all()


def test_light_and_colourfulness_words(tmp_path):
    stripes = np.zeros((96, 128, 3), dtype=np.uint8)
    for i, rgb in enumerate([(230, 30, 30), (30, 180, 40), (30, 60, 230), (250, 220, 30)]):
        stripes[:, 32 * i : 32 * (i + 1)] = rgb
    cards = [
        _save(tmp_path, "stripes", stripes),
        _save(tmp_path, "grey", _noisy(_flat((120, 120, 120)), 3)),
        _save(tmp_path, "night", _noisy(_flat((25, 25, 35)), 4, amount=6)),
        _save(tmp_path, "snow", _noisy(_flat((235, 235, 240)), 5, amount=6)),
    ]
    words = [
        "colourful",
        "colorful",
        "multicoloured",
        "monochrome",
        "dark",
        "bright",
        "grey",
        "gray",
    ]
    s = _scores(ColourPerception(model_path=False), cards, words)
    assert s["colourful"][0] > 0.9 and (s["colourful"][1:] < 0.1).all()
    assert np.array_equal(s["colorful"], s["colourful"]) and np.array_equal(
        s["multicoloured"], s["colourful"]
    )
    assert s["monochrome"][0] < 0.1 and (s["monochrome"][1:] > 0.9).all()
    assert (
        s["dark"][2] > 0.9 and s["dark"][3] < 0.1 and s["bright"][3] > 0.9 and s["bright"][2] < 0.1
    )
    assert s["grey"][1] > 0.9 and np.array_equal(s["gray"], s["grey"])


def test_it_knows_colour_words_only(tmp_path):
    perception = ColourPerception(model_path=False)
    assert isinstance(perception, Perception) and perception.name == "colour"
    words = ["black", "Grey", "colorful", "dark", "dog", "wooden", "golden"]
    assert perception.knows(words).tolist() == [True, True, True, True, False, False, False]
    card = _save(tmp_path, "x", _flat((200, 30, 30)))
    scores = perception.scores([card], words)
    assert scores.dtype == np.float32 and scores.shape == (1, 7)
    assert (scores[0, 4:] == 0.5).all()
    assert set(COLOUR_WORDS.values()) == set(BASIC_TERMS) | {
        "colourful",
        "monochrome",
        "dark",
        "bright",
    }


def test_features_are_cached_by_content_hash(tmp_path):
    card = _save(tmp_path, "a", _subject((20, 20, 20), (250, 250, 250)))
    first = ColourPerception(cache_root=tmp_path / "emb")
    expected = first.features([card])
    renamed = tmp_path / "renamed.png"
    shutil.copyfile(card.path, renamed)
    again = ColourPerception(cache_root=tmp_path / "emb")
    assert np.array_equal(again.features([read_card(renamed, "renamed.png")]), expected)
    assert (again.cache.hits, again.cache.misses) == (1, 0)


def test_an_unreadable_photo_is_skipped_with_its_reason(tmp_path):
    good = _save(tmp_path, "good", _flat((10, 10, 10)))
    bad_path = tmp_path / "bad.png"
    Image.fromarray(_flat((200, 0, 0))).save(bad_path)
    bad = read_card(bad_path, "bad.png")
    bad_path.write_bytes(b"no longer a photo")
    perception = ColourPerception(cache_root=tmp_path / "emb")
    skipped = perception.prepare([good, bad])
    # the reason of kiekai.deck.decode_photos, short: the card names the photo
    assert [(card.id, reason) for card, reason in skipped] == [
        ("bad.png", "not an image (Pillow cannot identify the file's contents)")
    ]
    with pytest.raises(PhotoError, match="bad.png"):
        perception.scores([bad], ["red"])


def test_a_pass_in_threads_gives_each_photo_its_own_features(tmp_path, monkeypatch):
    """The pass computes photos in a thread pool, one unreadable among them: each photo gets
    the features computed for it alone, in the order asked."""
    from kiekai.perception import colour

    rng = np.random.default_rng(3)
    cards = [
        _save(
            tmp_path, f"p{i}", _noisy(_subject(rng.integers(0, 256, 3), rng.integers(0, 256, 3)), i)
        )
        for i in range(7)
    ]
    (tmp_path / "p3.png").write_bytes(b"damaged")
    alone = []
    for card in cards:
        if card.id == "p3.png":
            continue
        one = ColourPerception(cache_root=tmp_path / f"alone-{card.id}")
        monkeypatch.setattr(colour, "COMPUTE_WORKERS", 1)
        alone.append(one.features([card]))
    monkeypatch.setattr(colour, "COMPUTE_WORKERS", 3)
    together = ColourPerception(cache_root=tmp_path / "together")
    skipped = together.prepare(cards)
    assert [card.id for card, _ in skipped] == ["p3.png"]
    good = [card for card in cards if card.id != "p3.png"]
    assert np.array_equal(together.features(good), np.concatenate(alone))
    assert together.cache.misses == len(cards)


# -- real photos -------------------------------------------------------------------------------


def test_default_deck_photos():
    from kiekai.default_deck import default_deck

    cards = {card.label: card for card in default_deck().cards}
    chosen = ["galaxies", "printed page", "retina", "rocket", "photographer", "coffee cup"]
    s = _scores(
        ColourPerception(model_path=False),
        [cards[label] for label in chosen],
        ["black", "white", "red", "blue", "monochrome", "colourful", "dark"],
    )
    galaxies, page, retina, rocket, photographer, coffee = range(6)
    assert s["black"][galaxies] > 0.9 and s["dark"][galaxies] > 0.9 and s["white"][galaxies] < 0.1
    assert s["white"][page] > 0.9 and s["black"][page] < 0.1
    assert s["red"][retina] > 0.9 and s["colourful"][retina] > 0.9
    assert s["blue"][rocket] > 0.9  # a launch against the night-blue sky
    assert s["monochrome"][photographer] > 0.9 and s["colourful"][photographer] < 0.1
    assert s["colourful"][coffee] > 0.5 and s["monochrome"][coffee] < 0.1


#: Dev-deck photos a person would call black, and white (see docs/perception.md).
BLACK_DOGS = ["n02111277", "n02097130", "n02099712"]  # Newfoundland, giant schnauzer, Labrador
WHITE_DOGS = ["n02111500", "n02104029"]  # Great Pyrenees, kuvasz


def test_black_dogs_against_white_dogs(dev_deck):
    cards = [read_card(dev_deck / "photos" / f"{w}.jpg", w) for w in BLACK_DOGS + WHITE_DOGS]
    s = _scores(ColourPerception(model_path=False), cards, ["black", "white"])
    assert (s["black"][:3] > 0.5).all() and (s["black"][3:] < 0.5).all(), s["black"]
    assert (s["white"][3:] > 0.5).all() and (s["white"][:3] < 0.5).all(), s["white"]
