"""Reasons a player reads, and the evidence behind them.

A verdict's ``reason`` (:class:`kiekai.judge.verdict.Verdict`) says in plain words why the
judge decided as it did: the two words are synonyms, forms of one word, one is a kind of
the other, they are opposites, different things of one kind, a house ruling, a repeat.
It names no model, data set or measure and shows no number of the judge's own (only the
players' words, quoted, may hold digits): those go to the verdict's ``details``
(:func:`evidence_details`), which the API returns as ``details`` and ``kiekai judge
--explain`` prints.

:func:`plain_clause` words one piece of :class:`kiekai.judge.features.Evidence` by its
relation, with the words as the players wrote them; :data:`TECHNICAL_TERMS` and
:func:`technical_terms_in` say what a reason must not contain (the test over every dev
pair reads them).
"""

from __future__ import annotations

import re
from typing import Any

from kiekai.judge.features import FEATURES, Evidence

#: The sentence encoder whose cosine the judge reads (:mod:`kiekai.models.sentence`),
#: named in ``details["encoder"]`` when a cosine was computed.
ENCODER_NAME = "all-MiniLM-L6-v2"

#: Words a player's reason must not hold (case-insensitive, whole words or word starts):
#: model and data names (MiniLM, WordNet, the everyday lexicon), what the models compute
#: (cosine, embedding, score, probability, threshold, features) and the relation names of
#: lexicography (hypernym, synset, lemma, ...). WordNet is on the list: it is a data set
#: most players have never heard of, and "they are synonyms" says all a player needs;
#: the verdict's ``details["source"]`` names it.
TECHNICAL_TERMS = (
    "minilm",
    "wordnet",
    "lexicon",
    "synset",
    "cosine",
    "embedding",
    "score",
    "probabilit",
    "threshold",
    "feature",
    "fitted",
    "model",
    "regression",
    "needs",
    "hypernym",
    "hyponym",
    "cohyponym",
    "lemma",
    "satellite",
    "cluster",
)

_TERM = re.compile(r"\b(" + "|".join(TECHNICAL_TERMS) + r")", re.IGNORECASE)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def technical_terms_in(reason: str, words: tuple[str, ...] = ()) -> list[str]:
    """What in ``reason`` a player should not have to read: each term of
    :data:`TECHNICAL_TERMS`, a digit or a percent sign outside the quoted player words.

    Args:
        reason: a verdict's reason.
        words: the players' words of the verdict (secret, guess, used words); a term
            inside one of them, quoted or not, is the player's own text and allowed.

    Returns:
        The offending terms in order of appearance (empty when the reason is plain).
    """
    text = _QUOTED.sub("''", reason)
    for word in sorted((w.strip() for w in words if w and w.strip()), key=len, reverse=True):
        text = text.replace(word, "")
    found = [m.group(0) for m in _TERM.finditer(text)]
    found += [c for c in text if c.isdigit() or c == "%"]
    return found


def _q(word: str) -> str:
    return repr(word)


def _kind_name(kind_of: str) -> str:
    """``'feline.n.01'`` -> ``'feline'``; a lexicon label stays as it is."""
    if re.fullmatch(r".+\.[a-z]\.\d+", kind_of):
        kind_of = kind_of.rsplit(".", 2)[0]
    return kind_of.replace("_", " ")


#: The plain phrase per relation; ``{pair}`` is "'guess' and 'secret'", ``{g}`` the guess
#: and ``{s}`` the secret, each quoted as written.
_PHRASES = {
    "synonym": "{pair} are synonyms: they name the same thing",
    "gender-variant": "{pair} name the same role, one being the feminine form of the other",
    "derivation": "{pair} are words of one family",
    "near-synonym": "{pair} are close in meaning but not the same thing",
    "degree": "{pair} differ only in degree (one adds a softening -ish)",
    "typo": "{g} looks like a misspelling of {s}",
    "hyponym": "{g} is a kind of {s}",
    "hypernym": "{s} is a kind of {g}: the guess is the broader word",
    "cohyponym": "{pair} are different things of the same kind",
    "antonym": "{pair} are opposites",
    "negation": "{pair} are opposites: one names the absence of the other",
    "different-word": "{pair} are different words that look alike, not a misspelling",
    "rare-sense": "{pair} are linked only through a rare meaning of {which}",
    "related": "{pair} are related in meaning, with no closer link",
    "unrelated": "{pair} are different things with no close link",
}

