"""The category vocabulary (data/vocabulary.tsv) and the WordNet helpers of kiekai.lexicon."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kiekai.lexicon import (
    Vocabulary,
    VocabularyError,
    as_vocabulary,
    depth,
    descendant_count,
    hypernym_closure,
    intrinsic_ic,
    load_vocabulary,
    synset_for_label,
    synset_for_wnid,
)
from kiekai.models import wordnet

pytestmark = pytest.mark.slow

GROUPS = {
    "animal",
    "plant",
    "food",
    "vehicle",
    "building",
    "clothing",
    "furniture",
    "object",
    "person",
    "scene",
    "nature",
    "material",
    "colour",
    "quality",
}


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return load_vocabulary()


def test_vocabulary_size_groups_and_frequencies(vocab: Vocabulary) -> None:
    assert 300 <= len(vocab) <= 2000
    assert len(set(vocab.words)) == len(vocab)
    assert set(vocab.groups) <= GROUPS
    # every group the issue names is represented by several words
    counts = {g: vocab.groups.count(g) for g in GROUPS}
    assert all(counts[g] >= 5 for g in GROUPS), counts
    assert vocab.zipf.dtype == np.float32 and vocab.zipf.shape == (len(vocab),)
    # wordfreq: "dog" is far commoner than "reptile"
    assert vocab.zipf[vocab.index("dog")] > vocab.zipf[vocab.index("reptile")] + 1.0
    assert list(vocab) == list(vocab.words)


def test_every_synset_exists_in_wordnet_and_is_a_noun(vocab: Vocabulary) -> None:
    wn = wordnet()
    for word, names in zip(vocab.words, vocab.synsets, strict=True):
        for name in names:
            assert wn.synset(name).pos() == "n", (word, name)


@pytest.mark.parametrize(
    ("word", "synset"),
    [
        ("dog", "dog.n.01"),
        ("bird", "bird.n.01"),
        ("vehicle", "vehicle.n.01"),
        ("instrument", "musical_instrument.n.01"),
        ("tree", "tree.n.01"),
        ("chair", "chair.n.01"),
        ("house", "house.n.01"),
    ],
)
def test_everyday_senses(vocab: Vocabulary, word: str, synset: str) -> None:
    assert synset in vocab.synsets[vocab.index(word)]


def test_colours_and_qualities_have_no_synsets_and_technical_words_are_out(
    vocab: Vocabulary,
) -> None:
    for word in ("red", "blue", "shiny", "old"):
        assert word in vocab and vocab.synsets[vocab.index(word)] == ()
    # a quality or material that whole kinds of things have is grounded in them (objects
    # perceptions can score it); the rest only a perception of the photo (CLIP) can tell
    assert "zebra.n.01" in vocab.synsets[vocab.index("striped")]
    assert "violin.n.01" in vocab.synsets[vocab.index("wooden")]
    for word in ("carnivore", "vertebrate", "instrumentality", "entity"):
        assert word not in vocab
    # one word per meaning: the synset's head word, not its synonym
    assert "clothing" in vocab and "clothes" not in vocab


def test_specificity_orders_kinds(vocab: Vocabulary) -> None:
    spec = vocab.specificity
    assert spec.dtype == np.float32 and ((spec >= 0) & (spec <= 1)).all()
    assert spec[vocab.index("animal")] < spec[vocab.index("mammal")] < spec[vocab.index("dog")]
    assert spec[vocab.index("red")] == pytest.approx(0.5)


def test_subset_and_common(vocab: Vocabulary) -> None:
    common = vocab.common(4.5)
    assert 0 < len(common) < len(vocab)
    assert (common.zipf >= 4.5).all()
    assert "reptile" not in common and "dog" in common
    with pytest.raises(ValueError, match="keep mask"):
        vocab.subset([True, False])


def test_as_vocabulary_from_words(vocab: Vocabulary) -> None:
    small = as_vocabulary(["Dog", "dog", "zorblax"])
    assert small.words == ("dog", "zorblax")
    assert small.synsets[0] == vocab.synsets[vocab.index("dog")]
    assert small.groups[1] == "other" and small.synsets[1] == ()
    assert as_vocabulary(vocab) is vocab
    with pytest.raises(VocabularyError, match="empty"):
        as_vocabulary([])


def test_load_vocabulary_errors(tmp_path: Path) -> None:
    with pytest.raises(VocabularyError, match="missing"):
        load_vocabulary(tmp_path / "nope.tsv")
    bad_header = tmp_path / "h.tsv"
    bad_header.write_text("term\tkind\n", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"h\.tsv:1"):
        load_vocabulary(bad_header)
    bad_synset = tmp_path / "s.tsv"
    bad_synset.write_text(
        "word\tgroup\tsynsets\ndog\tanimal\tdog.n.01\ncat\tanimal\tcat\n", "utf-8"
    )
    with pytest.raises(VocabularyError, match=r"s\.tsv:3.*'cat'"):
        load_vocabulary(bad_synset)
    duplicate = tmp_path / "d.tsv"
    duplicate.write_text("word\tgroup\tsynsets\ndog\tanimal\t\nDog\tanimal\t\n", "utf-8")
    with pytest.raises(VocabularyError, match="duplicate"):
        load_vocabulary(duplicate)
    good = tmp_path / "g.tsv"
    good.write_text("word\tgroup\tsynsets\ndog\tanimal\tdog.n.01\nred\tcolour\t\n", "utf-8")
    small = load_vocabulary(good)
    assert small.words == ("dog", "red") and small.synsets == (("dog.n.01",), ())


def test_synset_for_wnid() -> None:
    assert synset_for_wnid("n01440764").name() == "tench.n.01"
    for bad in ("", "01440764", "n0144", "x01440764"):
        with pytest.raises(ValueError, match="8 digits"):
            synset_for_wnid(bad)
    with pytest.raises(ValueError, match="no WordNet 3.0 noun synset"):
        synset_for_wnid("n99999999")


def test_hypernym_closure_depth_and_instances() -> None:
    wn = wordnet()
    tench = wn.synset("tench.n.01")
    closure = hypernym_closure(tench)
    assert tench in closure
    assert wn.synset("fish.n.01") in closure and wn.synset("animal.n.01") in closure
    assert wn.synset("vehicle.n.01") not in closure
    # instance hypernyms: the Eiffel Tower is an instance of tower
    assert wn.synset("tower.n.01") in hypernym_closure(wn.synset("eiffel_tower.n.01"))
    assert depth(wn.synset("entity.n.01")) == 0
    assert depth(wn.synset("dog.n.01")) > depth(wn.synset("animal.n.01"))


def test_intrinsic_ic() -> None:
    wn = wordnet()
    leaf = wn.synset("tench.n.01")
    assert descendant_count(leaf) == 0
    assert intrinsic_ic([leaf]) == pytest.approx(1.0)
    assert intrinsic_ic([wn.synset("entity.n.01")]) < 0.05
    assert intrinsic_ic([wn.synset("animal.n.01")]) < intrinsic_ic([wn.synset("dog.n.01")])
    assert intrinsic_ic([]) == 0.5


def test_synset_for_label() -> None:
    assert synset_for_label("golden retriever").name() == "golden_retriever.n.01"
    assert synset_for_label("Dogs").name() == "dog.n.01"
    assert synset_for_label("very fluffy dog").name() == "dog.n.01"  # head noun
    assert synset_for_label("zorblaxian qwfp") is None
    assert synset_for_label("  ") is None


def test_checkable_senses_are_declared_wordnet_senses_of_nouns(vocab: Vocabulary) -> None:
    """Only senses WordNet itself gives the word can be confirmed on a photo's synset."""
    from kiekai.lexicon import checkable_senses, mainly_adjective, wordnet_noun_senses

    def senses(word: str) -> frozenset[str]:
        return checkable_senses(word, vocab.synsets[vocab.index(word)])

    assert senses("dog") == {"dog.n.01"}
    assert senses("sports") == frozenset()  # declared sports_equipment: not a WordNet sense
    assert senses("kitchen") == {"kitchen.n.01"}  # the room; utensils are declared only
    assert mainly_adjective("red") and not mainly_adjective("dog")
    assert checkable_senses("red", ("red.n.01",)) == frozenset()
    assert [s.name() for s in wordnet_noun_senses("living thing")][0] == "living_thing.n.01"


