"""Document-level ranking metrics, with ranx's conventions (relevant = grade >= 1, nDCG gain = grade)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial

CUTOFFS: tuple[int, ...] = (1, 3, 5, 10)
NDCG_K = 10
REL_LEVEL = 1

MetricFn = Callable[[Sequence[str], Mapping[str, int]], float]


def _relevant(relevance: Mapping[str, int]) -> set[str]:
    """Doc ids judged relevant (grade at or above REL_LEVEL)."""
    return {doc_id for doc_id, grade in relevance.items() if grade >= REL_LEVEL}


def _hits(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> int:
    """How many of the first k ranked doc ids are relevant."""
    relevant = _relevant(relevance)
    return sum(1 for doc_id in ranked[:k] if doc_id in relevant)


def precision_at_k(ranked: Sequence[str], relevance: Mapping[str, int], *, k: int) -> float:
    """Relevant docs in the top k divided by k (k, not the number retrieved, as ranx does)."""
    return _hits(ranked, relevance, k) / k


def recall_at_k(ranked: Sequence[str], relevance: Mapping[str, int], *, k: int) -> float:
    """Relevant docs in the top k divided by all relevant docs; 0 when none are relevant."""
    total = len(_relevant(relevance))
    return _hits(ranked, relevance, k) / total if total else 0.0


def hit_rate_at_k(ranked: Sequence[str], relevance: Mapping[str, int], *, k: int) -> float:
    """1 if any relevant doc is in the top k, else 0."""
    return 1.0 if _hits(ranked, relevance, k) else 0.0


def reciprocal_rank(ranked: Sequence[str], relevance: Mapping[str, int]) -> float:
    """1/rank of the first relevant doc in the whole ranked list, 0 if none."""
    relevant = _relevant(relevance)
    for rank, doc_id in enumerate(ranked, start=1):
        if doc_id in relevant:
            return 1.0 / rank
    return 0.0


def _dcg(gains: Sequence[int]) -> float:
    """Discounted cumulative gain of gains in rank order: sum of gain / log2(rank + 1)."""
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at_k(ranked: Sequence[str], relevance: Mapping[str, int], *, k: int) -> float:
    """nDCG@k with gain = grade (Jarvelin & Kekalainen; ranx "ndcg", not "ndcg_burges")."""
    grades = {doc_id: grade for doc_id, grade in relevance.items() if grade >= REL_LEVEL}
    ideal = _dcg(sorted(grades.values(), reverse=True)[:k])
    if ideal == 0.0:
        return 0.0
    return _dcg([grades.get(doc_id, 0) for doc_id in ranked[:k]]) / ideal


def _build_metrics() -> dict[str, MetricFn]:
    """Name every metric the harness reports, in a stable order."""
    metrics: dict[str, MetricFn] = {f"ndcg_at_{NDCG_K}": partial(ndcg_at_k, k=NDCG_K), "mrr": reciprocal_rank}
    for k in CUTOFFS:
        metrics[f"precision_at_{k}"] = partial(precision_at_k, k=k)
        metrics[f"recall_at_{k}"] = partial(recall_at_k, k=k)
        metrics[f"hit_rate_at_{k}"] = partial(hit_rate_at_k, k=k)
    return metrics


METRICS: dict[str, MetricFn] = _build_metrics()
HEADLINE_METRICS: tuple[str, ...] = (f"ndcg_at_{NDCG_K}", "recall_at_5", "recall_at_10", "mrr")
RANX_NAMES: dict[str, str] = {name: name.replace("_at_", "@") for name in METRICS}


def score_query(ranked: Sequence[str], relevance: Mapping[str, int]) -> dict[str, float]:
    """Every metric in METRICS for one query's document ranking."""
    return {name: fn(ranked, relevance) for name, fn in METRICS.items()}


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0 for an empty sequence."""
    return math.fsum(values) / len(values) if values else 0.0


def macro_average(per_query: Mapping[str, Mapping[str, float]], query_ids: Sequence[str]) -> dict[str, float]:
    """Mean of each metric over the given queries (every query weighs the same)."""
    return {name: mean([per_query[qid][name] for qid in query_ids]) for name in METRICS}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation, numpy's default; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
