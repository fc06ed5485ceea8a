"""Render an EvaluationReport: JSON for audit, a Markdown decision report, plots, a terminal table."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from search_platform.evaluation.bootstrap import CONFIDENCE, Comparison, PairedDelta, RegressionCheck
from search_platform.evaluation.metrics import HEADLINE_METRICS
from search_platform.evaluation.misses import MISSES_PER_CATEGORY, worst_queries
from search_platform.evaluation.plots import plot_latency, plot_quality
from search_platform.evaluation.runner import HYBRID, VERDICT_METRIC, EvaluationReport, SystemSummary

DEFAULT_REPORT_DIR = Path("benchmarks/reports")
_LABELS = {"ndcg_at_10": "nDCG@10", "recall_at_5": "R@5", "recall_at_10": "R@10", "mrr": "MRR"}


def _headline(values: dict[str, float]) -> dict[str, float]:
    """The headline metrics, flat, as the JSON schema puts them."""
    return {metric: values[metric] for metric in HEADLINE_METRICS}


def _retriever_dict(report: EvaluationReport, name: str) -> dict[str, Any]:
    """One retriever's JSON entry: headline metrics, all metrics, latency, per category, per query."""
    summary = report.summaries[name]
    by_category = {
        cat: {
            "n_queries": summary.by_category_ci[cat].n,
            **_headline(values),
            "metrics": values,
            f"{VERDICT_METRIC}_ci": [summary.by_category_ci[cat].ci_low, summary.by_category_ci[cat].ci_high],
        }
        for cat, values in summary.by_category.items()
    }
    per_query = {
        qid: {"doc_ids": list(result.doc_ids), "latency_ms": result.latency_ms, **_headline(result.scores)}
        for qid, result in report.systems[name].results.items()
    }
    return {
        **_headline(summary.overall),
        f"{VERDICT_METRIC}_ci": [summary.overall_ci.ci_low, summary.overall_ci.ci_high],
        "p50_ms": summary.p50_ms,
        "p95_ms": summary.p95_ms,
        "mean_ms": summary.mean_ms,
        "metrics": summary.overall,
        "by_category": by_category,
        "per_query": per_query,
    }


def _comparison_dict(comparison: Comparison) -> dict[str, Any]:
    """A comparison as JSON: per-metric deltas with CIs, overall and per category."""
    return {
        "system": comparison.system,
        "baseline": comparison.baseline,
        "metrics": {metric: asdict(delta) for metric, delta in comparison.overall.items()},
        "by_category": {
            cat: {metric: asdict(delta) for metric, delta in deltas.items()}
            for cat, deltas in comparison.by_category.items()
        },
    }


def report_to_dict(report: EvaluationReport) -> dict[str, Any]:
    """The report as the JSON document the CLI prints and writes."""
    regression = report.regression
    categories: dict[str, int] = {}
    for category in report.categories.values():
        categories[category] = categories.get(category, 0) + 1
    return {
        "dataset": report.dataset,
        "created_at": report.created_at.isoformat(),
        "top_k": report.top_k,
        "fetch_k": report.fetch_k,
        "n_queries": len(report.queries),
        "dropped_queries": report.dropped_queries,
        "categories": dict(sorted(categories.items())),
        "bootstrap": {"seed": report.seed, "n_resamples": report.n_resamples, "confidence": CONFIDENCE},
        "retrievers": {name: _retriever_dict(report, name) for name in report.summaries},
        "comparisons": {key: _comparison_dict(c) for key, c in report.comparisons.items()},
        "stages": [{"name": stage.name, "seconds": round(stage.seconds, 3), "detail": stage.detail}
                   for stage in report.stages],
        "regression": None
        if regression is None
        else {
            **asdict(regression),
            "any_significant_regression": regression.any_significant_regression,
            "any_worse_point_estimate": regression.any_worse_point_estimate,
        },
    }


def _delta(d: PairedDelta) -> str:
    """A delta with its CI, e.g. +0.031 [+0.004, +0.058]."""
    return f"{d.delta:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]"


def _best_leg(report: EvaluationReport) -> str | None:
    """The single leg hybrid is judged against, if the regression check ran."""
    return report.regression.overall.best_single_leg if report.regression else None


