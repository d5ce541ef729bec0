"""The ``labels`` perception: word scores from a deck's labels.csv, through WordNet.

For a card with a WordNet id (ImageNet wnid) the question "does word *w* describe this photo"
is mostly answered by the noun hierarchy: a word describes the card when one of its senses is
the card's synset or one of its hypernyms (``animal`` describes a ``tench`` photo because
``tench.n.01`` is a fish, a vertebrate, an animal). What WordNet does not link (colours,
qualities, settings, words the card's label merely mentions) is scored from the cosine
similarity of sentence embeddings (all-MiniLM-L6-v2; Reimers & Gurevych 2019) of the card's
label words and the word, mapped to [0, 1] and weighted down so that it can never outvote a
WordNet link.

Scores (float32, in [0, 1], 0.5 = undecided; the :class:`~kiekai.perception.base.Perception`
contract):

- a sense of the word is the card's synset or one of its hypernyms: :data:`LINKED` = 1.0;
- the word has no noun sense here (a colour, material or quality) and is in the card's
  label (``red`` for "red wine"): :data:`MENTIONED` = 0.9;
- a sense of the word is a hyponym of the card's synset (``terrier`` for a card labelled
  only "dog": may or may not hold): :data:`HYPONYM` = 0.3;
- otherwise, for a WordNet noun category: ``UNLINKED_WEIGHT * sim`` (at most 0.4, so false);
- otherwise, for a word without noun senses: ``FREE_WEIGHT * sim`` (at most 0.45);
- words of the vocabulary's group ``broad`` are scored by WordNet alone: 0 where unlinked
  (a vocabulary may mark abstract WordNet categories so; ``data/vocabulary.tsv``, the
  default, has no such group, so all its words take the rules above).

``sim`` is the calibrated embedding similarity ``clip((cos - SIM_FLOOR) / SIM_SPAN, 0, 1)``;
the floor and span are set so that unrelated everyday words (cosine about 0.1-0.2 with
MiniLM) score 0 and closely related ones (cosine 0.7 and above) score 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from kiekai.deck import Card
from kiekai.lexicon import (
    Vocabulary,
    all_categories,
    hypernym_closure,
    synset_for_label,
    synset_for_wnid,
)

if TYPE_CHECKING:
    from pathlib import Path

    from nltk.corpus.reader.wordnet import Synset

    from kiekai.judge.resources import Resources

LINKED = 1.0
MENTIONED = 0.9
HYPONYM = 0.3
UNLINKED_WEIGHT = 0.4
FREE_WEIGHT = 0.45
SIM_FLOOR = 0.2
SIM_SPAN = 0.5

_TOKEN = re.compile(r"[a-z]+")


#: What a card's scores depend on: its content hash, label and wnid (:func:`_card_key`).
_CardKey = tuple[str, str | None, str | None]


def _card_key(card: Card) -> _CardKey:
    return (card.id, card.wnid, card.label)


class LabelsPerception:
    """Perception from labels.csv: WordNet hypernyms of each card's synset, plus embeddings.

    Args:
        cards: the deck's cards (those without a label or wnid are ignored; see :meth:`usable`).
            They are kept as :attr:`cards` so that players can measure how many cards of the
            deck a word covers.
        vocabulary: the category vocabulary whose WordNet senses are used for its words
            (default :func:`kiekai.lexicon.all_categories`, the bots' vocabulary
            ``data/vocabulary.tsv``); these are scored a card row at a time; other words use
            their usual WordNet noun senses (the first sense, and any sense at least half as
            frequent in SemCor).
        use_embeddings: score what WordNet does not link by sentence-embedding similarity
            (loads all-MiniLM-L6-v2 through :func:`kiekai.models.sentence_model` on first
            use); ``False`` gives pure WordNet scores (0 where unlinked).

    Attributes:
        name: ``"labels"``.
        cards: the usable cards given.
    """

    name = "labels"

    def __init__(
        self,
        cards: Sequence[Card] = (),
        *,
        vocabulary: Vocabulary | None = None,
        use_embeddings: bool = True,
    ) -> None:
        self.cards: list[Card] = self.usable(cards)
        self.vocabulary = vocabulary if vocabulary is not None else all_categories()
        self.use_embeddings = use_embeddings
        self._card_synset: dict[_CardKey, Synset | None] = {}
        self._card_text: dict[_CardKey, str] = {}
        self._word_senses: dict[str, tuple[Synset, ...]] = {}
        self._cache: dict[tuple[_CardKey, str], float] = {}
        self._rows: dict[_CardKey, np.ndarray] = {}
        self._synset_words: dict[str, list[int]] | None = None
        self._has_senses = np.zeros(0, dtype=bool)
        self._vocab_matrix: np.ndarray | None = None
        self._embedded = np.zeros(0, dtype=bool)
        self._embedded_list: list[str] | None = None
        self._position: np.ndarray | None = None
        self._embeddings = _shared_embeddings()

    # -- Perception protocol ------------------------------------------------------------------

    @staticmethod
    def usable(cards: Sequence[Card]) -> list[Card]:
        """The cards this perception can score: those with a ``label`` or a ``wnid``."""
        return [c for c in cards if (c.label and c.label.strip()) or (c.wnid and c.wnid.strip())]

    def knows(self, words: Sequence[str]) -> np.ndarray:
        """bool (V,): all True (every word is scored: by WordNet, else by embeddings)."""
        return np.ones(len(words), dtype=bool)

    def prepare(self, cards: Sequence[Card]) -> list[tuple[Card, str]]:
        """The cards without a label or wnid, each with the reason ``"no label or wnid in
        labels.csv"`` (nothing else needs reading up front)."""
        kept = {card.id for card in self.usable(cards)}
        return [(card, "no label or wnid in labels.csv") for card in cards if card.id not in kept]

    def scores(self, cards: Sequence[Card], words: Sequence[str]) -> np.ndarray:
        """Score each word against each card.

        Args:
            cards: N cards (each needs a label or a wnid).
            words: V words (any case; a word is one lexical item).

        Returns:
            float32 array of shape (N, V) in [0, 1]; see the module docstring for the grades.
            Vocabulary words are scored a whole card row at a time (cached per card); other
            words are cached per (card, word).

        Raises:
            ValueError: a card has neither a label nor a wnid (the labels perception cannot
                see photos; use the ``clip`` perception, or add the photo to labels.csv).
        """
        out = np.zeros((len(cards), len(words)), dtype=np.float32)
        lowered = [w.strip().lower() for w in words]
        in_vocab = [
            (j, self.vocabulary.index(w)) for j, w in enumerate(lowered) if w in self.vocabulary
        ]
        other = [j for j, w in enumerate(lowered) if w not in self.vocabulary]
        cols = np.asarray([j for j, _ in in_vocab], dtype=np.intp)
        vidx = np.asarray([v for _, v in in_vocab], dtype=np.intp)
        for i, card in enumerate(cards):
            if not self.usable([card]):
                raise ValueError(
                    f"card {card.id!r} has no label and no wnid: the labels perception cannot "
                    "score it; add it to the deck's labels.csv or use --perception clip"
                )
            if len(cols):
                out[i, cols] = self.vocabulary_row(card)[vidx]
            for j in other:
                out[i, j] = self._other_score(card, lowered[j])
        return out

    # -- WordNet side ---------------------------------------------------------------------------

    def card_synset(self, card: Card) -> Synset | None:
        """The card's WordNet synset: from its wnid, else its label mapped by
        :func:`kiekai.lexicon.synset_for_label`; ``None`` when neither resolves."""
        key = _card_key(card)
        if key not in self._card_synset:
            synset = None
            if card.wnid:
                try:
                    synset = synset_for_wnid(card.wnid)
                except ValueError:
                    synset = None
            if synset is None and card.label:
                synset = synset_for_label(card.label)
            self._card_synset[key] = synset
        return self._card_synset[key]

    def card_text(self, card: Card) -> str:
        """The words the card is known by: its label, labels.csv ``wordnet_lemmas`` and its
        synset's lemmas, comma-separated (the text whose embedding stands for the card)."""
        key = _card_key(card)
        if key not in self._card_text:
            names: list[str] = []
            if card.label:
                names.append(card.label.strip())
            lemmas = card.extra_value("wordnet_lemmas")
            if lemmas:
                names.extend(x.replace("_", " ") for x in lemmas.split(";") if x.strip())
            synset = self.card_synset(card)
            if synset is not None:
                names.extend(lemma.name().replace("_", " ") for lemma in synset.lemmas())
            unique = list(dict.fromkeys(n for n in names if n))
            self._card_text[key] = ", ".join(unique)
        return self._card_text[key]

    def word_senses(self, word: str) -> tuple[Synset, ...]:
        """The WordNet noun senses a word denotes here (vocabulary senses when listed there,
        else its usual noun senses, see :func:`usual_noun_senses`)."""
        word = word.strip().lower()
        if word not in self._word_senses:
            if word in self.vocabulary:
                senses = tuple(self.vocabulary.synset_objects(word))
            else:
                senses = usual_noun_senses(word)
            self._word_senses[word] = senses
        return self._word_senses[word]

    def _vocabulary_index(self) -> dict[str, list[int]]:
        """Maps: synset name -> vocabulary words denoting it ("self"), and
        ``"^" + name`` -> vocabulary words with a sense below it ("below").

        Built once per process per vocabulary object (:func:`_shared_index`): every
        perception over the same vocabulary shares it."""
        if self._synset_words is None:
            self._synset_words, self._has_senses, self._embedded = _shared_index(self.vocabulary)
        return self._synset_words

    def vocabulary_row(self, card: Card) -> np.ndarray:
        """float32 array (V,): the card's score for every word of :attr:`vocabulary`.

        Cached per card (id, wnid, label).
        """
        key = _card_key(card)
        row = self._rows.get(key)
        if row is not None:
            return row
        index = self._vocabulary_index()
        size = len(self.vocabulary)
        row = np.zeros(size, dtype=np.float32)
        decided = np.zeros(size, dtype=bool)
        synset = self.card_synset(card)
        if synset is not None:
            below = index.get("^" + synset.name(), [])
            row[below] = HYPONYM
            decided[below] = True
            linked = [v for a in hypernym_closure(synset) for v in index.get(a.name(), [])]
            row[linked] = LINKED
            decided[linked] = True
        tokens = set(_TOKEN.findall((card.label or "").lower()))
        mentioned = [
            self.vocabulary.index(t)
            for t in tokens
            if t in self.vocabulary and not self._has_senses[self.vocabulary.index(t)]
        ]
        row[mentioned] = np.maximum(row[mentioned], MENTIONED)
        decided[mentioned] = True
        if self.use_embeddings:
            weights = np.where(self._has_senses, UNLINKED_WEIGHT, FREE_WEIGHT).astype(np.float32)
            embedded = np.flatnonzero(self._embedded & ~decided)
            sim = self._similarity(self.card_text(card), self._embedded_words())
            position = self._embedded_position()
            row[embedded] = weights[embedded] * sim[position[embedded]]
        self._rows[key] = row
        return row

    def _other_score(self, card: Card, word: str) -> float:
        """Score of a word outside the vocabulary (cached per card and word)."""
        key = (_card_key(card), word)
        value = self._cache.get(key)
        if value is not None:
            return value
        senses = self.word_senses(word)
        synset = self.card_synset(card)
        weight = UNLINKED_WEIGHT if senses else FREE_WEIGHT
        value = None
        if synset is not None and senses:
            closure = hypernym_closure(synset)
            if any(s in closure for s in senses):
                value = LINKED
            elif any(synset in hypernym_closure(s) for s in senses):
                value = HYPONYM
        if value is None and not senses and word in _TOKEN.findall((card.label or "").lower()):
            value = MENTIONED
        if value is None:
            value = 0.0
            if self.use_embeddings and word:
                value = float(weight * self._similarity(self.card_text(card), [word])[0])
        self._cache[key] = value
        return value

    # -- embedding side -------------------------------------------------------------------------

    def _similarity(self, text: str, words: Sequence[str]) -> np.ndarray:
        """float32 (len(words),): calibrated similarity in [0, 1] of ``text`` with each word."""
        if text not in self._embeddings:
            # first card seen: embed the whole deck in one batch (cheaper than one at a time)
            self._embeddings.add([text] + [self.card_text(c) for c in self.cards])
        words = list(words)
        if words is self._embedded_words():
            matrix = self._vocabulary_matrix()
        else:
            matrix = self._embeddings.matrix(words)
        cos = np.einsum("ij,j->i", matrix, self._embeddings.get(text))  # no BLAS threads
        similarity: np.ndarray = np.clip((cos - SIM_FLOOR) / SIM_SPAN, 0.0, 1.0)
        return similarity.astype(np.float32)

    def _embedded_words(self) -> list[str]:
        """The vocabulary words scored by embedding similarity (all but group "broad")."""
        if self._embedded_list is None:
            self._vocabulary_index()
            self._embedded_list = [
                w for w, keep in zip(self.vocabulary.words, self._embedded, strict=True) if keep
            ]
        return self._embedded_list

    def _embedded_position(self) -> np.ndarray:
        """intp (V,): position of each vocabulary word in :meth:`_embedded_words` (-1 if none)."""
        if self._position is None:
            self._vocabulary_index()
            position = np.full(len(self.vocabulary), -1, dtype=np.intp)
            position[self._embedded] = np.arange(int(self._embedded.sum()))
            self._position = position
        return self._position

    def _vocabulary_matrix(self) -> np.ndarray:
        if self._vocab_matrix is None:
            self._vocab_matrix = self._embeddings.matrix(self._embedded_words())
        return self._vocab_matrix


