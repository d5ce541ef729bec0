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
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kiekai.judge.normalize import (
    MAX_WORD_CHARS,
    compound_key,
    describe_character,
    has_letters,
    hidden_character,
    normalise,
)
from kiekai.judge.resources import PAIR_CACHE_ENTRIES, wordnet, zipf

#: Zipf frequency (wordfreq) at or above which an unknown-to-WordNet string counts as a
#: real English word: 3.0 = once per million words. Typo lists in web text sit lower
#: ("poeple" 2.1, "watter" 1.7).
REAL_WORD_ZIPF = 3.0

#: Suffixes that derive a new word from a stem (sun -> sunny, gold -> golden,
#: symmetry -> symmetrical). Source: standard English derivational morphology. The plural
#: -s/-es is an inflection, not a derivation: a word that only looks like another plus -s
#: without being its plural (physics / physic) is not derived from it either.
DERIVATIONAL_SUFFIXES = (
    "y", "ny", "ly", "ish", "ness", "en", "ed", "ing", "er", "ers", "ful", "al", "ic",
    "ical", "ion", "ation", "ity", "ous", "ive", "ment", "ery", "time", "ier", "iest", "d",
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

    One lexical item is a single word, a numeral ("3", "twenty-one", "3.5"), a possessive
    ("dog's"), or a word written with spaces, hyphens, dots or apostrophes that is a known
    written form (:func:`written_form_known`: "ice cream", "x-ray", "sun light",
    "people-less", "T.V."). A real word split into pieces that are not words ("ca t",
    "hor-se", "d og") is not, and neither is text holding control or invisible characters
    (TAB, NUL, ESC, zero-width space: :func:`kiekai.judge.normalize.hidden_character`),
    which are refused rather than read as spaces (they must never join two pieces into a
    word).

    Returns:
        ``(True, "")`` when accepted, else ``(False, reason)`` where reason is one
        sentence naming the problem, with the text shown escaped (``repr``), so a reason
        never carries a raw control character to a terminal.
    """
    if not isinstance(text, str):
        return False, f"a word must be text, got {type(text).__name__}"
    raw = text.strip()
    verdict = _raw_verdict(raw)
    if verdict is not None:
        return verdict
    return _normalised_verdict(raw, normalise(raw))


def _raw_verdict(raw: str) -> tuple[bool, str] | None:
    """:func:`one_word_check` on the stripped text before normalising: empty, far too
    long, hidden characters, plain digits and numerals; ``None`` when undecided."""
    if not raw:
        return False, "the word is empty"
    if len(raw) > 4 * MAX_WORD_CHARS:  # long before normalising: refuse without work
        return (
            False,
            f"the text is {len(raw)} characters long; a word has at most {MAX_WORD_CHARS}",
        )
    hidden = hidden_character(raw)
    if hidden is not None:
        position, char = hidden
        return (
            False,
            f"{raw!r} contains the invisible or control character {describe_character(char)} "
            f"at position {position}; write the word as plain text",
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
    return None


def _normalised_verdict(raw: str, norm: str) -> tuple[bool, str]:
    """:func:`one_word_check` on the normalised text ``norm`` of ``raw``: letters, length,
    one token, or a known written form of several pieces."""
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
    hedge = hedge_parts(norm)
    if hedge:
        return (
            False,
            f"{raw!r} joins {len(hedge)} words ({', '.join(repr(p) for p in hedge)}): "
            "write one word; a hedge that might match either is not one word",
        )
    if len(tokens) == 1 and not _SEPARATORS.search(norm):
        return True, ""
    if written_form_known(norm):
        return True, ""
    if len(tokens) == 1:
        parts = [p for p in _SEPARATORS.split(norm) if p]
        return (
            False,
            f"{raw!r} is not one word: its pieces {', '.join(repr(p) for p in parts)} are "
            "not a known compound",
        )
    count = max(len(raw.split()), len(tokens))  # "dog/cat" is 2 words though written as 1
    return False, f"{raw!r} is {_count_words(count)} words, not one word or a known compound"


_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def _count_words(n: int) -> str:
    """``3`` -> ``"three"``: a count in a reason a player reads, spelled out up to twelve."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


#: What splits a written compound into its parts: spaces, hyphens, dots and apostrophes.
_SEPARATORS = re.compile(r"[\s\-.']+")

#: Prefixes and suffixes of English word formation that may stand as one part of a
#: hyphenated or open compound ("non-human", "self-portrait", "people-less",
#: "child-free"): they are not words by themselves, but joining them makes no new word
#: out of pieces of an old one. Source: standard English derivational morphology.
AFFIX_PARTS = frozenset(
    "non un re pre co anti semi self ex mid multi post sub super over under "
    "less free like ish ful".split()
)


@lru_cache(maxsize=65536)
def part_is_word(part: str) -> bool:
    """Whether ``part`` may be one part of a compound: an affix of :data:`AFFIX_PARTS`, or
    a word of at least two letters that WordNet (any inflection) or lemminflect knows."""
    if part in AFFIX_PARTS:
        return True
    if len(part) < 2:
        return False
    if part.isdigit():
        return True
    with WORDNET_LOCK:
        if wordnet().synsets(part):
            return True
    try:
        import lemminflect

        return bool(lemminflect.getAllLemmas(part))
    except Exception:  # noqa: BLE001 - lemminflect on odd strings
        return False


@lru_cache(maxsize=65536)
def written_form_known(norm: str) -> bool:
    """Whether a normalised text with spaces, hyphens, dots or apostrophes inside is a
    known way of writing one lexical item (compounds are real, but only when the parts are
    words and the result is a known compound).

    Known, in order:

    1. WordNet lists it as one lemma, written with spaces (underscores), hyphens or
       apostrophes: "ice cream", "human beings", "x-ray", "o'clock", "black-and-white";
    2. a possessive of a known word: "dog's", "dogs'", "children's";
    3. an initialism written with dots whose closed form WordNet writes in capitals:
       "t.v." (TV), "u.s.a." (USA);
    4. every part is a word (:func:`part_is_word`) and the closed form is either no
       English word at all while the parts are joined by hyphens (a new formation:
       "people-less", "twenty-one"; "brown dog" is a phrase) or a WordNet word made of
       these parts: its definition or a direct hypernym uses one of them
       ("sun light": sunlight, "the rays of the sun"; "foot ball": football, "...
       played with a ball"). "car pet" is not carpet and "ca t" is not cat.
    """
    wn = wordnet()
    key = re.sub(r"[\s\-]+", "_", norm)
    with WORDNET_LOCK:
        if wn.synsets(key) or wn.synsets(norm.replace(" ", "_")):
            return True
    if re.fullmatch(r"[^\s'.]+(?:'s|s')", norm):  # possessive of one word
        stem = norm[:-2] if norm.endswith("'s") else norm[:-1]
        return bool(stem) and (not _SEPARATORS.search(stem) or written_form_known(stem))
    parts = [p for p in _SEPARATORS.split(norm) if p]
    closed = "".join(parts)
    if len(parts) < 2:
        return False
    if all(len(p) == 1 for p in parts) and "." in norm:
        return _is_initialism(closed)
    if "'" in norm or not all(part_is_word(p) for p in parts):
        return False
    if not is_real_word(closed):
        # a new formation: one word only joined by hyphens and made with an affix (the
        # rulebook's "people-less", "non-human") or of number words ("twenty-one"). Two
        # words joined ("red-blue", "dog.cat") are a hedge and words written apart a
        # phrase ("brown dog"), not one word
        return bool(_HYPHENS_ONLY.fullmatch(norm)) and _affix_formation(parts)
    return _made_of(closed, tuple(parts))


#: A text whose pieces are joined by hyphens only ("people-less", not "dog.cat").
_HYPHENS_ONLY = re.compile(r"[^\s\-.']+(?:-[^\s\-.']+)+")

#: Parts of :data:`AFFIX_PARTS` that end a word (people-less, child-free, dog-like).
SUFFIX_PARTS = frozenset({"less", "free", "like", "ish", "ful"})

#: Number words a numeral is written with ("twenty-one", "ninety-nine").
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million first second third fourth fifth sixth "
    "seventh eighth ninth".split()
)


