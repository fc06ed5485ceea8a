"""datasets/sqlite-docs: the SQLite documentation dev set loads as BEIR and keeps its query rules."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from search_platform.evaluation.datasets import EvalDataset, EvalQuery, load_beir_dir
from tests.unit.devset_rules import (
    PLAIN_WORD,
    exact_targets,
    identifier_tokens,
    judgment_problems,
    pages_of,
    primary,
)

DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "sqlite-docs"
# the command-line tools' pages and the all-in-one C reference are left out (datasets/sqlite-docs/README.md)
LEFT_OUT = ("cli", "sqldiff", "sqlanalyze", "dbhash", "lemon", "capi3ref", "c_interface")


@pytest.fixture(scope="module")
def dataset() -> EvalDataset:
    """The committed set, loaded the way `search-platform eval --dataset` loads it."""
    return load_beir_dir(DATASET_DIR)


@pytest.fixture(scope="module")
def pages(dataset: EvalDataset) -> dict[str, str]:
    """doc_id -> page text."""
    return pages_of(dataset)


def test_sizes_and_categories(dataset: EvalDataset, pages: dict[str, str]) -> None:
    assert 500 <= len(pages) <= 600
    assert 2_500_000 <= sum(len(text) for text in pages.values()) <= 3_200_000
    assert len(dataset.queries) >= 300
    assert dataset.dropped_queries == 0
    counts = Counter(query.category for query in dataset.queries)
    assert set(counts) == {"exact_match", "conceptual", "mixed"}
    assert min(counts.values()) >= 95


def test_left_out_pages_are_not_in_the_corpus(pages: dict[str, str]) -> None:
    for doc_id in pages:
        assert doc_id.split("/")[0] not in LEFT_OUT, doc_id


def test_every_judged_page_exists_and_each_query_has_one_primary(dataset: EvalDataset, pages: dict[str, str]) -> None:
    assert judgment_problems(dataset, pages) == []


def test_exact_match_identifiers_occur_in_their_page(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "exact_match"):
        page = pages[primary(dict(query.relevance))].lower()
        for token in exact_targets(query.text):
            assert token.lower() in page, f"{query.query_id}: {token!r} not in its page"


def test_conceptual_queries_name_no_identifier(dataset: EvalDataset) -> None:
    for query in (q for q in dataset.queries if q.category == "conceptual"):
        assert not identifier_tokens(query.text), f"{query.query_id}: {query.text!r} names an identifier"


def test_mixed_queries_name_a_term_of_the_page_and_plain_words(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "mixed"):
        words = query.text.split()
        assert 3 <= len(words) <= 12, query.query_id
        assert sum(bool(re.fullmatch(r"[a-z]{3,}", word)) for word in words) >= 2, query.query_id
        page = pages[primary(dict(query.relevance))].lower()
        assert any(not PLAIN_WORD.fullmatch(word) and word.lower() in page for word in words), query.query_id


def test_the_judgment_check_catches_a_missing_page_a_tie_and_a_long_query() -> None:
    queries = (
        EvalQuery("ok", "sqlite3_open", "exact_match", {"c3ref/open": 1}),
        EvalQuery("missing", "sqlite3_open", "exact_match", {"c3ref/nowhere": 1}),
        EvalQuery("tie", "open a database", "conceptual", {"c3ref/open": 1, "wal": 1}),
        EvalQuery("long", " ".join(["word"] * 13), "conceptual", {"c3ref/open": 1}),
    )
    problems = judgment_problems(EvalDataset("t", queries, None), {"c3ref/open": "", "wal": ""})
    assert [problem.split(":")[0] for problem in problems] == ["missing", "tie", "long"]
