"""Evidence for one (secret, guess) pair: a named relation and a small feature vector.

The pipeline, strongest evidence first:

1. *input*: empty text -> ``empty``; several words that are no compound -> ``not-one-word``.
2. *form* (accepted at every level; rulebook "Imperfect Guesses", strict = the same
   word in any form): ``same``, ``normalisation`` (case, whitespace, punctuation,
   articles, diacritics, numerals), ``compound`` (sea side / sea-side / seaside),
   ``spelling`` (British/American), ``same-lemma`` (inflection, irregular forms).
3. *opposites* (rejected at every level): ``antonym`` (WordNet), ``negation``
   (people / peopleless).
4. *spelling accidents*: ``typo`` (the guess is no English word and is one or two
   edits from the secret) and ``different-word`` (a real, different word spelled
   alike: cat / cut, sea / see; rejected at every level).
5. *meaning* (decided by the fitted model per strictness): ``synonym``,
   ``derivation``, ``hypernym``, ``hyponym``, ``cohyponym``, ``related``,
   ``unrelated``.

:data:`FEATURES` names the vector the fitted model reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from kiekai.judge import lexical
from kiekai.judge.normalize import compound_key, normalise, strip_diacritics
from kiekai.judge.resources import cosine

#: Feature vector read by the per-strictness logistic regression, in this order.
#: All lie in 0..1 except ``embedding`` (cosine, -1..1).
FEATURES = (
    "embedding",  # MiniLM cosine of "a photo of {word}." for the two words
    "synonym",  # sense-weighted shared WordNet synset
    "derivation",  # sense-weighted WordNet derivational / pertainym link
    "affix",  # 1 when one word is the other plus a derivational suffix
    "taxonomy1",  # sense-weighted direct hypernym or hyponym link
    "taxonomy2",  # sense-weighted hypernym link two to six steps away
    "cohyponym",  # sense-weighted shared direct hypernym (siblings)
    "typo",  # 1 when the guess is a misspelling of the secret
    "gloss",  # P(sense) mass whose WordNet definition uses the other word
    "similar",  # sense-weighted WordNet similar-to / also-see / verb-group link
    "degree",  # 1 when one word is the other plus a degree suffix (red / reddish)
    "alias",  # sense-weighted "informal/general term for" definition link (kitty / cat)
)

#: Relations decided by surface form alone and accepted at every strictness.
FORM_RELATIONS = ("same", "normalisation", "compound", "spelling", "same-lemma")

#: Relations rejected at every strictness, whatever the model says.
REJECT_RELATIONS = ("empty", "not-one-word", "antonym", "negation", "different-word")


@dataclass(frozen=True)
class Evidence:
    """What the judge found about a pair, before any strictness decision.

    Attributes:
        relation: the named relation (see module docstring).
        detail: a short phrase for the verdict's reason (e.g. "differ only in case").
        features: float64 array of shape ``[len(FEATURES)]``, or ``None`` for
            relations settled without the model (form relations and rejections).
        secret / guess: the normalised words.
        raw_secret / raw_guess: the words as written, surrounding whitespace removed
            (for reasons shown to players); "" when not known.
    """

    relation: str
    detail: str
    secret: str
    guess: str
    features: np.ndarray | None = field(default=None, compare=False)
    raw_secret: str = field(default="", compare=False)
    raw_guess: str = field(default="", compare=False)


def _normalisation_detail(raw_a: str, raw_b: str) -> str:
    """Name what differed between two raw strings that normalise to the same text.

    The steps named follow :func:`kiekai.judge.normalize.normalise`: letter case,
    German sharp s (case folding writes "ß" as "ss": Straße / strasse), diacritics
    (café / cafe), numerals, articles, punctuation and spacing.
    """
    a, b = raw_a.strip(), raw_b.strip()
    if raw_a != raw_b and a == b:
        return "differ only in surrounding whitespace"
    parts = []
    if ("ß" in a + b or "ẞ" in a + b) and a.casefold() == b.casefold():
        parts.append("the sharp s (ß written as ss)")
    if strip_diacritics(a) != a or strip_diacritics(b) != b:
        parts.append("diacritics")
    # What is left once sharp s and diacritics are spelled out as ASCII.
    plain_a = strip_diacritics(a.replace("ß", "ss").replace("ẞ", "SS"))
    plain_b = strip_diacritics(b.replace("ß", "ss").replace("ẞ", "SS"))
    if plain_a != plain_b and plain_a.lower() == plain_b.lower():
        parts.insert(0, "letter case")
    elif plain_a.lower() != plain_b.lower():
        if plain_a != plain_a.lower() or plain_b != plain_b.lower():
            parts.insert(0, "letter case")
        if any(ch.isdigit() for ch in a + b):
            parts.append("a numeral written in digits")
        if lexical.has_letters(a) and (set(plain_a.lower()) | set(plain_b.lower())) - set(
            "abcdefghijklmnopqrstuvwxyz0123456789 -'."
        ):
            parts.append("symbols")
        words = {w.lower() for w in (a + " " + b).split()}
        if words & {"a", "an", "the"}:
            parts.append("an article")
        if not any(p for p in parts if p not in ("letter case",)):
            parts.append("punctuation or spacing")
    if not parts:
        parts.append("punctuation or spacing")
    return "differ only in " + " and ".join(parts)


def _typo_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (rapidfuzz) from ``b`` to the nearest form of ``a``."""
    from rapidfuzz.distance import DamerauLevenshtein

    return min(DamerauLevenshtein.distance(f, b) for f in lexical.lemmas(a) | {a})


