"""Paired bootstrap: determinism, coverage of the mean, comparisons and the regression verdict."""

from __future__ import annotations

import random

import pytest

from search_platform.evaluation.bootstrap import (
    bootstrap_mean_ci,
    compare_systems,
    paired_bootstrap,
    regression_verdict,
)


def _sample(seed: int, n: int = 40) -> list[float]:
    rng = random.Random(seed)
    return [rng.random() for _ in range(n)]


def test_same_seed_same_interval_and_ci_contains_mean():
    a, b = _sample(1), _sample(2)
    first = paired_bootstrap(a, b, n_resamples=500, seed=7)
    assert first == paired_bootstrap(a, b, n_resamples=500, seed=7)
    assert first.ci_low <= first.delta <= first.ci_high
    assert first.delta == pytest.approx(sum(a) / len(a) - sum(b) / len(b))
    assert first.wins + first.losses + first.ties == first.n_queries == 40
    other = paired_bootstrap(a, b, n_resamples=500, seed=8)
    assert (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)


def test_mean_ci_of_a_constant_is_a_point():
    ci = bootstrap_mean_ci([0.5] * 10, n_resamples=200, seed=1)
    assert (ci.mean, ci.ci_low, ci.ci_high, ci.n) == (0.5, 0.5, 0.5, 10)


def test_clear_improvement_is_significant_and_identical_runs_are_not():
    base = _sample(3)
    better = [x + 0.2 for x in base]
    delta = paired_bootstrap(better, base, n_resamples=500, seed=1)
    assert delta.ci_low > 0
    assert delta.p_value == 0.0
    same = paired_bootstrap(base, base, n_resamples=500, seed=1)
    assert (same.delta, same.ci_low, same.ci_high, same.ties, same.p_value) == (0.0, 0.0, 0.0, 40, 1.0)


def test_input_validation():
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="empty"):
        paired_bootstrap([], [])


def _per_query(values: list[float]) -> dict[str, dict[str, float]]:
    return {f"q{i}": {"ndcg_at_10": v, "mrr": v} for i, v in enumerate(values)}


def test_compare_systems_overall_and_per_category():
    categories = {f"q{i}": ("exact_match" if i < 20 else "conceptual") for i in range(40)}
    hybrid = _per_query([0.9] * 40)
    semantic = _per_query([0.5] * 20 + [0.9] * 20)
    comparison = compare_systems(
        ("hybrid", hybrid), ("semantic", semantic), categories, ["ndcg_at_10"], n_resamples=200, seed=1
    )
    assert comparison.overall["ndcg_at_10"].delta == pytest.approx(0.4 * 20 / 40)
    assert comparison.by_category["exact_match"]["ndcg_at_10"].delta == pytest.approx(0.4)
    assert comparison.by_category["conceptual"]["ndcg_at_10"].delta == pytest.approx(0.0)
    assert list(comparison.by_category) == ["conceptual", "exact_match"]


def test_regression_verdict_picks_best_leg_per_slice_and_flags_both_ways():
    categories = {f"q{i}": ("exact_match" if i < 20 else "conceptual") for i in range(40)}
    rng = random.Random(5)
    noise = [rng.uniform(-0.05, 0.05) for _ in range(40)]
    bm25 = _per_query([0.95] * 20 + [0.2] * 20)
    semantic = _per_query([0.3] * 20 + [0.8] * 20)
    hybrid = _per_query([0.6] * 20 + [0.8 + n for n in noise[20:]])
    verdict = regression_verdict(hybrid, {"bm25": bm25, "semantic": semantic}, categories, n_resamples=300, seed=1)
    exact, conceptual = verdict.by_category["exact_match"], verdict.by_category["conceptual"]
    assert exact.best_single_leg == "bm25"
    assert exact.significant_regression and exact.worse_point_estimate
    assert conceptual.best_single_leg == "semantic"
    assert not conceptual.significant_regression
    assert conceptual.worse_point_estimate == (sum(noise[20:]) < 0)
    assert verdict.overall.best_single_leg == "bm25"  # 0.575 overall vs semantic 0.55
    assert verdict.any_significant_regression
