"""CLIP loading and the clip perception, with a tiny randomly initialised open_clip model.

No real CLIP weights exist on the development machines, so the tests register a tiny
architecture, save its random weights as a checkpoint file and load them back through
:func:`kiekai.models.load_clip` exactly as a user's ``--clip-checkpoint PATH --clip-model NAME``
would. The scores of a random model mean nothing; the tests check shapes, ranges, caching and
the calibration arithmetic, never what CLIP "sees".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
open_clip = pytest.importorskip("open_clip")

from kiekai import models  # noqa: E402
from kiekai.deck import read_card  # noqa: E402
from kiekai.perception import clip as clip_module  # noqa: E402
from kiekai.perception.base import Perception  # noqa: E402
from kiekai.perception.cache import EmbeddingCache  # noqa: E402
from kiekai.perception.clip import ClipPerception  # noqa: E402

TINY = "kiekai-tiny-test"
TINY_CONFIG = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 2, "width": 64, "patch_size": 8, "head_width": 32},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 2},
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("KIEKAI_CLIP_CHECKPOINT", "KIEKAI_CLIP_MODEL", "KIEKAI_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory):
    """(original model, checkpoint path): a tiny random CLIP registered with open_clip."""
    folder = tmp_path_factory.mktemp("tiny-clip")
    config = folder / f"{TINY}.json"
    config.write_text(json.dumps(TINY_CONFIG))
    open_clip.add_model_config(config)
    torch.manual_seed(0)
    model = open_clip.create_model(TINY, pretrained=None).eval()
    checkpoint = folder / "tiny.pt"
    torch.save(model.state_dict(), checkpoint)
    return model, checkpoint


def _photo(path: Path, seed: int, size=(64, 48)) -> Path:
    from PIL import Image

    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, size=(size[1], size[0], 3), dtype=np.uint8)
    Image.fromarray(pixels, "RGB").save(path)
    return path


@pytest.fixture()
def photos(tmp_path):
    folder = tmp_path / "deck"
    folder.mkdir()
    return [read_card(_photo(folder / f"p{i}.png", i), f"p{i}.png") for i in range(5)]


def test_checkpoint_round_trip_gives_the_same_embeddings(tiny_clip):
    original, checkpoint = tiny_clip
    model, preprocess, tokenizer, key = models.load_clip(model_name=TINY, checkpoint=checkpoint)
    assert key == f"{TINY}/sha256:{models.sha256_file(checkpoint)}"
    images = torch.randn(3, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    tokens = tokenizer(["a photo of a dog.", "a photo of a cat."])
    assert tokens.shape == (2, 77)
    with torch.inference_mode():
        assert torch.allclose(model.encode_image(images), original.encode_image(images), atol=1e-6)
        assert torch.allclose(model.encode_text(tokens), original.encode_text(tokens), atol=1e-6)
    assert tuple(preprocess.transforms[1].size) == (32, 32)  # the architecture's image size


def test_checkpoint_from_env(tiny_clip, monkeypatch):
    _, checkpoint = tiny_clip
    monkeypatch.setenv("KIEKAI_CLIP_CHECKPOINT", str(checkpoint))
    monkeypatch.setenv("KIEKAI_CLIP_MODEL", TINY)
    resolved = models.resolve_clip()
    assert (resolved.source, resolved.path, resolved.detail) == (
        "env KIEKAI_CLIP_CHECKPOINT",
        checkpoint,
        TINY,
    )


def test_missing_weights_message_names_the_fixes(tmp_path, monkeypatch):
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setattr(models.clip, "_clip_hub_cache_file", lambda hf_hub: None)
    with pytest.raises(models.ModelUnavailable) as info:
        models.load_clip()
    message = str(info.value)
    name, tag = models.default_clip()
    assert f"No CLIP weights for {name} {tag}" in message
    assert "offline" in message
    assert "kiekai models --fetch" in message
    assert f"--clip-checkpoint PATH --clip-model {name}" in message


def test_missing_checkpoint_file_and_wrong_architecture(tiny_clip, tmp_path):
    with pytest.raises(models.ModelUnavailable, match="does not exist"):
        models.load_clip(model_name=TINY, checkpoint=tmp_path / "nope.pt")
    with pytest.raises(models.ModelUnavailable, match="Unknown CLIP architecture"):
        models.load_clip(model_name="no-such-arch", checkpoint=tiny_clip[1])
    # The same tiny design with a wider text tower: the checkpoint does not fit it.
    wide = {**TINY_CONFIG, "text_cfg": {**TINY_CONFIG["text_cfg"], "width": 48}}
    config = tmp_path / f"{TINY}-wide.json"
    config.write_text(json.dumps(wide))
    open_clip.add_model_config(config)
    with pytest.raises(models.ModelUnavailable, match=f"cannot be loaded as {TINY}-wide"):
        models.load_clip(model_name=f"{TINY}-wide", checkpoint=tiny_clip[1])


def test_hub_cache_is_found_without_network(tmp_path, monkeypatch):
    """A checkpoint in kiekai's Hugging Face-style cache is resolved with no download."""
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    name, tag = models.default_clip()
    repo, filenames = models._hub_files(open_clip.get_pretrained_cfg(name, tag)["hf_hub"])
    repo_dir = tmp_path / "models" / "hub" / ("models--" + repo.replace("/", "--"))
    revision = "0123456789abcdef0123456789abcdef01234567"
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(revision)
    weights = repo_dir / "snapshots" / revision / filenames[0]
    weights.parent.mkdir(parents=True)
    weights.write_bytes(b"placeholder bytes standing for a checkpoint")
    resolved = models.resolve_clip()
    assert (resolved.source, resolved.path, resolved.detail) == (
        "hub cache",
        weights,
        f"{name} {tag}",
    )