def _affix_formation(parts: Sequence[str]) -> bool:
    """Whether the parts of a new formation make one word: the first is a prefix of
    :data:`AFFIX_PARTS` (non-human), the last a suffix (:data:`SUFFIX_PARTS`: the
    rulebook's "white-less", "person-less"), or all are number words (twenty-one)."""
    if all(p in NUMBER_WORDS for p in parts):
        return True
    first, last = parts[0], parts[-1]
    return (first in AFFIX_PARTS and first not in SUFFIX_PARTS) or last in SUFFIX_PARTS


#: Zipf frequency below which a closed string counts as in no dictionary for
#: :func:`run_together_parts` (dogcat 0.0, catdog 1.9, blackwhite 1.1; but keychain 2.8,
#: firetruck 2.1, icecream 2.5 are written closed often enough to be words).
RUN_TOGETHER_MAX_ZIPF = 2.0

#: Zipf frequency of a *common* word: each part of a run-together hedge is one.
COMMON_WORD_ZIPF = 3.0


def _common_part(part: str) -> bool:
    return len(part) >= 3 and zipf(part) >= COMMON_WORD_ZIPF and part_is_word(part)


@lru_cache(maxsize=65536)
def hedge_parts(norm: str) -> tuple[str, ...]:
    """The words of a hedge: two or more words written as one guess, so that it might
    match either ("red-blue", "dog/cat", "dog.cat", "dogcat"); ``()`` when ``norm`` is
    no hedge (rulebook "A Turn": just one word).

    A hedge joined by hyphens, dots or slashes has parts that are all words and is no
    known written form (:func:`written_form_known`: WordNet's "black-and-white", the
    affix formations "white-less" and "non-human", "twenty-one"). A hedge run together
    is no word (:func:`run_together_parts`).
    """
    if not norm or " " in norm:
        return ()
    if _SEPARATORS.search(norm) or "/" in norm:
        parts = tuple(p for p in re.split(r"[\s\-.'/]+", norm) if p)
        if len(parts) < 2 or "'" in norm or all(len(p) == 1 for p in parts):
            return ()
        if not all(part_is_word(p) for p in parts) or written_form_known(norm):
            return ()
        if is_real_word("".join(parts)):  # a word cut into pieces ("butter-fly")
            return ()
        return parts
    return run_together_parts(norm)


