"""The synonym judge: does a guess name the secret category, and is a word a repeat?

Rulebook (``rules/kiek.txt``): "Imperfect Guesses" lets each table set how strict it
is (synonyms such as "Humans"/"persons" allowed, "person"/"faces" too far, "White" no
match for "Black") and says each group of players decides for itself; "Ne Bis in Idem"
forbids writing a category already used. Both questions use one equivalence, decided per
:class:`Strictness` by the first evidence that applies (a decision that follows its
evidence):

1. the input check (empty, not one word, control or invisible characters): rejected;
2. the table's **house rules** (:class:`kiekai.judge.house_rules.HouseRules`), as ruled;
3. **forms** of the same word (only real inflections: :func:`kiekai.judge.lexical.inflected_pos`):
   accepted at every level;
3a. **gender variants** (actor / actress, prince / princess): accepted from standard;
4. the **everyday lexicon** (:mod:`kiekai.judge.everyday`): ``same`` from
   standard, ``near`` and ``hyponym`` at lenient, ``derived`` (relation ``derivation``)
   from standard and ``derived-near`` at lenient, ``different`` and ``opposite`` never;
5. **WordNet rules** on common senses, opposites and spelling accidents
   (:mod:`kiekai.judge.features`);
6. the **fitted model** (a logistic regression per level, :mod:`kiekai.judge.model`,
   ``data/judge-model.json``) for what none of these settles.

The verdict's reason says in plain words what decided (:mod:`kiekai.judge.reasons`: synonyms,
forms of one word, a kind of, opposites, different things, a house ruling); the evidence in
the judge's own terms (WordNet senses, the lexicon's version, the fitted model's score and
threshold, the MiniLM cosine, the features) is the verdict's ``details``.

A repeat (:meth:`Judge.is_repeat`) is what :meth:`Judge.match` accepts plus Just One's
same clues (docs/judge.md "Just One's readings").
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from kiekai.judge import lexical
from kiekai.judge.features import (
    NEVER,
    Evidence,
    gender_evidence,
    meaning_evidence,
    surface_evidence,
)
from kiekai.judge.house_rules import HouseRules, HouseRuling
from kiekai.judge.model import JudgeModel, load_model
from kiekai.judge.reasons import evidence_details, plain_clause
from kiekai.judge.resources import PAIR_CACHE_ENTRIES, Resources, current
from kiekai.judge.verdict import Strictness, Verdict

_INPUT_RELATIONS = ("empty", "not-one-word")

#: Relations whose words are never of one family for a repeat: opposites, negations,
#: words spelled or sounding alike, words that are no English word, and degree words
#: (green / greenish), which the level table leaves to lenient tables.
_NEVER_FAMILY = (
    "antonym", "negation", "different-word", "unknown-word", "empty", "not-one-word", "degree",
)  # fmt: skip


#: What each level's definition leaves to a looser level, per relation (the level table
#: of ``docs/judge.md``, after the rulebook's "Imperfect Guesses": standard accepts
#: synonyms and derived words naming the same thing; kinds one step away, near-synonyms,
#: degree words and misspellings only lenient tables accept). Named in the reason when
#: such a relation is rejected at standard.
_LEFT_TO_LENIENT = {
    "hypernym": "standard leaves broader and narrower kinds to lenient tables",
    "hyponym": "standard leaves broader and narrower kinds to lenient tables",
    "near-synonym": "standard leaves near-synonyms and degree words to lenient tables",
    "degree": "standard leaves degree words (red / reddish) to lenient tables",
    "typo": "standard leaves misspellings to lenient tables",
}

#: Why sister kinds are rejected (rulebook "Imperfect Guesses": "White" is no match for
#: "Black": co-hyponyms are rejected at every level).
_COHYPONYM_RULE = "different things of the same kind are never the same category"

#: The strict level's rule, named when it rejects what looser levels may accept.
_STRICT_RULE = "strict accepts only forms of the same word (inflection, spelling, case, compounds)"

#: How an everyday-lexicon kind decides: (relation, strictest accepting level).
_LEXICON_KINDS = {
    "same": ("synonym", "standard"),
    "near": ("near-synonym", "lenient"),
    "hyponym": ("hyponym", "lenient"),
    "derived": ("derivation", "standard"),
    "derived-near": ("derivation", "lenient"),
    "different": ("cohyponym", NEVER),
    "opposite": ("antonym", NEVER),
}


class EverydayRelationLike(Protocol):
    """What the judge reads from an everyday-lexicon answer
    (:class:`kiekai.judge.everyday.EverydayRelation`)."""

    # read-only properties, so that a frozen dataclass satisfies the protocol

    @property
    def kind(self) -> str:  # same | near | hyponym | derived | derived-near | different | opposite
        ...

    @property
    def evidence(self) -> str:  # one clause naming the lexicon and its version
        ...

    @property
    def entry_a(self) -> str: ...

    @property
    def entry_b(self) -> str: ...

    @property
    def broader(self) -> str: ...


class LexiconLike(Protocol):
    """The everyday lexicon's interface (:class:`kiekai.judge.everyday.EverydayLexicon`)."""

    version: str

    def relation(self, a: str, b: str) -> EverydayRelationLike | None:
        """How a table treats the normalised lemmas ``a`` and ``b``, or None."""
        ...

    def __hash__(self) -> int:
        """Lexicons are hashable (a cache key of :func:`lexicon_evidence`)."""
        ...


