"""Evidence for one (secret, guess) pair: a named relation, what decides it, and a small
feature vector for the fitted model.

The evidence, strongest first (the first that applies decides; :class:`kiekai.judge.Judge`
puts a table's house rules before all of it and the everyday lexicon between 2 and 3):

1. *input*: empty text -> ``empty``; text that is not one lexical item (several words,
   a word split into pieces that are not words, control or invisible characters) ->
   ``not-one-word``. Rejected at every level.
2. *form* (accepted at every level; rulebook "Imperfect Guesses", strict = the same
   word in any form): ``same``, ``normalisation`` (case, whitespace, punctuation,
   articles, diacritics, numerals), ``compound`` (sea side / sea-side / seaside),
   ``spelling`` (British/American), ``same-lemma`` (inflection, irregular forms).
3. *opposites and accidents* (rejected at every level): ``negation`` (people /
   peopleless), ``antonym`` (WordNet), ``different-word`` (a real, different word
   spelled or sounding alike: cat / cut, sea / see, right / write), ``invented-word``
   (no English word, the other with an ending: championery / champion) and
   ``unknown-word`` (no English word at all: perro / dog). :func:`gender_evidence`
   (``gender-variant``, from standard) is read before the everyday lexicon.
4. *WordNet rules* on links between **common** senses of both words
   (:data:`kiekai.judge.lexical.COMMON_SENSE_MIN_P`):
   ``synonym`` (a shared synset, or one defined as another name for the other) and
   ``gender-variant`` (host / hostess) -> accepted from standard;
   ``near-synonym`` (similar-to, a shared adjective satellite: hot / warm, red /
   crimson), ``degree`` (red / reddish) and ``typo`` (a non-word one or two edits away)
   -> accepted at lenient only; ``cohyponym`` (sister kinds: tiger / lion) -> rejected
   at every level.
5. *fitted model* for the rest (per strictness, :mod:`kiekai.judge.model`):
   ``derivation``, ``hypernym``, ``hyponym``, ``rare-sense`` (a link only through a rare
   sense: night / dark), ``related``, ``unrelated``.

:data:`FEATURES` names the vector the fitted model reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import overload

import numpy as np

from kiekai.judge import lexical
from kiekai.judge.normalize import compound_key, has_letters, normalise, strip_diacritics
from kiekai.judge.resources import PAIR_CACHE_ENTRIES, cosine

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


#: Levels in order from strictest to loosest; a relation accepted at one level is accepted
#: at every looser one.
LEVEL_ORDER = ("strict", "standard", "lenient")

#: ``Evidence.accept_from`` of a relation rejected at every level.
NEVER = "never"


@dataclass(frozen=True)
class Evidence:
    """What the judge found about a pair, before any strictness decision.

    Attributes:
        relation: the named relation (see module docstring).
        detail: a short phrase for the verdict's reason (e.g. "differ only in case").
        secret / guess: the normalised words.
        accept_from: when a rule decides, the strictest level that accepts the pair
            (``"strict"``: every level; ``"standard"``: standard and lenient;
            ``"lenient"``; :data:`NEVER`: no level); ``None`` when the fitted model decides.
        source: what decided, named in the reason: ``"input check"``, ``"form"``,
            ``"everyday lexicon"``, ``"WordNet"``, ``"affix rule"``, ``"spelling"`` or
            ``"fitted model"``.
        features: float64 array of shape ``[len(FEATURES)]`` (for the fitted model), or
            ``None`` for relations settled before any meaning evidence was gathered.
        raw_secret / raw_guess: the words as written, surrounding whitespace removed
            (for reasons shown to players); "" when not known.
        cosine: the MiniLM cosine of the pair when it was computed, else ``None``.
        kind_of: for ``cohyponym``, what both words are kinds of (a lexicon group label
            or WordNet's shared hypernym, e.g. ``"vehicle"``, ``"feline.n.01"``), for the
            reason a player reads (:func:`kiekai.judge.reasons.plain_clause`); else "".
    """

    relation: str
    detail: str
    secret: str
    guess: str
    accept_from: str | None = None
    source: str = ""
    features: np.ndarray | None = field(default=None, compare=False)
    raw_secret: str = field(default="", compare=False)
    raw_guess: str = field(default="", compare=False)
    cosine: float | None = field(default=None, compare=False)
    kind_of: str = field(default="", compare=False)

    def accepted_at(self, level: str) -> bool | None:
        """Whether a rule accepts the pair at ``level``; ``None`` when the model decides."""
        if self.accept_from is None:
            return None
        if self.accept_from == NEVER:
            return False
        return LEVEL_ORDER.index(level) >= LEVEL_ORDER.index(self.accept_from)


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
        if has_letters(a) and (set(plain_a.lower()) | set(plain_b.lower())) - set(
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
    """Collect the evidence for ``guess`` against ``secret`` (raw player text), without
    a table's house rules or the everyday lexicon (:meth:`kiekai.judge.Judge.evidence`
    adds those): :func:`surface_evidence`, else :func:`meaning_evidence`.

    Never raises for text input: empty or multi-word text becomes a rejecting relation.
    Cached per pair; safe to call from several threads (WordNet lookups hold
    :data:`kiekai.judge.lexical.WORDNET_LOCK`).

    Raises:
        TypeError: an argument is not a ``str``.
    """
    return surface_evidence(secret, guess) or meaning_evidence(secret, guess)


def _check_types(secret: object, guess: object) -> None:
    for name, value in (("secret", secret), ("guess", guess)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be text (str), got {type(value).__name__}")


def surface_evidence(secret: str, guess: str) -> Evidence | None:
    """Input check and form relations (tiers 1-2 of the module docstring), or ``None``
    when the two are well-formed words that are not the same word in any form.

    Needs no embedding and only WordNet's lemma lists. Cached per pair.

    Raises:
        TypeError: an argument is not a ``str``.
    """
    _check_types(secret, guess)
    return _cached_surface(secret, guess)


def meaning_evidence(secret: str, guess: str) -> Evidence:
    """Opposites, spelling accidents, WordNet rules and the model's features (tiers 3-5
    of the module docstring) for two well-formed words that are not forms of one word.
    Cached per pair.

    Raises:
        TypeError: an argument is not a ``str``.
    """
    _check_types(secret, guess)
    return _cached_meaning(secret, guess)


def clear_caches() -> None:
    """Forget every cached pair (tests that switch resources, such as the embedding
    table, between calls)."""
    _cached_surface.cache_clear()
    _cached_meaning.cache_clear()
    _cached_gender.cache_clear()


@overload
def _with_raw(ev: Evidence, secret: str, guess: str) -> Evidence: ...
@overload
def _with_raw(ev: None, secret: str, guess: str) -> None: ...
def _with_raw(ev: Evidence | None, secret: str, guess: str) -> Evidence | None:
    if ev is None:
        return None
    return replace(ev, raw_secret=secret.strip(), raw_guess=guess.strip())


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def _cached_surface(secret: str, guess: str) -> Evidence | None:
    with lexical.WORDNET_LOCK:
        return _with_raw(_surface(secret, guess), secret, guess)


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def _cached_meaning(secret: str, guess: str) -> Evidence:
    with lexical.WORDNET_LOCK:
        return _with_raw(_meaning(normalise(secret), normalise(guess)), secret, guess)


def _surface(secret: str, guess: str) -> Evidence | None:
    """:func:`surface_evidence` without the type check and the words as written."""
    a, b = normalise(secret), normalise(guess)
    for raw, norm, who in ((guess, b, "guess"), (secret, a, "secret")):
        if not raw.strip() or not norm:
            why = "is empty" if not raw.strip() else "has no letters or digits"
            return Evidence("empty", f"the {who} {why}", a, b, NEVER, "input check")
        ok, why = lexical.one_word_check(raw)
        if not ok:
            return Evidence(
                "not-one-word", f"the {who} is not one word: {why}", a, b, NEVER, "input check"
            )

    def form(relation: str, detail: str) -> Evidence:
        return Evidence(relation, detail, a, b, "strict", "form")

    if secret == guess:
        return form("same", "are the same word")
    if a == b:
        return form("normalisation", _normalisation_detail(secret, guess))
    if compound_key(a) == compound_key(b):
        # both passed the one-word check, so a split form is a known compound, never a
        # word cut into pieces ("ca t" is refused above)
        return form("compound", "are the same compound written open, hyphenated or closed")
    if lexical.american(a) == lexical.american(b) or compound_key(
        lexical.american(compound_key(a))
    ) == compound_key(lexical.american(compound_key(b))):
        return form("spelling", "are British and American spellings of one word")
    la, lb = lexical.lemmas(a), lexical.lemmas(b)
    shared = la & lb
    if shared:
        lemma = min(shared, key=lambda w: (len(w), " " in w))  # "x-ray" over "x ray"
        return form("same-lemma", f"are forms of the same word {lemma!r}")
    return None


def _sense(name: str) -> str:
    """``'car.n.01' ('a motor vehicle with four wheels...')``: a synset for a reason."""
    from kiekai.judge.resources import wordnet

    try:
        definition = wordnet().synset(name).definition()
    except Exception:  # noqa: BLE001 - a reason must never fail
        return name
    if len(definition) > 60:
        definition = definition[:57].rsplit(" ", 1)[0] + "..."
    return f"{name} ({definition!r})"


def _percent(p: float) -> str:
    return f"{round(100 * p)} %"


def _meaning(a: str, b: str) -> Evidence:
    """:func:`meaning_evidence` on normalised words (tiers 3-5)."""
    morph = lexical.morphological_link(a, b)
    if morph == "negation":
        return Evidence(
            "negation",
            "differ by negation, one naming the absence of the other",
            a,
            b,
            NEVER,
            "affix rule",
        )
    links = lexical.wordnet_links(a, b)
    if links.antonym > 0 and links.antonym >= links.synonym:
        return Evidence("antonym", "are opposites in WordNet", a, b, NEVER, "WordNet")
    typo = _typo_feature(a, b, links, morph)
    if typo is None:
        return Evidence(
            "different-word",
            "are different English words spelled alike, not a misspelling",
            a,
            b,
            NEVER,
            "spelling",
        )
    not_english = _not_english(a, b, typo)
    if not_english is not None:
        return not_english
    if _homophones(a, b, links, morph):
        return Evidence(
            "different-word",
            "are different English words that sound alike (homophones), not one word",
            a,
            b,
            NEVER,
            "spelling",
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

    def rule(relation: str, detail: str, accept_from: str, source: str = "WordNet") -> Evidence:
        return Evidence(relation, detail, a, b, accept_from, source, features=feats, cosine=emb)

    ruled = _rule_evidence(a, b, links, degree=degree, typo=typo, rule=rule)
    if ruled is not None:
        return ruled
    relation, detail = _name_meaning_relation(links, morph, emb)
    if relation == "cohyponym":
        via = links.best["cohyponym"].via if "cohyponym" in links.best else ""
        return replace(rule(relation, detail, NEVER), kind_of=via)
    return Evidence(relation, detail, a, b, None, "fitted model", features=feats, cosine=emb)


def _typo_feature(a: str, b: str, links: lexical.Links, morph: str | None) -> float | None:
    """The typo feature of a pair: 1.0 when one word is no English word and either
    within the typo distance of the other (at least 3 letters) or the other respelled as it
    sounds (:func:`kiekai.judge.lexical.sounds_alike`: foto / photo, nite / night), 0.0
    when it is not that close or is a word linked to ``a``; ``None`` when it is a
    different English word spelled alike (no WordNet or affix link), which a rule
    rejects. The edit distance is read only when the guess is no word: a real word is
    never a misspelling of another."""
    real_b = lexical.is_real_word(b)
    semantic = max(links.synonym, links.derivation, links.hypernym1, links.hyponym1)
    dist = _typo_distance(a, b) if " " not in b else 99
    if dist <= _max_typo_edits(b) and len(b) >= 3:
        if not real_b or not lexical.is_real_word(a):  # one of the two is misspelt
            return 1.0
        if semantic == 0.0 and morph is None:
            return None
    if not real_b and any(_respelled(f, b) for f in lexical.lemmas(a) | {a}):
        return 1.0
    if real_b and not lexical.is_real_word(a) and any(_respelled(f, a) for f in lexical.lemmas(b)):
        return 1.0
    return 0.0


#: Largest share of a word's letters a respelling may change (Damerau-Levenshtein
#: distance over the longer length), set from examples: foto / photo 0.4, enuf / enough
#: 0.5, pleez / please 0.5; laff / laugh (0.6) is left out. Words of three letters are
#: too short to tell a respelling (gato / cat sound alike to Metaphone).
RESPELLING_MAX_SHARE = 0.5


def _respelled(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` respelled as it sounds (Just One's "the mystery word written
    differently"): they sound alike (:func:`kiekai.judge.lexical.sounds_alike`) and at
    most :data:`RESPELLING_MAX_SHARE` of the letters differ."""
    from rapidfuzz.distance import DamerauLevenshtein

    if len(a) < 4 or len(b) < 4 or not lexical.sounds_alike(a, b):
        return False
    return DamerauLevenshtein.distance(a, b) <= RESPELLING_MAX_SHARE * max(len(a), len(b))