@lru_cache(maxsize=65536)
def run_together_parts(word: str) -> tuple[str, ...]:
    """The two words of a hedge written closed ("dogcat" -> ("dog", "cat"), "redblue"),
    or ``()``.

    A hedge: ``word`` is in no dictionary (not in WordNet or lemminflect, Zipf below
    :data:`RUN_TOGETHER_MAX_ZIPF`), it splits into two common words (each three letters
    or more, Zipf at least :data:`COMMON_WORD_ZIPF`, not an affix: "whiteless" is the
    rulebook's X-less) that are no WordNet compound written closed ("icecreams"), and it
    is no misspelling: no common word of five letters or more is one edit away
    ("carpit" is carpet mistyped, not car + pit).
    """
    if len(word) < 6 or not word.isalpha():
        return ()
    wn = wordnet()
    with WORDNET_LOCK:
        if wn.synsets(word):
            return ()
    # the word lists before the frequencies: a word in the tables loads no wordfreq
    if _in_lemminflect(word) or zipf(word) >= RUN_TOGETHER_MAX_ZIPF:
        return ()
    found: tuple[str, ...] = ()
    for i in range(3, len(word) - 2):
        left, right = word[:i], word[i:]
        if left in AFFIX_PARTS or right in AFFIX_PARTS or right in _SUFFIX_WORDS:
            return ()
        if _common_part(left) and _common_part(right):
            with WORDNET_LOCK:
                if wn.synsets(f"{left}_{right}") or wn.synsets(f"{left}-{right}"):
                    return ()
            found = found or (left, right)
    if found and _near_common_word(word):
        return ()
    return found


#: Endings that make one (perhaps invented) word of a word, though each is also spelled
#: like a word of its own: dogness, kinghood, catship, doggery are no hedges.
_SUFFIX_WORDS = frozenset({"ness", "hood", "ship", "dom", "ism", "ist", "ery", "able"})


def _in_lemminflect(word: str) -> bool:
    try:
        import lemminflect

        return bool(lemminflect.getAllLemmas(word))
    except Exception:  # noqa: BLE001 - lemminflect on odd strings
        return False


