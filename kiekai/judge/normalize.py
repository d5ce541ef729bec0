"""Surface normalisation of a written guess, before any lexical lookup.

A table reads "Water!", "  water ", "the water" and "WATER" as the same guess
(rulebook, "Imperfect Guesses": only the word counts, not how it is written). This
module removes those differences without any model: Unicode NFKC, case folding,
diacritics, surrounding punctuation, runs of whitespace, leading English articles and
digits written as numerals ("3" -> "three", via ``inflect``).

Pure functions; no WordNet here (the one-lexical-item check that needs WordNet lives in
:mod:`kiekai.judge.lexical`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import inflect

_T = TypeVar("_T")

#: Leading words a guess may carry that do not change the category ("a dog" = "dog").
ARTICLES = frozenset({"a", "an", "the"})

#: Longest guess, in characters after normalisation, that is looked up at all. Longer
#: text is refused as not one word. The longest WordNet 3.0 lemma has 71 characters
#: ("blood-oxygenation level dependent functional magnetic resonance imaging"); 80 is
#: also the HTTP API's limit (``kiekai.judge.server.MAX_WORD_CHARS``).
MAX_WORD_CHARS = 80

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'"})
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212_"})
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$", re.UNICODE)
_INNER_JUNK = re.compile(r"[^\w\s'\-.]", re.UNICODE)
_SPACES = re.compile(r"\s+")
_HYPHEN_SPACES = re.compile(r"\s*-\s*")


def strip_diacritics(text: str) -> str:
    """Return ``text`` without combining marks ("café" -> "cafe", "naïve" -> "naive")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _inflect_engine() -> inflect.engine:
    """``inflect.engine()``, imported without typeguard's run-time type checks.

    inflect decorates its methods with ``typeguard.typechecked``, which recompiles each
    of them at import: 1.3-2 s on 2 cores, most of a one-word verdict's time. typeguard
    makes the decorator a no-op under ``python -O`` ("checks aren't meant to be run in
    production", its documentation); the same is done here for inflect's import only, so
    its functions run as they do under ``-O`` (import in 0.07 s), with the same results.
    """
    import sys
    import types

    if "inflect" not in sys.modules:
        typeguard = sys.modules.get("typeguard")
        if typeguard is None:  # not imported yet: inflect gets a stand-in, not typeguard
            stand_in = types.ModuleType("typeguard")
            setattr(stand_in, "typechecked", _no_type_checks)  # noqa: B010
            sys.modules["typeguard"] = stand_in
            try:
                import inflect  # noqa: F401
            finally:
                if sys.modules.get("typeguard") is stand_in:
                    del sys.modules["typeguard"]  # a later import gets the real one
        else:
            checked = getattr(typeguard, "typechecked", None)
            setattr(typeguard, "typechecked", _no_type_checks)  # noqa: B010
            try:
                import inflect  # noqa: F401
            finally:
                setattr(typeguard, "typechecked", checked)  # noqa: B010
    import inflect

    return inflect.engine()


def _no_type_checks(target: _T | None = None, **_options: object) -> _T | Callable[[_T], _T]:
    """Stand-in for ``typeguard.typechecked`` that returns what it decorates unchanged
    (what typeguard itself does under ``python -O``)."""
    if target is None:
        return lambda inner: inner
    return target


def numeral_to_words(token: str) -> str:
    """Spell a whole-number numeral in words ("2" -> "two", "21" -> "twenty-one").

    Tokens that are not all ASCII digits (or longer than 9 digits) come back unchanged.
    Uses ``inflect.engine().number_to_words`` without the word "and".
    """
    if token.isascii() and token.isdigit() and len(token) <= 9:
        words = _inflect_engine().number_to_words(token, andword="")
        assert isinstance(words, str)  # a list only with wantlist=True
        return words
    return token


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The canonical written form of a guess; "" when nothing word-like is left.

    Steps, in order: NFKC; typographic apostrophes and dashes to ASCII; case fold;
    diacritics removed; symbols other than letters, digits, apostrophe, hyphen and full
    stop removed; punctuation stripped from both ends; whitespace collapsed; spaces
    around hyphens removed; leading articles ("a", "an", "the") dropped when a word
    follows; numerals spelled in words.

    Examples: ``"  The Sea! "`` -> ``"sea"``, ``"Café"`` -> ``"cafe"``,
    ``"2"`` -> ``"two"``, ``"sea - side"`` -> ``"sea-side"``.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"a guess must be text (str), got {type(text).__name__}")
    s = unicodedata.normalize("NFKC", text)
    s = s.translate(_APOSTROPHES).translate(_DASHES)
    s = strip_diacritics(s.casefold())
    s = _INNER_JUNK.sub(" ", s)
    s = _SPACES.sub(" ", s).strip()
    s = _EDGE_PUNCT.sub("", s)
    s = _HYPHEN_SPACES.sub("-", s)
    tokens = s.split(" ") if s else []
    while len(tokens) > 1 and tokens[0] in ARTICLES:
        tokens = tokens[1:]
    tokens = [numeral_to_words(t) for t in tokens]
    return " ".join(tokens)


def compound_key(normalised: str) -> str:
    """Key that equates open, hyphenated and closed compounds and drops apostrophes.

    ``"sea side"``, ``"sea-side"`` and ``"seaside"`` all give ``"seaside"``. Expects
    the output of :func:`normalise`.
    """
    return re.sub(r"[\s\-'.]", "", normalised)


#: Unicode categories that cannot be part of a written word: control characters (Cc: NUL,
#: TAB, ESC, ...), format characters (Cf: zero-width space and joiners, soft hyphen,
#: direction overrides, byte-order mark), private use (Co), lone surrogates (Cs),
#: unassigned code points (Cn) and line/paragraph separators (Zl, Zp). Inside a word they
#: are invisible or break it in two, so a guess holding one is refused (never used to
#: join "do<TAB>g" into "dog").
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def hidden_character(text: str) -> tuple[int, str] | None:
    """The first invisible or control character inside ``text``, as ``(index, char)``.

    Surrounding whitespace (``str.strip``: spaces, tabs, line breaks at either end) is not
    counted, since a guess read from a line or a form often carries it; anything of
    :data:`HIDDEN_CATEGORIES` left after that is, and so is a non-spacing mark that does
    not combine with a letter (variation selectors: combining class 0). ``None`` when
    there is none.
    """
    stripped = text.strip()
    offset = len(text) - len(text.lstrip())
    for i, char in enumerate(stripped):
        category = unicodedata.category(char)
        if category in HIDDEN_CATEGORIES or (
            category in ("Mn", "Me") and unicodedata.combining(char) == 0
        ):
            return offset + i, char
    return None


_CONTROL_NAMES = {
    "\x00": "NUL", "\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\x1b": "ESCAPE",
    "\x7f": "DELETE",
}  # fmt: skip


def describe_character(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE`` style name of one character, for error messages."""
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "")
    code = f"U+{ord(char):04X}"
    return f"{code} {name}" if name else code


def has_letters(text: str) -> bool:
    """Whether ``text`` holds at least one letter (emoji and symbols alone do not count)."""
    return any(c.isalpha() for c in text)