def _not_english(a: str, b: str, typo: float) -> Evidence | None:
    """Rejecting evidence when one word is no English word and no misspelling of the
    other (Just One's invalid clues: an invented word, "championery" for champion; a
    word of another language, "perro" for dog): ``invented-word`` or ``unknown-word``,
    rejected at every level; ``None`` when both are English
    (:func:`kiekai.judge.lexical.is_english_word`) or ``typo`` is set."""
    if typo:
        return None
    for word, other in ((b, a), (a, b)):
        if lexical.is_english_word(word):
            continue
        if lexical.invented_from(word, other):
            detail = f"are not the same word: {word!r} is no English word, only {other!r} with an invented ending"
            return Evidence("invented-word", detail, a, b, NEVER, "spelling")
        detail = (
            f"are not the same word: {word!r} is no English word the judge knows (a word of "
            "another language or an invented one)"
        )
        return Evidence("unknown-word", detail, a, b, NEVER, "spelling")
    return None


def _homophones(a: str, b: str, links: lexical.Links, morph: str | None) -> bool:
    """Whether two real words are homophones and nothing else (right / write, night /
    knight): they sound alike (:func:`kiekai.judge.lexical.sounds_alike`) and WordNet
    links them by no synonym, alias, near-synonym, derivation or kind, nor an affix."""
    if morph is not None or not lexical.sounds_alike(a, b):
        return False
    if not (lexical.is_real_word(a) and lexical.is_real_word(b)):
        return False
    linked = max(
        links.synonym, links.alias, links.similar, links.derivation,
        links.hypernym1, links.hyponym1, links.taxonomy2_up, links.taxonomy2_down,
    )  # fmt: skip
    return linked == 0.0