def _near_common_word(word: str) -> bool:
    """Whether a common word (five letters or more, Zipf >= :data:`COMMON_WORD_ZIPF`)
    is one edit (deletion, insertion, substitution, transposition) from ``word``."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in letters}
    edits |= {a + c + b for a, b in splits for c in letters}
    return any(len(e) >= 5 and e != word and zipf(e) >= COMMON_WORD_ZIPF for e in edits)


@lru_cache(maxsize=4096)
def _is_initialism(closed: str) -> bool:
    """Whether WordNet writes ``closed`` in capitals (TV, USA, PC): an initialism."""
    with WORDNET_LOCK:
        return any(
            lem.name().isupper() and lem.name().lower() == closed
            for s in wordnet().synsets(closed)
            for lem in s.lemmas()
        )


@lru_cache(maxsize=65536)
def _made_of(closed: str, parts: tuple[str, ...]) -> bool:
    """Whether a WordNet sense of the closed word ``closed`` is made of ``parts``: its
    definition uses one of them (or an inflection of one), or one of its direct hypernyms
    is named with one. Parts shorter than three letters do not count."""
    wn = wordnet()
    long_parts = [p for p in parts if len(p) >= 3 and p not in AFFIX_PARTS]
    if not long_parts:
        return False
    with WORDNET_LOCK:
        senses = [
            s for s in wn.synsets(closed) if any(lem.name().lower() == closed for lem in s.lemmas())
        ]
        for s in senses:
            words = _gloss_lemmas(s)
            hypernym_words = {
                w
                for h in s.hypernyms()
                for lem in h.lemmas()
                for w in lem.name().lower().split("_")
            }
            for p in long_parts:
                forms = {p, *(f for pos in ("n", "v", "a") for f in wn._morphy(p, pos))}
                if forms & (words | hypernym_words):
                    return True
    return False


@lru_cache(maxsize=65536)
def is_compound(norm: str) -> bool:
    """Whether a normalised multi-token text is one lexical item (see
    :func:`written_form_known`)."""
    return written_form_known(norm)


#: Suffixes that make a new word of a whole word (artefact-less, colourlike): the stem
#: keeps its British or American spelling, which breame lists for the stem only.
_WHOLE_WORD_SUFFIXES = ("less", "like", "ness", "ful")


def _american_word(word: str) -> str:
    from breame.spelling import get_american_spelling

    try:
        out = get_american_spelling(word)
    except Exception:  # noqa: BLE001 - breame raises bare errors on odd input
        return word
    return out or word


@lru_cache(maxsize=65536)
def american(word: str) -> str:
    """American spelling of ``word`` from ``breame`` ("colour" -> "color"); else ``word``.

    A word breame does not list is spelled piece by piece: each part of a hyphenated or
    open compound ("artefact-less" -> "artifact-less", "colour blind" -> "color blind"),
    and the stem of a closed word ending in -less, -like, -ness or -ful ("artefactless" ->
    "artifactless"), so a British/American pair counts as one word in a derived word as
    it does in the plain one.
    """
    out = _american_word(word)
    if out != word:
        return out
    pieces = re.split(r"([\s-]+)", word)
    if len(pieces) > 1:
        return "".join(_american_word(p) if i % 2 == 0 else p for i, p in enumerate(pieces))
    for suffix in _WHOLE_WORD_SUFFIXES:
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3:
            spelled = _american_word(stem)
            if spelled != stem:
                return spelled + suffix
    return word


@lru_cache(maxsize=65536)
def lemmas(norm: str) -> frozenset[str]:
    """All dictionary forms ``norm`` may be an inflection of, itself included.

    Candidates are WordNet morphy (with exception lists) over the four parts of speech,
    lemminflect's lemmas and inflect's singular; a candidate is kept only when English
    inflection makes ``norm`` of it (:func:`inflected_pos`: "hopes" -> {hopes, hope},
    never "hop") and ``norm`` is no word of its own (:func:`keeps_own_meaning`); each
    also in American spelling. ``"mice"`` -> {mice, mouse}; ``"rounded"`` -> {rounded,
    round}; ``"us"`` -> {us}.

    A WordNet compound (one lexical item written with spaces, hyphens or underscores)
    goes through morphy too, joined with underscores as WordNet stores it, so the
    plural of its head finds the lemma: ``"human beings"`` -> {human beings,
    human being}. Multi-word lemmas come back with spaces.
    """
    out = {norm}
    if not norm:
        return frozenset(out)
    if norm.endswith("'s") and len(norm) > 3:  # possessive: dog's -> dog, children's
        return frozenset({norm} | lemmas(norm[:-2]))
    if norm.endswith("s'") and len(norm) > 3:  # plural possessive: dogs' -> dogs
        return frozenset({norm} | lemmas(norm[:-1]))
    wn = wordnet()
    if " " in norm or "-" in norm:
        key = re.sub(r"[\s\-]+", "_", norm)
        for pos in _POS:
            out.update(f.replace("_", " ") for f in wn._morphy(key, pos))
    if " " in norm:
        out = {f for f in out if f == norm or inflected_pos(norm, f.lower())}
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
    out = {
        f
        for f in out
        if f == norm or (inflected_pos(norm, f.lower()) and not keeps_own_meaning(norm, f.lower()))
    }
    out |= {american(w) for w in list(out)}
    return frozenset(w.lower() for w in out)


#: lemminflect's universal tags by WordNet part of speech (its lemma table, and the
#: regular rules of ``getAllInflectionsOOV``; adverbs do not inflect regularly).
_UPOS_POS = {"NOUN": "n", "VERB": "v", "AUX": "v", "ADJ": "a", "ADV": "r"}
_OOV_UPOS = {"n": "NOUN", "v": "VERB", "a": "ADJ"}


def _exception_bases(word: str, pos: str) -> tuple[str, ...]:
    """The base forms WordNet's exception list for ``pos`` gives ``word`` (``noun.exc``:
    mice -> mouse, oxen -> ox; ``adj.exc``: better -> good), or ``()``."""
    wn = wordnet()
    getter = getattr(wn, "exception_bases", None)
    if getter is not None:
        return tuple(getter(word).get(pos, ()))
    table = getattr(wn, "_exception_map", None)  # NLTK's reader
    if table is None:
        return ()
    return tuple(table.get(pos, {}).get(word, ()))


#: English personal pronouns: a closed class whose case forms (I / me, we / us) are no
#: plurals of one another, though inflect's plural table pairs them (me -> us).
PERSONAL_PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself we us our ours ourselves they them their theirs themselves".split()
)


@lru_cache(maxsize=65536)
def regular_inflections(lemma: str) -> Mapping[str, frozenset[str]]:
    """The regular inflections of ``lemma`` per WordNet part of speech in which WordNet
    lists it (lemminflect's rules, ``getAllInflectionsOOV``: blorp -> blorps, blorped),
    the lemma itself included; none for a lemma of one letter ("u" / "us": a letter's
    plural is written "u's")."""
    import lemminflect

    out: dict[str, frozenset[str]] = {}
    if len(lemma) < 2 or " " in lemma:
        return out
    wn = wordnet()
    for pos, upos in _OOV_UPOS.items():
        if lemma not in wn._morphy(lemma, pos):
            continue
        try:
            regular = lemminflect.getAllInflectionsOOV(lemma, upos)
        except Exception:  # noqa: BLE001 - lemminflect on odd strings
            continue
        out[pos] = frozenset({lemma, *(f.lower() for fs in regular.values() for f in fs)})
    return out


@lru_cache(maxsize=65536)
def inflected_pos(word: str, lemma: str) -> frozenset[str]:
    """Parts of speech (n, v, a, r) in which English inflection makes ``word`` of
    ``lemma``; empty when it does not (only real inflections are forms).

    ``word`` is an inflection of ``lemma`` when lemminflect's lemma table (Jascoll 2019;
    word -> lemmas per part of speech, the forms English inflection makes: hopes -> hope,
    mice -> mouse, better -> good, went -> go) lists ``lemma`` for it, WordNet's
    exception lists give ``lemma`` as its base (oxen -> ox), inflect's noun plural of
    ``lemma`` is ``word`` (person -> people; not for the :data:`PERSONAL_PRONOUNS`), or,
    for a word the lemma table does not know, ``lemma``'s regular inflections make it
    (:func:`regular_inflections`). A suffix rule that only lands on another lemma is no
    inflection: hopes is not hop (hop makes hops), canes not can, planes not plan, doges
    not dog, and "us" is no form of "me". A compound (spaces or hyphens) is an
    inflection of a compound that differs from it in one part, that part being an
    inflection (human beings -> human being, mothers-in-law -> mother-in-law), or one
    WordNet's exception lists name; the same compound written open or hyphenated
    (black-and-white / black and white) is itself.
    """
    if word == lemma:
        return frozenset("nvar")
    key, lemma_key = word.replace(" ", "_"), lemma.replace(" ", "_")
    out = {pos for pos in _POS if lemma_key in _exception_bases(key, pos)}
    if " " in word or "-" in word or " " in lemma or "-" in lemma:
        parts, lemma_parts = re.split(r"[\s\-]+", word), re.split(r"[\s\-]+", lemma)
        if len(parts) == len(lemma_parts) and len(parts) > 1:
            differ = [(p, q) for p, q in zip(parts, lemma_parts, strict=True) if p != q]
            if not differ:  # one compound written open or hyphenated: black-and-white
                return frozenset("nvar")
            if len(differ) == 1:
                out |= inflected_pos(*differ[0])
        return frozenset(out)
    import lemminflect

    try:
        table = lemminflect.getAllLemmas(word)
    except Exception:  # noqa: BLE001 - lemminflect on odd strings
        table = {}
    out |= {_UPOS_POS[u] for u, forms in table.items() if u in _UPOS_POS and lemma in forms}
    if not out and lemma not in PERSONAL_PRONOUNS:
        from kiekai.judge.normalize import _inflect_engine

        try:
            plural: str | bool = _inflect_engine().plural_noun(lemma)
        except Exception:  # noqa: BLE001 - inflect on odd strings
            plural = False
        if plural == word and wordnet()._morphy(lemma, "n"):
            out.add("n")
    if not table:
        out |= {pos for pos, forms in regular_inflections(lemma).items() if word in forms}
    return frozenset(out)


#: Words ending in -s whose everyday meaning is their own, not the plural of the word
#: without the -s (manners are not several manners; goods are not several goods; physics
#: is not several physics). Written from general English usage: only real inflections
#: count as forms, and a word that is itself a lemma keeps its own meaning.
#: :func:`keeps_own_meaning` also finds such words in WordNet's counts; this list names
#: those the counts miss.
LEXICALISED_PLURALS = frozenset(
    """
    acoustics aerobics athletics belongings clothes congratulations customs earnings
    economics electronics ethics genetics goods gymnastics linguistics manners
    mathematics means mechanics news odds outskirts pants physics politics premises
    remains riches series shorts species surroundings thanks
    """.split()
)


def _semcor_noun_count(word: str) -> int:
    """SemCor count of ``word`` over its noun senses (as a lemma name of each)."""
    total = 0
    for s in wordnet().synsets(word, pos="n"):
        for lem in s.lemmas():
            if lem.name().lower() == word:
                total += semcor_counts().get(lem.key(), 0)
    return total


@lru_cache(maxsize=65536)
def keeps_own_meaning(word: str, shorter: str) -> bool:
    """Whether ``word``, which looks like ``shorter`` plus an -s ending, is a word of its
    own rather than an inflection of ``shorter`` (physics is not physic, species not
    specie, goods not good, manners not manner).

    True when ``word`` ends in s, ``shorter`` is ``word`` without its -s/-es/-ies ending
    (a regular inflection; irregular forms such as people / person are always real), and
    either ``word`` is in :data:`LEXICALISED_PLURALS`, or WordNet lists ``word`` as a noun
    lemma of its own, none of its own senses is a sense of ``shorter``, and SemCor tags
    ``word`` in those senses more often than ``shorter`` in all its noun senses
    (physics 10 / physic 0, clothes 44 / cloth 16, stairs 15 / stair 1; but eyes 4 / eye
    277, so "eyes" stays a form of "eye").
    """
    if not word.endswith("s") or word == shorter:
        return False
    stem = word[:-3] + "y" if word.endswith("ies") else None
    if not (shorter == word[:-1] or shorter == word[:-2] or shorter == stem):
        return False
    if word in LEXICALISED_PLURALS:
        return True
    wn = wordnet()
    own = {
        s
        for s in wn.synsets(word, pos="n")
        if any(lem.name().lower() == word for lem in s.lemmas())
    }
    if not own or own & set(wn.synsets(shorter, pos="n")):
        return False
    return _semcor_noun_count(word) > _semcor_noun_count(shorter)


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

    Read through the judge's WordNet (:func:`kiekai.judge.resources.wordnet`): the SQLite
    index stores that file's text, so this loads no NLTK reader; only with the index off
    does it come from NLTK's WordNet folder. The same numbers as ``Lemma.count()``
    (``tests/test_judge_senses.py``), as one dict: NLTK's ``Lemma.count()`` binary-searches
    the file on disk at every call (half of a new word's time before this cache). 37,387
    keys in WordNet 3.0; loads in about 0.3 s.
    """
    counts: dict[str, int] = {}
    with wordnet().open("cntlist.rev") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2:
                counts[parts[0]] = int(parts[-1])
    return counts


