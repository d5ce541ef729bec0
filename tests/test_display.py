"""kiekai.display: text from files is shown, never obeyed, by the terminal."""

from __future__ import annotations

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
