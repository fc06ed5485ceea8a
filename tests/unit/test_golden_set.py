"""The golden set for the demo corpus: its schema, its balance, and that its answers are in the pages it names.

The checks that read the Python docs skip only when /usr/share/doc/python3.11/html is absent; CI installs it.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from search_platform.evaluation.datasets import load_golden_set
from search_platform.evaluation.demo_corpus import (
    DEFAULT_DOCS_ROOT,
    DEMO_PAGES,
    DOCS_PACKAGE,
    PageText,
    build_demo_corpus,
    read_page,
)

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "datasets" / "golden"
GOLDEN = GOLDEN_DIR / "python-docs.json"
CATEGORIES = {"exact_match", "conceptual", "mixed"}
MIN_PER_CATEGORY = 30
MIN_QUERIES = 90
REQUIRED_KEYS = {"id", "query", "expected_doc_ids", "category", "note"}
OPTIONAL_KEYS = {"relevance"}
IDENTIFIER_LIKE = re.compile(r"[._\-0-9A-Z]")
CORPUS_CHARS = (1_000_000, 1_500_000)
MAX_PAGE_SHARE = 0.08

needs_docs = pytest.mark.skipif(
    not DEFAULT_DOCS_ROOT.is_dir(), reason=f"{DEFAULT_DOCS_ROOT} absent: apt-get install -y {DOCS_PACKAGE}"
)


def _golden() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


def _answer_pages(item: dict[str, Any]) -> list[str]:
    """Pages graded 2, or every expected page when the query is ungraded."""
    grades = item.get("relevance") or {}
    return [d for d, g in grades.items() if g == 2] or list(item["expected_doc_ids"])


def _identifier_tokens(query: str) -> list[str]:
    return [token for token in query.split() if IDENTIFIER_LIKE.search(token)]


@pytest.fixture(scope="module")
def overlap() -> ModuleType:
    """datasets/golden/overlap.py, imported from its path (datasets/ is not a package)."""
    spec = importlib.util.spec_from_file_location("golden_overlap", GOLDEN_DIR / "overlap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages() -> dict[str, PageText]:
    """Title and indexed text of every demo page, parsed once for the module."""
    return {doc_id: read_page(DEFAULT_DOCS_ROOT / doc_id) for doc_id in DEMO_PAGES}


# --- the file itself ---------------------------------------------------------------------------------------------


def test_every_entry_has_the_schema():
    for item in _golden():
        assert REQUIRED_KEYS <= item.keys() <= REQUIRED_KEYS | OPTIONAL_KEYS, item
        assert isinstance(item["query"], str) and item["query"].strip() == item["query"] != ""
        assert item["category"] in CATEGORIES, item["id"]
        assert isinstance(item["note"], str) and len(item["note"]) > 20, item["id"]
        expected = item["expected_doc_ids"]
        assert expected and all(isinstance(d, str) for d in expected), item["id"]
        assert len(set(expected)) == len(expected), item["id"]


def test_graded_relevance_covers_exactly_the_expected_pages():
    for item in (i for i in _golden() if "relevance" in i):
        grades = item["relevance"]
        assert set(grades) == set(item["expected_doc_ids"]), item["id"]
        assert set(grades.values()) <= {1, 2} and 2 in grades.values(), item["id"]
        assert item["expected_doc_ids"][0] in _answer_pages(item), f"{item['id']}: list a grade-2 page first"


def test_categories_are_large_enough():
    counts = Counter(item["category"] for item in _golden())
    assert sum(counts.values()) >= MIN_QUERIES
    assert all(counts[category] >= MIN_PER_CATEGORY for category in CATEGORIES), counts


def test_queries_and_ids_are_unique():
    data = _golden()
    queries = Counter(" ".join(item["query"].lower().split()) for item in data)
    assert [q for q, n in queries.items() if n > 1] == []
    ids = Counter(item["id"] for item in data)
    assert [i for i, n in ids.items() if n > 1] == []


def test_expected_doc_ids_are_demo_pages():
    unknown = {d for item in _golden() for d in item["expected_doc_ids"]} - set(DEMO_PAGES)
    assert unknown == set()


def test_the_project_loader_reads_the_file():
    dataset = load_golden_set(GOLDEN)
    assert len(dataset.queries) == len(_golden()) and dataset.dropped_queries == 0


def test_demo_pages_are_unique_relative_html_paths():
    assert len(set(DEMO_PAGES)) == len(DEMO_PAGES)
    for page in DEMO_PAGES:
        assert page.endswith(".html") and not Path(page).is_absolute() and ".." not in Path(page).parts


# --- against the installed docs ----------------------------------------------------------------------------------


@needs_docs
def test_exact_match_identifiers_occur_in_the_answer_pages(pages):
    texts = {doc_id: page.text.lower() for doc_id, page in pages.items()}
    missing = [
        (item["id"], token, doc_id)
        for item in _golden()
        if item["category"] == "exact_match"
        for token in _identifier_tokens(item["query"])
        for doc_id in _answer_pages(item)
        if token.lower() not in texts[doc_id]
    ]
    assert missing == []


@needs_docs
def test_every_exact_match_query_has_an_identifier():
    bare = [i["id"] for i in _golden() if i["category"] == "exact_match" and not _identifier_tokens(i["query"])]
    assert bare == []


@needs_docs
def test_conceptual_queries_share_at_most_one_word_with_the_answer_title(overlap, pages):
    vocabularies = {doc_id: overlap.page_vocabulary(page) for doc_id, page in pages.items()}
    results = overlap.measure(_golden(), vocabularies)
    assert [(r.query, r.title_shared) for r in overlap.title_violations(results)] == []


@needs_docs
def test_corpus_size_fits_the_ingestion_budget(pages):
    sizes = {doc_id: len(page.text) for doc_id, page in pages.items()}
    total = sum(sizes.values())
    assert CORPUS_CHARS[0] <= total <= CORPUS_CHARS[1]
    assert max(sizes.values()) <= MAX_PAGE_SHARE * total, max(sizes, key=sizes.__getitem__)


@needs_docs
def test_build_demo_corpus_copies_the_real_pages(tmp_path):
    copied = build_demo_corpus(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in copied] == list(DEMO_PAGES)


# --- build_demo_corpus on a fake docs tree -------------------------------------------------------------------


def _fake_docs(root: Path, pages: tuple[str, ...] = DEMO_PAGES) -> Path:
    for page in pages:
        (root / page).parent.mkdir(parents=True, exist_ok=True)
        (root / page).write_text(f"<html><body>{page}</body></html>", encoding="utf-8")
    return root


def test_build_demo_corpus_keeps_relative_paths_and_is_idempotent(tmp_path):
    docs = _fake_docs(tmp_path / "docs")
    first = build_demo_corpus(tmp_path / "corpus", docs_root=docs)
    second = build_demo_corpus(tmp_path / "corpus", docs_root=docs)
    assert first == second == [tmp_path / "corpus" / page for page in DEMO_PAGES]
    assert (tmp_path / "corpus" / "library/json.html").read_text(encoding="utf-8") == (
        "<html><body>library/json.html</body></html>"
    )
    assert sorted(p.relative_to(tmp_path / "corpus").as_posix() for p in (tmp_path / "corpus").rglob("*.html")) == (
        sorted(DEMO_PAGES)
    )


def test_build_demo_corpus_refreshes_a_stale_copy(tmp_path):
    docs = _fake_docs(tmp_path / "docs")
    stale = tmp_path / "corpus" / "library/json.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("old", encoding="utf-8")
    build_demo_corpus(tmp_path / "corpus", docs_root=docs)
    assert stale.read_text(encoding="utf-8") == "<html><body>library/json.html</body></html>"


def test_build_demo_corpus_names_the_package_when_the_docs_are_absent(tmp_path):
    with pytest.raises(FileNotFoundError, match=DOCS_PACKAGE):
        build_demo_corpus(tmp_path / "corpus", docs_root=tmp_path / "nowhere")
    assert not (tmp_path / "corpus").exists()


def test_build_demo_corpus_names_a_missing_page_and_copies_nothing(tmp_path):
    docs = _fake_docs(tmp_path / "docs", DEMO_PAGES[1:])
    with pytest.raises(FileNotFoundError, match=re.escape(DEMO_PAGES[0])) as error:
        build_demo_corpus(tmp_path / "corpus", docs_root=docs)
    assert DOCS_PACKAGE in str(error.value)
    assert not (tmp_path / "corpus").exists()