@lru_cache(maxsize=65536)
def inflection_pos(word: str, lemma: str) -> frozenset[str]:
    """Parts of speech (WordNet letters n, v, a, r) whose senses an inflected ``word``
    carries of ``lemma`` (:func:`inflected_pos`); every part of speech for a possessive,
    a compound, or a lemma reached through spelling (colours -> color)."""
    if " " in word or "-" in word or word.endswith(("'s", "s'")):
        return frozenset("nvar")
    out = set(inflected_pos(word, lemma))
    if not out:  # reached through spelling (colour -> color): every part of speech
        return frozenset("nvar")
    return frozenset(out)


@lru_cache(maxsize=65536)
def sense_weights(norm: str) -> tuple[tuple[Any, float], ...]:
    """WordNet synsets of ``norm`` with P(sense | word), most likely first.

    P comes from the SemCor counts (``Lemma.count()``) with add-0.5 smoothing over all
    synsets of all lemmas of the word, so rare senses (dark = night) weigh little.
    Returns a tuple of at most :data:`MAX_SENSES` ``(Synset, probability)`` pairs
    (probabilities over all senses, so they may sum below 1); empty when WordNet lacks
    the word.
    """
    wn = wordnet()
    counts: dict[Any, float] = {}
    for lemma_form in sorted(lemmas(norm)):
        key = lemma_form.replace(" ", "_")
        # an inflected form has only the senses of the parts of speech it inflects:
        # "humans" is a noun, never the adjective "human"
        allowed = None if lemma_form == norm else inflection_pos(norm, lemma_form)
        for s in wn.synsets(key):
            if allowed is not None and s.pos().replace("s", "a") not in allowed:
                continue
            own = [lem for lem in s.lemmas() if lem.name().lower() == key]
            if not own:
                # reached through morphy's suffix stripping (physics -> physic): a sense
                # of another word, which lemmas() has ruled out as a form of this one
                continue
            c = max(semcor_counts().get(lem.key(), 0) for lem in own)
            counts[s] = max(counts.get(s, 0.0), c + 0.5)
    total = sum(counts.values())
    if not total:
        return ()
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:MAX_SENSES]
    return tuple((s, c / total) for s, c in ranked)