def gender_evidence(secret: str, guess: str) -> Evidence | None:
    """``gender-variant`` evidence (accepted from standard) when one word is the other's
    gender form (:func:`kiekai.judge.lexical.gender_variant`: actor / actress, prince /
    princess), else ``None``. The judge reads it before the everyday lexicon: Just One
    counts gender forms as the same clue, though the lexicon files some as
    different (royal titles by sex). Cached per pair.

    Raises:
        TypeError: an argument is not a ``str``.
    """
    _check_types(secret, guess)
    return _cached_gender(secret, guess)


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def _cached_gender(secret: str, guess: str) -> Evidence | None:
    a, b = normalise(secret), normalise(guess)
    with lexical.WORDNET_LOCK:
        feminine = lexical.gender_variant(a, b)
    if not feminine:
        return None
    detail = (
        f"name the same role, one being the feminine form of the other (WordNet {_sense(feminine)})"
    )
    ev = Evidence("gender-variant", detail, a, b, "standard", "WordNet")
    return _with_raw(ev, secret, guess)


def _rule_evidence(
    a: str,
    b: str,
    links: lexical.Links,
    *,
    degree: bool,
    typo: float,
    rule: Callable[..., Evidence],
) -> Evidence | None:
    """The first rule that rules the pair (tier 3: a common synset, a WordNet alias, a
    gender variant, a degree suffix, an adjective cluster or near-synonym, a misspelling),
    built by ``rule(relation, detail, accept_from[, source])``; ``None`` when none does."""
    if link := links.common("synonym"):
        return rule(
            "synonym",
            f"share the WordNet synset {_sense(link.a_sense)} in a common sense of both "
            f"words ({_percent(link.p_b)} and {_percent(link.p_a)} of their uses)",
            "standard",
        )
    if link := links.common("alias"):
        alias, target = (link.b_sense, link.a_sense)
        if not _is_alias_for(alias, target):
            alias, target = target, alias
        return rule(
            "synonym",
            f"name the same thing: WordNet defines {_sense(alias)} as another name for {target}",
            "standard",
        )
    if feminine := lexical.gender_variant(a, b):
        return rule(
            "gender-variant",
            f"name the same role, one being the feminine form of the other "
            f"(WordNet {_sense(feminine)})",
            "standard",
        )
    if degree:
        return rule(
            "degree",
            "differ in degree, one being the other with a softening suffix (-ish)",
            "lenient",
            "affix rule",
        )
    if link := (links.common("satellite") or links.common("similar")):
        how = (
            f"share the WordNet adjective cluster {link.a_sense}"
            if link.kind == "satellite"
            else f"are near-synonyms in WordNet ({link.b_sense} similar to {link.a_sense})"
        )
        return rule(
            "near-synonym",
            f"{how}: close in meaning but not the same word",
            "lenient",
        )
    if typo:
        return rule(
            "typo",
            "look like a misspelling of the same word (the guess is no English word)",
            "lenient",
            "spelling",
        )
    return None


