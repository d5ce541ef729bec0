"""Lexical evidence about one word or a pair of words: forms, lemmas, WordNet relations.

Everything here is cached per word (``lru_cache``): the second time a word is seen its
lemmas, synsets and sense weights cost a dictionary lookup.

Sources:
- inflection and irregular forms: WordNet's morphy with its exception lists
  (``noun.exc`` etc.: mice -> mouse, teeth -> tooth), ``lemminflect`` (Jascoll 2019)
  and ``inflect`` (people -> person);
- British/American spelling: the ``breame`` word lists (colour -> color);
- synonymy, antonymy, hypernymy, derivation: WordNet 3.0 (Fellbaum 1998);
- sense weights: the SemCor tag counts that ship with WordNet (``Lemma.count()``).
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from functools import lru_cache

from kiekai.judge.normalize import (
    MAX_WORD_CHARS,
    compound_key,
    has_letters,
    normalise,
)
from kiekai.judge.resources import wordnet, zipf

#: Zipf frequency (wordfreq) at or above which an unknown-to-WordNet string counts as a
#: real English word: 3.0 = once per million words. Typo lists in web text sit lower
#: ("poeple" 2.1, "watter" 1.7).
REAL_WORD_ZIPF = 3.0

#: Suffixes that derive a new word from a stem (sun -> sunny, gold -> golden,
#: symmetry -> symmetrical). Source: standard English derivational morphology.
DERIVATIONAL_SUFFIXES = (
    "y", "ny", "ly", "ish", "ness", "en", "ed", "ing", "er", "ers", "ful", "al", "ic",
    "ical", "ion", "ation", "ity", "ous", "ive", "ment", "ery", "time", "s", "es",
    "ier", "iest", "d",
)  # fmt: skip

#: Affixes that negate the stem: "people-less" names the absence of people (rulebook,
#: "Imperfect Guesses": "person-less" categories).
NEGATING_SUFFIXES = ("less", "free")
NEGATING_PREFIXES = ("non", "un")

_POS = ("n", "v", "a", "r")

#: A number written in digits with a decimal point or thousands separators ("3.5",
#: "1,000", "-2"): one lexical item, like "3".
NUMERAL = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")

#: NLTK's WordNet reader is not safe for concurrent use (its data files are shared
#: file handles: two threads reading at once get each other's lines). Every WordNet
#: lookup the judge starts goes through this lock; cached results need no lock.
WORDNET_LOCK = threading.RLock()

#: Shallowest WordNet depth (hypernym steps below "entity") of a shared hypernym that
#: makes two words co-hyponyms: above it the shared class is too abstract ("object",
#: "abstraction") to call them the same kind of thing.
COHYPONYM_MIN_DEPTH = 4

#: Senses kept per word, most likely first (P from SemCor counts). Beyond the tenth,
#: senses of very polysemous words ("run" has 57) carry almost no probability but
#: would multiply the pairwise WordNet work.
MAX_SENSES = 10

#: Function words ignored when reading definitions.
_GLOSS_STOPWORDS = frozenset(
    "a an the of or and in on to for with by as at from that which who is are be being "
    "its it their usually especially any some other one used".split()
)


def one_word_check(text: str) -> tuple[bool, str]:
    """Whether ``text`` is one lexical item a player may write, and why not.

    One lexical item is a single word (hyphens and apostrophes allowed), a numeral
    ("3", "twenty-one"), or a multi-word expression WordNet lists as one lemma
    ("human beings", "ice cream") or whose closed form is a word ("sun light").

    Returns:
        ``(True, "")`` when accepted, else ``(False, reason)`` where reason is one
        sentence naming the problem ("empty", "no letters", "several words").
    """
    if not isinstance(text, str):
        return False, f"a word must be text, got {type(text).__name__}"
    raw = text.strip()
    if not raw:
        return False, "the word is empty"
    if len(raw) > 4 * MAX_WORD_CHARS:  # long before normalising: refuse without work
        return (
            False,
            f"the text is {len(raw)} characters long; a word has at most {MAX_WORD_CHARS}",
        )
    if raw.isascii() and raw.isdigit():
        if len(raw) > MAX_WORD_CHARS:
            return (
                False,
                f"the number has {len(raw)} digits; a word has at most {MAX_WORD_CHARS} characters",
            )
        return True, ""
    if NUMERAL.fullmatch(raw):
        return True, ""
    norm = normalise(raw)
    if not norm:
        return False, f"{raw!r} contains no letters or digits"
    if not has_letters(norm):
        return False, f"{raw!r} contains no letters"
    if len(norm) > MAX_WORD_CHARS:
        return (
            False,
            f"the text is {len(norm)} characters long; a word has at most {MAX_WORD_CHARS}",
        )
    tokens = norm.split(" ")
    if len(tokens) == 1:
        return True, ""
    if is_compound(norm):
        return True, ""
    return False, f"{raw!r} is {len(raw.split())} words, not one word or a known compound"


@lru_cache(maxsize=65536)
def is_compound(norm: str) -> bool:
    """Whether a normalised multi-token text is one lexical item (WordNet or closed form)."""
    wn = wordnet()
    tokens = norm.split(" ")
    joined = "_".join(tokens)
    closed = "".join(tokens)
    with WORDNET_LOCK:
        if wn.synsets(joined) or wn.synsets(closed):
            return True
    return zipf(closed) >= REAL_WORD_ZIPF


@lru_cache(maxsize=65536)
def american(word: str) -> str:
    """American spelling of ``word`` from ``breame`` ("colour" -> "color"); else ``word``."""
    from breame.spelling import get_american_spelling

    try:
        out = get_american_spelling(word)
    except Exception:  # noqa: BLE001 - breame raises bare errors on odd input
        return word
    return out or word


@lru_cache(maxsize=65536)
def lemmas(norm: str) -> frozenset[str]:
    """All dictionary forms ``norm`` may be an inflection of, itself included.

    Union of WordNet morphy (with exception lists) over the four parts of speech,
    lemminflect's lemmas and inflect's singular; each also in American spelling.
    ``"mice"`` -> {mice, mouse}; ``"rounded"`` -> {rounded, round}.

    A WordNet compound (one lexical item written with spaces, hyphens or underscores)
    goes through morphy too, joined with underscores as WordNet stores it, so the
    plural of its head finds the lemma: ``"human beings"`` -> {human beings,
    human being}. Multi-word lemmas come back with spaces.
    """
    out = {norm}
    if not norm:
        return frozenset(out)
    if norm.endswith("'s") and len(norm) > 3:  # possessive: dog's -> dog, children's
        out |= lemmas(norm[:-2])
    elif norm.endswith("s'") and len(norm) > 3:  # plural possessive: dogs' -> dogs
        out |= lemmas(norm[:-1])
    wn = wordnet()
    if " " in norm or "-" in norm:
        key = re.sub(r"[\s\-]+", "_", norm)
        for pos in _POS:
            out.update(f.replace("_", " ") for f in wn._morphy(key, pos))
    if " " in norm:
        out |= {american(w) for w in list(out)}
        return frozenset(w.lower() for w in out)
    for pos in _POS:
        out.update(wn._morphy(norm, pos))
    try:
        import lemminflect

        for forms in lemminflect.getAllLemmas(norm).values():
            out.update(forms)
    except Exception:  # noqa: BLE001 - lemminflect on odd strings
        pass
    from kiekai.judge.normalize import _inflect_engine

    try:
        singular = _inflect_engine().singular_noun(norm)
    except Exception:  # noqa: BLE001
        singular = False
    if singular and wn.synsets(singular, pos="n"):  # "news" -> "new" is no noun: skip
        out.add(singular)
    out |= {american(w) for w in list(out)}
    return frozenset(w.lower() for w in out)


@lru_cache(maxsize=65536)
def is_real_word(norm: str) -> bool:
    """Whether ``norm`` is an English word: in WordNet (any inflection) or common in text."""
    if not norm:
        return False
    wn = wordnet()
    key = norm.replace(" ", "_")
    if wn.synsets(key):
        return True
    try:
        import lemminflect

        if lemminflect.getAllLemmas(norm):
            return True
    except Exception:  # noqa: BLE001
        pass
    return zipf(norm) >= REAL_WORD_ZIPF


@lru_cache(maxsize=1)
def semcor_counts() -> dict[str, int]:
    """Sense key -> SemCor tag count, read once from WordNet's ``cntlist.rev``.

    The same numbers as NLTK's ``Lemma.count()``, which binary-searches that file on
    disk at every call (half of a new word's time before this cache). 37,387 keys in
    WordNet 3.0; loads in about 0.1 s.
    """
    counts: dict[str, int] = {}
    with wordnet().open("cntlist.rev") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2:
                counts[parts[0]] = int(parts[-1])
    return counts


@lru_cache(maxsize=65536)
def sense_weights(norm: str) -> tuple[tuple[object, float], ...]:
    """WordNet synsets of ``norm`` with P(sense | word), most likely first.

    P comes from the SemCor counts (``Lemma.count()``) with add-0.5 smoothing over all
    synsets of all lemmas of the word, so rare senses (dark = night) weigh little.
    Returns a tuple of at most :data:`MAX_SENSES` ``(Synset, probability)`` pairs
    (probabilities over all senses, so they may sum below 1); empty when WordNet lacks
    the word.
    """
    wn = wordnet()
    counts: dict[object, float] = {}
    for lemma_form in sorted(lemmas(norm)):
        key = lemma_form.replace(" ", "_")
        for s in wn.synsets(key):
            c = 0
            for lem in s.lemmas():
                if lem.name().lower() == key:
                    c = max(c, semcor_counts().get(lem.key(), 0))
            counts[s] = max(counts.get(s, 0.0), c + 0.5)
    total = sum(counts.values())
    if not total:
        return ()
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:MAX_SENSES]
    return tuple((s, c / total) for s, c in ranked)


@lru_cache(maxsize=65536)
def _hypernym_depths(synset) -> dict[object, int]:
    """Every hypernym (and instance hypernym) of ``synset`` up to 6 steps, with its distance."""
    depths: dict[object, int] = {}
    frontier = [synset]
    for d in range(1, 7):
        nxt = []
        for s in frontier:
            for h in s.hypernyms() + s.instance_hypernyms():
                if h not in depths:
                    depths[h] = d
                    nxt.append(h)
        frontier = nxt
    return depths


@lru_cache(maxsize=65536)
def _antonym_synsets(synset) -> frozenset:
    """Synsets opposed to ``synset``: direct lemma antonyms, also through similar-to links."""
    heads = [synset, *synset.similar_tos()]
    out = set()
    for h in heads:
        for lem in h.lemmas():
            for ant in lem.antonyms():
                a = ant.synset()
                out.add(a)
                out.update(a.similar_tos())
    return frozenset(out)


@lru_cache(maxsize=65536)
def _similar_synsets(synset) -> frozenset:
    """Synsets WordNet links to ``synset`` by similar-to, also-see or verb-group."""
    return frozenset(synset.similar_tos() + synset.also_sees() + synset.verb_groups())


@lru_cache(maxsize=65536)
def _derived_names(synset) -> frozenset[str]:
    """Lemma names derivationally related to (or pertainyms of) ``synset``'s lemmas.

    A link to the lemma's own spelling (noun "human" -> adjective "human") is a change
    of part of speech, not a different word, and is left out: otherwise every synonym
    of "human" ("human being") would look derived from "human".
    """
    out = set()
    for lem in synset.lemmas():
        own = lem.name().lower()
        for rel in lem.derivationally_related_forms() + lem.pertainyms():
            if rel.name().lower() != own:
                out.add(rel.name().lower())
    return frozenset(out)


@dataclass(frozen=True)
class Links:
    """WordNet evidence between two words, each a sense-weighted strength in 0..1.

    Strength of a link between synsets ``s`` (of word a) and ``t`` (of word b) is
    ``sqrt(P(s|a) * P(t|b))`` (see :func:`sense_weights`); a field holds the strongest
    such link of its kind.

    Attributes:
        synonym: a shared synset.
        antonym: t is an antonym of s (directly or through similar-to).
        hypernym1: t is a direct hypernym of s (the guess is one step broader).
        hyponym1: t is a direct hyponym of s (the guess is one step narrower).
        taxonomy2_up: t is a hypernym of s two to six steps up.
        taxonomy2_down: t is a hyponym of s two to six steps down.
        cohyponym: s and t share a hypernym at most two steps above each (siblings
            or cousins: dog / wolf, dog / cat) that is at least
            :data:`COHYPONYM_MIN_DEPTH` deep, and neither is above the other.
        gloss: the WordNet definition of one word's sense uses the other word
            (bug = "any insect or similar creeping ... invertebrate"); the sum of
            P(sense) over such senses, the larger of the two directions.
        similar: s and t are linked by WordNet's similar-to, also-see or verb-group
            pointers (cold / chilly, colorful / multicolored).
        derivation: a WordNet derivational or pertainym link between the two words.
        alias: one sense's WordNet definition calls it another name for the other
            word's sense ("informal terms referring to a domestic cat" for kitty,
            "general term for any insect" for bug; see :func:`alias_targets`).
    """

    synonym: float = 0.0
    antonym: float = 0.0
    hypernym1: float = 0.0
    hyponym1: float = 0.0
    taxonomy2_up: float = 0.0
    taxonomy2_down: float = 0.0
    cohyponym: float = 0.0
    derivation: float = 0.0
    gloss: float = 0.0
    similar: float = 0.0
    alias: float = 0.0


@lru_cache(maxsize=262144)
def wordnet_links(a: str, b: str) -> Links:
    """Sense-weighted WordNet links from normalised word ``a`` (secret) to ``b`` (guess)."""
    sa = sense_weights(a)
    sb = sense_weights(b)
    if not sa or not sb:
        return Links()
    weights_b = dict(sb)
    forms_a = lemmas(a)
    forms_b = lemmas(b)
    best = dict.fromkeys(
        (
            "synonym",
            "antonym",
            "hypernym1",
            "hyponym1",
            "taxonomy2_up",
            "taxonomy2_down",
            "cohyponym",
            "derivation",
            "similar",
            "alias",
        ),
        0.0,
    )

    def bump(kind: str, value: float) -> None:
        if value > best[kind]:
            best[kind] = value

    for s, pa in sa:
        hyp_s = _hypernym_depths(s)
        near_s = {h for h, d in hyp_s.items() if d <= 2 and h.min_depth() >= COHYPONYM_MIN_DEPTH}
        ants = _antonym_synsets(s)
        derived = _derived_names(s)
        if derived & forms_b:
            bump("derivation", math.sqrt(pa * max(p for _, p in sb)))
        for t, pb in sb:
            w = math.sqrt(pa * pb)
            if t == s:
                bump("synonym", w)
                continue
            if t in ants:
                bump("antonym", w)
            if t in _similar_synsets(s):
                bump("similar", w)
            if s in alias_targets(t) or t in alias_targets(s):
                bump("alias", w)
            hyp_t = _hypernym_depths(t)
            d_up = hyp_s.get(t)
            d_down = hyp_t.get(s)
            if d_up == 1:
                bump("hypernym1", w)
            elif d_down == 1:
                bump("hyponym1", w)
            elif d_up:
                bump("taxonomy2_up", w)
            elif d_down:
                bump("taxonomy2_down", w)
            elif near_s and near_s & {h for h, d in hyp_t.items() if d <= 2}:
                bump("cohyponym", w)
    for t, pb in sb:
        if _derived_names(t) & forms_a:
            bump("derivation", math.sqrt(pb * max(p for _, p in sa)))
    del weights_b
    best["gloss"] = max(_gloss_mass(sa, forms_b), _gloss_mass(sb, forms_a))
    return Links(**best)


#: A WordNet definition that presents its synset as another name for something:
#: "informal terms for a mother", "general term for any insect", "a polite name for
#: any woman", "slang for a paunch", "street names for ketamine". 0.2 % of noun
#: synsets (WordNet 3.0) have such a definition.
ALIAS_DEFINITION = re.compile(
    r"\b(?:terms?|names?|nicknames?|slang|words?)\s+(?:for|referring\s+to)\s+(.*)$"
)


@lru_cache(maxsize=65536)
def alias_targets(synset) -> frozenset:
    """Synsets that ``synset``'s definition says it is another name for, if it says so.

    When the definition matches :data:`ALIAS_DEFINITION`, the targets are the synset's
    hypernyms up to two steps (kitty.n.04 "informal terms referring to a domestic cat"
    -> domestic_cat.n.01, cat.n.01) and the synsets of the definition's nouns after
    "for" (bug.n.01 "general term for any insect ..." -> insect.n.01); else empty.
    An alias names the same thing as its target, which is why players count it as a
    synonym even though WordNet files it one or two steps below.
    """
    m = ALIAS_DEFINITION.search(synset.definition())
    if not m:
        return frozenset()
    out = {h for h, d in _hypernym_depths(synset).items() if d <= 2}
    wn = wordnet()
    head = re.split(r"[;,(]| or | and | that | which | who ", m.group(1))[0]
    for tok in re.findall(r"[a-z]+", head.lower()):
        if tok in _GLOSS_STOPWORDS:
            continue
        out.update(s for s in wn.synsets(tok, pos=synset.pos()) if s != synset)
    return frozenset(out)


def _gloss_mass(senses, forms: frozenset[str]) -> float:
    """Sum of P(sense) over ``senses`` whose definition uses one of ``forms``."""
    return float(sum(p for s, p in senses if _gloss_lemmas(s) & forms))


@lru_cache(maxsize=65536)
def _gloss_lemmas(synset) -> frozenset[str]:
    """Lower-case words of a synset's definition, each with its WordNet base forms."""
    wn = wordnet()
    out = set()
    for tok in re.findall(r"[a-z]+", synset.definition().lower()):
        if tok in _GLOSS_STOPWORDS:
            continue
        out.add(tok)
        for pos in ("n", "v", "a"):
            out.update(wn._morphy(tok, pos))
    return frozenset(out)


