"""WordNet aliases: a synset whose definition calls it another name for something.

``kiekai.judge.lexical.alias_targets`` reads definitions such as "informal terms for a
mother" (ma.n.01) or "general term for any insect ..." (bug.n.01); the ``alias``
feature links such a word to the word for the thing it names. The words here are not
those of ../shared/eval.
"""

from __future__ import annotations

import pytest

from kiekai.judge.features import FEATURES, evidence
from kiekai.judge.lexical import ALIAS_DEFINITION, alias_targets, wordnet_links
from kiekai.judge.resources import wordnet

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("definition", "is_alias"),
    [
        ("informal terms for a mother", True),
        ("a polite name for any woman", True),
        ("slang for a paunch", True),
        ("informal terms referring to a domestic cat", True),
        ("the name of a work of art or literary composition etc.", False),
        ("a person who is entitled by law or by the terms of a will to inherit", False),
        ("a domesticated carnivorous mammal", False),
    ],
)
def test_alias_definition_pattern(definition: str, is_alias: bool) -> None:
    assert bool(ALIAS_DEFINITION.search(definition)) is is_alias


def test_alias_targets_follow_definition_and_hypernyms() -> None:
    wn = wordnet()
    ma = alias_targets(wn.synset("ma.n.01"))  # "informal terms for a mother"
    assert wn.synset("mother.n.01") in ma
    assert alias_targets(wn.synset("mother.n.01")) == frozenset()  # a plain definition
    assert alias_targets(wn.synset("dog.n.01")) == frozenset()


def test_alias_feature_links_informal_name_to_the_thing() -> None:
    assert wordnet_links("mother", "mom").alias > 0.5
    assert wordnet_links("mom", "mother").alias > 0.5  # either direction
    assert wordnet_links("mother", "father").alias == 0.0
    ev = evidence("father", "dad")
    assert ev.features[FEATURES.index("alias")] > 0.5
    assert ev.relation == "synonym"
    assert "another name" in ev.detail