def default_lexicon() -> LexiconLike | None:
    """The everyday lexicon shipped in ``data/`` (:func:`kiekai.judge.everyday.everyday_lexicon`),
    or None when this installation has none.

    Raises:
        ValueError: the lexicon files exist but are malformed (the message names the line).
    """
    try:
        from kiekai.judge.everyday import everyday_lexicon
    except ImportError:
        return None
    return everyday_lexicon()


_DEFAULT: Any = object()


@dataclass(frozen=True)
class _Decision:
    """One pair decided at one level: what the verdict and the repeat reason are made of."""

    accepted: bool
    score: float
    relation: str
    clause: str  # "'x' and 'y' are synonyms ..." without the level prefix or the final stop
    level_free: bool = False  # input problems: the reason names no level
    details: dict[str, Any] = field(default_factory=dict)  # Verdict.details


def _words(ev: Evidence) -> tuple[str, str]:
    """(guess, secret) as the players wrote them, or normalised when not known."""
    return (ev.raw_guess or ev.guess, ev.raw_secret or ev.secret)


def pair_evidence(secret: str, guess: str, lexicon: LexiconLike | None) -> Evidence:
    """The evidence that decides ``guess`` against ``secret`` at any level, house rules
    aside: input check and forms (:func:`kiekai.judge.features.surface_evidence`), then
    the everyday ``lexicon`` (:func:`lexicon_evidence`), then opposites, WordNet and the
    model's features (:func:`kiekai.judge.features.meaning_evidence`).

    Raises:
        TypeError: an argument is not a ``str``.
    """
    return (
        surface_evidence(secret, guess)
        or gender_evidence(secret, guess)
        or lexicon_evidence(secret, guess, lexicon)
        or meaning_evidence(secret, guess)
    )


