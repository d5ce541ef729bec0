"""The judge's one interface: what a game, a front end or a test double must provide.

Kiek asks a judge three questions (rulebook ``../shared/rules/kiek.txt``):

- "A Turn": is a written word *just one word*?  -> :meth:`JudgeLike.check_word`
- "Imperfect Guesses": does a guess name the secret category?  -> :meth:`JudgeLike.match`
- "Ne Bis in Idem": does a word repeat a category already used?  -> :meth:`JudgeLike.is_repeat`

One method per question, each answering with a :class:`~kiekai.judge.verdict.Verdict`,
and the level it answers at (:attr:`JudgeLike.strictness`), which the game and the front
ends read instead of being told it again.
:class:`kiekai.judge.Judge` implements it; the engine (:mod:`kiekai.kiek.engine`), the
terminal and web front ends and the test doubles take any object that does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from kiekai.judge.verdict import Strictness, Verdict


@runtime_checkable
class JudgeLike(Protocol):
    """What the Kiek engine and front ends need from a judge.

    ``is_repeat`` must apply the same equivalence as ``match`` at the same level (rulebook,
    "Ne Bis in Idem": "the same category", not a looser or stricter test).
    """

    @property
    def strictness(self) -> Strictness:
        """The level this judge decides at (rulebook "Imperfect Guesses"); a table saves
        the rulings its people make at this level (:class:`~kiekai.judge.house_rules.HouseRuling`)."""
        ...

    def check_word(self, text: str) -> Verdict:
        """Whether ``text`` is one lexical item a player may write (rulebook "A Turn").

        Returns a verdict with ``accepted`` True and relation ``one-word`` when it is; else
        ``accepted`` False, relation ``empty`` or ``not-one-word`` and a ``reason`` naming
        the problem (with the text shown escaped, never raw control characters).
        """
        ...

    def match(self, secret: str, guess: str) -> Verdict:
        """Does ``guess`` name the active player's ``secret`` category?"""
        ...

    def is_repeat(self, word: str, used_words: Sequence[str]) -> Verdict:
        """Does ``word`` repeat one of ``used_words``? (``matched`` names which.)"""
        ...


@runtime_checkable
class WordNetLike(Protocol):
    """The part of a WordNet 3.0 reader that kiekai reads (the judge, the lexicon, the
    bots, perception, the evaluation): implemented by the compact index
    (:class:`kiekai.judge.wordnet_index.WordNetIndex`) and by NLTK's
    ``WordNetCorpusReader``, with the same answers in the same order
    (``tests/test_wordnet_index.py``). Synsets and lemmas are NLTK's or the index's
    objects; they compare and hash by name, so the two can be mixed in sets.

    One :class:`kiekai.judge.resources.Resources` holds one reader, so a process that
    reads through the index never loads NLTK's reader beside it.
    """

    def synsets(self, lemma: str, pos: str | None = None) -> list[Any]:
        """Synsets of ``lemma`` (any inflection; underscores for spaces) in ``pos``."""
        ...

    def synset(self, name: str) -> Any:
        """The synset named ``lemma.pos.nn``; ``ValueError`` (NLTK: ``WordNetError``,
        a subclass) when none."""
        ...

    def synset_from_pos_and_offset(self, pos: str, offset: int) -> Any:
        """The synset at ``offset`` of the data file of ``pos`` (ImageNet wnids)."""
        ...

    def lemmas(self, lemma: str, pos: str | None = None) -> list[Any]:
        """Lemmas named ``lemma`` (case-insensitive) among its synsets."""
        ...

    def morphy(self, form: str, pos: str | None = None) -> str | None:
        """The first base form of ``form`` WordNet lists, or ``None``."""
        ...

    def _morphy(self, form: str, pos: str) -> list[str]:
        """Every base form of ``form`` in ``pos`` (NLTK's rules and exception lists)."""
        ...

    def all_synsets(self, pos: str | None = None) -> Iterator[Any]:
        """Every synset (of ``pos``), in file order."""
        ...

    def open(self, fileid: str) -> Any:
        """A stored WordNet file (``cntlist.rev``, ``lexnames``) as a text stream."""
        ...

    def get_version(self) -> str:
        """WordNet's version (``"3.0"``)."""
        ...
