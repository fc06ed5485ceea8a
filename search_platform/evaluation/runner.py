"""The A/B runner: time every system on every query, score at document level, summarise and compare."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from search_platform.evaluation.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Comparison,
    MeanCI,
    RegressionVerdict,
    bootstrap_mean_ci,
    compare_systems,
    group_by_category,
    regression_verdict,
)
from search_platform.evaluation.datasets import EvalDataset, EvalQuery
from search_platform.evaluation.metrics import (
    HEADLINE_METRICS,
    NDCG_K,
    macro_average,
    mean,
    percentile,
    score_query,
)

HYBRID = "hybrid"
SINGLE_LEGS: tuple[str, ...] = ("bm25", "semantic")
COMPARISON_PAIRS: tuple[tuple[str, str], ...] = (("hybrid", "semantic"), ("hybrid", "bm25"), ("hybrid", "seed"))
VERDICT_METRIC = f"ndcg_at_{NDCG_K}"

ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class RankedDoc:
    """One chunk-level hit as a system returns it: the document it belongs to and its score."""

    doc_id: str
    score: float


class RetrievalSystem(Protocol):
    """Anything the harness can evaluate: returns ranked chunk-level hits, best first."""

    @property
    def name(self) -> str:
        """The retriever's name in reports: bm25, semantic, hybrid, seed, ..."""
        ...

    def search(self, query: str, *, top_k: int) -> list[RankedDoc]:
        """Return up to top_k chunk hits for the query, best first."""
        ...


@dataclass(frozen=True, slots=True)
class QueryResult:
    """One system's answer to one query, collapsed to documents, with its wall time and metrics."""

    query_id: str
    doc_ids: tuple[str, ...]
    latency_ms: float
    scores: dict[str, float]


@dataclass(frozen=True, slots=True)
class SystemResult:
    """Every query's result for one system, keyed by query id in dataset order."""

    name: str
    results: dict[str, QueryResult]

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """Metric values per query id."""
        return {qid: result.scores for qid, result in self.results.items()}

    @property
    def latencies_ms(self) -> list[float]:
        """Wall time of every search call, in dataset order."""
        return [result.latency_ms for result in self.results.values()]


@dataclass(frozen=True, slots=True)
class SystemSummary:
    """Macro-averaged metrics (overall and per category), the verdict metric's CI, and latency percentiles."""

    name: str
    overall: dict[str, float]
    overall_ci: MeanCI
    by_category: dict[str, dict[str, float]]
    by_category_ci: dict[str, MeanCI]
    p50_ms: float
    p95_ms: float
    mean_ms: float


@dataclass(frozen=True, slots=True)
class Stage:
    """One step of an evaluation run and the wall time it took (detail: e.g. whether the index was reused)."""

    name: str
    seconds: float
    detail: str = ""


@dataclass(frozen=True, slots=True)
class EvaluationReport:
    """Everything one evaluation produced; report.py renders it, nothing here does I/O."""

    dataset: str
    created_at: datetime
    top_k: int
    fetch_k: int
    seed: int
    n_resamples: int
    queries: tuple[EvalQuery, ...]
    dropped_queries: int
    systems: dict[str, SystemResult]
    summaries: dict[str, SystemSummary]
    comparisons: dict[str, Comparison]
    regression: RegressionVerdict | None
    stages: tuple[Stage, ...] = field(default=())

    @property
    def categories(self) -> dict[str, str]:
        """Category of every query id, in dataset order."""
        return {query.query_id: query.category for query in self.queries}


def collapse_to_documents(hits: Sequence[RankedDoc]) -> tuple[str, ...]:
    """Doc ids in rank order, each at the rank of its best (first) chunk."""
    return tuple(dict.fromkeys(hit.doc_id for hit in hits))