def lexicon_evidence(secret: str, guess: str, lexicon: LexiconLike | None) -> Evidence | None:
    """The everyday lexicon's relation between two words that are not forms of one word,
    as evidence (``source`` ``"everyday lexicon"``), or None when it says nothing.

    The words are looked up as normalised, then through their lemmas. A ``same`` answer
    that joins two spellings of one lexicon entry is a question of form, which the
    lemmatiser has already answered "no" (goods is not good, physics not physic: issue
    11), so it is not taken from the lexicon's inflection guesses. Cached per pair and
    lexicon.
    """
    if lexicon is None:
        return None
    return _lexicon_evidence(secret, guess, lexicon)


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def _lexicon_evidence(secret: str, guess: str, lexicon: LexiconLike) -> Evidence | None:
    """:func:`lexicon_evidence` for a lexicon that is not None."""
    from kiekai.judge.normalize import normalise

    a, b = normalise(secret), normalise(guess)
    candidates = [(a, b)]
    with lexical.WORDNET_LOCK:  # cached by surface_evidence already, but never unlocked
        la, lb = lexical.lemmas(a), lexical.lemmas(b)
    candidates += [(x, y) for x in sorted(la) for y in sorted(lb) if (x, y) != (a, b)]
    for x, y in candidates:
        if x == y:
            continue
        relation = lexicon.relation(x, y)
        if relation is None or relation.kind not in _LEXICON_KINDS:
            continue
        if relation.kind == "same" and relation.entry_a == relation.entry_b:
            continue
        name, accept_from = _LEXICON_KINDS[relation.kind]
        if relation.kind == "hyponym":
            # the lexicon names the broader word; the guess is the narrower kind when the
            # secret's entry is the broader one
            name = "hyponym" if relation.broader == relation.entry_a else "hypernym"
        return Evidence(
            name,
            relation.evidence,
            a,
            b,
            accept_from,
            "everyday lexicon",
            raw_secret=secret.strip(),
            raw_guess=guess.strip(),
            kind_of=getattr(relation, "group", "") if relation.kind == "different" else "",
        )
    return None


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _in_force(
    method: Callable[Concatenate[Judge, _P], _R],
) -> Callable[Concatenate[Judge, _P], _R]:
    """Run a judge's method with the judge's :class:`Resources` in force, so that the
    lexical and feature code it calls (:func:`kiekai.judge.resources.wordnet`,
    :func:`kiekai.judge.resources.cosine`) reads this judge's WordNet and encoder, in
    whichever thread the call comes from."""

    @functools.wraps(method)
    def bound(self: Judge, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self.resources.use():
            return method(self, *args, **kwargs)

    return bound


class Judge:
    """Decides guesses, repeats and one-word checks at one strictness level
    (implements :class:`kiekai.judge.protocol.JudgeLike`).

    Safe to call from several threads (WordNet lookups are serialised by
    :data:`kiekai.judge.lexical.WORDNET_LOCK`, MiniLM encodes by their own lock); models
    (WordNet, MiniLM) load once per :class:`Resources` on first use, and
    every per-word and per-pair result is cached. House rules are looked up at every
    call, never cached: a ruling added to ``house_rules`` mid-game holds from the next
    call on.

    Args:
        strictness: ``"strict"``, ``"standard"`` or ``"lenient"`` (or a
            :class:`Strictness`; any letter case).
        model: a :class:`JudgeModel`; default: ``data/judge-model.json``.
        house_rules: the table's own rulings, applied before any other evidence (rulebook
            "Imperfect Guesses": each group decides for itself); ``None`` for none.
        lexicon: the everyday lexicon (see :class:`LexiconLike`); default: the one in
            ``data/`` when installed (:func:`default_lexicon`); ``None`` to judge without.
        resources: the WordNet reader, encoder and embedding table to judge with
            (:class:`kiekai.judge.resources.Resources`); default: the ones in force where
            the judge is made (:func:`kiekai.judge.resources.current`: a command's own,
            else the process's default).

    Raises:
        ValueError: unknown strictness, a malformed model file or lexicon.
        FileNotFoundError: the model file is missing.
    """

    def __init__(
        self,
        strictness: str | Strictness = Strictness.STANDARD,
        model: JudgeModel | None = None,
        *,
        house_rules: HouseRules | None = None,
        lexicon: LexiconLike | None = _DEFAULT,
        resources: Resources | None = None,
    ):
        self.resources = resources if resources is not None else current()
        self.strictness = Strictness.parse(strictness)
        self.model = model if model is not None else load_model()
        self.house_rules = house_rules
        self.lexicon = default_lexicon() if lexicon is _DEFAULT else lexicon
        self._level = self.model.level(self.strictness)
        order = list(Strictness)  # strict, standard, lenient
        self._nested = [self.model.level(lv) for lv in order[: order.index(self.strictness) + 1]]

    def __repr__(self) -> str:
        rules = f", house_rules={self.house_rules!r}" if self.house_rules is not None else ""
        return f"Judge(strictness={self.strictness.value!r}{rules})"

    @_in_force
    def warm_up(
        self,
        build_embedding_table: bool = False,
        preload_wordnet: bool = False,
        report: Callable[[str], None] | None = None,
        load_encoder: bool = True,
    ) -> None:
        """Load everything a first verdict needs (WordNet, MiniLM, lemminflect, inflect,
        breame, the embedding table) now, so that the first real call is as fast as later
        new words. Servers call this once at start-up.

        The embedding table (MiniLM vectors of ~48,000 common English words, see
        :func:`kiekai.judge.resources.load_embedding_table`) turns most new words into
        lookups. It is read from kiekai's cache when present; with
        ``build_embedding_table`` it is built there first when missing (one to three
        minutes on 2 cores, once per model), with one line before and after passed to
        ``report``. With ``preload_wordnet`` every WordNet synset is read now
        (:func:`kiekai.judge.resources.preload_wordnet`). Both are off by default, so
        that tests and one-shot commands never pay for them. Without ``load_encoder``
        the sentence model is left to load on the first word outside the judge's
        tables (``kiekai serve`` does this when an embedding table is in use: it keeps
        about 1 GB of torch out of memory).

        Raises:
            RuntimeError: a model cannot be loaded (message from :mod:`kiekai.models`).
        """
        resources = self.resources
        if build_embedding_table:
            resources.load_embedding_table(build=True, report=report)
        else:
            resources.embedding_table()
        if preload_wordnet:
            seconds = resources.preload_wordnet()
            if report and seconds:
                report(f"WordNet preloaded: every synset read in {seconds:.1f} s")
        if load_encoder:  # tabled words never load MiniLM; the first new word would
            resources.warm_up_encoder()
        self.match("dogs", "puppies")
        self.match("colour", "the colors")
        self.is_repeat("3", ["three"])

    # ------------------------------------------------------------------ one word

    @_in_force
    def check_word(self, text: str) -> Verdict:
        """Whether ``text`` is one lexical item a player may write (rulebook "A Turn":
        "just one word"): a single word (hyphen and apostrophe allowed), a numeral, or a
        known compound ("human beings", "ice cream"). Empty text, emoji or symbols only,
        phrases ("a brown dog"), a word cut into pieces ("ca t") and text holding control
        or invisible characters are refused.

        Returns:
            ``Verdict(True, 1.0, "one-word", "one word")``, or a rejected verdict with
            relation ``empty`` or ``not-one-word`` whose ``reason`` says why (the text
            shown escaped). Never raises.
        """
        ok, why = lexical.one_word_check(text)
        input_check = {"source": "input check"}
        if ok:
            return Verdict(True, 1.0, "one-word", "one word", details=input_check)
        blank = not isinstance(text, str) or not text.strip()
        return Verdict(False, 0.0, "empty" if blank else "not-one-word", why, details=input_check)

    # ------------------------------------------------------------------ evidence

    @_in_force
    def evidence(self, secret: str, guess: str) -> Evidence:
        """The evidence that decides ``guess`` against ``secret``, before any level and
        without house rules (:func:`pair_evidence` with this judge's lexicon).

        Raises:
            TypeError: an argument is not a ``str``.
        """
        return pair_evidence(secret, guess, self.lexicon)

    # ------------------------------------------------------------------ decisions

    def _ruling(
        self, secret: str, guess: str, rulings: HouseRules | None
    ) -> tuple[HouseRuling, str] | None:
        """The house ruling for the pair at this level and where it comes from."""
        level = self.strictness.value
        if rulings is not None:
            found = rulings.lookup(secret, guess, level)
            if found is not None:
                return found, found.source or rulings.label or "house rule sent with this request"
        if self.house_rules is not None:
            found = self.house_rules.lookup(secret, guess, level)
            if found is not None:
                return found, found.source or self.house_rules.where
        return None

    def _decide(self, secret: str, guess: str, rulings: HouseRules | None = None) -> _Decision:
        """Decide one pair at this level, strongest evidence first."""
        ev = surface_evidence(secret, guess)
        if ev is not None and ev.relation in _INPUT_RELATIONS:
            details = evidence_details(ev, self.strictness.value)
            return _Decision(False, 0.0, ev.relation, ev.detail, level_free=True, details=details)
        found = self._ruling(secret, guess, rulings)
        if found is not None:
            ruling, where = found
            verb = "accepts" if ruling.accepted else "rejects"
            scope = " at every level" if ruling.level == "*" else ""
            clause = (
                f"by {where}: this table {verb} {guess.strip()!r} for {secret.strip()!r}{scope}"
            )
            details = {
                "source": "house rule",
                "level": self.strictness.value,
                "house_rule": where,
                "ruling_level": ruling.level,
                "ruled_by": ruling.ruled_by,
            }
            return _Decision(
                ruling.accepted, float(ruling.accepted), "house-rule", clause, details=details
            )
        if ev is None:
            ev = (
                gender_evidence(secret, guess)
                or lexicon_evidence(secret, guess, self.lexicon)
                or meaning_evidence(secret, guess)
            )
        return self._decide_evidence(ev)

    def _decide_evidence(self, ev: Evidence) -> _Decision:
        guess, secret = _words(ev)
        pair = f"{guess!r} and {secret!r}"
        body = plain_clause(ev)
        level = self.strictness
        details = evidence_details(ev, level.value, getattr(self.lexicon, "version", None))
        ruled = ev.accepted_at(level.value)
        if ruled is not None:
            clause = body
            if not ruled and ev.relation == "cohyponym":
                clause += f"; {_COHYPONYM_RULE}"
            elif not ruled and ev.accept_from != NEVER:
                if level is Strictness.STRICT:
                    clause += f", but {_STRICT_RULE}"
                elif ev.relation in _LEFT_TO_LENIENT:
                    clause += f"; {_LEFT_TO_LENIENT[ev.relation]}"
            return _Decision(ruled, float(ruled), ev.relation, clause, details=details)
        # The fitted model. A looser table accepts whatever a stricter one does (levels
        # are nested), so the score is the highest probability among this level and the
        # stricter ones.
        features = ev.features
        if features is None:
            raise ValueError(f"the evidence for {pair} has neither a ruling nor features")
        p = max(m.probability(features) for m in self._nested)
        accepted = p >= self._level.threshold
        if not accepted and all(m.is_constant for m in self._nested):
            details.update(source="level rule", level_rule=_STRICT_RULE)
            return _Decision(
                False, round(p, 4), ev.relation, f"{body}, but {_STRICT_RULE}", details=details
            )
        details.update(
            source="fitted model",
            model_score=round(p, 4),
            model_threshold=round(self._level.threshold, 4),
        )
        relation, clause = ev.relation, body
        if not accepted and level is Strictness.STANDARD and ev.relation in _LEFT_TO_LENIENT:
            clause += f"; {_LEFT_TO_LENIENT[ev.relation]}"
        elif accepted:
            clause += "; close enough in meaning to count at this level"
        elif ev.relation != "unrelated":
            clause += "; not close enough in meaning to count at this level"
        return _Decision(accepted, round(p, 4), relation, clause, details=details)

    def decide(self, ev: Evidence) -> Verdict:
        """Turn evidence (from :meth:`evidence`) into a verdict at this judge's level."""
        return self._verdict(self._decide_evidence(ev))

    def _verdict(self, d: _Decision) -> Verdict:
        verb = "Accepted" if d.accepted else "Rejected"
        if d.level_free:
            return Verdict(False, 0.0, d.relation, f"{verb}: {d.clause}.", details=d.details)
        return Verdict(
            d.accepted,
            d.score,
            d.relation,
            f"{verb} at {self.strictness.value} level: {d.clause}.",
            details=d.details,
        )

    @_in_force
    def match(self, secret: str, guess: str, *, rulings: HouseRules | None = None) -> Verdict:
        """Whether ``guess`` names the secret category ``secret`` at this level.

        Never raises for text: empty or multi-word guesses get a rejected verdict with
        relation ``empty`` or ``not-one-word``.

        Args:
            secret: the active player's word.
            guess: the guessing player's word.
            rulings: house rulings for this call only (a stateless front end sends its
                table's rulings with each request); they come before ``house_rules``.

        Raises:
            TypeError: an argument is not a ``str``.
        """
        return self._verdict(self._decide(secret, guess, rulings))

    @_in_force
    def match_many(
        self, pairs: Iterable[tuple[str, str]], *, rulings: HouseRules | None = None
    ) -> list[Verdict]:
        """:meth:`match` over ``(secret, guess)`` pairs, in order.

        Raises:
            TypeError: an item is not a pair of two ``str`` (the message gives its index).
        """
        pairs = list(pairs)
        for i, pair in enumerate(pairs):
            if (
                isinstance(pair, (str, bytes))
                or not isinstance(pair, Sequence)
                or len(pair) != 2
                or not all(isinstance(w, str) for w in pair)
            ):
                raise TypeError(
                    f"pairs[{i}] must be a (secret, guess) pair of two str, got {pair!r:.80}"
                )
        _prefetch(w for pair in pairs for w in pair)
        return [self.match(s, g, rulings=rulings) for s, g in pairs]

    @_in_force
    def is_repeat(
        self, candidate: str, used_words: Sequence[str], *, rulings: HouseRules | None = None
    ) -> Verdict:
        """Ne bis in idem: whether ``candidate`` repeats a category in ``used_words``.

        The same equivalence as :meth:`match` at this level (rulebook, "Ne Bis in Idem"): each used word is
        judged as the secret with ``candidate`` as the guess, house rules included, and
        where no used word matches, Just One's reading of the same clue decides
        (:meth:`_same_clue`: gender forms and misspellings at every level, word
        families and invented words from standard);
        ``accepted`` means "is a repeat", ``matched`` names the used word it repeats (the
        accepted one with the highest score) and the reason gives that pair's evidence.
        Empty used entries are skipped.

        Raises:
            TypeError: ``candidate`` is not a ``str``, or ``used_words`` is not a list
                (or other iterable) of words: a bare string, bytes, ``None``, a number.
        """
        if not isinstance(candidate, str):
            raise TypeError(f"candidate must be text (str), got {type(candidate).__name__}")
        if isinstance(used_words, (str, bytes, bytearray)) or not isinstance(used_words, Iterable):
            raise TypeError(
                f"used_words must be a list of words (str), got {type(used_words).__name__}"
            )
        used = [u for u in used_words if isinstance(u, str) and u.strip()]
        if len(used) > 8:
            _prefetch([candidate, *used])
        input_check = {"source": "input check"}
        if not candidate.strip():
            return Verdict(
                False, 0.0, "empty", "Not a repeat: the word is empty.", details=input_check
            )
        ok, why = lexical.one_word_check(candidate)
        if not ok:
            return Verdict(False, 0.0, "not-one-word", f"Not a repeat: {why}.", details=input_check)
        if not used:
            return Verdict(
                False,
                0.0,
                "unrelated",
                "Not a repeat: no categories have been used yet.",
                details={"source": "input check", "used_count": 0},
            )
        d, u = self._closest_used(candidate, used, rulings)
        lvl = self.strictness.value
        word = candidate.strip()
        details = {**d.details, "used_count": len(used), "closest": u}
        if d.accepted:
            reason = f"Repeat at {lvl} level: {word!r} repeats the used category {u!r}: {d.clause}."
            return Verdict(True, d.score, d.relation, reason, matched=u, details=details)
        if d.level_free:
            reason = f"Not a repeat: {d.clause}."
        else:
            which = (
                f"does not repeat the used category {u!r}"
                if len(used) == 1
                else f"repeats none of the used categories; the closest is {u!r}"
            )
            reason = f"Not a repeat at {lvl} level: {word!r} {which}: {d.clause}."
        return Verdict(False, d.score, d.relation, reason, details=details)

    def _closest_used(
        self, candidate: str, used: Sequence[str], rulings: HouseRules | None
    ) -> tuple[_Decision, str]:
        """The decision for the used word (``used`` is not empty) ``candidate`` comes
        closest to: the accepted one with the highest score, else Just One's same clue
        (:meth:`_same_clue`), else the rejected one with the highest score."""
        best: tuple[_Decision, str] | None = None
        for u in used:
            d = self._decide(u, candidate, rulings)
            if best is None or (d.accepted, d.score) > (best[0].accepted, best[0].score):
                best = (d, u)
        d, u = cast(tuple[_Decision, str], best)
        if not d.accepted:
            return self._same_clue(candidate, used, rulings) or (d, u)
        return d, u

    def _same_clue(
        self, candidate: str, used: Sequence[str], rulings: HouseRules | None
    ) -> tuple[_Decision, str] | None:
        """Just One's reading of a repeat (docs/judge.md "Just One's
        readings"): the first used word that ``candidate`` repeats as the same clue
        though :meth:`match` rejects the pair at this level, with the decision, or None.

        The same clue at every level: a gender form (actor / actress) and a misspelling
        or respelling (elefant / elephant, foto / photo); from standard also a word of
        the same family (teach / teacher, :func:`kiekai.judge.lexical.word_family`) and
        an invented word made of it (championery / champion). A house ruling on the pair
        comes first; homophones, translations and other words are never the same clue.
        """
        level = self.strictness
        for u in used:
            if self._ruling(u, candidate, rulings) is not None:
                continue
            ev = self.evidence(u, candidate)
            if ev.relation in ("gender-variant", "typo"):
                what = "gender forms" if ev.relation == "gender-variant" else "misspellings"
            elif level is Strictness.STRICT:
                continue
            elif ev.relation == "invented-word":
                what = "invented words made of a word"
            elif ev.relation not in _NEVER_FAMILY and lexical.word_family(ev.secret, ev.guess):
                what = "words of the same family"
            else:
                continue
            guess, secret = _words(ev)
            clause = f"Just One counts {what} as the same clue ({guess!r} and {secret!r})"
            details = {**evidence_details(ev, level.value), "source": "Just One's readings"}
            return _Decision(True, 1.0, ev.relation, clause, details=details), u
        return None

    @_in_force
    def is_repeat_many(
        self,
        items: Iterable[tuple[str, Sequence[str]]],
        *,
        rulings: HouseRules | None = None,
    ) -> list[Verdict]:
        """:meth:`is_repeat` over ``(candidate, used_words)`` items, in order.

        Raises:
            TypeError: an item is not a ``(candidate, used_words)`` pair (message gives
                its index), or as :meth:`is_repeat`.
        """
        items = list(items)
        for i, item in enumerate(items):
            if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 2:
                raise TypeError(
                    f"items[{i}] must be a (candidate, used_words) pair, got {item!r:.80}"
                )
        _prefetch(
            w
            for c, used in items
            for w in [c, *(used if isinstance(used, (list, tuple)) else [])]
            if isinstance(w, str)
        )
        return [self.is_repeat(c, used, rulings=rulings) for c, used in items]


def _prefetch(words: Iterable[str]) -> None:
    """Batch-embed the normalised forms of ``words`` when there are more than 8 (speed
    only; results unchanged; see :mod:`kiekai.judge.batching`)."""
    from kiekai.judge.batching import prefetch

    prefetch(words, at_least=9)
