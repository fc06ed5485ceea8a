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

_LINE_END = re.compile(r"(?<![-\w])(?P<token>\S*?(?P<part>[A-Za-z]+))-[ \t\r]*$")
_LINE_START = re.compile(r"[ \t]*(?P<token>(?P<part>[A-Za-z]+)\S*)")
_LETTERS = re.compile(r"[A-Za-z]+")
_PAIRS = re.compile(r"(?<![A-Za-z])([A-Za-z]+)(?=-([A-Za-z]+))")  # overlapping: `show-control`, `control-chars`
_TOKEN_EDGES = "\"'`()[]{}<>.,;:!?"


@dataclass(frozen=True, slots=True)
class _Break:
    line: int
    head: str  # the letters before the hyphen: `de`, `COR`, `control`
    tail: str  # the letters that start the next line: `scribed`, `RECT`, `chars`
    head_token: str  # the whole word before the hyphen: `--show-control`
    tail_token: str  # the whole word after it: `chars`


def join_ascii_hyphenation(text: str) -> str:
    """The text with each word that a formatter broke across lines with an ASCII hyphen whole again (`de-` /
    `scribed` is `described`); hyphens that are the word's own stay, for the compound-break rule to join."""
    lines = text.split("\n")
    breaks = [found for index in range(len(lines) - 1) if (found := _line_break(lines, index)) is not None]
    if not breaks:
        return text
    evidence = _Evidence(text)
    decided = [(found, evidence.is_formatter_break(found)) for found in breaks]
    if 2 * sum(joined for _, joined in decided) < len(breaks):  # mostly compounds: a text no formatter hyphenated
        return text
    for found, joined in reversed(decided):  # from the end, so a line joined to the next may join its previous
        if joined:
            lines[found.line] = lines[found.line].rstrip()[:-1] + lines[found.line + 1].lstrip(" \t")
            del lines[found.line + 1]
    return "\n".join(lines)


def _line_break(lines: list[str], index: int) -> _Break | None:
    """The break at the end of line index, when the letters before its final hyphen and at the start of the next
    line may be one word's (the rest starts in lowercase, or the word is in capitals)."""
    end, start = _LINE_END.search(lines[index]), _LINE_START.match(lines[index + 1])
    if end is None or start is None:
        return None
    head, tail = end["part"], start["part"]
    if not (tail[0].islower() or (head[-1].isupper() and tail[0].isupper())):
        return None
    return _Break(index, head, tail, end["token"].lstrip(_TOKEN_EDGES), start["token"].rstrip(_TOKEN_EDGES))


class _Evidence:
    """How the document writes words elsewhere, on one line: whole, as hyphenated pairs, as whole tokens."""

    def __init__(self, text: str) -> None:
        self._words = Counter(word.lower() for word in _LETTERS.findall(text))
        self._pairs = Counter(f"{head}-{tail}".lower() for head, tail in _PAIRS.findall(text))
        self._tokens = Counter(token.strip(_TOKEN_EDGES).lower() for token in text.split())

    def is_formatter_break(self, found: _Break) -> bool:
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
        return not (is_english_word(found.head) and is_english_word(found.tail))
