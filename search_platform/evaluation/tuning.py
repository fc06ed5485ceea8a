"""Fusion tuning: sweep a small grid of hybrid-mode search parameters over a judged dataset and report each
configuration's quality and latency. It marks the best configuration; it never changes the defaults.

A configuration is a set of SearchParams fields (fusion, rrf_k, candidate_k, weights, alpha, normalization,
tech_boost), so every point of the grid is something a request can ask for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from search_platform.domain.models import Leg
from search_platform.evaluation.bootstrap import PairedDelta, compare_systems
from search_platform.evaluation.datasets import EvalDataset
from search_platform.evaluation.runner import (
    VERDICT_METRIC,
    ProgressFn,
    RetrievalSystem,
    SystemResult,
    SystemSummary,
    run_system,
    summarise,
)
from search_platform.retrieval.routing import classify_query

RECALL_METRIC = "recall_at_5"
ROUTING_MAX_CATEGORY_LOSS = 0.01  # routing may become the default only if no category loses more than this
RRF_KS = (10, 30, 60, 100)
CANDIDATE_KS = (50, 100, 200)
WEIGHTS = ((0.5, 1.0), (1.0, 1.0), (1.0, 0.5), (0.7, 1.3), (1.3, 0.7))  # (bm25, dense)
ALPHAS = (0.3, 0.5, 0.7)
NORMALIZATIONS = ("minmax", "zscore")
TECH_BOOSTS = (0.0, 1.0)
SUMMARY_RESAMPLES = 200  # only point estimates are reported; the bootstrap CI is not used here


@dataclass(frozen=True, slots=True)
class TuningConfig:
    """One point of the grid: a family (what is being varied), a readable label and its SearchParams fields."""

    family: str
    label: str
    params: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class TuningRow:
    """One configuration's results."""

    config: TuningConfig
    summary: SystemSummary
    result: SystemResult

    @property
    def ndcg(self) -> float:
        """nDCG@10 overall."""
        return self.summary.overall[VERDICT_METRIC]

    def category_ndcg(self, category: str) -> float:
        """nDCG@10 of one category."""
        return self.summary.by_category[category][VERDICT_METRIC]


@dataclass(frozen=True, slots=True)
class RoutingVerdict:
    """Routed fusion against the default RRF (nDCG@10, paired bootstrap): it may become the default only if it
    gains overall and no category loses more than ROUTING_MAX_CATEGORY_LOSS."""

    overall: PairedDelta
    by_category: dict[str, PairedDelta]

    @property
    def overall_delta(self) -> float:
        """routed - default, overall."""
        return self.overall.delta

    @property
    def category_deltas(self) -> dict[str, float]:
        """routed - default, per category."""
        return {category: delta.delta for category, delta in self.by_category.items()}

    @property
    def beats_default(self) -> bool:
        """Whether the harness supports turning routing on by default."""
        worst = min(self.category_deltas.values(), default=0.0)
        return self.overall_delta > 0 and worst >= -ROUTING_MAX_CATEGORY_LOSS


@dataclass(frozen=True, slots=True)
class TuningReport:
    """Every configuration's row, in grid order, and which one is the default."""

    dataset: str
    created_at: datetime
    n_queries: int
    top_k: int
    baseline: str
    rows: tuple[TuningRow, ...]
    route_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    routing: RoutingVerdict | None = None

    @property
    def categories(self) -> list[str]:
        """Query categories, sorted."""
        return list(self.rows[0].summary.by_category) if self.rows else []

    def row(self, label: str) -> TuningRow:
        """The row of one configuration."""
        return next(row for row in self.rows if row.config.label == label)

    def best(self, family: str | None = None) -> TuningRow:
        """The configuration with the highest nDCG@10 overall (of one family); ties go to the earlier one."""
        rows = [row for row in self.rows if family is None or row.config.family == family]
        return max(rows, key=lambda row: row.ndcg)

    def families(self) -> list[str]:
        """Families in grid order."""
        return list(dict.fromkeys(row.config.family for row in self.rows))


def rrf_label(rrf_k: int, candidate_k: int) -> str:
    """The label of an RRF configuration, e.g. rrf k=60 c=100."""
    return f"rrf k={rrf_k} c={candidate_k}"