class TextEmbeddings:
    """Unit-length MiniLM embeddings of short texts, kept in memory and on disk.

    The on-disk cache is ``<kiekai cache>/embeddings/minilm-texts.npz`` (texts and a float32
    matrix of shape (T, 384)); it is read once and rewritten (atomically) when new texts were
    embedded. A corrupt cache file is ignored and replaced. The model loads on first need,
    from ``resources`` (default: those in force when the store is made).
    """

    FILE = "minilm-texts.npz"

    def __init__(self, resources: Resources | None = None) -> None:
        from kiekai.judge.resources import current

        self.resources = resources if resources is not None else current()
        self._vectors: dict[str, np.ndarray] = {}
        self._loaded = False
        self._dirty = 0

    def _path(self) -> Path:
        from kiekai.models import cache_dir

        return cache_dir() / "embeddings" / self.FILE

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            path = self._path()
            if path.is_file():
                with np.load(path, allow_pickle=False) as data:
                    texts, matrix = data["texts"], data["vectors"]
                for text, vector in zip(texts.tolist(), matrix, strict=True):
                    self._vectors.setdefault(str(text), vector.astype(np.float32))
        except (OSError, ValueError, KeyError):
            self._vectors.clear()

    def _save(self) -> None:
        from kiekai.files import replacing

        try:
            path = self._path()
            texts = list(self._vectors)
            matrix = np.stack([self._vectors[t] for t in texts]).astype(np.float32)
            with replacing(path) as out:
                np.savez(out, texts=np.asarray(texts), vectors=matrix)
        except OSError:
            pass  # a cache that cannot be written only costs time
        self._dirty = 0

    def add(self, texts: Sequence[str]) -> None:
        """Embed the texts not yet known (one batch) and remember them."""
        self._load()
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if not todo:
            return
        vectors = self.resources.sentence_model().encode(
            todo,
            batch_size=128,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        for text, vector in zip(todo, np.asarray(vectors, dtype=np.float32), strict=True):
            self._vectors[text] = vector
        self._dirty += len(todo)
        if self._dirty >= 1:
            self._save()

    def __contains__(self, text: object) -> bool:
        self._load()
        return text in self._vectors

    def get(self, text: str) -> np.ndarray:
        """float32 (384,) unit vector of ``text`` (embedded now if new)."""
        if text not in self._vectors:
            self.add([text])
        return self._vectors[text]

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """float32 (len(texts), 384) unit vectors, embedding the new ones in one batch."""
        self.add(texts)
        return (
            np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)
        )


