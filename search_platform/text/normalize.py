"""Unicode and whitespace clean-up shared by the parsers."""

from __future__ import annotations

import re
import unicodedata

from search_platform.text.hyphenation import join_ascii_hyphenation, word_goes_on

# text captured from a terminal: ANSI escape sequences (colours, bold) and overstrike, the way man(1) and nroff
# mark bold (`X\bX`) and underline (`_\bX`); without this, dropping the control characters leaves `--ffoorrccee`
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_OVERSTRIKE = re.compile(r"[^\n\x08]\x08")
# a word the formatter hyphenated at the end of a line: groff's UTF-8 output (what man(1) prints) ends the line with
# U+2010 (an explicit `-` prints as ASCII there), text from PDFs and word processors with a soft hyphen; the rest of
# the word starts the next line after its indentation, or after one space once a corpus has collapsed its lines
_FORMATTER_HYPHEN = "\u2010\u00ad"
_HYPHENATION_BREAK = re.compile(
    rf"(?P<head>\S*[^\W\d_])[{_FORMATTER_HYPHEN}](?:[ \t]*\r?\n[ \t]*| )(?=(?P<next>[^\W\d_]))")
# a hyphen the text itself prints like the formatter's break: then a break may also be one of the word's own hyphens
_BREAK_LOOKALIKE_HYPHENS = "\u2010\u2011"
# a compound or option that a formatter (groff, Python's textwrap) broke after one of its own ASCII hyphens, as
# `--one-` at a line's end and `file-system` after the next line's indentation: one word again, hyphen kept
_COMPOUND_BREAK = re.compile(r"(?<=[^\W_])-[ \t]*\r?\n[ \t]*(?=[^\W_])")
_SOFT_HYPHEN = "\u00ad"  # marks where a word may break; elsewhere it only splits the word for the analyzers
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200d\u2060\ufeff]")
_LINE_BREAK = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
# typesetters print the ASCII hyphen-minus of options and numbers as a hyphen or minus sign (groff's UTF-8 output
# writes `-f` as U+2010 and f on some systems); readers type `-`, so the text says `-` too
_ASCII_HYPHENS = str.maketrans(dict.fromkeys("\u2010\u2011\u2212", "-"))


def resolve_formatter_output(text: str) -> str:
    """The words of text a formatter printed (man, nroff, a terminal, a PDF): without ANSI escape sequences,
    overstruck characters written once (a control character that is neither stays), and each word hyphenated
    across a line break whole again: `documenta\u2010\\n    tion` is `documentation`, `--inter\u2010\\n    active` is
    `--interactive` (a text that prints its own hyphens in ASCII uses U+2010 only for the formatter's breaks; where
    the head has a U+2010 of its own, the break may be one too and a hyphen stays), and a word broken after its
    own hyphen, `--one-\\n    file-system`, is `--one-file-system`."""
    if "\x1b" in text or "\x08" in text:
        text = _OVERSTRIKE.sub("", _ANSI_ESCAPE.sub("", text))
    if any(hyphen in text for hyphen in _FORMATTER_HYPHEN):
        text = _HYPHENATION_BREAK.sub(_join_hyphenated, text).replace(_SOFT_HYPHEN, "")
    elif "-" in text:  # no U+2010 and no soft hyphen: man(1) in the C locale breaks words with an ASCII hyphen
        text = join_ascii_hyphenation(text)
    if "-" in text:
        text = _COMPOUND_BREAK.sub("-", text)
    return text


def _join_hyphenated(match: re.Match[str]) -> str:
    head, rest = match["head"], match["next"]
    if not word_goes_on(head, rest):
        return match.group()
    joint = "-" if any(hyphen in head for hyphen in _BREAK_LOOKALIKE_HYPHENS) else ""
    return f"{head}{joint}"  # the rest of the word follows the match


def normalize_text(text: str) -> str:
    """Resolve formatter output (ANSI escapes, overstrike, hyphenated line breaks), NFC-normalise, unify line
    breaks to \\n, drop control and zero-width characters, make odd spaces plain and typographic hyphens and minus
    signs ASCII."""
    text = _LINE_BREAK.sub("\n", unicodedata.normalize("NFC", resolve_formatter_output(text)))
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
