"""datasets/rust-std: the Rust std-library dev set loads as BEIR and keeps its query rules."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from search_platform.evaluation.datasets import EvalDataset, load_beir_dir

DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "rust-std"

# Identifier-like (the rule shared by the dev sets): snake_case, a long option, a Rust/C++ path, a call, a dotted
# name between letters, or an ALL_CAPS name.
_IDENTIFIER = re.compile(r"\S*_\S*|\S*--\S*|\S*::\S*|\S*\(\)\S*|\S*[A-Za-z]\.[A-Za-z]\S*|\b[A-Z][A-Z0-9]+\b")
# Rust names that the shared rule does not catch: CamelCase types and traits, `name!` macros.
_RUST_NAME = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z_][a-z0-9_]*!")


def identifier_tokens(text: str) -> set[str]:
    """The identifier-like tokens of a text, as the dev-set rules define them."""
    found = {m.group(0).strip(".,;:'\"()") for m in _IDENTIFIER.finditer(text)}
    found |= {m.group(0) for m in _RUST_NAME.finditer(text)}
    return found - {""}


def occurs(token: str, page: str) -> bool:
    """The token is in the page; `Type::method` also counts when each part is a word of the page, because
    rustdoc lists a method as `pub fn method` under its type and rarely spells out the path."""
    if token in page:
        return True
    parts = [part for part in token.rstrip("!").split("::") if part]
    return "::" in token and all(re.search(rf"(?<!\w){re.escape(part)}(?!\w)", page) for part in parts)


@pytest.fixture(scope="module")
def dataset() -> EvalDataset:
    """The committed set, loaded the way `search-platform eval --dataset` loads it."""
    return load_beir_dir(DATASET_DIR)


@pytest.fixture(scope="module")
def pages(dataset: EvalDataset) -> dict[str, str]:
    """doc_id -> title and page text."""
    assert dataset.corpus is not None
    return {doc.doc_id: f"{doc.title}\n{doc.content}" for doc in dataset.corpus}


def primary(relevance: dict[str, int]) -> str:
    """The one page with the highest grade."""
    best = max(relevance.values())
    [doc_id] = [doc_id for doc_id, grade in relevance.items() if grade == best]
    return doc_id


def test_sizes_and_categories(dataset: EvalDataset, pages: dict[str, str]) -> None:
    assert 300 <= len(pages) <= 600
    assert 1_500_000 <= sum(len(text) for text in pages.values()) <= 3_000_000
    assert max(len(text) for text in pages.values()) <= 20_100
    assert len(dataset.queries) >= 300
    assert dataset.dropped_queries == 0
    counts = Counter(query.category for query in dataset.queries)
    assert set(counts) == {"exact_match", "conceptual", "mixed"}
    assert min(counts.values()) >= 90


def test_every_judged_page_exists_and_each_query_has_one_primary(
    dataset: EvalDataset, pages: dict[str, str]
) -> None:
    assert len({query.text.lower() for query in dataset.queries}) == len(dataset.queries)
    assert all(1 <= len(query.text.split()) <= 12 for query in dataset.queries)
    for query in dataset.queries:
        assert set(query.relevance) <= set(pages), query.query_id
        assert primary(dict(query.relevance)) in pages


def test_corpus_is_plain_text(pages: dict[str, str]) -> None:
    for doc_id, text in pages.items():
        assert not re.search(r"</?(?:div|span|a|code|pre|p)\b|&(?:lt|gt|amp|nbsp);", text), doc_id


def test_exact_match_identifiers_occur_in_their_page(dataset: EvalDataset, pages: dict[str, str]) -> None:
    for query in (q for q in dataset.queries if q.category == "exact_match"):
        wanted = identifier_tokens(query.text) or {query.text.split(maxsplit=1)[0]}
        page = pages[primary(dict(query.relevance))]
        for token in wanted:
            assert occurs(token, page), f"{query.query_id}: {token!r} not in its page"


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
    assert identifier_tokens("Vec::retain with BufReader, thread_local! and LC_ALL in os.path") == {
        "Vec::retain", "BufReader", "thread_local!", "LC_ALL", "os.path"}
    assert identifier_tokens("remove items from a growable list that fail a test") == set()
    assert occurs("Vec::retain", "Struct std::vec::Vec\npub fn retain<F>(&mut self, f: F)")
    assert not occurs("Vec::retained", "Struct std::vec::Vec\npub fn retain<F>(&mut self, f: F)")
