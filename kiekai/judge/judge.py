"""The synonym judge: does a guess name the secret category, and is a word a repeat?

Rulebook (``rules/kiek.txt``): "Imperfect Guesses" lets each table set how strict it
is (synonyms such as "Humans"/"persons" allowed, "person"/"faces" too far, "White" no
match for "Black"); "Ne Bis in Idem" forbids writing a category already used. Both
questions use the same equivalence, decided per :class:`Strictness`:

- form relations (same word in any form) are accepted at every level;
- opposites, negations, different real words spelled alike, empty and multi-word text
  are rejected at every level;
- everything else is decided by a logistic regression per level over a handful of
  lexical and embedding features (:mod:`kiekai.judge.features`), fitted by
  ``scripts/fit_judge.py`` and stored in ``data/judge-model.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kiekai.judge import lexical
from kiekai.judge.features import FORM_RELATIONS, REJECT_RELATIONS, Evidence, evidence
from kiekai.judge.model import JudgeModel, load_model
from kiekai.judge.verdict import Strictness, Verdict

_INPUT_RELATIONS = ("empty", "not-one-word")


#: What each level's definition leaves to a looser level, per model-decided relation
#: (the level table of ``docs/judge.md``, after the rulebook's "Imperfect Guesses":
#: standard accepts synonyms and derived words naming the same thing; kinds one step
#: away, degree words and misspellings only lenient tables accept). Named in the reason
#: when such a relation is rejected, next to the score.
_LEFT_TO_LENIENT = {
    "hypernym": "standard leaves broader and narrower kinds to lenient tables",
    "hyponym": "standard leaves broader and narrower kinds to lenient tables",
    "degree": "standard leaves degree words (red / reddish) to lenient tables",
    "typo": "standard leaves misspellings to lenient tables",
}

#: Co-hyponyms (dog / cat) are different things of one kind: never the same category.
_COHYPONYM_RULE = "different things of the same kind are never the same category"


def _words(ev: Evidence) -> tuple[str, str]:
    """(guess, secret) as the players wrote them, or normalised when not known."""
    return (ev.raw_guess or ev.guess, ev.raw_secret or ev.secret)


def _pair_reason(accepted: bool, level: Strictness, ev: Evidence, extra: str = "") -> str:
    """One sentence explaining a verdict decided by form, by a rejecting rule or by score."""
    verb = "Accepted" if accepted else "Rejected"
    if ev.relation in _INPUT_RELATIONS:
        return f"{verb}: {ev.detail}."
    guess, secret = _words(ev)
    return f"{verb} at {level.value} level: {guess!r} and {secret!r} {ev.detail}{extra}."


def _level_rule_reason(level: Strictness, ev: Evidence) -> str:
    """Reason for a relation the level's rule rejects whatever the score (strict: only
    forms of the same word pass; its fitted model is a constant rejection)."""
    guess, secret = _words(ev)
    return (
        f"Rejected at {level.value} level: {guess!r} and {secret!r} {ev.detail}, "
        f"but {level.value} accepts only forms of the same word (inflection, spelling, "
        "case, compounds)."
    )


class Judge:
    """Decides guesses and repeats at one strictness level.

    Safe to call from several threads (WordNet lookups are serialised by
    :data:`kiekai.judge.lexical.WORDNET_LOCK`, MiniLM encodes by their own lock); models (WordNet, MiniLM, the fitted parameters) load once
    per process on first use, and every per-word and per-pair result is cached.

    Args:
        strictness: ``"strict"``, ``"standard"`` or ``"lenient"`` (or a
            :class:`Strictness`).
        model: a :class:`JudgeModel`; default: ``data/judge-model.json``.

    Raises:
        ValueError: unknown strictness, or a malformed model file.
        FileNotFoundError: the model file is missing.
    """

    def __init__(
        self, strictness: str | Strictness = Strictness.STANDARD, model: JudgeModel | None = None
    ):
        self.strictness = Strictness.parse(strictness)
        self.model = model if model is not None else load_model()
        self._level = self.model.level(self.strictness)
        order = list(Strictness)  # strict, standard, lenient
        self._nested = [self.model.level(lv) for lv in order[: order.index(self.strictness) + 1]]

    def __repr__(self) -> str:
        return f"Judge(strictness={self.strictness.value!r})"

    def warm_up(
        self,
        build_embedding_table: bool = False,
        preload_wordnet: bool = False,
        report: Callable[[str], None] | None = None,
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
        (:func:`kiekai.judge.resources.preload_wordnet`: about 7 s and 230 MB), which
        makes the WordNet part of a new word about three times faster. Both are off by
        default, so that tests and one-shot commands never pay for them;
        ``kiekai serve`` and ``scripts/bench_judge.py`` turn them on.

        Raises:
            RuntimeError: a model cannot be loaded (message from :mod:`kiekai.models`).
        """
        from kiekai.judge import resources

        if build_embedding_table:
            resources.load_embedding_table(build=True, report=report)
        else:
            resources.embedding_table()
        if preload_wordnet:
            seconds = resources.preload_wordnet()
            if report and seconds:
                report(f"WordNet preloaded: every synset read in {seconds:.1f} s")
        resources.warm_up_encoder()  # tabled words never load MiniLM; the first new word would
        self.match("dogs", "puppies")
        self.match("colour", "the colors")
        self.is_repeat("3", ["three"])

    @staticmethod
    def is_one_word(text: str) -> tuple[bool, str]:
        """Whether ``text`` is one lexical item a player may write, with the reason if not.

        A single word (hyphen and apostrophe allowed), a numeral, or a WordNet compound
        ("human beings") passes; empty text, emoji or symbols only, and phrases
        ("a brown dog") are refused. Returns ``(ok, reason)``; reason is "" when ok.
        """
        return lexical.one_word_check(text)

    def decide(self, ev: Evidence) -> Verdict:
        """Turn evidence into a verdict at this judge's level."""
        if ev.relation in FORM_RELATIONS:
            return Verdict(True, 1.0, ev.relation, _pair_reason(True, self.strictness, ev))
        if ev.relation in REJECT_RELATIONS or ev.features is None:
            return Verdict(False, 0.0, ev.relation, _pair_reason(False, self.strictness, ev))
        # A looser table accepts whatever a stricter one does (levels are nested), so
        # the score is the highest probability among this level and the stricter ones.
        p = max(m.probability(ev.features) for m in self._nested)
        accepted = p >= self._level.threshold
        if not accepted and all(m.is_constant for m in self._nested):
            return Verdict(False, round(p, 4), ev.relation, _level_rule_reason(self.strictness, ev))
        extra = f" (score {p:.2f}, needs {self._level.threshold:.2f})"
        if not accepted:
            if ev.relation == "cohyponym":
                extra = f"; {_COHYPONYM_RULE}{extra}"
            elif self.strictness is Strictness.STANDARD and ev.relation in _LEFT_TO_LENIENT:
                extra = f"; {_LEFT_TO_LENIENT[ev.relation]}{extra}"
        return Verdict(
            accepted, round(p, 4), ev.relation, _pair_reason(accepted, self.strictness, ev, extra)
        )

    def match(self, secret: str, guess: str) -> Verdict:
        """Whether ``guess`` names the secret category ``secret`` at this level.

        Never raises for text: empty or multi-word guesses get a rejected verdict with
        relation ``empty`` or ``not-one-word``.

        Raises:
            TypeError: an argument is not a ``str``.
        """
        return self.decide(evidence(secret, guess))

    def match_many(self, pairs: Iterable[tuple[str, str]]) -> list[Verdict]:
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
        return [self.match(s, g) for s, g in pairs]

    def is_repeat(self, candidate: str, used_words: Sequence[str]) -> Verdict:
        """Ne bis in idem: whether ``candidate`` repeats a category in ``used_words``.

        Each used word is judged as if it were the secret and ``candidate`` the guess,
        at this level; ``accepted`` means "is a repeat" and ``matched`` names the used
        word it repeats (the one with the highest score). Empty used entries are
        skipped.

        Raises:
            TypeError: ``candidate`` is not a ``str``, or ``used_words`` is not a list
                (or other iterable) of words: a bare string, bytes, ``None``, a number.
        """
        if not isinstance(candidate, str):
            raise TypeError(f"candidate must be text (str), got {type(candidate).__name__}")
        if isinstance(used_words, (str, bytes, bytearray)) or not isinstance(
            used_words, Iterable
        ):
            raise TypeError(
                f"used_words must be a list of words (str), got {type(used_words).__name__}"
            )
        used = [u for u in used_words if isinstance(u, str) and u.strip()]
        if len(used) > 8:
            _prefetch([candidate, *used])
        ok, why = lexical.one_word_check(candidate)
        if not candidate.strip():
            return Verdict(False, 0.0, "empty", "Not a repeat: the word is empty.")
        if not ok:
            return Verdict(False, 0.0, "not-one-word", f"Not a repeat: {why}.")
        if not used:
            return Verdict(
                False, 0.0, "unrelated", "Not a repeat: no categories have been used yet."
            )
        best: tuple[Verdict, str] | None = None
        for u in used:
            v = self.match(u, candidate)
            key = (v.accepted, v.score)
            if best is None or key > (best[0].accepted, best[0].score):
                best = (v, u)
        v, u = best
        lvl = self.strictness.value
        if v.accepted:
            reason = f"Repeat at {lvl} level: {candidate.strip()!r} repeats the used category {u!r} ({v.relation}; score {v.score:.2f})."
            return Verdict(True, v.score, v.relation, reason, matched=u)
        reason = (
            f"Not a repeat at {lvl} level: {candidate.strip()!r} repeats none of the "
            f"{len(used)} used categories; closest is {u!r} ({v.relation}; score {v.score:.2f})."
        )
        return Verdict(False, v.score, v.relation, reason)

    def is_repeat_many(self, items: Iterable[tuple[str, Sequence[str]]]) -> list[Verdict]:
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
        return [self.is_repeat(c, used) for c, used in items]


def _prefetch(words: Iterable[str]) -> None:
    """Batch-embed the normalised forms of ``words`` (speed only; results unchanged)."""
    from kiekai.judge.normalize import normalise
    from kiekai.judge.resources import prefetch_embeddings

    norms = []
    for w in words:
        if isinstance(w, str):
            n = normalise(w)
            if n:
                norms.append(n)
    if len(norms) > 8:
        prefetch_embeddings(norms)
