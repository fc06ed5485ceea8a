"""Which ASCII hyphens at line ends are a formatter's breaks (man(1) in the C locale) and which a word's own."""

from __future__ import annotations

import pytest

from search_platform.text.hyphenation import join_ascii_hyphenation
from search_platform.text.normalize import normalize_text


@pytest.mark.parametrize(("raw", "clean"), [
    # a known word, whatever its parts are
    ("The  options  are  de-\n       scribed below.", "The  options  are  described below."),
    ("unless POSIXLY_COR-\n       RECT is set", "unless POSIXLY_CORRECT is set"),
    # neither the joined word nor both parts are words: a break inside a name
    ("the setting autovacuum_vac-\n       uum_threshold", "the setting autovacuum_vacuum_threshold"),
    # both parts are words and the joined one is none: the word's own hyphen, joined later with it kept
    ("an  on-\n       disk format", "an  on-\n       disk format"),
    # the document's own spelling decides before the word list
    ("Use --show-control-chars to see them.\n\nWith  --show-control-\n       chars  it  prints",
     "Use --show-control-chars to see them.\n\nWith  --show-control-\n       chars  it  prints"),
    ("fastroot is kept.  The fast-\n       root page", "fastroot is kept.  The fastroot page"),
    # a line break inside a sentence's word goes on with the next line's words, as the formatter broke them
    ("a  pro-\n       gram and a sec-\n       ond  one", "a  program and a second  one"),
    # a text collapsed into one line keeps a space where the line broke: there only a known word is joined
    ("the options are de- scribed below", "the options are described below"),
    ("the setting autovacuum_vac- uum_threshold", "the setting autovacuum_vacuum_threshold"),
    ("the fastroot page, the fast- root page", "the fastroot page, the fastroot page"),
])
def test_a_formatter_break_is_joined_and_an_own_hyphen_stays(raw: str, clean: str) -> None:
    assert join_ascii_hyphenation(raw) == clean


@pytest.mark.parametrize("text", [
    # text no formatter hyphenated (an info manual, a wrapped file): its line ends are compounds
    "mounts a file-\nsystem read-\nonly, as is well-\nknown",
    # not the rest of a word: a capital after lowercase, a digit, a blank line, a dash, punctuation
    "pre-\nUnicode, x-\n3 items, abc-\n\ndef, a -\nb, ---\nx, see-\n(x)",
    # one letter is no part of a broken word; inside a line of text that has lines, a hyphen and a space is none
    "with a-b-\n  in pattern space, and abc- def inside a line",
    # collapsed into one line: a word of code ending in a hyphen (a guess would join these), a suspended hyphen
    "if TIME_STYLE begins with posix- the posix- is ignored; pre- and post-processing",
])
def test_text_without_formatter_breaks_is_left_as_it_is(text: str) -> None:
    assert join_ascii_hyphenation(text) == text


def test_normalising_joins_ascii_breaks_and_keeps_own_hyphens_in_the_word() -> None:
    text = "an  on-\n       disk  format  is  de-\n       scribed"
    assert normalize_text(text) == "an  on-disk  format  is  described"


def test_a_text_with_u2010_breaks_treats_every_ascii_hyphen_as_the_words_own() -> None:
    assert normalize_text("in\u2010\n  frastructure and data-\n  base") == "infrastructure and data-base"
