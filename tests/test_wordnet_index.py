"""The judge's compact WordNet index answers exactly as NLTK's reader does.

The index (``kiekai/judge/wordnet_index.py``) is a drop-in for the part of NLTK's
``WordNetCorpusReader`` the judge calls; these tests compare the two word by word and
synset by synset, so that a change in NLTK, in WordNet or in what the judge reads is
caught here rather than as a changed verdict.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kiekai import models
from kiekai.judge import resources
from kiekai.judge import wordnet_index as wi

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]

#: Inflected and irregular forms, compounds and odd strings besides the sampled words.
SPECIAL_WORDS = [
    "mice", "teeth", "people", "geese", "running", "happier", "best", "dogs", "axes",
    "ice_cream", "human_beings", "better", "worse", "children", "oxen", "went", "lying",
    "bases", "wolves", "boxes", "leaves", "stripped", "stones", "ran", "x-ray", "a",
    "", "_", "qzxv", "mr.", "st._john's_wort", "instrumentality", "instrumentation",
]  # fmt: skip


@pytest.fixture(scope="module")
def readers() -> tuple[wi.WordNetIndex, object]:
    """(the index, NLTK's reader) for the same WordNet."""
    index = wi.open_index(build=True)
    return index, models.wordnet()


def _words(nltk_reader, count: int = 2500) -> list[str]:
    """Common English words, random WordNet lemma forms (fixed seed) and special cases."""
    from wordfreq import top_n_list

    lemma_forms = sorted(nltk_reader._lemma_pos_offset_map)
    random.Random(7).shuffle(lemma_forms)
    common = [w for w in top_n_list("en", 40_000) if w.isalpha()]
    random.Random(8).shuffle(common)
    return common[:count] + lemma_forms[:count] + SPECIAL_WORDS


def _synset_facts(synset) -> dict:
    """Everything the index stores about a synset, as plain data."""
    facts = {
        "name": synset.name(),
        "pos": synset.pos(),
        "offset": synset.offset(),
        "lexname": synset.lexname(),
        "definition": synset.definition(),
        "examples": synset.examples(),
        "min_depth": synset.min_depth(),
        "max_depth": synset.max_depth(),
        "lemmas": [
            (lem.name(), lem.key(), lem.count(), lem.syntactic_marker()) for lem in synset.lemmas()
        ],
    }
    for method in wi.RELATIONS:
        facts[method] = sorted(s.name() for s in getattr(synset, method)())
    for lem in synset.lemmas():
        for method in {**wi.RELATIONS, **wi.LEMMA_RELATIONS}:
            facts[f"{lem.name()}.{method}"] = [
                (other.synset().name(), other.name()) for other in getattr(lem, method)()
            ]
    return facts


def test_lookups_equal_nltk_on_thousands_of_words(readers) -> None:
    index, nltk_reader = readers
    index.fallbacks.clear()
    differences = []
    compared = 0
    for word in _words(nltk_reader):
        for pos in ("n", "v", "a", "s", "r"):
            if index._morphy(word, pos) != nltk_reader._morphy(word, pos):
                differences.append(("_morphy", word, pos))
            mine = [s.name() for s in index.synsets(word, pos)]
            if mine != [s.name() for s in nltk_reader.synsets(word, pos)]:
                differences.append(("synsets", word, pos))
        if index.morphy(word) != nltk_reader.morphy(word):
            differences.append(("morphy", word))
        pairs = list(zip(index.synsets(word), nltk_reader.synsets(word), strict=False))
        if len(pairs) != len(nltk_reader.synsets(word)):
            differences.append(("synsets", word))
        for mine, theirs in pairs:
            compared += 1
            a, b = _synset_facts(mine), _synset_facts(theirs)
            if a != b:
                differences.append(
                    ("synset", word, mine.name(), [k for k in a if a[k] != b.get(k)])
                )
    assert compared > 10_000
    assert not differences, differences[:20]
    assert not index.fallbacks  # every answer came from the index


def test_objects_mix_with_nltks_and_refuse_the_rest(readers) -> None:
    index, nltk_reader = readers
    dog, nltk_dog = index.synset("dog.n.01"), nltk_reader.synset("dog.n.01")
    assert dog == nltk_dog and nltk_dog == dog and hash(dog) == hash(nltk_dog)
    assert {dog, nltk_dog} == {dog} and repr(dog) == "Synset('dog.n.01')"
    assert index.synsets("dog")[0] is dog  # one object per synset
    cat = index.synset("cat.n.01")
    assert [s.name() for s in dog.lowest_common_hypernyms(cat)] == [
        s.name() for s in nltk_dog.lowest_common_hypernyms(nltk_reader.synset("cat.n.01"))
    ]
    # NLTK lists a synset's hypernyms in set order, which varies between processes
    assert sorted([s.name() for s in p] for p in dog.hypernym_paths()) == sorted(
        [s.name() for s in p] for p in nltk_dog.hypernym_paths()
    )
    assert sorted(s.name() for s in dog.closure(lambda s: s.hypernyms())) == sorted(
        s.name() for s in nltk_dog.closure(lambda s: s.hypernyms())
    )
    assert index.synset_from_pos_and_offset("n", 2084071) == dog
    assert index.get_version() == nltk_reader.get_version() == "3.0"
    for name in wi.STORED_FILES:
        with index.open(name) as mine, nltk_reader.open(name) as theirs:
            assert mine.read() == theirs.read()
    # a question the index does not store raises instead of loading NLTK's reader
    fresh = wi.WordNetIndex(index.path, nltk_reader=lambda: pytest.fail("NLTK was loaded"))
    for asked in (
        lambda: fresh.synset("dog.n.01").path_similarity(fresh.synset("cat.n.01")),
        lambda: fresh.synset("dog.n.01").lemmas()[0].frame_strings(),
        lambda: fresh.lemma_count,
    ):
        with pytest.raises(AttributeError, match="WordNet index's .* has no .*NLTK's reader"):
            asked()
    assert not hasattr(fresh, "ic") and fresh._nltk_reader is None
    assert not fresh.fallbacks
    with pytest.raises(ValueError, match="no WordNet synset named"):
        index.synset("dog.n.99")


def test_the_judges_verdicts_are_the_same_with_nltks_reader() -> None:
    """The judge's evidence (relation and every feature) for varied pairs, computed in a
    process reading the index and in one reading NLTK (``KIEKAI_WORDNET_INDEX=off``)."""
    pairs = [
        ("people", "humans"), ("dog", "puppy"), ("dog", "cat"), ("black", "white"),
        ("mice", "mouse"), ("car", "automobile"), ("hot", "warm"), ("sun", "sunny"),
        ("instrumentality", "instrumentation"), ("glasses", "spectacles"), ("bug", "insect"),
        ("kitty", "cat"), ("happy", "unhappy"), ("night", "dark"), ("river", "creek"),
        ("teeth", "tooth"), ("human beings", "people"), ("colour", "color"), ("ship", "boat"),
        ("morning", "evening"), ("plane", "aircraft"), ("sad", "unhappy"), ("run", "ran"),
        ("garbage", "trash"), ("candy", "sweets"), ("stairs", "staircase"), ("qzxv", "dog"),
    ]  # fmt: skip
    script = (
        "import json, sys\n"
        "from kiekai.judge.features import evidence\n"
        "from kiekai.judge import resources\n"
        "out = []\n"
        "for a, b in json.loads(sys.argv[1]):\n"
        "    ev = evidence(a, b)\n"
        "    f = None if ev.features is None else [round(float(x), 12) for x in ev.features]\n"
        "    out.append([ev.relation, ev.detail, f])\n"
        "print(json.dumps({'kind': type(resources.wordnet()).__name__, 'out': out}))\n"
    )
    results = {}
    for setting in ("on", "off"):
        env = dict(os.environ, KIEKAI_WORDNET_INDEX=setting)
        done = subprocess.run(
            [sys.executable, "-c", script, json.dumps(pairs)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        results[setting] = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["on"]["kind"] == "WordNetIndex"
    assert results["off"]["kind"] == "WordNetCorpusReader"
    assert results["on"]["out"] == results["off"]["out"]


def test_the_index_is_keyed_by_its_source(tmp_path) -> None:
    """A WordNet file that changes (size or modification time), another folder or
    another NLTK gives another key, hence another file: a stale index is never read."""
    folder = tmp_path / "wordnet"
    folder.mkdir()
    for name in wi.SOURCE_FILES:
        (folder / name).write_text("x")
    first = wi.source_identity(folder)
    assert wi.identity_key(first) == wi.identity_key(wi.source_identity(folder))
    os.utime(folder / "data.noun", ns=(1, 1))
    second = wi.source_identity(folder)
    assert wi.identity_key(second) != wi.identity_key(first)
    (folder / "index.noun").write_text("xy")
    assert wi.identity_key(wi.source_identity(folder)) != wi.identity_key(second)
    assert first["nltk"] == wi.nltk_version() != "absent"
    assert first["format"] == wi.INDEX_FORMAT


def test_built_on_first_use_with_progress_and_reused(tmp_path, monkeypatch, readers) -> None:
    """In a cache without it the first opening builds the index (reporting its progress),
    keeps only the newest indexes of other sources (virtual environments with other
    NLTK versions may share a cache), and the next opening reads it without building."""
    _, nltk_reader = readers
    monkeypatch.setattr(wi, "index_folder", lambda: tmp_path)
    for age in range(1, 4):  # indexes of other sources, the oldest first to go
        old = tmp_path / f"wordnet-000{age}other.sqlite"
        old.write_text("an index of another WordNet or NLTK")
        os.utime(old, (1_000_000 - age, 1_000_000 - age))
    lines: list[str] = []
    index = wi.open_index(report=lines.append, nltk_reader=lambda: nltk_reader)
    assert lines[0].startswith("building the judge's WordNet index in")
    assert any("synsets read" in line for line in lines)
    assert lines[-1].startswith("WordNet index built in")
    kept = sorted(p.name for p in tmp_path.glob("wordnet-*.sqlite"))
    assert kept == sorted([index.path.name, "wordnet-0001other.sqlite", "wordnet-0002other.sqlite"])
    assert wi.KEEP_INDEXES == 3
    assert int(index.meta["synsets"]) == 117_659  # WordNet 3.0, adjective satellites included
    assert [s.name() for s in index.synsets("dogs")] == [
        s.name() for s in nltk_reader.synsets("dogs")
    ]
    lines.clear()
    again = wi.open_index(report=lines.append, nltk_reader=lambda: nltk_reader)
    assert again.path == index.path and lines == []
    assert wi.open_index(build=False).path == index.path


def test_a_cache_that_cannot_be_written_falls_back_to_nltk(tmp_path, monkeypatch) -> None:
    """No index can be built: one warning, and the judge reads WordNet through NLTK."""
    monkeypatch.setattr(wi, "index_folder", lambda: tmp_path / "missing")

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(wi.tempfile, "mkstemp", read_only)
    fresh = resources.Resources()  # nothing opened yet
    with pytest.warns(RuntimeWarning, match="WordNet index cannot be written"):
        reader = fresh.wordnet()
    assert type(reader).__name__ == "WordNetCorpusReader"
    assert fresh.wordnet() is reader  # opened once


def test_lemminflect_table_equals_lemminflects_own(readers) -> None:
    """Every entry of lemminflect's lemma table, read from the index, equals the table
    lemminflect loads itself; and lemminflect answers the same from either."""
    from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec
    from lemminflect.core.Lemmatizer import Lemmatizer

    index, _ = readers
    own = LemmaLUCodec.load(str(wi.lemminflect_table()))
    assert int(index.meta["lemminflect_words"]) == len(own) > 60_000
    lookup = wi.LemminflectLookup(index)
    assert all(lookup.get(word) == entry for word, entry in own.items())
    assert lookup.get("qzxv", {}) == {} and "mice" in lookup and "qzxv" not in lookup

    lemmatizer = Lemmatizer()
    saved = lemmatizer.__dict__.pop("lemma_dict", None)
    try:
        words = [*list(own)[::50], "Mice", "RUNNING", "qzxv", "geese"]
        lemmatizer.lemma_dict = own
        expected = [lemmatizer.getAllLemmas(w) for w in words]
        del lemmatizer.lemma_dict
        assert index.install_lemminflect()
        assert isinstance(lemmatizer.lemma_dict, wi.LemminflectLookup)
        assert [lemmatizer.getAllLemmas(w) for w in words] == expected
    finally:
        if saved is not None:
            lemmatizer.lemma_dict = saved
