"""datasets/identifiers: the bare-name lookup set follows its rules and is what build.py produces today."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from search_platform.evaluation.datasets import load_golden_set
from search_platform.evaluation.demo_corpus import DEFAULT_DOCS_ROOT, DEMO_PAGES, DOCS_PACKAGE, read_page

DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "identifiers"


@pytest.fixture(scope="module")
def build() -> ModuleType:
    """datasets/identifiers/build.py, imported from its path (datasets/ is not a package)."""
    spec = importlib.util.spec_from_file_location("identifiers_build", DATASET_DIR / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_name_only_ever_qualified_becomes_a_query_for_its_pages(build: ModuleType) -> None:
    texts = {
        "a.html": "Use str.removeprefix() here. str.removeprefix strips it.",
        "b.html": "Also see str.removeprefix for details.",
    }
    [query] = build.build_queries(texts)
    assert query["query"] == "removeprefix"
    assert query["relevance"] == {"a.html": 2, "b.html": 1}
    assert query["expected_doc_ids"] == ["a.html", "b.html"]


def test_a_name_that_also_occurs_bare_elsewhere_is_not_a_lookup(build: ModuleType) -> None:
    texts = {"a.html": "call pathlib.Path.resolve here", "b.html": "we resolve conflicts by hand"}
    assert build.build_queries(texts) == []


def test_short_and_widespread_names_are_left_out(build: ModuleType) -> None:
    widespread = {f"p{n}.html": "x.getenvironment" for n in range(build.MAX_PAGES + 1)}
    short = {"s.html": "os.sep and os.getcwdb"}
    queries = build.build_queries({**widespread, **short})
    assert [query["query"] for query in queries] == ["getcwdb"]


def test_at_most_per_page_queries_come_from_one_page(build: ModuleType) -> None:
    text = " ".join(f"mod.function_{n}" for n in range(build.PER_PAGE + 3))
    assert len(build.build_queries({"a.html": text})) == build.PER_PAGE


@pytest.mark.skipif(not DEFAULT_DOCS_ROOT.is_dir(), reason=f"apt-get install -y {DOCS_PACKAGE}")
def test_the_committed_file_is_what_build_produces_and_loads(build: ModuleType) -> None:
    texts = {page: read_page(DEFAULT_DOCS_ROOT / page).text for page in DEMO_PAGES}
    committed = json.loads(build.OUT.read_text(encoding="utf-8"))
    assert committed == build.build_queries(texts)
    assert len(load_golden_set(build.OUT).queries) == len(committed) >= 50