# ------------------------------------------------------------------------------- perception


def test_clip_perception_scores_shape_range_and_cache(tiny_clip, photos, tmp_path):
    _, checkpoint = tiny_clip
    words = ["dog", "red", "musical_instrument"]
    cache = tmp_path / "embeddings"
    perception = ClipPerception(
        photos, model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=cache
    )
    assert isinstance(perception, Perception) and perception.name == "clip"
    scores = perception.scores(photos[:3], words)
    assert scores.shape == (3, 3) and scores.dtype == np.float32
    assert np.all((scores >= 0) & (scores <= 1))
    assert perception.image_cache.misses == 5  # the deck's 5 photos were embedded once

    embeddings = perception.embed_images(photos)
    assert embeddings.shape == (5, 32) and embeddings.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(embeddings, axis=1), 1.0, atol=1e-5)

    # A fresh perception (new process, same disk cache) computes nothing again.
    again = ClipPerception(
        photos, model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=cache
    )
    np.testing.assert_allclose(again.scores(photos[:3], words), scores, atol=1e-6)
    assert again.image_cache.hits == 5 and again.image_cache.misses == 0
    assert again.text_cache.misses == 0


def test_calibration_is_a_logistic_of_per_word_z_scores(tiny_clip, photos, tmp_path):
    _, checkpoint = tiny_clip
    perception = ClipPerception(
        photos, model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=tmp_path
    )
    words = ["cat", "boat"]
    cosine = perception.embed_images(photos) @ perception.embed_words(words).T
    z = (cosine - cosine.mean(axis=0)) / np.maximum(cosine.std(axis=0), clip_module.MIN_STD)
    expected = 1 / (1 + np.exp(-clip_module.SLOPE * (z - clip_module.Z_SHIFT)))
    np.testing.assert_allclose(perception.scores(photos, words), expected, atol=1e-5)
    # Scoring a subset uses the deck as reference: rows equal the full deck's rows.
    np.testing.assert_allclose(perception.scores(photos[1:3], words), expected[1:3], atol=1e-5)
    # Within each word, the card with the highest cosine gets the highest score.
    assert np.array_equal(cosine.argmax(axis=0), perception.scores(photos, words).argmax(axis=0))


