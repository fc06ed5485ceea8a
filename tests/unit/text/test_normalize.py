"""Text clean-up before parsing: terminal formatting, Unicode forms, control characters and odd spaces."""

from __future__ import annotations

import pytest

from search_platform.text.normalize import normalize_text


@pytest.mark.parametrize(("raw", "clean"), [
    # overstrike: bold repeats a character over a backspace, underline puts `_` under it
    ("-\b--\b-d\bdr\bry\by-\b-r\bru\bun\bn  preview only", "--dry-run  preview only"),
    ("_\bf_\bi_\bl_\be name", "file name"),
    ("_\b_private", "_private"),
    # ANSI colour and bold, and a two-character escape
    ("\x1b[1;31mWARNING\x1b[0m disk \x1b[4mfull\x1b[24m\x1bM", "WARNING disk full"),
    # nothing to resolve: control and zero-width characters dropped, odd spaces plain
    ("tab\tkept\u200b, bell\x07 dropped,\u00a0nbsp", "tab\tkept, bell dropped, nbsp"),
    # typographic hyphens and minus signs are the hyphen-minus readers type; dashes stay
    ("\u2010\u2010force or \u2011n, \u22121 \u2013 not \u2014 these", "--force or -n, -1 \u2013 not \u2014 these"),
    ("a lone backspace\b at the start of a line:\n\bx", "a lone backspac at the start of a line:\nx"),
])
def test_terminal_formatting_is_resolved_before_control_characters_go(raw: str, clean: str) -> None:
    assert normalize_text(raw) == clean


@pytest.mark.parametrize(("raw", "clean"), [
    # groff's UTF-8 output (man) hyphenates a long word across a line break with U+2010, then indents
    ("and administrative  in\u2010\n       frastructure components", "and administrative  infrastructure components"),
    ("documenta\u2010\r\n  tion", "documentation"),
    ("CONFIGU\u2010\n  RATION", "CONFIGURATION"),
    ("in\u2010 frastructure", "infrastructure"),  # a corpus that collapsed its lines keeps one space
    # the text prints its own hyphens in ASCII, so a U+2010 break is inside a part of the word, not at a hyphen
    ("--inter\u2010\n              active=once", "--interactive=once"),
    ("multi-thread\u2010\n  ed", "multi-threaded"),
    # the text prints its own hyphens as U+2010 too: a break in a word that has one may be at one, so it stays
    ("\u2010\u2010preserve\u2010\n     root", "--preserve-root"),
    # a word broken after its own ASCII hyphen (groff and Python's textwrap break there): whole, hyphen kept
    ("the --one-\n       file-system option", "the --one-file-system option"),
    ("READ-\r\n  ONLY and ISO-\n8859-1", "READ-ONLY and ISO-8859-1"),
    ("infor\u00ad\nmation and hy\u00adphen", "information and hyphen"),  # soft hyphens only mark a break
    # not the rest of a word: a capital after lowercase, a digit, a blank line; a hyphen inside a line stays
    ("pre\u2010 Unicode", "pre- Unicode"),
    ("x\u2010\n 3 items", "x-\n 3 items"),
    ("abc\u2010\n\n   def", "abc-\n\n   def"),
    ("well\u2010known", "well-known"),
    # an ASCII hyphen that is no word's end stays where it is: a dash, a rule, before a blank line or punctuation
    ("pre- and\npost-processing, a -\nb, ---\nx, end-\n\nnext, see-\n(x)",
     "pre- and\npost-processing, a -\nb, ---\nx, end-\n\nnext, see-\n(x)"),
])
def test_a_word_hyphenated_across_a_line_break_is_whole_again(raw: str, clean: str) -> None:
    assert normalize_text(raw) == clean
