"""kiekai.display: text from files is shown, never obeyed, by the terminal."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from kiekai.display import printable, safe_text


def test_safe_text_escapes_controls_and_rich_markup():
    shown = safe_text("\x1b[31mjay\x1b[0m [bold]x[/bold]\n\u202eevil")
    console = Console(record=True, width=200, color_system=None)
    console.print(shown)
    out = console.export_text()
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[31mjay\\x1b[0m [bold]x[/bold]\\n\\u202eevil" in out


@given(st.text())
def test_printable_output_has_no_control_or_bidi_characters(text: str):
    import unicodedata

    out = printable(text)
    assert all(unicodedata.category(c) != "Cc" for c in out)
    assert not any(c in out for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


KEPT_FORMAT = {"\u200c", "\u200d"} | {chr(c) for c in range(0xE0020, 0xE0080)}


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_printable_leaves_nothing_that_moves_hides_or_breaks_text(text: str):
    """Arbitrary Unicode (surrogates included): no control, surrogate, line or paragraph
    separator, and no format character but the joiners and flag tags that writing needs."""
    import unicodedata

    out = printable(text)
    for char in out:
        category = unicodedata.category(char)
        assert category not in ("Cc", "Cs", "Zl", "Zp"), repr(char)
        assert category != "Cf" or char in KEPT_FORMAT, repr(char)
    out.encode("utf-8")  # a UTF-8 terminal can take it (lone surrogates cannot be encoded)


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_safe_text_through_rich_to_a_terminal_emits_only_rich_own_escapes(text: str):
    """Rich on a colour terminal: the only escape sequences in the output are the styles of
    the surrounding markup, whatever the text holds (markup, ESC, CSI, bidi, newlines)."""
    import re

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system="truecolor", width=400,
                      emoji=False, highlight=False, soft_wrap=True)  # fmt: skip
    console.print(f"[bold]<{safe_text(text)}>[/bold]", end="")
    out = buffer.getvalue()
    # what a person sees: printable's escapes, with no markup interpreted in them (Rich's
    # escape() doubles a lone trailing backslash, lest it escape the markup that follows)
    shown = printable(text)
    if shown.endswith("\\") and not shown.endswith("\\\\"):
        shown += "\\"
    assert re.sub(r"\x1b\[[0-9;]*m", "", out) == "<" + shown + ">"


def test_printable_keeps_writing_that_needs_format_characters():
    for text in ("👩\u200d💻", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
                 "می\u200cخواهم", "ñandú"):  # fmt: skip
        assert printable(text) == text
    assert printable("a\u200bb\ufeffc\u2028d\ud800") == "a\\u200bb\\ufeffc\\u2028d\\ud800"
    assert printable("\U000e0001") == "\\U000e0001"


def test_display_imports_nothing_of_the_deck_package():
    """display is below deck (deck prints through printable): no import of kiekai.deck,
    not even for type checking, so the two modules cannot form a cycle."""
    import ast
    from pathlib import Path

    import kiekai.display
    from kiekai.deck import Card
    from kiekai.display import card_names

    tree = ast.parse(Path(kiekai.display.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {
        a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
    }
    assert not {m for m in imported if m and m.startswith("kiekai.deck")}
    cards = [
        Card("a.jpg", Path("a.jpg"), "0" * 64, label=" tench "),
        Card("b.jpg", Path("b.jpg"), "1" * 64),
    ]
    assert card_names(cards, {"b.jpg": "goldfish"}) == {"a.jpg": "tench", "b.jpg": "goldfish"}
