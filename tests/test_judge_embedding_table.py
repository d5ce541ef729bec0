"""The judge's embedding table (``kiekai.judge.resources``): MiniLM vectors of common words
kept in kiekai's cache so that a new word costs a lookup instead of an encode.

Every table here is built over a handful of words in a temporary cache folder
(``KIEKAI_CACHE_DIR``), so the tests take seconds and never touch the user's cache.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator

import numpy as np
import pytest

from kiekai.judge import Judge, features, resources
from kiekai.judge.normalize import normalise
from kiekai.judge.wordnet_index import WordNetIndex

#: Words of the test tables: the rulebook's examples and everyday pairs.
WORDS = [
    "dog", "puppy", "boat", "ship", "river", "creek", "coffee", "tea", "people", "humans",
    "persons", "table", "desk", "car", "automobile", "black", "white",
]  # fmt: skip
#: (secret, guess) pairs judged with and without the table.
PAIRS = [
    ("dog", "puppy"),
    ("boat", "ship"),
    ("people", "humans"),
    ("coffee", "tea"),
    ("river", "creek"),
    ("table", "desk"),
    ("car", "automobile"),
    ("black", "white"),
]


@pytest.fixture(scope="module")
def models_loaded() -> resources.Resources:
    """WordNet and MiniLM loaded from the normal cache before any test points
    ``KIEKAI_CACHE_DIR`` at a temporary folder."""
    shared = resources.default_resources()
    shared.wordnet()
    shared.sentence_model()
    return shared


@pytest.fixture
def cache(tmp_path, monkeypatch, models_loaded) -> Iterator:
    """An empty kiekai cache folder, and fresh :class:`Resources` in force (no table,
    no encoded words, no warnings given yet) that share the loaded WordNet and MiniLM."""
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    fresh = resources.Resources(
        wordnet=models_loaded.wordnet(),
        encoder=models_loaded.sentence_model(),
        embedding_table=None,
    )
    with fresh.use():
        yield tmp_path
    features.clear_caches()


def _forget_table() -> None:
    """As in a new process: no table loaded yet, the cache not looked in yet."""
    resources.current().forget_embedding_table()


def _verdicts(levels=("standard", "lenient")) -> list[tuple]:
    """Verdicts of :data:`PAIRS`, computed afresh (the judge's pair cache emptied)."""
    features.clear_caches()
    out = []
    for level in levels:
        judge = Judge(level)
        for secret, guess in PAIRS:
            v = judge.match(secret, guess)
            out.append((level, secret, guess, v.accepted, v.score, v.relation, v.reason))
    return out


def test_table_words_are_common_normalised_alphabetic_words() -> None:
    words = resources.table_words(3000)
    assert 2500 < len(words) <= 3000
    assert len(set(words)) == len(words)
    assert all(w.isalpha() and normalise(w) == w for w in words)
    assert words.index("the") < words.index("dog")  # most frequent first
    assert "café" not in words  # judged as "cafe"
    with pytest.raises(ValueError, match="positive"):
        resources.table_words(0)


def test_table_vectors_equal_on_the_fly_vectors(cache) -> None:
    table = resources.load_embedding_table(words=WORDS, build=True)
    assert table is not None and table.built_now and len(table) == len(WORDS)
    assert table.vectors.dtype == np.float32 and table.vectors.shape == (len(WORDS), 384)
    resources.use_embedding_table(None)  # from now on every word is encoded on the fly
    for word in WORDS:
        fresh = resources.embedding(word)
        np.testing.assert_allclose(table.get(word), fresh, rtol=0, atol=1e-6)
        assert abs(float(np.linalg.norm(table.get(word))) - 1.0) < 1e-5
    assert table.get("no-such-word") is None


def test_saved_table_is_read_back_and_used_without_the_model(cache, monkeypatch) -> None:
    built = resources.load_embedding_table(words=WORDS, build=True)
    files = sorted(p.name for p in (cache / "embeddings").glob("minilm-words-*"))
    assert [f.rsplit(".", 1)[1] for f in files] == ["json", "npy"]
    assert not [p for p in (cache / "embeddings").iterdir() if p.name.startswith(".")]

    _forget_table()
    read = resources.load_embedding_table(words=WORDS, build=False)
    assert read is not None and not read.built_now and read.path is not None
    np.testing.assert_array_equal(np.asarray(read.vectors), built.vectors)
    assert read.build_s == pytest.approx(built.build_s)

    # a one-shot process finds the saved table by itself and never encodes a tabled word
    _forget_table()

    def no_encode(texts, batch_size=32):
        raise AssertionError(f"encoded {texts} although they are in the table")

    monkeypatch.setattr(resources.current(), "encode", no_encode)
    expected = float(np.dot(built.get("dog"), built.get("puppy")))
    assert resources.cosine("dog", "puppy") == pytest.approx(expected, abs=1e-6)
    assert resources.embedding_table() is not None
    assert resources.embedding_table().key == read.key


def test_table_of_another_model_is_ignored_then_rebuilt(cache, monkeypatch) -> None:
    old = resources.load_embedding_table(words=WORDS, build=True)
    old_files = {p.name for p in (cache / "embeddings").glob("minilm-words-*")}
    identity = resources.model_identity()
    changed = {**identity, "template": "a picture of {}."}  # as if the template had changed
    monkeypatch.setattr(resources, "model_identity", lambda: changed)

    _forget_table()
    assert resources.load_embedding_table(words=WORDS, build=False) is None
    assert resources.find_embedding_table() is None
    new = resources.load_embedding_table(words=WORDS, build=True)
    assert new is not None and new.built_now and new.key != old.key
    files = {p.name for p in (cache / "embeddings").glob("minilm-words-*")}
    assert files and not files & old_files  # the stale table was deleted


def test_damaged_or_tampered_table_is_ignored(cache) -> None:
    table = resources.load_embedding_table(words=WORDS, build=True)
    meta_path = table.path.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta["words"] = list(reversed(meta["words"]))  # rows no longer match their words
    meta_path.write_text(json.dumps(meta))
    _forget_table()
    assert resources.load_embedding_table(words=WORDS, build=False) is None

    meta_path.write_text("{not json")
    assert resources.find_embedding_table() is None
    rebuilt = resources.load_embedding_table(words=WORDS, build=True)
    assert rebuilt is not None and rebuilt.built_now


def test_unwritable_cache_warns_once_and_verdicts_stay_correct(cache, monkeypatch) -> None:
    resources.use_embedding_table(None)
    reference = _verdicts()

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(cache / "embeddings"))

    monkeypatch.setattr(resources.tempfile, "mkstemp", read_only)
    _forget_table()
    with pytest.warns(RuntimeWarning, match="cannot be written.*KIEKAI_CACHE_DIR"):
        assert resources.load_embedding_table(words=WORDS, build=True) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second attempt must not warn again
        assert resources.load_embedding_table(words=WORDS, build=True) is None
    assert not list((cache / "embeddings").glob("minilm-words-*"))
    resources.current().forget_embeddings()
    assert _verdicts() == reference


