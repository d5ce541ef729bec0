"""Showing text that came from outside (file names, labels.csv, game logs, player names).

One job: text read from a file or typed by someone else must not be able to drive the
terminal. Escape sequences (colours, window titles, cursor moves), newlines and line
separators that forge extra output lines, bidirectional overrides and invisible format
characters that disguise a name, and lone surrogates (which a UTF-8 terminal cannot even
encode) are shown as visible escapes, and Rich markup in the text is shown literally. Every
front end prints such text through :func:`safe_text` (or :func:`printable` where the output
is not Rich markup).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Protocol

#: Unicode bidirectional controls (format characters that reorder text, e.g. U+202E
#: RIGHT-TO-LEFT OVERRIDE turns "photo\u202egpj.exe" into "photoexe.jpg" on screen).
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Unicode categories shown as escapes: controls (C0, DEL, C1: ESC, CSI ...), surrogates,
#: line and paragraph separators (U+2028, U+2029 break lines in some terminals), and format
#: characters (zero-width space, BOM, bidi controls ...) but for :data:`_KEPT_FORMAT`.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp", "Cf"})
#: Format characters that writing needs and that cannot disguise text: zero-width non-joiner
#: and joiner (Persian, Indic scripts; emoji sequences such as 👩‍💻) and the tag characters
#: of subdivision flags (🏴 + tags = the flag of Scotland).
_KEPT_FORMAT = frozenset({"\u200c", "\u200d"}) | frozenset(map(chr, range(0xE0020, 0xE0080)))


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: control characters escaped, all else kept.

    Characters of Unicode category Cc (controls), Cs (lone surrogates), Zl and Zp (line and
    paragraph separators) and Cf (format characters: bidi controls, zero-width space, BOM;
    except the zero-width (non-)joiners and flag tags that scripts and emoji need) become
    Python-style escapes (``\\x1b``, ``\\n``, ``\\u202e``, ``\\U000e0001``); letters in any
    script, emoji and spaces are unchanged. Non-``str`` values are converted with ``str()``.
    """
    out = []
    for char in str(text):
        if char in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[char])
        elif char in _BIDI_CONTROLS or (
            unicodedata.category(char) in _ESCAPED_CATEGORIES and char not in _KEPT_FORMAT
        ):
            code = ord(char)
            if code < 0x100:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


def safe_text(text: object) -> str:
    """``text`` safe to embed in Rich markup printed to a terminal: :func:`printable`, then
    Rich markup escaped (``[red]`` is shown as written, not as a colour)."""
    from rich.markup import escape

    return escape(printable(text))


class NamedCard(Protocol):
    """What :func:`card_names` reads of a card: its id and its label.

    :class:`kiekai.deck.Card` has both; a protocol here keeps this module free of the deck
    package, which imports :func:`printable` from it.
    """

    @property
    def id(self) -> str:
        """The card's id (unique within a deck)."""
        ...

    @property
    def label(self) -> str | None:
        """The card's human label, or ``None``."""
        ...


def card_names(cards: Sequence[NamedCard], seen: Mapping[str, str] | None = None) -> dict[str, str]:
    """The name people see for each card: ``{card id: name}``.

    The deck's label (labels.csv, or the embedded deck's labels); else what the perception
    reports seeing in the photo (``seen``: card id -> a class name, when a perception
    exposes one); else a neutral ``"photo N"`` with N the card's 1-based position in
    ``cards``. Never the file name: a file name is often a code (``n01440764_10026``) or
    a joke, and a name must say what a person sees. Names are returned as written; show
    them through :func:`safe_text` (terminal) or an autoescaping template (web).
    """
    seen = seen or {}
    names = {}
    for number, card in enumerate(cards, start=1):
        name = (card.label or "").strip() or str(seen.get(card.id, "")).strip()
        names[card.id] = name or f"photo {number}"
    return names