def default_grid(*, rrf_k: int = 60, candidate_k: int = 100) -> list[TuningConfig]:
    """The sweep: RRF over rrf_k x candidate_k, then the other methods (and routing, and the tech field off and
    on) at the default rrf_k and candidate_k."""
    fixed = {"rrf_k": rrf_k, "candidate_k": candidate_k}
    grid = [TuningConfig("rrf", rrf_label(k, c), {"fusion": "rrf", "rrf_k": k, "candidate_k": c})
            for c in CANDIDATE_KS for k in RRF_KS]
    grid += [TuningConfig("weighted_rrf", f"weighted_rrf bm25={b} dense={d}",
                          {"fusion": "weighted_rrf", "weights": {Leg.BM25: b, Leg.DENSE: d}, **fixed})
             for b, d in WEIGHTS]
    grid += [TuningConfig("convex", f"convex alpha={a} {n}",
                          {"fusion": "convex", "alpha": a, "normalization": n, **fixed})
             for n in NORMALIZATIONS for a in ALPHAS]
    grid.append(TuningConfig("dbsf", "dbsf", {"fusion": "dbsf", **fixed}))
    grid.append(TuningConfig("routed", "routed", {"fusion": "routed", **fixed}))
    grid += [TuningConfig("tech", f"{rrf_label(rrf_k, candidate_k)} tech={t:g}",
                          {"fusion": "rrf", "tech_boost": t, **fixed}) for t in TECH_BOOSTS]
    return grid


def run_sweep(
    dataset: EvalDataset,
    configs: Sequence[TuningConfig],
    system_for: Callable[[TuningConfig], RetrievalSystem],
    *,
    baseline: str,
    top_k: int = 10,
    fetch_k: int = 100,
    progress: ProgressFn | None = None,
) -> TuningReport:
    """Run every configuration on every query. The first one first runs every query untimed, so a query
    cache (the platform's query-embedding cache) is warm and no configuration's latency includes encoding."""
    labels = [config.label for config in configs]
    if len(set(labels)) != len(labels) or baseline not in labels:
        raise ValueError(f"configuration labels must be unique and include the baseline {baseline!r}")
    categories = {query.query_id: query.category for query in dataset.queries}
    rows = []
    for position, config in enumerate(configs):
        warmup = len(dataset.queries) if position == 0 else 1
        result = run_system(system_for(config), dataset.queries, top_k=top_k, fetch_k=fetch_k,
                            warmup_queries=warmup, progress=progress)
        rows.append(TuningRow(config, summarise(result, categories, n_resamples=SUMMARY_RESAMPLES), result))
    return TuningReport(dataset=dataset.name, created_at=datetime.now(UTC), n_queries=len(dataset.queries),
                        top_k=top_k, baseline=baseline, rows=tuple(rows), route_counts=route_counts(dataset),
                        routing=routing_verdict(rows, baseline, categories))


def routing_verdict(rows: Sequence[TuningRow], baseline: str, categories: Mapping[str, str]) -> RoutingVerdict | None:
    """The first routed configuration against the baseline, with paired-bootstrap CIs; None without one."""
    routed = next((row for row in rows if row.config.family == "routed"), None)
    base = next(row for row in rows if row.config.label == baseline)
    if routed is None:
        return None
    comparison = compare_systems((routed.config.label, routed.result.per_query),
                                 (base.config.label, base.result.per_query), categories, [VERDICT_METRIC])
    return RoutingVerdict(overall=comparison.overall[VERDICT_METRIC],
                          by_category={cat: deltas[VERDICT_METRIC] for cat, deltas in comparison.by_category.items()})


def route_counts(dataset: EvalDataset) -> dict[str, dict[str, int]]:
    """How many queries of each category classify_query sends to each route."""
    counts: dict[str, dict[str, int]] = {}
    for query in dataset.queries:
        per_route = counts.setdefault(query.category, {})
        route = classify_query(query.text).value
        per_route[route] = per_route.get(route, 0) + 1
    return {category: dict(sorted(routes.items())) for category, routes in sorted(counts.items())}