def test_image_cache_is_keyed_by_content_not_name(tiny_clip, photos, tmp_path):
    _, checkpoint = tiny_clip
    cache = tmp_path / "embeddings"
    perception = ClipPerception(
        [], model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=cache
    )
    first = perception.embed_images(photos[:1])

    renamed_path = photos[0].path.with_name("renamed.png")
    shutil.move(photos[0].path, renamed_path)
    renamed = read_card(renamed_path, "renamed.png")
    fresh = ClipPerception(
        [], model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=cache
    )
    np.testing.assert_array_equal(fresh.embed_images([renamed]), first)
    assert (fresh.image_cache.hits, fresh.image_cache.misses) == (1, 0)

    changed = read_card(_photo(renamed_path, seed=99), "renamed.png")
    assert changed.sha256 != renamed.sha256
    fresh.embed_images([changed])
    assert (fresh.image_cache.hits, fresh.image_cache.misses) == (1, 1)


def test_corrupt_cache_file_is_recomputed(tiny_clip, photos, tmp_path):
    _, checkpoint = tiny_clip
    cache = tmp_path / "embeddings"
    perception = ClipPerception(
        [], model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=cache
    )
    good = perception.embed_images(photos[:1])
    files = list(perception.image_cache.folder.rglob(f"{photos[0].sha256}.npy"))
    assert len(files) == 1
    files[0].write_bytes(b"\x93NUMPY truncated")
    fresh = ClipPerception(
        [], model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=cache
    )
    np.testing.assert_allclose(fresh.embed_images(photos[:1]), good, atol=1e-6)
    assert fresh.image_cache.misses == 1
    assert np.load(files[0]).shape == (32,)  # rewritten


def test_embedding_cache_rejects_wrong_length_and_bad_keys(tmp_path):
    cache = EmbeddingCache("unit", root=tmp_path, dim=4)
    cache.put("ab" * 32, np.arange(3, dtype=np.float64))
    assert cache.get("ab" * 32) is None  # wrong length counts as corrupt
    cache.put("cd" * 32, np.arange(4))
    vector = cache.get("cd" * 32)
    assert vector.dtype == np.float32 and vector.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="hex digest"):
        cache.get("../../etc/passwd")


def test_non_default_architecture_gets_its_own_tag_and_fix(monkeypatch):
    monkeypatch.setattr(models.clip, "_clip_hub_cache_file", lambda hf_hub: None)
    tag = open_clip.list_pretrained_tags_by_model("RN50")[0]
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_clip(model_name="RN50")
    assert f"No CLIP weights for RN50 {tag}" in str(info.value)
    assert f"kiekai models --fetch --clip-model RN50 --clip-pretrained {tag}" in str(info.value)
    monkeypatch.setenv("KIEKAI_CLIP_PRETRAINED", "no-such-tag")
    with pytest.raises(models.ModelUnavailable, match="no pretrained tag 'no-such-tag' for RN50"):
        models.resolve_clip(model_name="RN50")


def test_word_embeddings_do_not_depend_on_batching(tiny_clip, tmp_path):
    _, checkpoint = tiny_clip
    words = [f"thing_{i}" for i in range(clip_module.WORDS_PER_BATCH + 3)] + ["thing_0"]

    def fresh(folder: str) -> ClipPerception:
        return ClipPerception(
            [],
            model_name=TINY,
            checkpoint=str(checkpoint),
            progress=False,
            cache_root=tmp_path / folder,
        )

    together = fresh("a").embed_words(words)
    one_by_one = fresh("b")
    alone = np.stack([one_by_one.embed_words([word])[0] for word in words])
    assert together.shape == (len(words), 32) and together.dtype == np.float32
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    # The prompt ensemble is not just the first template: "thing 0" alone differs.
    model, _, tokenizer, _ = models.load_clip(model_name=TINY, checkpoint=checkpoint)
    with torch.inference_mode():
        single = model.encode_text(tokenizer(["a photo of a thing 0."]), normalize=True)[0]
    assert not np.allclose(together[0], single.numpy(), atol=1e-4)


def test_duplicate_photos_are_embedded_once(tiny_clip, photos, tmp_path):
    _, checkpoint = tiny_clip
    perception = ClipPerception(
        [], model_name=TINY, checkpoint=str(checkpoint), progress=False, cache_root=tmp_path
    )
    twice = [photos[0], photos[1], photos[0]]
    vectors = perception.embed_images(twice)
    assert perception.image_cache.misses == 2
    np.testing.assert_array_equal(vectors[0], vectors[2])
