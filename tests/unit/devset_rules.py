"""The query rules the hand-written dev sets share (datasets/gnu-info, postgresql-docs, sqlite-docs)."""

from __future__ import annotations

import re

from search_platform.evaluation.datasets import EvalDataset

# Identifier-like: snake_case, a long option, a C++/Rust path, a call, a dotted name, or an ALL_CAPS name.
_IDENTIFIER = re.compile(r"\S*_\S*|\S*--\S*|\S*::\S*|\S*\(\)\S*|\S*[A-Za-z]\.[A-Za-z]\S*|\b[A-Z][A-Z0-9]+\b")
# A token an exact_match query asks for: anything but a plain lower-case word (PQexec, 40P01, %ROWTYPE, jsonb_set).
PLAIN_WORD = re.compile(r"[a-z]+")


def identifier_tokens(text: str) -> set[str]:
    """The identifier-like tokens of a text, as the dev-set rules define them."""
    return {m.group(0).strip(".,;:'\"()") for m in _IDENTIFIER.finditer(text)} - {""}


def exact_targets(text: str) -> list[str]:
    """What an exact_match query looks up: its non-plain tokens, or the whole query when all words are plain."""
    tokens = [token for token in text.split() if not PLAIN_WORD.fullmatch(token)]
    return tokens or [text]


def primary(relevance: dict[str, int]) -> str:
    """The one page with the highest grade."""
    best = max(relevance.values())
    [doc_id] = [doc_id for doc_id, grade in relevance.items() if grade == best]
    return doc_id


def pages_of(dataset: EvalDataset) -> dict[str, str]:
    """doc_id -> page text of a BEIR set loaded with its corpus."""
    assert dataset.corpus is not None
    return {doc.doc_id: doc.content for doc in dataset.corpus}


def judgment_problems(dataset: EvalDataset, pages: dict[str, str], *, max_words: int | None = 12) -> list[str]:
    """Queries that judge a page missing from the corpus, have no single primary page, or are not 1 to max_words
    words long (None: any length, as gnu-info's rules allow)."""
    problems = []
    for query in dataset.queries:
        grades = dict(query.relevance)
        if not set(grades) <= set(pages) or list(grades.values()).count(max(grades.values())) != 1:
            problems.append(f"{query.query_id}: judged pages {grades}")
        words = len(query.text.split())
        if words < 1 or (max_words is not None and words > max_words):
            problems.append(f"{query.query_id}: {words} words")
    return problems