#: ``(index, has_senses, embedded)`` of a vocabulary (:func:`_shared_index`).
_WordIndex = tuple[dict[str, list[int]], np.ndarray, np.ndarray]


def _shared_index(vocabulary: Vocabulary) -> _WordIndex:
    """The WordNet index of a vocabulary, computed once per vocabulary object (kept with
    the vocabulary's other derived data).

    Returns:
        ``(index, has_senses, embedded)``: synset name -> positions of the words denoting it,
        ``"^" + name`` -> positions of the words with a sense below it; bool (V,) whether a
        word has noun senses here; bool (V,) whether it is scored by embedding similarity
        (all but group ``broad``).
    """
    hit: _WordIndex | None = vocabulary._derived.get("wordnet_index")
    if hit is not None:
        return hit
    index: dict[str, list[int]] = {}
    for v, word in enumerate(vocabulary.words):
        senses = tuple(vocabulary.synset_objects(word))
        for synset in senses:
            index.setdefault(synset.name(), []).append(v)
        for ancestor in {a for s in senses for a in hypernym_closure(s)}:
            index.setdefault("^" + ancestor.name(), []).append(v)
    has_senses = np.asarray([bool(names) for names in vocabulary.synsets], dtype=bool)
    # words of group "broad" are pure WordNet: no embedding similarity (module docstring)
    embedded = np.asarray([g != "broad" for g in vocabulary.groups], dtype=bool)
    value = (index, has_senses, embedded)
    vocabulary._derived["wordnet_index"] = value
    return value


def _shared_embeddings() -> TextEmbeddings:
    """The text-embedding store of the resources in force
    (:func:`kiekai.judge.resources.current`): all perceptions made under them share it."""
    from kiekai.judge.resources import current

    resources = current()
    return resources.keep("perception.text-embeddings", lambda: TextEmbeddings(resources))


def usual_noun_senses(word: str) -> tuple[Synset, ...]:
    """A word's usual WordNet noun senses: the first, and any at least half as frequent in
    SemCor (all senses when SemCor has no count for any of them, e.g. ``canine``)."""
    from kiekai.judge.resources import wordnet

    wn = wordnet()
    key = word.replace(" ", "_").replace("-", "_")
    synsets = wn.synsets(key, "n")
    if not synsets:
        return ()

    def count(synset: Synset) -> int:
        return sum(
            lemma.count() for lemma in synset.lemmas() if lemma.name().lower() == key.lower()
        )

    top = max(count(s) for s in synsets)
    if top == 0:  # no SemCor evidence for any sense: any of them may be meant
        return tuple(synsets)
    return tuple(s for k, s in enumerate(synsets) if k == 0 or count(s) >= max(2, 0.5 * top))