def _results_table(report: EvaluationReport) -> list[str]:
    """Markdown table of every retriever's headline metrics and latency."""
    lines = ["| retriever | nDCG@10 [95% CI] | R@5 | R@10 | MRR | P@1 | Hit@1 | p50 ms | p95 ms |", "|---" * 9 + "|"]
    for name, s in report.summaries.items():
        o = s.overall
        lines.append(
            f"| {name} | {o['ndcg_at_10']:.3f} [{s.overall_ci.ci_low:.3f}, {s.overall_ci.ci_high:.3f}] "
            f"| {o['recall_at_5']:.3f} | {o['recall_at_10']:.3f} | {o['mrr']:.3f} | {o['precision_at_1']:.3f} "
            f"| {o['hit_rate_at_1']:.3f} | {s.p50_ms:.1f} | {s.p95_ms:.1f} |"
        )
    return lines


def _category_table(report: EvaluationReport) -> list[str]:
    """Markdown table of nDCG@10 per category with hybrid's deltas and CIs."""
    names = list(report.summaries)
    keys = list(report.comparisons)
    header = ["category", "n", *names, *(f"Δ {k.replace('_vs_', ' - ')}" for k in keys)]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for cat, ci in next(iter(report.summaries.values())).by_category_ci.items():
        cells = [cat, str(ci.n), *(f"{report.summaries[n].by_category[cat][VERDICT_METRIC]:.3f}" for n in names)]
        cells += [_delta(report.comparisons[k].by_category[cat][VERDICT_METRIC]) for k in keys]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _latency_lines(report: EvaluationReport) -> list[str]:
    """What hybrid costs in latency over the leg it is judged against."""
    best = _best_leg(report)
    if best is None or best not in report.summaries:
        return ["Latency comparison needs hybrid and at least one single leg."]
    h, b = report.summaries[HYBRID], report.summaries[best]
    return [
        f"Hybrid p50 {h.p50_ms:.1f} ms vs {best} {b.p50_ms:.1f} ms ({h.p50_ms - b.p50_ms:+.1f} ms); "
        f"p95 {h.p95_ms:.1f} ms vs {b.p95_ms:.1f} ms ({h.p95_ms - b.p95_ms:+.1f} ms)."
    ]


def _check_line(scope: str, check: RegressionCheck) -> str:
    """One regression check as a sentence fragment."""
    flag = (
        "SIGNIFICANT REGRESSION"
        if check.significant_regression
        else ("worse point estimate" if check.worse_point_estimate else "no regression")
    )
    return f"- {scope}: hybrid - {check.best_single_leg} = {_delta(check.delta)} → {flag}"


def recommendation(report: EvaluationReport) -> list[str]:
    """A plain-language recommendation, and where hybrid does not pay, from the regression check."""
    verdict = report.regression
    if verdict is None:
        return ["No recommendation: the run needs hybrid and at least one single leg."]
    overall, leg = verdict.overall, verdict.overall.best_single_leg
    cost = report.summaries[HYBRID].p95_ms - report.summaries[leg].p95_ms
    if overall.significant_regression:
        lines = [f"**Do not ship hybrid as the default**: it is significantly worse than {leg} on nDCG@10."]
    elif overall.delta.ci_low > 0:
        lines = [f"**Ship hybrid**: it beats {leg} on nDCG@10 by {_delta(overall.delta)} at {cost:+.1f} ms p95."]
    else:
        lines = [
            f"**Inconclusive**: hybrid vs {leg} is {_delta(overall.delta)} (CI spans 0); "
            f"hybrid costs {cost:+.1f} ms p95, so prefer {leg} unless robustness across query types matters."
        ]
    losing = [(cat, check) for cat, check in verdict.by_category.items() if check.delta.ci_low <= 0]
    lines += ["", "When hybrid does not pay (no significant gain over the best leg for that category):"]
    lines += [_check_line(cat, check) for cat, check in losing] or ["- hybrid gains significantly in every category."]
    return lines


def render_markdown(report: EvaluationReport, *, plot_names: list[str] | None = None) -> str:
    """The Markdown decision report."""
    lines = [
        f"# Retrieval evaluation: {report.dataset}",
        "",
        f"{report.created_at.isoformat()} · {len(report.queries)} queries ({report.dropped_queries} dropped without "
        f"qrels) · top_k={report.top_k} · paired bootstrap, {report.n_resamples} resamples, seed {report.seed}. "
        "Ground truth is per document: a document counts at the rank of its best chunk.",
        "",
        "## Results",
        "",
        *_results_table(report),
        "",
        "## nDCG@10 per category, with hybrid's deltas (95% CI)",
        "",
        *_category_table(report),
        "",
        "## Latency cost",
        "",
        *_latency_lines(report),
        "",
        "## Regression check (hybrid vs best single leg, nDCG@10)",
        "",
    ]
    if report.regression is not None:
        lines.append(_check_line("overall", report.regression.overall))
        lines += [_check_line(cat, check) for cat, check in report.regression.by_category.items()]
    lines += ["", "## Recommendation", "", *recommendation(report)]
    if HYBRID in report.systems:
        lines += ["", f"## Where {HYBRID} misses", "", *misses_section(report, HYBRID)]
    if report.stages:
        lines += ["", "## Where the time went", "", *_stage_table(report)]
    if plot_names:
        lines += ["", "## Plots", "", *(f"![{name}]({name})" for name in plot_names)]
    return "\n".join(lines) + "\n"


