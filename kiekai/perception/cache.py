"""On-disk cache of embedding vectors: one small ``.npy`` file per (namespace, key).

A namespace names what produced the vectors (e.g. ``"image|ViT-B-32-256/datacomp_s34b_b86k|v1"``);
a key is a hex digest of the input (a photo's SHA-256 content hash, or the hash of a word).
Because image vectors are keyed by content, a renamed photo hits the cache and an edited one
misses it. Files live under ``kiekai.models.cache_dir() / "embeddings"``.

Robustness: writes go to a temporary file in the same folder and are renamed into place, so a
crash never leaves half a vector; a file that cannot be read back as a finite float32 vector of
the expected length (truncated, foreign, another model's) is deleted and counted as a miss.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path

import numpy as np

from kiekai.files import replacing

_HEX = re.compile(r"^[0-9a-f]{8,128}$")


def text_key(text: str) -> str:
    """Return the cache key of a text: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Float32 embedding vectors on disk for one namespace.

    Args:
        namespace: what made the vectors (model key, input kind, preprocessing version); two
            different namespaces never share files.
        root: the embeddings folder (default ``kiekai.models.cache_dir() / "embeddings"``).
        dim: expected vector length D; stored vectors of another length are treated as corrupt.

    Attributes:
        folder: ``root / <readable slug>-<12 hex of sha256(namespace)>``.
        hits, misses: counts of :meth:`get` outcomes since construction.
    """

    def __init__(self, namespace: str, root: Path | None = None, dim: int | None = None) -> None:
        if root is None:
            from kiekai.models import cache_dir

            root = cache_dir() / "embeddings"
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", namespace)[:60]
        self.namespace = namespace
        self.folder = Path(root) / f"{slug}-{hashlib.sha256(namespace.encode()).hexdigest()[:12]}"
        self.dim = dim
        self.hits = 0
        self.misses = 0
        #: the ``.npy`` header (format 1.0) that :func:`numpy.save` writes before a float32
        #: vector of length ``dim`` (``None`` without a ``dim``): a file that starts with it
        #: is read without parsing the header (:meth:`get`: 20 us a vector instead of
        #: ``np.load``'s 95 us, which parses the header's Python literal)
        self.header: bytes | None = None
        if dim is not None:
            buffer = io.BytesIO()
            np.save(buffer, np.zeros(dim, dtype=np.float32), allow_pickle=False)
            self.header = buffer.getvalue()[: -4 * dim]

    def _path(self, key: str) -> Path:
        if not _HEX.match(key):
            raise ValueError(f"embedding cache key must be a lowercase hex digest, got {key!r}")
        return self.folder / key[:2] / f"{key}.npy"

    def get(self, key: str) -> np.ndarray | None:
        """Return the cached vector (float32, shape (D,)) for ``key``, or ``None`` on a miss.

        A corrupt or mismatched file is deleted and reported as a miss.

        Raises:
            ValueError: ``key`` is not a hex digest.
        """
        path = self._path(key)
        vector: np.ndarray | None
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            self.misses += 1
            return None
        except OSError:
            data = b""
        header = self.header
        if header is not None and data.startswith(header):
            # the file as put() writes it: the vector follows the header, nothing to parse
            body = data[len(header) :]
            vector = None
            if len(body) == 4 * (self.dim or 0):
                vector = np.frombuffer(body, dtype=np.float32).copy()
        else:
            try:
                vector = np.load(io.BytesIO(data), allow_pickle=False)
            except (OSError, ValueError, EOFError):
                vector = None
        if (
            vector is None
            or vector.dtype != np.float32
            or vector.ndim != 1
            or (self.dim is not None and vector.shape[0] != self.dim)
            or not np.all(np.isfinite(vector))
        ):
            path.unlink(missing_ok=True)
            self.misses += 1
            return None
        self.hits += 1
        found: np.ndarray = vector
        return found

    def put(self, key: str, vector: np.ndarray) -> None:
        """Store ``vector`` (converted to float32, shape (D,)) under ``key``, atomically.

        A cache that cannot be written (read-only disk, full disk) is not an error for the
        caller: the vector is simply not stored.

        Raises:
            ValueError: ``key`` is not a hex digest, or ``vector`` is not one-dimensional.
        """
        array = np.ascontiguousarray(vector, dtype=np.float32)
        if array.ndim != 1:
            raise ValueError(f"embedding must be 1-D, got shape {array.shape}")
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            meta = self.folder / "namespace.json"
            if not meta.exists():
                meta.write_text(json.dumps({"namespace": self.namespace}), encoding="utf-8")
            with replacing(path) as fh:
                np.save(fh, array, allow_pickle=False)
        except OSError:
            return