@lru_cache(maxsize=65536)
def _hypernym_depths(synset: Any) -> dict[Any, int]:
    """Every hypernym (and instance hypernym) of ``synset`` up to 6 steps, with its distance."""
    depths: dict[Any, int] = {}
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
def _antonym_synsets(synset: Any) -> frozenset[Any]:
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
def _similar_synsets(synset: Any) -> frozenset[Any]:
    """Synsets WordNet links to ``synset`` by similar-to, also-see or verb-group."""
    return frozenset(synset.similar_tos() + synset.also_sees() + synset.verb_groups())


@lru_cache(maxsize=65536)
def _derived_names(synset: Any) -> frozenset[str]:
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


#: Smallest P(sense | word) (SemCor counts, :func:`sense_weights`) of a *common* sense:
#: at least one use in ten. A WordNet link between two words decides a verdict by rule
#: only when it joins a common sense of each (a shared synset in a common sense of both
#: words is accepted at standard; a rare shared sense, night / dark, is not); links
#: through rarer senses are left to the fitted model. Set from such examples, not fitted: night.n.01 is 3 % of the uses of "dark" (rare), the shared
#: synset of monochrome / black-and-white is 20 % and 14 % of theirs (common).
COMMON_SENSE_MIN_P = 0.10


@dataclass(frozen=True)
class SenseLink:
    """The WordNet link of one kind joining the most common senses of two words.

    Attributes:
        kind: ``synonym`` (shared synset, not an adjective satellite), ``satellite``
            (shared adjective satellite synset: red / crimson in red.s.01), ``similar``,
            ``alias``, ``cohyponym``, ``hypernym1`` or ``hyponym1`` (see :class:`Links`).
        p: ``min(P(s | a), P(t | b))``, how common the rarer of the two senses is.
        p_a / p_b: P(s | a) and P(t | b).
        a_sense / b_sense: the two synsets' names (``car.n.01``).
        via: for ``cohyponym``, the shared hypernym's name; else "".
    """

    kind: str
    p: float
    p_a: float
    p_b: float
    a_sense: str
    b_sense: str
    via: str = ""

    @property
    def common(self) -> bool:
        """Whether both senses are common (:data:`COMMON_SENSE_MIN_P`)."""
        return self.p >= COMMON_SENSE_MIN_P


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
        best: per kind, the :class:`SenseLink` whose rarer sense is the most common
            (the evidence a rule may decide on, and its synsets for the reason).
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
    best: dict[str, SenseLink] = field(default_factory=dict, compare=False)

    def common(self, kind: str) -> SenseLink | None:
        """The link of ``kind`` between common senses of both words, or None."""
        link = self.best.get(kind)
        return link if link is not None and link.common else None


#: The sense-weighted link kinds :func:`wordnet_links` searches pair by pair (``gloss`` is
#: added from the definitions).
_PAIR_KINDS = (
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
)


@dataclass
class _Tally:
    """The strongest link of each kind found so far (``best``: kind -> strength) and, per
    kind, the :class:`SenseLink` whose rarer sense is the most common (``links``)."""

    best: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_PAIR_KINDS, 0.0))
    links: dict[str, SenseLink] = field(default_factory=dict)

    def bump(self, kind: str, value: float) -> None:
        """Keep ``value`` as the strength of ``kind`` when it is the strongest yet."""
        if value > self.best[kind]:
            self.best[kind] = value

    def note(self, kind: str, s: Any, t: Any, pa: float, pb: float, via: str = "") -> None:
        """Keep the link of synsets ``s`` and ``t`` (P(s | a) = ``pa``, P(t | b) = ``pb``) as
        the evidence of ``kind`` when its rarer sense is more common than the kept one's."""
        p = min(pa, pb)
        old = self.links.get(kind)
        if old is None or p > old.p:
            self.links[kind] = SenseLink(kind, p, pa, pb, s.name(), t.name(), via)


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def wordnet_links(a: str, b: str) -> Links:
    """Sense-weighted WordNet links from normalised word ``a`` (secret) to ``b`` (guess)."""
    sa = sense_weights(a)
    sb = sense_weights(b)
    if not sa or not sb:
        return Links()
    forms_a = lemmas(a)
    forms_b = lemmas(b)
    tally = _Tally()
    for s, pa in sa:
        _tally_sense(tally, s, pa, sb, forms_b)
    for t, pb in sb:
        if _derived_names(t) & forms_a:
            tally.bump("derivation", math.sqrt(pb * max(p for _, p in sa)))
    best: dict[str, float] = {
        **tally.best,
        "gloss": max(_gloss_mass(sa, forms_b), _gloss_mass(sb, forms_a)),
    }
    return Links(**best, best=tally.links)


