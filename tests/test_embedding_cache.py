"""The on-disk vector cache (kiekai.perception.cache): what put() writes reads back through
the header fast path, and every other file (another length, NumPy's own writing of another
dtype, a cut-short or foreign file) still reads, or is a miss, as np.load says."""

from __future__ import annotations

import numpy as np
import pytest

from kiekai.perception.cache import EmbeddingCache, text_key


@pytest.mark.parametrize("dim", [1, 11, 47, 1000])
def test_a_put_vector_reads_back_exactly(tmp_path, dim: int) -> None:
    cache = EmbeddingCache("test|v1", root=tmp_path, dim=dim)
    vector = np.random.default_rng(dim).normal(size=dim).astype(np.float32)
    cache.put(text_key("a"), vector)
    again = EmbeddingCache("test|v1", root=tmp_path, dim=dim).get(text_key("a"))
    assert again is not None and again.dtype == np.float32 and again.flags.writeable
    assert np.array_equal(again, vector)
    assert cache.header is not None
    assert cache._path(text_key("a")).read_bytes().startswith(cache.header)


def test_a_file_numpy_wrote_otherwise_is_read_by_np_load(tmp_path) -> None:
    cache = EmbeddingCache("test|v1", root=tmp_path, dim=4)
    path = cache._path(text_key("b"))
    path.parent.mkdir(parents=True)
    np.save(path, np.arange(4, dtype=">f4"))  # big-endian: not the fast path's header
    assert cache.get(text_key("b")) is None  # not native float32: a miss, and deleted
    assert not path.exists()
    np.save(path, np.arange(4, dtype=np.float32)[::-1].copy())
    assert np.array_equal(cache.get(text_key("b")), [3, 2, 1, 0])


@pytest.mark.parametrize(
    "damage",
    [lambda b: b[:-4], lambda b: b[:-3], lambda b: b[:20], lambda b: b"", lambda b: b + b"\0" * 8],
)
def test_a_damaged_file_is_a_miss_and_is_deleted(tmp_path, damage) -> None:
    cache = EmbeddingCache("test|v1", root=tmp_path, dim=8)
    cache.put(text_key("c"), np.ones(8, dtype=np.float32))
    path = cache._path(text_key("c"))
    path.write_bytes(damage(path.read_bytes()))
    assert cache.get(text_key("c")) is None
    assert not path.exists() and cache.misses == 1


def test_a_non_finite_vector_is_a_miss(tmp_path) -> None:
    cache = EmbeddingCache("test|v1", root=tmp_path, dim=3)
    cache.put(text_key("d"), np.array([1.0, np.nan, 2.0], dtype=np.float32))
    assert cache.get(text_key("d")) is None
