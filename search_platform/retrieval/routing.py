"""Query-type routing: classify a query as lexical, semantic or mixed (retrieval.route_weights gives
each route its weighted-RRF leg weights).

Lexical signals are what BM25 and the `tech` field match exactly and embeddings blur: technical terms (identifiers,
dotted names, versions, error codes, long options; see text/tokenizer.py), the options of the option clause
(`-mtime`, `--follow=name`: one dash and several letters too), quoted phrases, and code shapes the tokenizer leaves
alone (key=value, call(), short options like -k or -0, format directives like %s or +%Y, macros like write!).
Natural language is a run of plain words.
A short query with neither is a keyword lookup, so it routes lexical too.
"""

from __future__ import annotations

import enum
import re

from search_platform.text.tokenizer import query_options, technical_query

MIN_PROSE_WORDS = 3  # fewer plain words than this is a keyword query, not a sentence

_QUOTED = re.compile(r"\"[^\"]+\"|“[^”]+”|`[^`]+`|(?<!\w)'[^']+'(?!\w)")
_CODE_SHAPE = re.compile(
    r"\w+=\S*|\w+\(\)"
    r"|(?<!\S)-[A-Za-z0-9](?!\S)"  # a short option: -k, -0, -9
    r"|(?<!\S)\+?%[A-Za-z]"  # a format directive: %s, +%Y-%m-%d
    r"|\b[A-Za-z_]\w*!(?![\w=])"  # a macro: write!, matches! (not a != b)
)
_PROSE_WORD = re.compile(r"[a-z]+|[A-Z][a-z]*|[A-Z]+")
_PUNCTUATION = ",.;:!?()\"'"


class Route(enum.StrEnum):
    """Which leg a query plays to."""

    LEXICAL = "lexical"
    SEMANTIC = "semantic"
    MIXED = "mixed"


def has_lexical_signal(text: str) -> bool:
    """Technical terms, an option, a quoted phrase or a code shape (key=value, call(), -k, %s, write!)."""
    return bool(technical_query(text) or query_options(text) or _QUOTED.search(text) or _CODE_SHAPE.search(text))


def prose_words(text: str) -> list[str]:
    """The plain words of a query (one case or capitalised, letters only), punctuation stripped."""
    words = (token.strip(_PUNCTUATION) for token in text.split())
    return [word for word in words if _PROSE_WORD.fullmatch(word)]


def is_sentence(text: str) -> bool:
    """Whether the query has the plain words of a sentence, not only keywords."""
    return len(prose_words(text)) >= MIN_PROSE_WORDS


def classify_query(text: str) -> Route:
    """lexical (exact signals, or a short keyword query), semantic (a sentence), or mixed (both)."""
    lexical = has_lexical_signal(text)
    sentence = is_sentence(text)
    if lexical and sentence:
        return Route.MIXED
    if sentence:
        return Route.SEMANTIC
    return Route.LEXICAL
