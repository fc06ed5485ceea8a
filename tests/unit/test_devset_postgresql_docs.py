"""datasets/postgresql-docs: the PostgreSQL manual dev set loads as BEIR and keeps its query rules."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from search_platform.evaluation.datasets import EvalDataset, load_beir_dir
from tests.unit.devset_rules import (
    PLAIN_WORD,
    exact_targets,
    identifier_tokens,
    judgment_problems,
    pages_of,
    primary,
)

DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "postgresql-docs"

@pytest.fixture(scope="module")
def dataset() -> EvalDataset:
    """The committed set, loaded the way `search-platform eval --dataset` loads it."""
    return load_beir_dir(DATASET_DIR)


@pytest.fixture(scope="module")
def pages(dataset: EvalDataset) -> dict[str, str]:
    """doc_id -> page text."""
    return pages_of(dataset)


def test_sizes_and_categories(dataset: EvalDataset, pages: dict[str, str]) -> None:
    assert 300 <= len(pages) <= 600
    assert 1_500_000 <= sum(len(text) for text in pages.values()) <= 3_000_000
    assert len(dataset.queries) >= 300
    assert dataset.dropped_queries == 0
    counts = Counter(query.category for query in dataset.queries)
    assert set(counts) == {"exact_match", "conceptual", "mixed"}
    assert min(counts.values()) >= 90


def test_no_man_page_sources_in_the_corpus(pages: dict[str, str]) -> None:
    # SQL command (sql-*), application (app-*) and SPI/dblink reference pages are man pages; release notes are out.
    for doc_id in pages:
        assert not doc_id.startswith(("sql-", "app-", "spi-", "contrib-dblink", "release", "ecpg-sql-")), doc_id


def test_every_judged_page_exists_and_each_query_has_one_primary(dataset: EvalDataset, pages: dict[str, str]) -> None:
    assert judgment_problems(dataset, pages) == []


def test_exact_match_identifiers_occur_in_their_page(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "exact_match"):
        page = pages[primary(dict(query.relevance))]
        for token in exact_targets(query.text):
            assert token in page, f"{query.query_id}: {token!r} not in its page"


def test_conceptual_queries_share_no_identifier_with_their_page(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "conceptual"):
        shared = identifier_tokens(query.text) & identifier_tokens(pages[primary(dict(query.relevance))])
        assert not shared, f"{query.query_id}: {query.text!r} shares {shared}"
        assert not identifier_tokens(query.text), f"{query.query_id}: {query.text!r} names an identifier"


def test_mixed_queries_name_a_term_of_the_page_and_plain_words(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "mixed"):
        words = query.text.split()
        assert 3 <= len(words) <= 12, query.query_id
        assert sum(bool(re.fullmatch(r"[a-z]{3,}", word)) for word in words) >= 2, query.query_id
        page = pages[primary(dict(query.relevance))].lower()
        assert any(not PLAIN_WORD.fullmatch(word) and word.lower() in page for word in words) or any(
            word in page for word in words if len(word) >= 5
        ), query.query_id


def test_the_rules_catch_what_they_should() -> None:
    assert identifier_tokens("use max_wal_size or LC_ALL with pg_read_file() and Vec::retain in os.path") == {
        "max_wal_size",
        "LC_ALL",
        "pg_read_file",
        "Vec::retain",
        "os.path",
    }
    assert identifier_tokens("make the server keep more transaction log before recycling") == set()
    assert exact_targets("random_page_cost default") == ["random_page_cost"]
    assert exact_targets("bit varying") == ["bit varying"]
    assert exact_targets("IS DISTINCT FROM") == ["IS", "DISTINCT", "FROM"]
