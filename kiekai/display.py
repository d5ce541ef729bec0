"""Showing text that came from outside (file names, labels.csv, game logs, player names).

One job: text read from a file or typed by someone else must not be able to drive the
terminal. Escape sequences (colours, window titles, cursor moves), newlines that forge extra
output lines and bidirectional overrides that disguise a name are shown as visible escapes,
and Rich markup in the text is shown literally. Every front end prints such text through
:func:`safe_text` (or :func:`printable` where the output is not Rich markup).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kiekai.deck import Card

#: Unicode bidirectional controls (format characters that reorder text, e.g. U+202E
#: RIGHT-TO-LEFT OVERRIDE turns "photo\u202egpj.exe" into "photoexe.jpg" on screen).
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: control characters escaped, all else kept.

    Characters of Unicode category Cc and the bidi controls become Python-style escapes
    (``\\x1b``, ``\\n``, ``\\u202e``); letters in any script, emoji (with their zero-width
    joiners) and spaces are unchanged. Non-``str`` values are converted with ``str()``.
    """
    out = []
    for char in str(text):
        if char in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[char])
        elif unicodedata.category(char) == "Cc" or char in _BIDI_CONTROLS:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def safe_text(text: object) -> str:
    """``text`` safe to embed in Rich markup printed to a terminal: :func:`printable`, then
    Rich markup escaped (``[red]`` is shown as written, not as a colour)."""
    from rich.markup import escape

    return escape(printable(text))


def card_names(cards: Sequence[Card], seen: Mapping[str, str] | None = None) -> dict[str, str]:
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
