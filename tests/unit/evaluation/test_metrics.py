"""Metric functions against formula-valued expectations, and against ranx on synthetic runs."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from search_platform.evaluation.metrics import (
    METRICS,
    RANX_NAMES,
    hit_rate_at_k,
    macro_average,
    ndcg_at_k,
    percentile,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    score_query,
)


def test_ndcg_single_relevant_at_rank_two():
    assert ndcg_at_k(["x", "a"], {"a": 1}, k=10) == pytest.approx(1 / math.log2(3))


def test_ndcg_graded_uses_gain_equal_to_grade():
    ranked = ["b", "x", "a"]
    relevance = {"a": 2, "b": 1}
    dcg = 1 / math.log2(2) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(ranked, relevance, k=10) == pytest.approx(dcg / idcg)


def test_ndcg_cuts_ideal_at_k():
    relevance = {"a": 1, "b": 1, "c": 1}
    assert ndcg_at_k(["a"], relevance, k=1) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], relevance, k=2) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))


def test_grade_zero_is_not_relevant():
    relevance = {"a": 0, "b": 1}
    assert precision_at_k(["a", "b"], relevance, k=2) == pytest.approx(1 / 2)
    assert recall_at_k(["a"], relevance, k=1) == 0.0
    assert reciprocal_rank(["a", "b"], relevance) == pytest.approx(1 / 2)


def test_precision_divides_by_k_even_when_fewer_retrieved():
    assert precision_at_k(["a"], {"a": 1}, k=5) == pytest.approx(1 / 5)


def test_recall_hit_rate_and_mrr():
    relevance = {"a": 1, "b": 1, "c": 1, "d": 1}
    ranked = ["x", "a", "y", "b"]
    assert recall_at_k(ranked, relevance, k=3) == pytest.approx(1 / 4)
    assert recall_at_k(ranked, relevance, k=10) == pytest.approx(2 / 4)
    assert hit_rate_at_k(ranked, relevance, k=1) == 0.0
    assert hit_rate_at_k(ranked, relevance, k=3) == 1.0
    assert reciprocal_rank(ranked, relevance) == pytest.approx(1 / 2)


def test_nothing_relevant_scores_zero_everywhere():
    assert set(score_query(["a", "b"], {"a": 0}).values()) == {0.0}
    assert set(score_query([], {"a": 1}).values()) == {0.0}


def test_macro_average_weighs_queries_equally():
    per_query = {"q1": score_query(["a"], {"a": 1}), "q2": score_query(["x"], {"a": 1})}
    assert macro_average(per_query, ["q1", "q2"])["mrr"] == pytest.approx((1 + 0) / 2)


def test_percentile_matches_numpy_linear():
    values = [5.0, 1.0, 9.0, 3.0, 7.5, 2.2]
    for q in (0, 50, 95, 100):
        assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def _synthetic(seed: int, n_queries: int = 25):
    """Random graded qrels (grades 0..3, zeros included) and runs of up to 12 docs with misses."""
    rng = random.Random(seed)
    docs = [f"d{i:02d}" for i in range(30)]
    qrels, runs = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        qrels[qid] = {d: rng.randint(0, 3) for d in rng.sample(docs, rng.randint(1, 6))}
        runs[qid] = rng.sample(docs, rng.randint(1, 12))
    return qrels, runs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_metrics_match_ranx(seed):
    ranx = pytest.importorskip("ranx")
    qrels, runs = _synthetic(seed)
    ranx_run = {qid: {d: float(len(ranked) - i) for i, d in enumerate(ranked)} for qid, ranked in runs.items()}
    expected = ranx.evaluate(
        ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(ranx_run), list(RANX_NAMES.values()), return_mean=False
    )
    qids = list(ranx.Run.from_dict(ranx_run).keys())  # ranx orders queries by id
    for name in METRICS:
        ours = [score_query(runs[qid], qrels[qid])[name] for qid in qids]
        np.testing.assert_allclose(ours, expected[RANX_NAMES[name]], rtol=1e-9, atol=1e-12, err_msg=name)