def test_level_subsets_share_specificity(vocab: Vocabulary) -> None:
    common = vocab.common(4.0)
    assert vocab.common(4.0) is common  # one subset per level and process
    np.testing.assert_array_equal(common.specificity, vocab.specificity[vocab.zipf >= 4.0])


def test_sense_index_maps_declared_synsets(vocab: Vocabulary) -> None:
    from kiekai.lexicon import sense_index

    index = sense_index(vocab)
    assert sense_index(vocab) is index
    assert vocab.index("dog") in index["dog.n.01"]
    assert vocab.index("kitchen") in index["kitchen_utensil.n.01"]


def test_kinds_concreteness_and_misread_senses(vocab: Vocabulary) -> None:
    from kiekai.lexicon import KINDS

    assert set(vocab.kinds) == set(KINDS)
    kind = dict(zip(vocab.words, vocab.kinds, strict=True))
    assert kind["dog"] == "category" and kind["black"] == "colour" and kind["dark"] == "light"
    assert (
        kind["wooden"] == "material"
        and kind["outdoors"] == "setting"
        and kind["furry"] == "quality"
    )
    # no taxonomy jargon: the words the issue names are not offered at all
    for word in (
        "chordate",
        "vertebrate",
        "instrumentality",
        "artifact",
        "organism",
        "placental",
        "instrumentation",
        "living thing",
        "device",
    ):
        assert word not in vocab, word
    # Brysbaert et al. (2014): dog is rated very concrete; NaN where a word is unrated
    assert vocab.concreteness[vocab.index("dog")] > 4.5
    assert vocab.concreteness.dtype == np.float32
    # "instrument" is also WordNet's instrument.n.01 (above clocks and rifles): a misreading
    assert "instrument.n.01" in vocab.misread[vocab.index("instrument")]
    assert vocab.misread[vocab.index("dog")] == ()
    # grounded qualities name the WordNet categories a plain reading holds of
    assert "wheeled_vehicle.n.01" in vocab.synsets[vocab.index("wheels")]
    assert vocab.synsets[vocab.index("black")] == ()
    sub = vocab.subset(np.asarray([k == "colour" for k in vocab.kinds]))
    assert set(sub.kinds) == {"colour"} and len(sub.misread) == len(sub)


def test_optional_columns_are_checked(tmp_path: Path) -> None:
    bad_kind = tmp_path / "k.tsv"
    bad_kind.write_text("word\tgroup\tsynsets\tkind\ncat\tanimal\tcat.n.01\tbeast\n")
    with pytest.raises(VocabularyError, match=r"k\.tsv:2: unknown kind 'beast'"):
        load_vocabulary(bad_kind)
    bad_number = tmp_path / "n.tsv"
    bad_number.write_text("word\tgroup\tsynsets\tconcreteness\ncat\tanimal\tcat.n.01\tvery\n")
    with pytest.raises(VocabularyError, match="not a number"):
        load_vocabulary(bad_number)
    bad_column = tmp_path / "c.tsv"
    bad_column.write_text("word\tgroup\tsynsets\tcolour\ncat\tanimal\tcat.n.01\tgrey\n")
    with pytest.raises(VocabularyError, match="unknown column"):
        load_vocabulary(bad_column)
    old = tmp_path / "old.tsv"
    old.write_text("word\tgroup\tsynsets\ncat\tanimal\tcat.n.01\nstriped\tquality\t\n")
    small = load_vocabulary(old)
    assert small.kinds == ("category", "quality") and np.isnan(small.concreteness).all()
