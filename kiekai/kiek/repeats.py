"""What a Kiek bot asks the judge about the words it may write, remembered per bot.

Two questions (rulebook ``../shared/rules/kiek.txt``): is a word *just one word* ("A Turn":
the engine refuses anything else, and a refused word would stop a bot-only game), and does
it repeat a category already used ("Ne Bis in Idem")? Both are the judge's to answer
(:class:`~kiekai.judge.protocol.JudgeLike`: ``check_word`` and ``is_repeat``); the bot has no
morphology of its own. A :class:`JudgeMemo` remembers the answers for the life of the bots
that hold it (one per bot, or one given to all the bots of a table, as ``kiekai play`` does;
nothing is kept per process), so a word is asked about once per used word however many turns
and bots consider it.

Before asking, a word written the same way as a used one (case and spacing aside,
:func:`written_key`) is a repeat without a question: the judge's "same word" at every level.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from kiekai.judge.protocol import JudgeLike
from kiekai.kiek.candidates import Candidates, written_key


def _used_keys(used_words: Sequence[str]) -> set[str]:
    return {written_key(u) for u in used_words if isinstance(u, str) and u.strip()}


class JudgeMemo:
    """A judge's answers to the questions of the bots holding it, remembered for their life.

    Args:
        judge: the table's judge; ``None``: every word is one word and only a word written
            the same way as a used one (:func:`written_key`) is a repeat.

    Attributes:
        judge: the judge asked.
    """

    def __init__(self, judge: JudgeLike | None) -> None:
        self.judge = judge
        self._one_word: dict[str, bool] = {}
        self._repeats: dict[tuple[str, str], bool] = {}

    def one_word(self, word: str) -> bool:
        """``judge.check_word(word).accepted`` (rulebook "A Turn"), asked once per word."""
        if self.judge is None:
            return True
        value = self._one_word.get(word)
        if value is None:
            value = bool(self.judge.check_word(word).accepted)
            self._one_word[word] = value
        return value

    def repeats(self, word: str, used: str) -> bool:
        """``judge.is_repeat(word, [used]).accepted`` (rulebook "Ne Bis in Idem"), asked once
        per pair; without a judge, whether the two are written the same way."""
        if self.judge is None:
            return written_key(word) == written_key(used)
        key = (word, used)
        value = self._repeats.get(key)
        if value is None:
            value = bool(self.judge.is_repeat(word, [used]).accepted)
            self._repeats[key] = value
        return value

    def is_used(self, word: str, used_words: Sequence[str]) -> bool:
        """Whether ``word`` repeats one of ``used_words`` (ne bis in idem): written the same
        way as one (no question asked), else the judge's :meth:`repeats` on any of them."""
        used = [u for u in used_words if isinstance(u, str) and u.strip()]
        if not used:
            return False
        if written_key(word) in _used_keys(used):
            return True
        return any(self.repeats(word, u) for u in used)

    def may_write(self, word: str, used_words: Sequence[str]) -> bool:
        """Whether the bot may write ``word`` now: the judge takes it as one word
        (:meth:`one_word`) and it repeats no used word (:meth:`is_used`)."""
        return self.one_word(word) and not self.is_used(word, used_words)

    def first_writable(
        self, order: Iterable[int], words: Sequence[str], used_words: Sequence[str], k: int
    ) -> list[int]:
        """Up to ``k`` of the indices ``order`` (into ``words``), in order, whose word the bot
        may write (:meth:`may_write`)."""
        chosen: list[int] = []
        for j in order:
            if self.may_write(words[j], used_words):
                chosen.append(int(j))
                if len(chosen) >= k:
                    break
        return chosen


def is_used(word: str, used_words: Sequence[str], judge: JudgeLike | None = None) -> bool:
    """Whether ``word`` repeats one of ``used_words``: :meth:`JudgeMemo.is_used` with a memo
    of this call only (a bot keeps its own :class:`JudgeMemo`)."""
    return JudgeMemo(judge).is_used(word, used_words)


def may_write(word: str, used_words: Sequence[str], judge: JudgeLike | None = None) -> bool:
    """Whether a bot may write ``word`` now: :meth:`JudgeMemo.may_write` with a memo of this
    call only."""
    return JudgeMemo(judge).may_write(word, used_words)


def used_mask(candidates: Candidates, used_words: Sequence[str]) -> np.ndarray:
    """bool array (W,): True where a candidate is written the same way as a used word
    (:func:`written_key`), for all candidates at once (one lookup per used word in
    :attr:`Candidates.written_index`): the part of :meth:`JudgeMemo.is_used` that needs no
    question. The judge still decides each word a bot is about to write."""
    out = np.zeros(len(candidates), dtype=bool)
    index = candidates.written_index
    for key in _used_keys(used_words):
        out[list(index.get(key, ()))] = True
    return out


def same_category_mask(candidates: Candidates, used_words: Sequence[str]) -> np.ndarray:
    """bool (W,): True where a category word (or its ``X-less``) declares a synset that a
    used category word declares (ne bis in idem forbids a category already used, whatever
    the word: *clothes* after *clothing*)."""
    vocab = candidates.vocabulary
    taken: set[str] = set()
    taken_less: set[str] = set()
    for word in used_words:
        if not isinstance(word, str) or not word.strip():
            continue
        key = written_key(word)
        target = taken
        if key.endswith("-less"):
            key, target = key[:-5].replace("-", " "), taken_less
        if key in vocab and vocab.kinds[vocab.index(key)] == "category":
            target.update(vocab.synsets[vocab.index(key)])
    out = np.zeros(len(candidates), dtype=bool)
    categories, privatives = candidates.synset_index
    for names, index in ((taken, categories), (taken_less, privatives)):
        for name in names:
            out[list(index.get(name, ()))] = True
    return out