def misses_section(report: EvaluationReport, system: str) -> list[str]:
    """Per category, the worst queries of the system: the document judged best, its rank in every retriever's top
    k, and what the system put first."""
    names = list(report.systems)
    lines = [f"The {MISSES_PER_CATEGORY} queries per category with {system}'s lowest nDCG@10 below 1: the document "
             f"judged best for each (its grade, and how many more are judged), its rank in each retriever's top "
             f"{report.top_k} (- when not there) and what {system} put first."]
    for group in worst_queries(report, system):
        lines += ["", f"### {group.category}: {group.missed} of {group.queries} below 1"]
        if not group.worst:
            continue
        lines += ["", f"| query | judged best | nDCG@10 | {' | '.join(names)} | {system}'s first |",
                  "|---|---|---|" + "---|" * len(names) + "---|"]
        for miss in group.worst:
            judged = f"{miss.judged} ({miss.grade}{f', +{miss.also_judged}' if miss.also_judged else ''})"
            ranks = " | ".join("-" if miss.ranks[name] is None else str(miss.ranks[name]) for name in names)
            lines.append(f"| {_cell(miss.query.text)} | {_cell(judged)} | {miss.ndcg:.3f} | {ranks} | "
                         f"{_cell(miss.first or '-')} |")
    return lines


def _cell(text: str) -> str:
    """Text as one Markdown table cell: no line break, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _stage_table(report: EvaluationReport) -> list[str]:
    """Wall time of each step of the run, in order."""
    rows = [f"| {stage.name} | {stage.seconds:.1f} | {stage.detail} |" for stage in report.stages]
    return ["| stage | seconds | detail |", "|---|---|---|", *rows]


def _row(name: str, summary: SystemSummary) -> str:
    """One fixed-width terminal row."""
    values = "".join(f"{summary.overall[m]:>9.3f}" for m in HEADLINE_METRICS)
    return f"{name:<10}{values}{summary.p50_ms:>10.1f}{summary.p95_ms:>10.1f}"


def format_table(report: EvaluationReport) -> str:
    """A compact plain-text summary for the terminal."""
    header = f"{'retriever':<10}" + "".join(f"{_LABELS[m]:>9}" for m in HEADLINE_METRICS)
    lines = [header + f"{'p50 ms':>10}{'p95 ms':>10}"]
    lines += [_row(name, summary) for name, summary in report.summaries.items()]
    for key, comparison in report.comparisons.items():
        lines.append(f"{key}: nDCG@10 {_delta(comparison.overall[VERDICT_METRIC])}")
    if report.regression is not None:
        lines.append(_check_line("regression", report.regression.overall).lstrip("- "))
    if report.stages:
        lines.append("stages: " + ", ".join(f"{stage.name} {stage.seconds:.1f} s" for stage in report.stages))
    return "\n".join(lines)


def _stem(report: EvaluationReport) -> str:
    """A filesystem-safe, timestamped base name for this report's files."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", report.dataset).strip("-") or "dataset"
    return f"eval-{slug}-{report.created_at.strftime('%Y%m%dT%H%M%SZ')}"


def write_reports(
    report: EvaluationReport, *, json_out: Path | None = None, report_dir: Path | None = None
) -> list[Path]:
    """Write JSON (json_out or a timestamped file), Markdown and PNG plots; return the paths written."""
    directory = report_dir or DEFAULT_REPORT_DIR
    directory.mkdir(parents=True, exist_ok=True)
    stem = _stem(report)
    json_path = json_out or directory / f"{stem}.json"
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report_to_dict(report), indent=2) + "\n", encoding="utf-8")
    plots = [
        plot_quality(report, directory / f"{stem}-quality.png"),
        plot_latency(report, directory / f"{stem}-latency.png"),
    ]
    markdown = directory / f"{stem}.md"
    markdown.write_text(render_markdown(report, plot_names=[p.name for p in plots]), encoding="utf-8")
    return [json_path, markdown, *plots]
