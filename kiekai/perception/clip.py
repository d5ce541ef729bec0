"""The ``clip`` perception: zero-shot word scores for photos from a CLIP model (open_clip).

CLIP (Radford et al. 2021, "Learning Transferable Visual Models From Natural Language
Supervision", ICML) embeds images and texts in one space; the cosine similarity of a photo's
image embedding and the text embedding of "a photo of a {word}." says how well the word
describes the photo, with no training on kiekai's words (zero-shot). Following the paper's
prompt ensembling (section 3.1.4), each word's text embedding is the normalised mean of the
embeddings of :data:`PROMPT_TEMPLATES`, a handful of the 80 ImageNet templates the paper
published (``open_clip.zero_shot_metadata.OPENAI_IMAGENET_TEMPLATES``) that describe photos.

Calibration across the deck: raw CLIP cosines are not probabilities, and some words sit
higher than others for every image. For each word *w*, its cosines over the deck's reference
cards give a mean ``mu_w`` and standard deviation ``sd_w`` (floored at :data:`MIN_STD`); a
card's score is the logistic

    ``score = 1 / (1 + exp(-SLOPE * ((cos - mu_w) / sd_w - Z_SHIFT)))``

so a card must stand :data:`Z_SHIFT` standard deviations above the deck's average for that
word to pass 0.5. The constants are a documented prior, not fitted to any deck (no CLIP weights
exist on the development machines); ``docs/models.md`` explains them.

Embeddings are cached in memory and on disk (:mod:`kiekai.perception.cache`): images under
(model key, preprocessing version, photo SHA-256), words under (model key, templates, word).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kiekai.deck import Card, OnSkip, decode_photos, warn_skipped
from kiekai.perception.cache import EmbeddingCache, text_key

#: Photo-style prompt templates from CLIP's 80 ImageNet templates (Radford et al. 2021).
PROMPT_TEMPLATES: tuple[str, ...] = (
    "a photo of a {}.",
    "a photo of the {}.",
    "a good photo of a {}.",
    "a close-up photo of a {}.",
    "a bright photo of a {}.",
    "a cropped photo of a {}.",
    "a photo of the small {}.",
    "a photo of the large {}.",
)
#: Longest side (pixels) a photo is decoded at before CLIP's own resize (256 px for the default
#: ViT-B-32-256); part of the image cache namespace, so changing it invalidates cached image embeddings.
DECODE_MAX_SIDE = 448
#: Version of the image pipeline (decode + preprocess) in the cache namespace.
IMAGE_PIPELINE_VERSION = f"v1-max{DECODE_MAX_SIDE}"
#: Logistic slope per standard deviation of the calibration.
SLOPE = 2.0
#: Standard deviations above the deck mean at which a score is 0.5.
Z_SHIFT = 1.0
#: Floor of a word's cosine standard deviation over the deck (cosine units), so that a deck
#: of near-identical photos does not blow small differences up into certainties.
MIN_STD = 0.01
#: Images embedded per forward pass.
BATCH_SIZE = 32
#: Words whose prompts (``len(PROMPT_TEMPLATES)`` each) are embedded per forward pass.
WORDS_PER_BATCH = 16


class ClipPerception:
    """Perception from a CLIP model: calibrated zero-shot scores of words for photos.

    Args:
        cards: the deck's cards; they are the reference set of the calibration (per-word mean
            and standard deviation of cosines) and are kept as :attr:`cards`. Empty: each
            :meth:`scores` call calibrates over the cards it is given.
        model_name, checkpoint, pretrained: which CLIP to load, passed to
            :func:`kiekai.models.load_clip` (``--clip-model``, ``--clip-checkpoint``; defaults
            from ``models/registry.json``).
        progress: show a progress bar while embedding photos that are not cached yet.
        cache_root: folder for the on-disk embedding cache (default
            ``kiekai.models.cache_dir() / "embeddings"``).

    Attributes:
        name: ``"clip"``.
        model_key: identifies the weights (``"ViT-B-32-256/datacomp_s34b_b86k"`` or
            ``"NAME/sha256:HEX"``).
        image_cache, text_cache: the on-disk caches (their ``hits``/``misses`` count lookups).
        failed: content hash -> reason, for photos that could not be decoded.

    Raises:
        kiekai.models.ModelUnavailable: the CLIP weights cannot be found or loaded.
    """

    name = "clip"

    def __init__(
        self,
        cards: Sequence[Card] = (),
        *,
        model_name: str | None = None,
        checkpoint: str | None = None,
        pretrained: str | None = None,
        progress: bool = True,
        cache_root: Any = None,
    ) -> None:
        from kiekai.models import load_clip

        self.model, self.preprocess, self.tokenizer, self.model_key = load_clip(
            model_name, checkpoint, pretrained
        )
        self.cards: list[Card] = list(cards)
        self.progress = progress
        self.image_cache = EmbeddingCache(
            f"image|{self.model_key}|{IMAGE_PIPELINE_VERSION}", root=cache_root
        )
        self.text_cache = EmbeddingCache(
            f"text|{self.model_key}|{'|'.join(PROMPT_TEMPLATES)}", root=cache_root
        )
        self._image_memory: dict[str, np.ndarray] = {}
        self._text_memory: dict[str, np.ndarray] = {}
        self._reference_images: np.ndarray | None = None
        self.failed: dict[str, str] = {}

    # -- embeddings -----------------------------------------------------------------------------

    def embed_images(
        self,
        cards: Sequence[Card],
        progress: bool | None = None,
        *,
        on_skip: OnSkip | None = None,
    ) -> np.ndarray:
        """Return the L2-normalised CLIP image embeddings of ``cards``.

        Each photo is decoded upright in RGB by :func:`kiekai.deck.decode_photos` (longest
        side at most :data:`DECODE_MAX_SIDE` pixels), then CLIP's own preprocessing. Embeddings
        are looked up by the card's content hash (``card.sha256``) in memory, then on disk; only
        the rest are computed, in batches of :data:`BATCH_SIZE`, with a progress bar when
        ``progress`` (default: the constructor's setting). A photo that cannot be decoded (changed
        or removed since the deck was read) is reported to ``on_skip(card id, reason)``
        (default: a :class:`kiekai.deck.DeckWarning`) and gets a zero row, not cached, which
        :meth:`scores` turns into 0.5 ("undecided") for every word.

        Returns:
            float32 array of shape (N, D), rows of unit length (D = 512 for the ViT-B-32
            family), or zero for a photo that cannot be decoded.
        """
        import torch

        progress = self.progress if progress is None else progress
        pending: dict[str, Card] = {}  # content hash -> one card with that photo
        for card in cards:
            if card.sha256 in self._image_memory or card.sha256 in pending:
                continue
            cached = self.image_cache.get(card.sha256)
            if cached is not None:
                self._image_memory[card.sha256] = cached
            else:
                pending[card.sha256] = card
        missing = list(pending.values())
        if missing:
            from tqdm.auto import tqdm

            with tqdm(
                total=len(missing),
                desc="CLIP: embedding photos",
                unit="photo",
                disable=not progress,
            ) as bar:
                for start in range(0, len(missing), BATCH_SIZE):
                    decoded = list(
                        decode_photos(missing[start : start + BATCH_SIZE], DECODE_MAX_SIDE)
                    )
                    for photo in decoded:
                        if photo.image is None:
                            self.failed[photo.card.sha256] = photo.reason or "cannot be decoded"
                            (on_skip or warn_skipped)(photo.name, photo.reason or "")
                            self._image_memory[photo.card.sha256] = np.zeros(
                                self._dim(), np.float32
                            )
                    batch = [photo.card for photo in decoded if photo.image is not None]
                    bar.update(len(decoded) - len(batch))
                    if not batch:
                        continue
                    pixels = torch.stack(
                        [
                            self.preprocess(photo.image)
                            for photo in decoded
                            if photo.image is not None
                        ]
                    )
                    with torch.inference_mode():
                        features = self.model.encode_image(pixels, normalize=True)
                    for card, vector in zip(batch, features.float().numpy(), strict=True):
                        vector = np.ascontiguousarray(vector, dtype=np.float32)
                        self._image_memory[card.sha256] = vector
                        self.image_cache.put(card.sha256, vector)
                    bar.update(len(batch))
        if not cards:
            return np.zeros((0, self._dim()), dtype=np.float32)
        return np.stack([self._image_memory[card.sha256] for card in cards]).astype(np.float32)

    def embed_words(self, words: Sequence[str]) -> np.ndarray:
        """Return the prompt-ensembled CLIP text embedding of each word.

        A word's embedding is the normalised mean of the normalised text embeddings of
        :data:`PROMPT_TEMPLATES` filled with the word (underscores read as spaces, as in
        WordNet lemmas). Cached in memory and on disk by the word's text.

        Returns:
            float32 array of shape (V, D), rows of unit length.
        """
        import torch

        missing: dict[str, None] = {}  # ordered set
        for word in words:
            if word in self._text_memory or word in missing:
                continue
            cached = self.text_cache.get(text_key(word))
            if cached is not None:
                self._text_memory[word] = cached
            else:
                missing[word] = None
        pending = list(missing)
        n_templates = len(PROMPT_TEMPLATES)
        for start in range(0, len(pending), WORDS_PER_BATCH):
            batch = pending[start : start + WORDS_PER_BATCH]
            prompts = [
                template.format(word.replace("_", " ").strip())
                for word in batch
                for template in PROMPT_TEMPLATES
            ]
            with torch.inference_mode():
                features = self.model.encode_text(self.tokenizer(prompts), normalize=True).float()
            means = features.reshape(len(batch), n_templates, -1).mean(dim=1)
            vectors = means / means.norm(dim=1, keepdim=True).clamp_min(1e-12)
            for word, vector in zip(batch, vectors.numpy().astype(np.float32), strict=True):
                self._text_memory[word] = vector
                self.text_cache.put(text_key(word), vector)
        if not words:
            return np.zeros((0, self._dim()), dtype=np.float32)
        return np.stack([self._text_memory[word] for word in words]).astype(np.float32)

    def _dim(self) -> int:
        """The embedding length D (from one cached text embedding)."""
        return int(self.embed_words(["photo"]).shape[1])

    # -- Perception protocol --------------------------------------------------------------------

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): all True (CLIP scores any text zero-shot)."""
        return np.ones(len(words), dtype=bool)

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """Embed every card now (progress bar on the first pass); return ``(card, reason)``
        for photos that cannot be decoded (the reason of :func:`kiekai.deck.decode_photos`;
        the caller reports them, so no warning here), and drop those from the
        calibration's reference cards."""
        self.embed_images(cards, on_skip=lambda card, reason: None)  # reported by the caller
        skipped = [(card, self.failed[card.sha256]) for card in cards if card.sha256 in self.failed]
        bad = {card.id for card, _ in skipped}
        self.cards = [card for card in self.cards if card.id not in bad]
        self._reference_images = None
        return skipped

    def use_reference(self, cards: Sequence[Card]) -> None:
        """Make ``cards`` the calibration's reference set (per-word mean and standard
        deviation of cosines; module docstring). A game reads and calibrates over the
        cards it deals (:func:`kiekai.perception.perceive_dealt`): they are the only cards
        its scores are asked about."""
        self.cards = list(cards)
        self._reference_images = None

    def cosines(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Return raw CLIP cosine similarities, float32 (N, V) in [-1, 1]."""
        cosines: np.ndarray = self.embed_images(cards) @ self.embed_words(words).T
        return cosines

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Score each word against each card (see the module docstring for the calibration).

        Args:
            cards: N cards (photos readable by :func:`kiekai.deck.open_rgb`).
            words: V words or WordNet lemmas.

        Returns:
            float32 array (N, V) in [0, 1]; 0.5 means the card stands :data:`Z_SHIFT`
            standard deviations above the reference deck's mean cosine for that word, and is
            every score of a card whose photo cannot be decoded (see :meth:`embed_images`).
        """
        words = list(words)
        if not words or not cards:
            return np.zeros((len(cards), len(words)), dtype=np.float32)
        text = self.embed_words(words)
        images = self.embed_images(cards)
        cosine = images @ text.T
        if self.cards:
            if self._reference_images is None:
                self._reference_images = self.embed_images(self.cards)
            reference = self._reference_images[np.any(self._reference_images != 0, axis=1)]
            ref_cosine = reference @ text.T if len(reference) else cosine
        else:
            ref_cosine = cosine
        z = (cosine - ref_cosine.mean(axis=0)) / np.maximum(ref_cosine.std(axis=0), MIN_STD)
        scores: np.ndarray = (1.0 / (1.0 + np.exp(-SLOPE * (z - Z_SHIFT)))).astype(np.float32)
        scores[~np.any(images != 0, axis=1)] = 0.5  # photo not decoded: undecided
        return scores
