"""The verdict record every judge decision returns (match and ne bis in idem)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Strictness(StrEnum):
    """Table rules for accepting a guess (rulebook, "Imperfect Guesses").

    - ``strict``: the same word in any form (inflection, spelling, case, compounds).
    - ``standard``: also synonyms and derived words that name the same thing.
    - ``lenient``: also a kind or broader kind one step away, degree words,
      near-synonyms and typos.
    """

    STRICT = "strict"
    STANDARD = "standard"
    LENIENT = "lenient"

    @classmethod
    def spelled(cls, last: str = "or") -> str:
        """The levels in order as words, e.g. ``"strict, standard or lenient"`` (for help
        texts and error messages, so that no other place spells them out)."""
        names = [level.value for level in cls]
        return f"{', '.join(names[:-1])} {last} {names[-1]}"

    @classmethod
    def parse(cls, value: str | Strictness) -> Strictness:
        """Return the level named ``value`` (case-insensitive).

        Raises:
            ValueError: not one of strict / standard / lenient.
        """
        if isinstance(value, Strictness):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(f"unknown strictness {value!r}: use {cls.spelled()}") from None


@dataclass(frozen=True)
class Verdict:
    """A judge's decision with its evidence.

    Attributes:
        accepted: whether the table accepts the guess (or, for repeats, whether the
            word repeats a used one).
        score: 0..1, the judge's confidence that the two words name the same thing.
        relation: the strongest relation found, e.g. ``same-lemma``, ``spelling``,
            ``synonym``, ``hypernym``, ``hyponym``, ``antonym``, ``cohyponym``,
            ``typo``, ``unrelated``, ``not-one-word``, ``empty``.
        reason: one sentence a player reads, saying in plain words why: synonyms, forms
            of one word, a kind of, opposites, different things, a house ruling, a repeat.
            It names no model or data set and shows no number of the judge's own
            (:mod:`kiekai.judge.reasons`).
        matched: for ne bis in idem, the used word that is repeated (else ``None``).
        details: the evidence behind the decision in the judge's own terms, JSON-
            serialisable: ``source`` (what decided: ``"form"``, ``"everyday lexicon"``,
            ``"WordNet"``, ``"fitted model"``, ``"house rule"``, ...), ``evidence`` (WordNet
            senses and how common they are, the lexicon's entries), and where they apply
            ``level``, ``lexicon_version``, ``model_score`` / ``model_threshold`` (the
            fitted model's probability and the level's threshold), ``encoder`` /
            ``cosine``, ``features``, ``house_rule``, ``used_count`` / ``closest``
            (repeats); see :func:`kiekai.judge.reasons.evidence_details`. Empty when the
            judge gave none. Not part of equality or hashing.
    """

    accepted: bool
    score: float
    relation: str
    reason: str
    matched: str | None = None
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of the fields."""
        return asdict(self)
