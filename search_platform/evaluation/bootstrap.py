"""Paired bootstrap confidence intervals over queries, system comparisons and the regression verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_SEED = 20240601
DEFAULT_RESAMPLES = 2000
CONFIDENCE = 0.95
_BATCH = 256

PerQuery = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True, slots=True)
class MeanCI:
    """A mean with its percentile-bootstrap confidence interval."""

    mean: float
    ci_low: float
    ci_high: float
    n: int


@dataclass(frozen=True, slots=True)
class PairedDelta:
    """Mean per-query difference (system - baseline) of one metric, its CI, and win/loss counts."""

    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    n_queries: int
    wins: int
    losses: int
    ties: int


@dataclass(frozen=True, slots=True)
class Comparison:
    """One system against one baseline, per metric, overall and per category."""

    system: str
    baseline: str
    overall: dict[str, PairedDelta]
    by_category: dict[str, dict[str, PairedDelta]]


@dataclass(frozen=True, slots=True)
class RegressionCheck:
    """Hybrid against the better single leg, for one slice of queries."""

    best_single_leg: str
    delta: PairedDelta
    significant_regression: bool
    worse_point_estimate: bool


@dataclass(frozen=True, slots=True)
class RegressionVerdict:
    """Whether hybrid loses to the best single leg on the verdict metric, overall and per category."""

    metric: str
    overall: RegressionCheck
    by_category: dict[str, RegressionCheck]

    @property
    def any_significant_regression(self) -> bool:
        """True if hybrid is significantly worse overall or in any category."""
        checks = [self.overall, *self.by_category.values()]
        return any(check.significant_regression for check in checks)

    @property
    def any_worse_point_estimate(self) -> bool:
        """True if hybrid's point estimate is below the best leg overall or in any category."""
        checks = [self.overall, *self.by_category.values()]
        return any(check.worse_point_estimate for check in checks)


def _resampled_means(values: np.ndarray, *, n_resamples: int, seed: int) -> np.ndarray:
    """Means of `n_resamples` with-replacement resamples of `values`, drawn in batches to bound memory."""
    rng = np.random.default_rng(seed)
    n = len(values)
    means = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, _BATCH):
        size = min(_BATCH, n_resamples - start)
        indices = rng.integers(0, n, size=(size, n))
        means[start : start + size] = values[indices].mean(axis=1)
    return means


def _interval(means: np.ndarray) -> tuple[float, float]:
    """The central CONFIDENCE percentile interval of resampled means."""
    alpha = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def bootstrap_mean_ci(
    values: Sequence[float], *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> MeanCI:
    """Percentile-bootstrap CI of the mean of per-query values, resampling queries."""
    if len(values) == 0:
        raise ValueError("cannot bootstrap an empty sample")
    array = np.asarray(values, dtype=np.float64)
    low, high = _interval(_resampled_means(array, n_resamples=n_resamples, seed=seed))
    return MeanCI(mean=float(array.mean()), ci_low=low, ci_high=high, n=len(array))


def paired_bootstrap(
    system: Sequence[float],
    baseline: Sequence[float],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedDelta:
    """Bootstrap the mean of per-query differences system - baseline (queries resampled together)."""
    if len(system) != len(baseline):
        raise ValueError("paired samples must have the same length")
    if len(system) == 0:
        raise ValueError("cannot bootstrap an empty sample")
    diffs = np.asarray(system, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    means = _resampled_means(diffs, n_resamples=n_resamples, seed=seed)
    low, high = _interval(means)
    p_value = min(1.0, 2.0 * min(float(np.mean(means <= 0.0)), float(np.mean(means >= 0.0))))
    return PairedDelta(
        delta=float(diffs.mean()),
        ci_low=low,
        ci_high=high,
        p_value=p_value,
        n_queries=len(diffs),
        wins=int(np.sum(diffs > 0)),
        losses=int(np.sum(diffs < 0)),
        ties=int(np.sum(diffs == 0)),
    )


def _paired_metrics(
    system: PerQuery,
    baseline: PerQuery,
    query_ids: Sequence[str],
    metrics: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
) -> dict[str, PairedDelta]:
    """PairedDelta for each metric over the given queries."""
    return {
        metric: paired_bootstrap(
            [system[q][metric] for q in query_ids],
            [baseline[q][metric] for q in query_ids],
            n_resamples=n_resamples,
            seed=seed,
        )
        for metric in metrics
    }


def compare_systems(
    system: tuple[str, PerQuery],
    baseline: tuple[str, PerQuery],
    categories: Mapping[str, str],
    metrics: Sequence[str],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Comparison:
    """Paired bootstrap of system - baseline on each metric, overall and per category."""
    query_ids = list(categories)
    groups = group_by_category(categories)
    kwargs = {"n_resamples": n_resamples, "seed": seed}
    return Comparison(
        system=system[0],
        baseline=baseline[0],
        overall=_paired_metrics(system[1], baseline[1], query_ids, metrics, **kwargs),
        by_category={
            cat: _paired_metrics(system[1], baseline[1], qids, metrics, **kwargs) for cat, qids in groups.items()
        },
    )


def group_by_category(categories: Mapping[str, str]) -> dict[str, list[str]]:
    """Query ids grouped by category, categories in sorted order."""
    groups: dict[str, list[str]] = {}
    for query_id, category in categories.items():
        groups.setdefault(category, []).append(query_id)
    return dict(sorted(groups.items()))


def _check(
    hybrid: PerQuery,
    legs: Mapping[str, PerQuery],
    query_ids: Sequence[str],
    metric: str,
    *,
    n_resamples: int,
    seed: int,
) -> RegressionCheck:
    """Compare hybrid with whichever leg has the higher mean on these queries."""
    best = max(sorted(legs), key=lambda name: float(np.mean([legs[name][q][metric] for q in query_ids])))
    delta = _paired_metrics(hybrid, legs[best], query_ids, [metric], n_resamples=n_resamples, seed=seed)[metric]
    return RegressionCheck(
        best_single_leg=best,
        delta=delta,
        significant_regression=delta.ci_high < 0.0,
        worse_point_estimate=delta.delta < 0.0,
    )


def regression_verdict(
    hybrid: PerQuery,
    legs: Mapping[str, PerQuery],
    categories: Mapping[str, str],
    *,
    metric: str = "ndcg_at_10",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> RegressionVerdict:
    """Flag where hybrid is worse than the best single leg: significantly (CI high < 0) or on the point estimate."""
    if not legs:
        raise ValueError("need at least one single leg to compare hybrid with")
    kwargs = {"n_resamples": n_resamples, "seed": seed}
    return RegressionVerdict(
        metric=metric,
        overall=_check(hybrid, legs, list(categories), metric, **kwargs),
        by_category={
            cat: _check(hybrid, legs, qids, metric, **kwargs) for cat, qids in group_by_category(categories).items()
        },
    )