def test_failed_save_keeps_the_built_table_for_this_process(cache, monkeypatch) -> None:
    def disk_full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(resources.os, "replace", disk_full)
    with pytest.warns(RuntimeWarning, match="could not be saved"):
        table = resources.load_embedding_table(words=WORDS, build=True)
    assert table is not None and table.path is None
    assert resources.embedding_table() is table
    assert not [p for p in (cache / "embeddings").iterdir() if p.name.startswith(".minilm")]
    # asked again, the in-memory table is reused, not built a second time
    assert resources.load_embedding_table(words=WORDS, build=True) is table


def test_verdicts_identical_with_and_without_the_table(cache) -> None:
    resources.use_embedding_table(None)
    without = _verdicts()
    table = resources.load_embedding_table(words=WORDS, build=True)
    resources.use_embedding_table(table)  # empties the per-word cache: lookups from now on
    with_table = _verdicts()
    assert with_table == without
    assert {v[5] for v in without} >= {"synonym", "antonym"}  # the pairs are not all alike


def test_warm_up_builds_the_table_and_reports_it(cache, monkeypatch) -> None:
    monkeypatch.setattr(resources, "table_words", lambda top_n=0: list(WORDS))
    lines: list[str] = []
    Judge("standard").warm_up(build_embedding_table=True, report=lines.append)
    assert len(lines) == 2
    assert lines[0].startswith(f"building the embedding table of {len(WORDS)} ")
    assert lines[1].startswith(f"embedding table built: {len(WORDS)} words in ")
    assert resources.embedding_table() is not None
    assert resources.embedding_table().words == tuple(WORDS)

    # a warm-up that may not build uses the saved table and reports nothing
    _forget_table()
    Judge("standard").warm_up()
    assert resources.embedding_table().words == tuple(WORDS)
    assert os.path.samefile(resources.embedding_table().path.parent, cache / "embeddings")