def _strip_suffix(longer: str, shorter: str, suffixes: tuple[str, ...]) -> str | None:
    """The suffix that turns ``shorter`` (or its final-e/y-changed stem) into ``longer``."""
    for stem in {
        shorter,
        shorter.rstrip("e"),
        shorter[:-1] + "i" if shorter.endswith("y") else shorter,
    }:
        if len(stem) >= 3 and longer.startswith(stem):
            rest = longer[len(stem) :].lstrip("-")
            if (
                rest.startswith(stem[-1]) and rest[1:] in suffixes
            ):  # doubled consonant: sun -> sunny
                return rest[1:]
            if rest in suffixes:
                return rest
    return None


#: Suffixes that soften an adjective or noun into "somewhat X" (red -> reddish,
#: blue -> bluish): degree words, accepted only by lenient tables (issue "lenient").
DEGREE_SUFFIXES = ("ish",)


@lru_cache(maxsize=262144)
def degree_link(a: str, b: str) -> bool:
    """Whether one normalised word is the other plus a degree suffix (red / reddish)."""
    ka, kb = compound_key(a), compound_key(b)
    for x, y in ((ka, kb), (kb, ka)):
        for fx in lemmas(x) | {x}:
            if len(y) > len(fx) and _strip_suffix(y, compound_key(fx), DEGREE_SUFFIXES):
                return True
    return False


@lru_cache(maxsize=262144)
def morphological_link(a: str, b: str) -> str | None:
    """How two normalised words are related by affixes alone, if they are.

    Returns ``"negation"`` (people / peopleless, happy / unhappy), ``"derivation"``
    (sun / sunny, gold / golden, symmetry / symmetrical) or ``None``.
    """
    ka, kb = compound_key(a), compound_key(b)
    for x, y in ((ka, kb), (kb, ka)):
        for fx in lemmas(x) | {x}:
            fx = compound_key(fx)
            if len(y) > len(fx) and _strip_suffix(y, fx, NEGATING_SUFFIXES):
                return "negation"
            for p in NEGATING_PREFIXES:
                if y == p + fx and len(fx) >= 4:
                    return "negation"
    for x, y in ((ka, kb), (kb, ka)):
        for fx in lemmas(x) | {x}:
            for fy in lemmas(y) | {y}:
                fx2, fy2 = compound_key(fx), compound_key(fy)
                if len(fy2) > len(fx2) and _strip_suffix(fy2, fx2, DERIVATIONAL_SUFFIXES):
                    return "derivation"
    return None
