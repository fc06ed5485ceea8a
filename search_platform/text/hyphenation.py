"""Telling a formatter's hyphenation break from a word's own hyphen when both are printed as an ASCII hyphen.

man(1) in the C locale (a container's default) prints the hyphen it adds to break a long word across lines as a
plain `-`, the same character as the word's own hyphens: `they  are  de-` / `scribed here`, `POSIXLY_COR-` / `RECT`,
but also `an  on-` / `disk format`. A break at a line's end is the formatter's unless the document or the English
word list says otherwise: the document writes the word whole elsewhere (`described`, `POSIXLY_CORRECT`) or with its
hyphen (`on-disk`, `--show-control-chars`), or else both parts are words on their own and the joined word is none
(`on` and `disk`). Text that no formatter hyphenated (an info manual, a wrapped file) has only its own hyphens at its
line ends, so a text's breaks are joined only where most of them are told to be a formatter's. How often each kind
is told right on the dev sets typeset in the C locale: benchmarks/reports/typeset.md.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from search_platform.text.lexicon import is_english_word

# a hyphen after letters, then a line break and the next line's indentation (or, in a text whose lines were
# collapsed into one, a single space), then letters: `--show-control-` / `chars`
_BREAK = re.compile(r"(?<!\S)(?P<head_token>\S*?(?P<head>[A-Za-z]+))-(?P<gap>[ \t\r]*\n[ \t]*| )"
                    r"(?=(?P<tail_token>(?P<tail>[A-Za-z]+)\S*))")
MIN_PART_LETTERS = 2  # groff leaves at least two letters on each side of a break (`a-b-` / `in` is no word)
_LETTERS = re.compile(r"[A-Za-z]+")
_PAIRS = re.compile(r"(?<![A-Za-z])([A-Za-z]+)(?=-([A-Za-z]+))")  # overlapping: `show-control`, `control-chars`
_TOKEN_EDGES = "\"'`()[]{}<>.,;:!?"


@dataclass(frozen=True, slots=True)
class _Break:
    head: str  # the letters before the hyphen: `de`, `COR`, `control`
    tail: str  # the letters that start the next line: `scribed`, `RECT`, `chars`
    head_token: str  # the whole word before the hyphen: `--show-control`
    tail_token: str  # the whole word after it: `chars`


def join_ascii_hyphenation(text: str) -> str:
    """The text with each word that a formatter broke across lines with an ASCII hyphen whole again (`de-` /
    `scribed` is `described`, also as `de- scribed` in a text collapsed into one line); hyphens that are the
    word's own stay, for the compound-break rule to join."""
    collapsed = "\n" not in text.strip()
    breaks = {match.start("gap"): found for match in _BREAK.finditer(text)
              if (collapsed or match["gap"] != " ") and (found := _word_break(match)) is not None}
    if not breaks:
        return text
    evidence = _Evidence(text)
    joined = {at for at, found in breaks.items() if evidence.is_formatter_break(found, guess=not collapsed)}
    if 2 * len(joined) < len(breaks):  # mostly compounds: a text no formatter hyphenated
        return text
    return _BREAK.sub(lambda match: match["head_token"] + ("" if match.start("gap") in joined else
                                                             "-" + match["gap"]), text)


def word_goes_on(head: str, rest: str) -> bool:
    """Whether rest, after a break, may be the rest of the word head started: it starts in lowercase, or both are
    in capitals (a capital after a lowercase part starts a new word)."""
    return rest[0].islower() or (head[-1].isupper() and rest[0].isupper())


def _word_break(match: re.Match[str]) -> _Break | None:
    """The break, when the letters before the hyphen and after the gap may be one word's (two letters or more on
    each side, the rest starting in lowercase or the word in capitals)."""
    head, tail = match["head"], match["tail"]
    if min(len(head), len(tail)) < MIN_PART_LETTERS or not word_goes_on(head, tail):
        return None
    return _Break(head, tail, match["head_token"].lstrip(_TOKEN_EDGES), match["tail_token"].rstrip(_TOKEN_EDGES))


class _Evidence:
    """How the document writes words elsewhere, on one line: whole, as hyphenated pairs, as whole tokens."""

    def __init__(self, text: str) -> None:
        self._words = Counter(word.lower() for word in _LETTERS.findall(text))
        self._pairs = Counter(f"{head}-{tail}".lower() for head, tail in _PAIRS.findall(text))
        self._tokens = Counter(token.strip(_TOKEN_EDGES).lower() for token in text.split())

    def is_formatter_break(self, found: _Break, *, guess: bool) -> bool:
        """Whether the document, then the word list, say the hyphen is a break; with guess, a break whose parts
        are not both words is one too. (A hyphen inside a line, once the lines were collapsed, may also end a
        word of code, `posix- the`: there only a known word is joined.)"""
        whole_token = self._tokens[(found.head_token + found.tail_token).lower()]
        hyphenated_token = self._tokens[f"{found.head_token}-{found.tail_token}".lower()]
        if whole_token != hyphenated_token:  # `--show-control-chars` in an option list
            return whole_token > hyphenated_token
        whole = self._words[(found.head + found.tail).lower()]
        hyphenated = self._pairs[f"{found.head}-{found.tail}".lower()]
        if whole != hyphenated:  # `described` in another sentence
            return whole > hyphenated
        if is_english_word(found.head + found.tail):
            return True
        return guess and not (is_english_word(found.head) and is_english_word(found.tail))