def test_background_build_puts_the_table_in_use_when_done(cache, monkeypatch) -> None:
    monkeypatch.setattr(resources, "table_words", lambda top_n=0: list(WORDS))
    lines: list[str] = []
    thread = resources.build_embedding_table_in_background(report=lines.append)
    assert thread is not None
    assert resources.cosine("dog", "puppy") > 0.5  # answers during the build
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert resources.embedding_table().words == tuple(WORDS)
    assert lines[-1].startswith(f"embedding table built: {len(WORDS)} words")

    _forget_table()  # the next server start reads it from the cache: no thread
    assert resources.build_embedding_table_in_background() is None
    assert resources.embedding_table().words == tuple(WORDS)


def test_preloading_wordnet_reads_every_synset_once_and_changes_no_verdict(cache) -> None:
    before = _verdicts()
    seconds = resources.preload_wordnet()
    wn = resources.wordnet()
    if isinstance(wn, WordNetIndex):  # one object per synset, kept by the index
        cached = len(wn._synsets)
    else:  # NLTK's reader (KIEKAI_WORDNET_INDEX=off)
        cached = sum(len(by_offset) for by_offset in wn._synset_offset_cache.values())
    assert cached >= 117_659  # every synset of WordNet 3.0 (adjective satellites included)
    assert seconds >= 0.0 and resources.preload_wordnet() == 0.0  # once per process
    assert _verdicts() == before


def test_models_command_shows_and_builds_the_table(cache, monkeypatch) -> None:
    from typer.testing import CliRunner

    from kiekai import models
    from kiekai.cli import app

    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setattr(models.clip, "_clip_hub_cache_file", lambda hf_hub: None)
    monkeypatch.setattr(resources, "table_words", lambda top_n=0: list(WORDS))

    def table_row(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(app, ["models", *args], env={"COLUMNS": "220"})
        row = next(
            line for line in result.output.splitlines() if line.startswith("│ embedding table")
        )
        return result.exit_code, row, result.output

    code, row, output = table_row()
    assert code == 0 and "not built" in row
    assert "kiekai models --build-embeddings" in output
    code, row, output = table_row("--build-embeddings")
    assert code == 0 and "built now" in row and "│ ok" in row, output
    assert f"{len(WORDS)} words" in output
    code, row, _ = table_row()
    assert code == 0 and "cache" in row and "│ ok" in row


def test_a_stopped_background_build_ends_its_thread_and_saves_nothing(cache, monkeypatch) -> None:
    monkeypatch.setattr(resources, "table_words", lambda top_n=0: [f"{w}s" for w in WORDS] * 8)
    # as if the server were already shutting down
    monkeypatch.setattr(resources.current(), "stopping_builds", lambda: True)
    lines: list[str] = []
    thread = resources.build_embedding_table_in_background(report=lines.append)
    assert thread is not None
    resources.stop_background_builds(thread, timeout_s=60)
    assert not thread.is_alive()
    assert "stopped" in lines[-1]
    assert not list((cache / "embeddings").glob("*.npy"))


def test_a_build_reports_its_progress(cache) -> None:
    """A build says how far it got and how long is left (a busy machine took 19 min)."""
    words = [f"{w}" for w in WORDS] + [
        "apple", "banana", "cherry", "grape", "lemon", "melon", "olive", "peach", "pear",
        "plum", "berry", "fig", "lime", "mango", "kiwi", "date", "nut", "seed", "leaf",
        "stem", "root", "bark", "wood", "twig",
    ]  # fmt: skip
    lines: list[str] = []
    table = resources.build_table(words, batch_size=3, report=lines.append)
    assert len(table) == len(words)
    progress = [line for line in lines if "embedding table:" in line]
    assert 5 <= len(progress) <= 11, lines
    done = [int(line.split("embedding table: ")[1].split(" of")[0]) for line in progress]
    assert done == sorted(done) and 0 < done[0] and done[-1] < len(words)
    assert all(f" of {len(words)} words (" in line for line in progress)
    assert all("s left at this pace" in line for line in progress)