def run_system(
    system: RetrievalSystem,
    queries: Sequence[EvalQuery],
    *,
    top_k: int,
    fetch_k: int | None = None,
    warmup_queries: int = 1,
    progress: ProgressFn | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SystemResult:
    """Time system.search on every query (seconds from `clock`), collapse hits to documents, keep top_k, score."""
    fetch = fetch_k or top_k
    for query in queries[:warmup_queries]:
        system.search(query.text, top_k=fetch)
    results: dict[str, QueryResult] = {}
    for done, query in enumerate(queries, start=1):
        started = clock()
        hits = system.search(query.text, top_k=fetch)
        latency_ms = (clock() - started) * 1000.0
        doc_ids = collapse_to_documents(hits)[:top_k]
        results[query.query_id] = QueryResult(
            query.query_id, doc_ids, latency_ms, score_query(doc_ids, query.relevance)
        )
        if progress is not None:
            progress(system.name, done, len(queries))
    return SystemResult(name=system.name, results=results)


def summarise(
    result: SystemResult,
    categories: Mapping[str, str],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> SystemSummary:
    """Macro means overall and per category, a bootstrap CI on the verdict metric, latency p50/p95."""
    per_query = result.per_query
    groups = group_by_category(categories)
    latencies = result.latencies_ms

    def ci(qids: Sequence[str]) -> MeanCI:
        return bootstrap_mean_ci([per_query[q][VERDICT_METRIC] for q in qids], n_resamples=n_resamples, seed=seed)

    return SystemSummary(
        name=result.name,
        overall=macro_average(per_query, list(categories)),
        overall_ci=ci(list(categories)),
        by_category={cat: macro_average(per_query, qids) for cat, qids in groups.items()},
        by_category_ci={cat: ci(qids) for cat, qids in groups.items()},
        p50_ms=percentile(latencies, 50),
        p95_ms=percentile(latencies, 95),
        mean_ms=mean(latencies),
    )


def _comparisons(
    systems: Mapping[str, SystemResult], categories: Mapping[str, str], *, n_resamples: int, seed: int
) -> dict[str, Comparison]:
    """Paired comparisons for every COMPARISON_PAIRS entry whose two systems both ran."""
    return {
        f"{a}_vs_{b}": compare_systems(
            (a, systems[a].per_query),
            (b, systems[b].per_query),
            categories,
            HEADLINE_METRICS,
            n_resamples=n_resamples,
            seed=seed,
        )
        for a, b in COMPARISON_PAIRS
        if a in systems and b in systems
    }


def _regression(
    systems: Mapping[str, SystemResult], categories: Mapping[str, str], *, n_resamples: int, seed: int
) -> RegressionVerdict | None:
    """Hybrid against the best single leg, when hybrid and at least one leg ran."""
    legs = {name: systems[name].per_query for name in SINGLE_LEGS if name in systems}
    if HYBRID not in systems or not legs:
        return None
    return regression_verdict(
        systems[HYBRID].per_query, legs, categories, metric=VERDICT_METRIC, n_resamples=n_resamples, seed=seed
    )


def run_evaluation(
    dataset: EvalDataset,
    systems: Sequence[RetrievalSystem],
    *,
    top_k: int = 10,
    fetch_k: int | None = None,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    warmup_queries: int = 1,
    progress: ProgressFn | None = None,
) -> EvaluationReport:
    """Run every system on every query of the dataset and build the full report."""
    names = [system.name for system in systems]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be unique, got {names}")
    if not dataset.queries:
        raise ValueError(f"dataset {dataset.name!r} has no judged queries")
    if fetch_k is not None and fetch_k < top_k:
        raise ValueError("fetch_k must be at least top_k")
    categories = {query.query_id: query.category for query in dataset.queries}
    results: dict[str, SystemResult] = {}
    stages: list[Stage] = []
    for system in systems:
        started = time.perf_counter()
        results[system.name] = run_system(
            system, dataset.queries, top_k=top_k, fetch_k=fetch_k, warmup_queries=warmup_queries, progress=progress
        )
        stages.append(Stage(f"queries: {system.name}", time.perf_counter() - started,
                            f"{len(dataset.queries)} queries + {min(warmup_queries, len(dataset.queries))} warm-up"))
    stats = {"n_resamples": n_resamples, "seed": seed}
    return EvaluationReport(
        dataset=dataset.name,
        created_at=datetime.now(UTC),
        top_k=top_k,
        fetch_k=fetch_k or top_k,
        seed=seed,
        n_resamples=n_resamples,
        queries=dataset.queries,
        dropped_queries=dataset.dropped_queries,
        systems=results,
        summaries={name: summarise(result, categories, **stats) for name, result in results.items()},
        comparisons=_comparisons(results, categories, **stats),
        regression=_regression(results, categories, **stats),
        stages=tuple(stages),
    )