def _tally_sense(
    tally: _Tally, s: Any, pa: float, sb: Sequence[tuple[Any, float]], forms_b: Set[str]
) -> None:
    """The links from sense ``s`` of the secret (P = ``pa``) to every sense of the guess
    (``sb``: (synset, P) pairs; ``forms_b``: the guess's lemma forms) into ``tally``."""
    hyp_s = _hypernym_depths(s)
    near_s = {h for h, d in hyp_s.items() if d <= 2 and h.min_depth() >= COHYPONYM_MIN_DEPTH}
    ants = _antonym_synsets(s)
    derived = _derived_names(s)
    if derived & forms_b:
        tally.bump("derivation", math.sqrt(pa * max(p for _, p in sb)))
    for t, pb in sb:
        w = math.sqrt(pa * pb)
        if t == s:
            tally.bump("synonym", w)
            tally.note("satellite" if s.pos() == "s" else "synonym", s, t, pa, pb)
            continue
        if t in ants:
            tally.bump("antonym", w)
        if t in _similar_synsets(s):
            tally.bump("similar", w)
            tally.note("similar", s, t, pa, pb)
        if s in alias_targets(t) or t in alias_targets(s):
            tally.bump("alias", w)
            if s in alias_named(t) or t in alias_named(s):
                tally.note("alias", s, t, pa, pb)
        _tally_taxonomy(tally, s, t, (pa, pb, w), hyp_s, near_s)


def _tally_taxonomy(
    tally: _Tally,
    s: Any,
    t: Any,
    weights: tuple[float, float, float],
    hyp_s: Mapping[Any, int],
    near_s: Set[Any],
) -> None:
    """The hypernym, hyponym and co-hyponym link of synsets ``s`` and ``t`` (the first that
    holds) into ``tally``; ``weights`` is (P(s | a), P(t | b), link strength), ``hyp_s``
    maps ``s``'s hypernyms to their steps above it and ``near_s`` holds those that may make
    a co-hyponym."""
    pa, pb, w = weights
    hyp_t = _hypernym_depths(t)
    d_up = hyp_s.get(t)
    d_down = hyp_t.get(s)
    if d_up == 1:
        tally.bump("hypernym1", w)
        tally.note("hypernym1", s, t, pa, pb)
    elif d_down == 1:
        tally.bump("hyponym1", w)
        tally.note("hyponym1", s, t, pa, pb)
    elif d_up:
        tally.bump("taxonomy2_up", w)
    elif d_down:
        tally.bump("taxonomy2_down", w)
    elif near_s:
        shared = near_s & {h for h, d in hyp_t.items() if d <= 2}
        if shared:
            tally.bump("cohyponym", w)
            via = max(shared, key=lambda h: h.min_depth()).name()
            tally.note("cohyponym", s, t, pa, pb, via)


#: Endings of English feminine forms of a word for a person or animal (host / hostess,
#: waiter / waitress, actor / actress, tiger / tigress, usher / usherette, hero /
#: heroine).
_FEMININE = re.compile(r"(?:ess|ette|ine)$")
_FEMALE_WORDS = frozenset({"woman", "female", "girl"})


def _spelled_feminine(x: str, y: str) -> bool:
    """Whether ``y`` is spelled as a feminine form of ``x``: ``x`` plus an ending
    (host -> hostess, prince -> princess, hero -> heroine), or an -er / -or word's stem
    plus -ress (waiter -> waitress, tiger -> tigress, emperor -> empress)."""
    if not _FEMININE.search(y) or len(x) < 3 or len(y) <= len(x) - 3:
        return False
    if y.startswith(x) or y.startswith(x.rstrip("e")):
        return True
    if not (x.endswith(("er", "or")) and y.endswith("ress")):
        return False
    stem = y[: -len("ress")]
    return len(stem) >= 3 and x.startswith(stem) and len(x) - len(stem) <= 4


@lru_cache(maxsize=65536)
def gender_variant(a: str, b: str) -> str | None:
    """The feminine form's WordNet sense when one word is the other's gender variant.

    True gender variants name the same role or kind, differing only in the sex of who is
    meant (host / hostess, waiter / waitress, actor / actress, lion / lioness, prince /
    princess; Just One counts them as the same clue): the feminine word is
    spelled from the other (:func:`_spelled_feminine`), and WordNet defines one of its
    senses with "woman", "female" or "girl" as a direct hyponym of a sense of the other
    word (hostess.n.01 "a woman host") or as its sister under one direct hypernym
    (princess.n.01 "a female member of a royal family" and prince.n.01 are both kinds
    of aristocrat). king / queen fail the spelling test, governor / governess the
    WordNet one (a governess is a kind of teacher, a governor a politician). Inflected
    words are compared through their lemmas (actors / actresses). Returns the feminine
    sense's name, or None.
    """
    wn = wordnet()
    for x0, y0 in ((a, b), (b, a)):
        for x in sorted(lemmas(x0)):
            for y in sorted(lemmas(y0)):
                if not _spelled_feminine(x, y):
                    continue
                senses_x = wn.synsets(x, pos="n")
                above_x = {h for s in senses_x for h in s.hypernyms()}
                for t in wn.synsets(y, pos="n"):
                    words = set(re.findall(r"[a-z]+", t.definition().lower()))
                    if not words & _FEMALE_WORDS or t in senses_x:
                        continue
                    above_t = set(t.hypernyms())
                    if set(senses_x) & above_t or above_x & above_t:
                        return str(t.name())
    return None


