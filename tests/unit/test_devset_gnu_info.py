"""datasets/gnu-info: the GNU info-manual dev set loads as BEIR and keeps its query rules."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from search_platform.evaluation.datasets import EvalDataset, load_beir_dir
from tests.unit.devset_rules import identifier_tokens, judgment_problems, pages_of, primary

DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "gnu-info"

# What an exact_match query asks for: its identifier-like tokens plus short options, %-directives, key=value.
_EXACT_TOKEN = re.compile(r"^(?:-\S+|%\S+|\S+=\S*|\S*_\S*|[A-Z][A-Z0-9]+)$")


@pytest.fixture(scope="module")
def dataset() -> EvalDataset:
    """The committed set, loaded the way `search-platform eval --dataset` loads it."""
    return load_beir_dir(DATASET_DIR)


@pytest.fixture(scope="module")
def pages(dataset: EvalDataset) -> dict[str, str]:
    """doc_id -> page text."""
    return pages_of(dataset)


def test_sizes_and_categories(dataset: EvalDataset, pages: dict[str, str]) -> None:
    assert len(pages) >= 300
    assert 1_500_000 <= sum(len(text) for text in pages.values()) <= 3_000_000
    assert len(dataset.queries) >= 300
    assert dataset.dropped_queries == 0
    counts = Counter(query.category for query in dataset.queries)
    assert set(counts) == {"exact_match", "conceptual", "mixed"}
    assert min(counts.values()) >= 90


def test_every_judged_page_exists_and_each_query_has_one_primary(
    dataset: EvalDataset, pages: dict[str, str]
) -> None:
    assert judgment_problems(dataset, pages, max_words=None) == []


def test_exact_match_identifiers_occur_in_their_page(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "exact_match"):
        wanted = [token for token in query.text.split() if _EXACT_TOKEN.match(token)]
        assert wanted, f"{query.query_id}: no identifier in {query.text!r}"
        page = pages[primary(dict(query.relevance))]
        for token in wanted:
            assert token in page, f"{query.query_id}: {token!r} not in its page"


def test_conceptual_queries_share_no_identifier_with_their_page(
    dataset: EvalDataset, pages: dict[str, str]
) -> None:
    for query in (q for q in dataset.queries if q.category == "conceptual"):
        shared = identifier_tokens(query.text) & identifier_tokens(pages[primary(dict(query.relevance))])
        assert not shared, f"{query.query_id}: {query.text!r} shares {shared}"
        assert not identifier_tokens(query.text), f"{query.query_id}: {query.text!r} names an identifier"


def test_mixed_queries_name_an_identifier_and_plain_words(dataset: EvalDataset) -> None:
    for query in (q for q in dataset.queries if q.category == "mixed"):
        words = query.text.split()
        assert 3 <= len(words) <= 12, query.query_id
        assert any(re.fullmatch(r"[a-z]{3,}", word) for word in words), query.query_id


def test_the_identifier_rule_catches_what_it_should() -> None:
    assert identifier_tokens("use --null-data or LC_ALL with po_file_read() and Vec::retain in os.path") == {
        "--null-data", "LC_ALL", "po_file_read", "Vec::retain", "os.path"}
    assert identifier_tokens("stop a long search after the first few matches") == set()