def _is_alias_for(alias_sense: str, target_sense: str) -> bool:
    """Whether WordNet's definition of ``alias_sense`` calls it another name for
    ``target_sense`` (both synset names)."""
    from kiekai.judge.resources import wordnet

    wn = wordnet()
    try:
        return wn.synset(target_sense) in lexical.alias_targets(wn.synset(alias_sense))
    except Exception:  # noqa: BLE001
        return False


def _name_meaning_relation(links: lexical.Links, morph: str | None, emb: float) -> tuple[str, str]:
    """Name what the model decides on: the strongest link among common senses; links
    only through a rare sense are named ``rare-sense`` (never ``synonym``, which would
    claim more than the evidence shows); co-hyponyms in common senses are ``cohyponym``
    (a rule rejects them)."""
    common = {k: v for k, v in links.best.items() if v.common}
    candidates = [
        (links.derivation if links.derivation else (0.5 if morph == "derivation" else 0.0),
         "derivation", "are derived from one another"),
        (links.hypernym1 if "hypernym1" in common else 0.0, "hypernym",
         "are one WordNet step apart, the guess naming the broader kind"),
        (links.hyponym1 if "hyponym1" in common else 0.0, "hyponym",
         "are one WordNet step apart, the guess naming a narrower kind"),
        (links.cohyponym if "cohyponym" in common else 0.0, "cohyponym",
         "are different things of the same kind in WordNet"),
        (links.taxonomy2_up, "hypernym",
         "are two or more WordNet steps apart, the guess naming a much broader kind"),
        (links.taxonomy2_down, "hyponym",
         "are two or more WordNet steps apart, the guess naming a much narrower kind"),
    ]  # fmt: skip
    strength, name, detail = max(candidates, key=lambda c: c[0])
    if strength > 0:
        if name == "cohyponym":
            detail = f"are sister kinds in WordNet (both kinds of {common['cohyponym'].via})"
        return name, detail
    rare = [v for k, v in links.best.items() if not v.common]
    if rare:
        link = max(rare, key=lambda v: v.p)
        word, p = ("the secret", link.p_a) if link.p_a <= link.p_b else ("the guess", link.p_b)
        kinds = {
            "synonym": "share a WordNet synset",
            "satellite": "share a WordNet adjective cluster",
            "similar": "are near-synonyms in WordNet",
            "alias": "are another name for one another in WordNet",
            "cohyponym": "are different things of one kind in WordNet",
            "hypernym1": "are one WordNet step apart",
            "hyponym1": "are one WordNet step apart",
        }
        return (
            "rare-sense",
            f"{kinds[link.kind]} only through a rare sense of {word} "
            f"({link.b_sense if word == 'the guess' else link.a_sense}: "
            f"{_percent(p)} of its uses)",
        )
    if emb >= 0.5:
        return (
            "related",
            f"are related only by sentence embedding (MiniLM cosine {emb:.2f}), "
            "with no close WordNet link",
        )
    return "unrelated", "have no close link in WordNet or by sentence embedding"
