"""PNG plots of an evaluation: quality bars with CI whiskers per category, latency distributions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from search_platform.evaluation.bootstrap import MeanCI
from search_platform.evaluation.runner import VERDICT_METRIC, EvaluationReport

OVERALL = "overall"
METRIC_LABEL = VERDICT_METRIC.replace("ndcg_at_", "nDCG@")


def _intervals(report: EvaluationReport, name: str, groups: list[str]) -> list[MeanCI]:
    """The verdict metric's mean and CI for one system, overall first then per category."""
    summary = report.summaries[name]
    return [summary.overall_ci if group == OVERALL else summary.by_category_ci[group] for group in groups]


def plot_quality(report: EvaluationReport, path: Path) -> Path:
    """Grouped bars of nDCG@10 per retriever, overall and per category, with 95% CI whiskers."""
    names = list(report.summaries)
    groups = [OVERALL, *sorted(set(report.categories.values()))]
    positions = np.arange(len(groups))
    width = 0.8 / max(len(names), 1)
    figure = Figure(figsize=(max(6.0, 1.6 * len(groups) * max(len(names), 1) / 2), 4.5), layout="constrained")
    axes = figure.add_subplot()
    for index, name in enumerate(names):
        cis = _intervals(report, name, groups)
        means = np.array([ci.mean for ci in cis])
        errors = np.array([[ci.mean - ci.ci_low for ci in cis], [ci.ci_high - ci.mean for ci in cis]])
        axes.bar(positions + (index - (len(names) - 1) / 2) * width, means, width, yerr=errors, capsize=3, label=name)
    axes.set_xticks(positions, [f"{g}\n(n={_count(report, g)})" for g in groups])
    axes.set_ylim(0.0, 1.15)
    axes.set_ylabel(METRIC_LABEL)
    axes.set_title(f"{report.dataset}: {METRIC_LABEL} per retriever with 95% bootstrap CI")
    axes.legend(loc="upper center", ncols=max(len(names), 1), fontsize="small")
    figure.savefig(path, dpi=120)
    return path


def _count(report: EvaluationReport, group: str) -> int:
    """Number of queries in a category, or in all of them for OVERALL."""
    categories = report.categories.values()
    return len(categories) if group == OVERALL else sum(1 for c in categories if c == group)


def plot_latency(report: EvaluationReport, path: Path) -> Path:
    """Box plots of per-query wall time per retriever, p50 and p95 marked."""
    names = list(report.systems)
    samples = [report.systems[name].latencies_ms for name in names]
    figure = Figure(figsize=(max(6.0, 1.5 * len(names)), 4.5), layout="constrained")
    axes = figure.add_subplot()
    axes.boxplot(samples, showfliers=True)
    axes.set_xticks(np.arange(1, len(names) + 1), names)
    for index, name in enumerate(names, start=1):
        summary = report.summaries[name]
        axes.scatter([index], [summary.p95_ms], marker="v", color="tab:red", zorder=3)
        axes.annotate(
            f"p50 {summary.p50_ms:.1f}\np95 {summary.p95_ms:.1f}",
            (index, summary.p95_ms),
            textcoords="offset points",
            xytext=(8, 0),
            fontsize="x-small",
        )
    axes.set_ylabel("wall time per query (ms)")
    axes.set_title(f"{report.dataset}: search latency per retriever (red: p95)")
    figure.savefig(path, dpi=120)
    return path
