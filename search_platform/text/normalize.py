"""Unicode and whitespace clean-up shared by the parsers."""

from __future__ import annotations

import re
import unicodedata

# text captured from a terminal: ANSI escape sequences (colours, bold) and overstrike, the way man(1) and nroff
# mark bold (`X\bX`) and underline (`_\bX`); without this, dropping the control characters leaves `--ffoorrccee`
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_OVERSTRIKE = re.compile(r"[^\n\x08]\x08")
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200d\u2060\ufeff]")
_LINE_BREAK = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
# typesetters print the ASCII hyphen-minus of options and numbers as a hyphen or minus sign (groff's UTF-8 output
# writes `-f` as U+2010 and f on some systems); readers type `-`, so the text says `-` too
_ASCII_HYPHENS = str.maketrans(dict.fromkeys("\u2010\u2011\u2212", "-"))


def resolve_terminal_formatting(text: str) -> str:
    """The text without ANSI escape sequences, overstruck characters written once (a control character that is
    neither stays)."""
    if "\x1b" in text or "\x08" in text:
        return _OVERSTRIKE.sub("", _ANSI_ESCAPE.sub("", text))
    return text


def normalize_text(text: str) -> str:
    """Resolve terminal formatting (ANSI escapes, overstrike), NFC-normalise, unify line breaks to \\n, drop control
    and zero-width characters, make odd spaces plain and typographic hyphens and minus signs ASCII."""
    text = _LINE_BREAK.sub("\n", unicodedata.normalize("NFC", resolve_terminal_formatting(text)))
    return _SPACES.sub(" ", _INVISIBLE.sub("", text)).translate(_ASCII_HYPHENS)


def collapse_whitespace(text: str) -> str:
    """Replace every run of whitespace with one space and trim the ends."""
    return " ".join(text.split())


def shorten(text: str, max_chars: int) -> str:
    """Cut text to at most max_chars, at a word boundary when one is near, marking the cut with an ellipsis."""
    text = collapse_whitespace(text)
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
