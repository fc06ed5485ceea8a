"""Fake retrieval systems and a small synthetic dataset shared by the runner and report tests."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from search_platform.evaluation.datasets import EvalDataset, EvalQuery
from search_platform.evaluation.runner import RankedDoc, run_evaluation

CATEGORIES = ("exact_match", "conceptual", "mixed")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker for the one test that loads the real embedding model."""
    config.addinivalue_line("markers", "slow: loads the real all-MiniLM-L6-v2 model (20-45 s, mostly imports)")


@dataclass
class ScriptedSystem:
    """Returns a fixed chunk ranking per query text and records the top_k it was asked for."""

    name: str
    answers: dict[str, list[str]]
    calls: list[tuple[str, int]] = field(default_factory=list)

    def search(self, query: str, *, top_k: int) -> list[RankedDoc]:
        self.calls.append((query, top_k))
        doc_ids = self.answers.get(query, [])[:top_k]
        return [RankedDoc(doc_id=d, score=1.0 / (i + 1)) for i, d in enumerate(doc_ids)]


def make_dataset(n_per_category: int = 4) -> EvalDataset:
    """Queries whose relevant doc is rel-<n>; category decides which system finds it."""
    queries = [
        EvalQuery(query_id=f"{cat}-{i}", text=f"{cat} question {i}", category=cat, relevance={f"rel-{cat}-{i}": 1})
        for cat in CATEGORIES
        for i in range(n_per_category)
    ]
    return EvalDataset(name="synthetic set", queries=tuple(queries), corpus=None)


def make_systems(dataset: EvalDataset) -> list[ScriptedSystem]:
    """bm25 wins exact_match, semantic wins conceptual, hybrid is second-best everywhere, seed mirrors hybrid."""
    systems = {name: ScriptedSystem(name, {}) for name in ("bm25", "semantic", "hybrid", "seed")}
    for query in dataset.queries:
        (relevant,) = query.relevance
        noise = [f"noise-{j}" for j in range(12)]
        first, third = [relevant, *noise], [*noise[:2], relevant, *noise[2:]]
        second = [noise[0], relevant, relevant, *noise[1:]]  # a second chunk of the same doc must collapse
        systems["bm25"].answers[query.text] = first if query.category == "exact_match" else noise
        systems["semantic"].answers[query.text] = first if query.category != "exact_match" else third
        systems["hybrid"].answers[query.text] = second
        systems["seed"].answers[query.text] = second
    return list(systems.values())


@pytest.fixture
def report():
    dataset = make_dataset()
    return run_evaluation(dataset, make_systems(dataset), top_k=10, n_resamples=200, seed=3)
