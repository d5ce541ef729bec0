"""The clip perception when a card's photo cannot be decoded any more (issue 11, point 3):
the card is skipped with its reason and scores 0.5 ("undecided"), the game goes on."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("open_clip")

import test_clip  # noqa: E402

from kiekai.deck import DeckWarning  # noqa: E402
from kiekai.perception.clip import ClipPerception  # noqa: E402

# the tiny random CLIP and the photos of the clip tests (fixtures shared by name)
TINY = test_clip.TINY
tiny_clip = test_clip.tiny_clip
photos = test_clip.photos
_clean_env = test_clip._clean_env


def test_a_photo_broken_after_loading_is_skipped_with_its_reason(tiny_clip, photos, tmp_path):
    _, checkpoint = tiny_clip
    photos[2].path.write_bytes(b"overwritten since the deck was read")
    perception = ClipPerception(
        photos, model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=tmp_path
    )
    skipped: list[tuple[str, str]] = []
    embeddings = perception.embed_images(
        photos, on_skip=lambda card, why: skipped.append((card, why))
    )
    assert skipped == [("p2.png", "not an image (Pillow cannot identify the file's contents)")]
    norms = np.linalg.norm(embeddings, axis=1)
    np.testing.assert_allclose(norms[[0, 1, 3, 4]], 1.0, atol=1e-5)
    assert norms[2] == 0.0
    assert perception.image_cache.get(photos[2].sha256) is None  # not cached: fixable later

    with pytest.warns(DeckWarning, match="p2.png: skipped, not an image"):
        fresh = ClipPerception(
            photos, model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=tmp_path
        )
        scores = fresh.scores(photos, ["dog", "red"])
    assert np.all(scores[2] == 0.5)
    readable = scores[[0, 1, 3, 4]]
    assert np.all((readable >= 0) & (readable <= 1)) and not np.all(readable == 0.5)


def test_prepare_reports_a_broken_photo_so_the_game_leaves_it_out(tiny_clip, photos, tmp_path):
    """``prepare`` (which ``kiekai play`` calls to leave out what a perception cannot see)
    returns the broken photo with its reason, without a warning of its own (the caller
    reports it), and takes it out of the calibration's reference cards."""
    import warnings

    _, checkpoint = tiny_clip
    photos[2].path.write_bytes(b"overwritten since the deck was read")
    perception = ClipPerception(
        photos, model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=tmp_path
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeckWarning)
        skipped = perception.prepare(photos)
        again = perception.prepare(photos)  # asked again: the same answer, from memory
    expected = [(photos[2], "not an image (Pillow cannot identify the file's contents)")]
    assert skipped == again == expected
    assert [card.id for card in perception.cards] == ["p0.png", "p1.png", "p3.png", "p4.png"]