def _max_typo_edits(word: str) -> int:
    """Edits a misspelling may be from the intended word: 1 up to 5 letters, else 2."""
    return 1 if len(word) <= 5 else 2


def evidence(secret: str, guess: str) -> Evidence:
    """Collect the evidence for ``guess`` against ``secret`` (raw player text).

    Never raises for text input: empty or multi-word text becomes a rejecting relation.
    The result carries both the normalised words and the words as written. Cached per
    pair; safe to call from several threads (WordNet lookups hold
    :data:`kiekai.judge.lexical.WORDNET_LOCK`).

    Raises:
        TypeError: an argument is not a ``str``.
    """
    for name, value in (("secret", secret), ("guess", guess)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be text (str), got {type(value).__name__}")
    return _cached_evidence(secret, guess)


@lru_cache(maxsize=262144)
def _cached_evidence(secret: str, guess: str) -> Evidence:
    """:func:`evidence` after its type check, cached per pair of raw strings."""
    with lexical.WORDNET_LOCK:
        ev = _evidence(secret, guess)
    return replace(ev, raw_secret=secret.strip(), raw_guess=guess.strip())


def _evidence(secret: str, guess: str) -> Evidence:
    """:func:`evidence` without the type check and the words as written."""
    a, b = normalise(secret), normalise(guess)
    for raw, norm, who in ((guess, b, "guess"), (secret, a, "secret")):
        if not raw.strip() or not norm:
            why = "is empty" if not raw.strip() else "has no letters or digits"
            return Evidence("empty", f"the {who} {why}", a, b)
        ok, why = lexical.one_word_check(raw)
        if not ok:
            return Evidence("not-one-word", f"the {who} is not one word: {why}", a, b)

    if secret == guess:
        return Evidence("same", "are the same word", a, b)
    if a == b:
        return Evidence("normalisation", _normalisation_detail(secret, guess), a, b)
    if compound_key(a) == compound_key(b):
        return Evidence(
            "compound", "are the same compound written open, hyphenated or closed", a, b
        )
    if lexical.american(a) == lexical.american(b) or compound_key(
        lexical.american(compound_key(a))
    ) == compound_key(lexical.american(compound_key(b))):
        return Evidence("spelling", "are British and American spellings of one word", a, b)
    la, lb = lexical.lemmas(a), lexical.lemmas(b)
    shared = la & lb
    if shared:
        lemma = min(shared, key=lambda w: (len(w), " " in w))  # "x-ray" over "x ray"
        return Evidence("same-lemma", f"are forms of the same word {lemma!r}", a, b)

    morph = lexical.morphological_link(a, b)
    if morph == "negation":
        return Evidence("negation", "differ by negation, one naming the absence of the other", a, b)
    links = lexical.wordnet_links(a, b)
    if links.antonym > 0 and links.antonym >= links.synonym:
        return Evidence("antonym", "are opposites in WordNet", a, b)

    real_b = lexical.is_real_word(b)
    semantic = max(links.synonym, links.derivation, links.hypernym1, links.hyponym1)
    dist = _typo_distance(a, b) if " " not in b else 99
    typo = 0.0
    if dist <= _max_typo_edits(b) and len(b) >= 3:
        if not real_b:
            typo = 1.0
        elif semantic == 0.0 and morph is None:
            return Evidence(
                "different-word",
                "are different English words spelled alike, not a misspelling",
                a,
                b,
            )

    emb = cosine(a, b)
    degree = lexical.degree_link(a, b)
    feats = np.array(
        [
            emb,
            links.synonym,
            links.derivation,
            1.0 if morph == "derivation" else 0.0,
            max(links.hypernym1, links.hyponym1),
            max(links.taxonomy2_up, links.taxonomy2_down),
            links.cohyponym,
            typo,
            links.gloss,
            links.similar,
            1.0 if degree else 0.0,
            links.alias,
        ],
        dtype=np.float64,
    )
    relation, detail = _name_meaning_relation(links, morph, typo, emb, degree)
    return Evidence(relation, detail, a, b, feats)


def _name_meaning_relation(
    links: lexical.Links, morph: str | None, typo: float, emb: float, degree: bool
):
    """Pick the strongest meaning relation and a phrase describing it."""
    if typo:
        return "typo", "look like a misspelling of the same word"
    if degree:
        return "degree", "differ in degree, one being the other with a softening suffix"
    candidates = [
        (links.synonym, "synonym", "share a WordNet synset (synonyms)"),
        (links.similar, "synonym", "are near-synonyms in WordNet (similar-to)"),
        (
            links.alias,
            "synonym",
            "name the same thing: WordNet defines one as another name for the other",
        ),
        (
            max(links.derivation, 0.5 if morph == "derivation" else 0.0),
            "derivation",
            "are derived from one another",
        ),
        (
            links.hypernym1,
            "hypernym",
            "are one WordNet step apart, the guess naming the broader kind",
        ),
        (links.hyponym1, "hyponym", "are one WordNet step apart, the guess naming a narrower kind"),
        (links.cohyponym, "cohyponym", "are different things of the same kind in WordNet"),
        (
            links.taxonomy2_up,
            "hypernym",
            "are two or more WordNet steps apart, the guess naming a much broader kind",
        ),
        (
            links.taxonomy2_down,
            "hyponym",
            "are two or more WordNet steps apart, the guess naming a much narrower kind",
        ),
    ]
    strength, name, detail = max(candidates, key=lambda c: c[0])
    if strength > 0:
        return name, detail
    if emb >= 0.5:
        return (
            "related",
            f"are related only by sentence embedding (MiniLM cosine {emb:.2f}), "
            "with no close WordNet link",
        )
    return "unrelated", "have no close link in WordNet or by sentence embedding"
