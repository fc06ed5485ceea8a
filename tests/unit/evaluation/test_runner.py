"""The runner: document-level collapse, timing, summaries, comparisons and the regression verdict."""

from __future__ import annotations

import itertools
import math

import pytest

from search_platform.evaluation.runner import RankedDoc, collapse_to_documents, run_evaluation, run_system
from tests.unit.evaluation.conftest import ScriptedSystem, make_dataset, make_systems


def test_collapse_keeps_each_document_at_its_best_chunk():
    hits = [RankedDoc("b", 0.9), RankedDoc("a", 0.8), RankedDoc("b", 0.7), RankedDoc("c", 0.6)]
    assert collapse_to_documents(hits) == ("b", "a", "c")


def test_run_system_times_each_call_and_scores_documents():
    ticks = itertools.count(start=0.0, step=0.004)  # every clock() call advances 4 ms
    dataset = make_dataset(n_per_category=1)
    hybrid = next(s for s in make_systems(dataset) if s.name == "hybrid")
    result = run_system(hybrid, dataset.queries, top_k=10, fetch_k=30, warmup_queries=1, clock=lambda: next(ticks))
    assert result.latencies_ms == pytest.approx([4.0, 4.0, 4.0])
    first = result.results["exact_match-0"]
    assert first.doc_ids[:2] == ("noise-0", "rel-exact_match-0")
    assert len(first.doc_ids) == 10
    assert first.scores["mrr"] == pytest.approx(1 / 2)
    assert first.scores["ndcg_at_10"] == pytest.approx(1 / math.log2(3))
    assert hybrid.calls[0] == hybrid.calls[1] == ("exact_match question 0", 30)  # warm-up, then timed
    assert len(hybrid.calls) == 4


def test_report_summaries_comparisons_and_regression(report):
    assert list(report.summaries) == ["bm25", "semantic", "hybrid", "seed"]
    bm25 = report.summaries["bm25"]
    assert bm25.by_category["exact_match"]["ndcg_at_10"] == pytest.approx(1.0)
    assert bm25.by_category["conceptual"]["ndcg_at_10"] == 0.0
    assert bm25.overall["mrr"] == pytest.approx(1 / 3)
    assert report.summaries["hybrid"].overall["ndcg_at_10"] == pytest.approx(1 / math.log2(3))
    assert set(report.comparisons) == {"hybrid_vs_semantic", "hybrid_vs_bm25", "hybrid_vs_seed"}
    semantic_delta = report.comparisons["hybrid_vs_semantic"].by_category["exact_match"]["ndcg_at_10"]
    assert semantic_delta.delta == pytest.approx(1 / math.log2(3) - 1 / math.log2(4))
    verdict = report.regression
    assert verdict is not None
    assert verdict.overall.best_single_leg == "semantic"
    assert verdict.by_category["exact_match"].best_single_leg == "bm25"
    assert verdict.overall.significant_regression
    assert all(check.significant_regression for check in verdict.by_category.values())


def test_no_regression_without_hybrid_and_validation():
    dataset = make_dataset(n_per_category=1)
    systems = [s for s in make_systems(dataset) if s.name in ("bm25", "semantic")]
    report = run_evaluation(dataset, systems, n_resamples=50)
    assert report.regression is None
    assert report.comparisons == {}
    with pytest.raises(ValueError, match="unique"):
        run_evaluation(dataset, [systems[0], systems[0]])
    with pytest.raises(ValueError, match="fetch_k"):
        run_evaluation(dataset, systems, top_k=10, fetch_k=5)


def test_system_errors_propagate():
    class Broken(ScriptedSystem):
        def search(self, query, *, top_k):
            raise RuntimeError("backend down")

    with pytest.raises(RuntimeError, match="backend down"):
        run_evaluation(make_dataset(1), [Broken("hybrid", {})])