#: Phrases that replace those of :data:`_PHRASES` in special cases, by (relation, case).
_VARIANTS = {
    ("derivation", "lexicon-standard"): "{pair} are words of one family that name the same thing",
    ("derivation", "lexicon"): "{pair} are words of one family, but the meaning has shifted",
    ("hyponym", "deep"): "{g} is a kind of {s}, several steps narrower",
    ("hypernym", "deep"): "{s} is a kind of {g}, several steps down: the guess is much broader",
    ("cohyponym", "kind"): "{pair} are different kinds of {kind}",
}


def _case(ev: Evidence) -> str:
    """Which variant of the relation's phrase applies ("" for the plain one)."""
    if ev.relation == "derivation" and ev.source == "everyday lexicon":
        return "lexicon-standard" if ev.accept_from == "standard" else "lexicon"
    if ev.relation in ("hyponym", "hypernym") and "two or more" in ev.detail:
        return "deep"  # kinds several steps apart (features._name_meaning_relation)
    if ev.relation == "cohyponym" and ev.kind_of:
        return "kind"
    return ""


def plain_clause(ev: Evidence) -> str:
    """The evidence in plain words, with the words as written: "'stones' and 'rocks' are
    synonyms: they name the same thing", "'chapel' is a kind of 'church'". No model,
    data set or number of the judge's own (:data:`TECHNICAL_TERMS`).

    Input problems and forms of one word (``source`` ``"input check"`` or ``"form"``)
    keep the evidence's own phrase, which is already plain ("differ only in letter
    case", "are forms of the same word 'mouse'"); so does a relation this module does
    not know (a future one), which is then the evidence's phrase after the two words.
    """
    g, s = ev.raw_guess or ev.guess, ev.raw_secret or ev.secret
    pair = f"{_q(g)} and {_q(s)}"
    if ev.source == "input check":
        return ev.detail
    phrase = _VARIANTS.get((ev.relation, _case(ev))) or _PHRASES.get(ev.relation)
    if ev.source == "form" or phrase is None:
        return f"{pair} {ev.detail}"
    which = g if "of the guess" in ev.detail else s  # rare-sense: whose sense is rare
    return phrase.format(pair=pair, g=_q(g), s=_q(s), which=_q(which), kind=_kind_name(ev.kind_of))


def evidence_details(
    ev: Evidence, level: str, lexicon_version: str | None = None
) -> dict[str, Any]:
    """The evidence behind a verdict, for ``Verdict.details`` (JSON-serialisable).

    Keys (absent when they do not apply):

    - ``source``: what decided: ``"input check"``, ``"form"``, ``"everyday lexicon"``,
      ``"WordNet"``, ``"affix rule"``, ``"spelling"`` or ``"fitted model"`` (the judge
      adds ``"house rule"``);
    - ``evidence``: the evidence in the judge's own terms (WordNet synsets and how common
      their senses are, the lexicon's entries and version, cosines);
    - ``level``: the strictness decided at;
    - ``lexicon_version``: the everyday lexicon's version, when it decided;
    - ``encoder`` and ``cosine``: the sentence encoder and its cosine of the two words
      (-1..1), when computed;
    - ``features``: the fitted model's inputs by name (:data:`kiekai.judge.features.FEATURES`);
    - ``decided_by_rule``: whether a rule (not the fitted model) decided.
    """
    out: dict[str, Any] = {"source": ev.source or "judge", "level": level}
    guess, secret = ev.raw_guess or ev.guess, ev.raw_secret or ev.secret
    if ev.source in ("everyday lexicon", "input check"):
        out["evidence"] = ev.detail
    else:
        out["evidence"] = f"{guess!r} and {secret!r} {ev.detail}"
    if ev.source == "everyday lexicon" and lexicon_version is not None:
        out["lexicon_version"] = str(lexicon_version)
    if ev.cosine is not None:
        out["encoder"] = ENCODER_NAME
        out["cosine"] = round(float(ev.cosine), 4)
    if ev.features is not None:
        out["features"] = {
            name: round(float(x), 4) for name, x in zip(FEATURES, ev.features, strict=True)
        }
    out["decided_by_rule"] = ev.accept_from is not None
    return out
