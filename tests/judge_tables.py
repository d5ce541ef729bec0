"""Test helper: a kiekai cache folder whose embedding table holds a few chosen words.

The judge answers without torch only for words in its tables. A fresh machine (CI) has
no 48,000-word embedding table (it takes minutes to build), so tests that check the
fast path make a cache folder of their own: the models, WordNet and the WordNet index
are links to the real cache's (nothing rebuilt), and the embedding table holds only the
words the test judges (built in a few seconds).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kiekai import models
from kiekai.judge import resources, wordnet_index

#: Words with an entry in the small embedding table made by :func:`small_table_cache`.
TABLE_WORDS = (
    "dog", "puppy", "people", "humans", "stones", "rocks", "trees", "cat", "river",
    "creek", "table", "desk", "boat", "ship", "coffee", "tea", "car", "automobile",
    "sun", "sunny", "black", "white", "mouse", "mice", "teeth", "tooth", "grass",
    "dogs", "puppies",  # Judge.warm_up judges these
)  # fmt: skip


def small_table_cache(folder: Path, words: Sequence[str] = TABLE_WORDS) -> Path:
    """Fill ``folder`` as a kiekai cache (``KIEKAI_CACHE_DIR``) with links to the real
    cache's models, WordNet and WordNet index, and an embedding table of ``words``.

    Loads the sentence model in this process (to build the table) and leaves the
    process's own table as it was.
    """
    real = models.cache_dir()
    wordnet_index.open_index(build=True)  # the real cache's index, built once
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("models", "nltk_data", "wordnet-index"):
        link = folder / name
        if not link.exists():
            link.symlink_to(real / name, target_is_directory=True)
    saved_env = os.environ.get("KIEKAI_CACHE_DIR")
    builder = resources.Resources(embedding_table=None)  # the process's own stay as they are
    os.environ["KIEKAI_CACHE_DIR"] = str(folder)
    try:
        builder.load_embedding_table(words=list(words), build=True)
    finally:
        if saved_env is None:
            os.environ.pop("KIEKAI_CACHE_DIR", None)
        else:
            os.environ["KIEKAI_CACHE_DIR"] = saved_env
    return folder