#: Smallest MiniLM cosine of two words of one family (:func:`word_family`): set from
#: examples, not fitted. Family words stay close in meaning (sail / sailor 0.61, teach /
#: teacher 0.88, sun / sunny 0.87); words that only look derived do not (butt / butter
#: 0.52 through a rare sense, corn / corner 0.41, bell / belly 0.40).
FAMILY_MIN_COSINE = 0.6


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def word_family(a: str, b: str) -> bool:
    """Whether two normalised words are of one word family (Just One's "variants from
    the same word family": teach / teacher, sun / sunny, science / scientist): WordNet
    links them by derivation or pertainym, or one is the other plus a derivational
    suffix (:data:`DERIVATIONAL_SUFFIXES`), and their MiniLM cosine is at least
    :data:`FAMILY_MIN_COSINE`. Forms of one word, negations (people / peopleless) and
    degree words (green / greenish, which the level table leaves to lenient tables) are
    no family in this sense; gender forms are :func:`gender_variant`."""
    if a == b or lemmas(a) & lemmas(b):
        return False
    morph = morphological_link(a, b)
    if morph == "negation" or degree_link(a, b):
        return False
    if not (wordnet_links(a, b).derivation > 0 or morph == "derivation"):
        return False
    from kiekai.judge.resources import cosine

    return cosine(a, b) >= FAMILY_MIN_COSINE


def _metaphone(word: str) -> str:
    import jellyfish

    return str(jellyfish.metaphone(word))


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def sounds_alike(a: str, b: str) -> bool:
    """Whether two different words of three letters or more sound alike: the same
    Metaphone key (``jellyfish.metaphone``, Philips 1990: night / knight "NT", right /
    write "RT", photo / foto "FT"). A key is coarse (cat / kit are both "KT"), so the
    judge reads it only where nothing else links the words."""
    if a == b or len(a) < 3 or len(b) < 3 or not (a.isalpha() and b.isalpha()):
        return False
    return _metaphone(a) == _metaphone(b)


@lru_cache(maxsize=65536)
def is_english_word(norm: str) -> bool:
    """Whether ``norm`` is English as a player writes it: a real word
    (:func:`is_real_word`), a numeral, a compound or hyphenated formation (checked by
    :func:`one_word_check`), a possessive, or a closed affix formation of a real word
    ("whiteless", "nonhuman", "catlike"). "perro" and "championery" are not."""
    if not norm or is_real_word(norm) or not norm.isalpha():
        return True
    for affix in AFFIX_PARTS:
        if affix in SUFFIX_PARTS and norm.endswith(affix):
            stem = norm[: -len(affix)]
        elif affix not in SUFFIX_PARTS and norm.startswith(affix):
            stem = norm[len(affix) :]
        else:
            continue
        if len(stem) >= 3 and is_real_word(stem):
            return True
    return False


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def invented_from(word: str, base: str) -> bool:
    """Whether ``word``, no English word (:func:`is_english_word`), is ``base`` (or one
    of its lemmas) with an invented ending: "championery" of champion, "dogness" of
    dog (Just One's "invented words")."""
    if is_english_word(word):
        return False
    for lemma in lemmas(base):
        for stem in {lemma, lemma.rstrip("e"), lemma[:-1] + "i" if lemma.endswith("y") else lemma}:
            if len(stem) >= 3 and word.startswith(stem) and len(word) >= len(stem) + 2:
                return True
    return False


#: A WordNet definition that presents its synset as another name for something:
#: "informal terms for a mother", "general term for any insect", "a polite name for
#: any woman", "slang for a paunch", "street names for ketamine". 0.2 % of noun
#: synsets (WordNet 3.0) have such a definition.
ALIAS_DEFINITION = re.compile(
    r"\b(?:terms?|names?|nicknames?|slang|words?)\s+(?:for|referring\s+to)\s+(.*)$"
)


@lru_cache(maxsize=65536)
def alias_targets(synset: Any) -> frozenset[Any]:
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


@lru_cache(maxsize=65536)
def alias_named(synset: Any) -> frozenset[Any]:
    """The synsets an alias definition names itself, without the hypernyms
    :func:`alias_targets` adds: ma.n.01 "informal terms for a mother" -> mother.n.01;
    pony.n.02 "an informal term for a racehorse" -> racehorse.n.01 (not horse.n.01, of
    which a pony is no other name). Empty when the definition is no alias."""
    m = ALIAS_DEFINITION.search(synset.definition())
    if not m:
        return frozenset()
    wn = wordnet()
    head = re.split(r"[;,(]| or | and | that | which | who ", m.group(1))[0]
    out: set[Any] = set()  # nltk Synsets
    for tok in re.findall(r"[a-z]+", head.lower()):
        if tok not in _GLOSS_STOPWORDS:
            out.update(s for s in wn.synsets(tok, pos=synset.pos()) if s != synset)
    return frozenset(out)


def _gloss_mass(senses: Sequence[tuple[Any, float]], forms: frozenset[str]) -> float:
    """Sum of P(sense) over ``senses`` whose definition uses one of ``forms``."""
    return float(sum(p for s, p in senses if _gloss_lemmas(s) & forms))


@lru_cache(maxsize=65536)
def _gloss_lemmas(synset: Any) -> frozenset[str]:
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
#: blue -> bluish): degree words, accepted only by lenient tables (docs/judge.md).
DEGREE_SUFFIXES = ("ish",)


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
def degree_link(a: str, b: str) -> bool:
    """Whether one normalised word is the other plus a degree suffix (red / reddish)."""
    ka, kb = compound_key(a), compound_key(b)
    for x, y in ((ka, kb), (kb, ka)):
        for fx in lemmas(x) | {x}:
            if len(y) > len(fx) and _strip_suffix(y, compound_key(fx), DEGREE_SUFFIXES):
                return True
    return False


@lru_cache(maxsize=PAIR_CACHE_ENTRIES)
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
