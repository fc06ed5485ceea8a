"""Render a TuningReport: a Markdown table that marks the best configuration, and JSON for audit."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from search_platform.domain.models import Leg
from search_platform.evaluation.bootstrap import PairedDelta
from search_platform.evaluation.runner import VERDICT_METRIC
from search_platform.evaluation.tuning import (
    RECALL_METRIC,
    ROUTING_MAX_CATEGORY_LOSS,
    RoutingVerdict,
    TuningReport,
    TuningRow,
)
from search_platform.retrieval.routing import ROUTE_WEIGHTS

LATENCY_NOTE = ("p50 ms is the in-process hybrid search (both legs, fusion, paging) with the query-embedding cache "
                "warm: it excludes query encoding, so it compares configurations, not end-to-end latency. Rows that "
                "run the same search (the default, weighted_rrf 1/1, tech=1) show how much of a p50 gap is noise.")


def _plain(value: Any) -> Any:
    """A parameter value as JSON: enums by value, per-leg maps keyed by leg name."""
    if isinstance(value, Mapping):
        return {_plain(key): _plain(item) for key, item in value.items()}
    return value.value if isinstance(value, enum.Enum) else value


def _row_dict(row: TuningRow) -> dict[str, Any]:
    """One configuration as JSON."""
    summary = row.summary
    return {
        "label": row.config.label,
        "family": row.config.family,
        "params": _plain(row.config.params),
        VERDICT_METRIC: row.ndcg,
        RECALL_METRIC: summary.overall[RECALL_METRIC],
        "by_category": {cat: values[VERDICT_METRIC] for cat, values in summary.by_category.items()},
        "p50_ms": summary.p50_ms,
        "p95_ms": summary.p95_ms,
        "metrics": summary.overall,
    }


def _routing_dict(verdict: RoutingVerdict | None) -> dict[str, Any] | None:
    """The routing verdict as JSON."""
    if verdict is None:
        return None
    return {"overall": asdict(verdict.overall),
            "by_category": {cat: asdict(delta) for cat, delta in verdict.by_category.items()},
            "beats_default": verdict.beats_default, "max_category_loss": ROUTING_MAX_CATEGORY_LOSS,
            "route_weights": _plain(ROUTE_WEIGHTS)}


def tuning_to_dict(report: TuningReport) -> dict[str, Any]:
    """The report as JSON."""
    return {
        "dataset": report.dataset,
        "created_at": report.created_at.isoformat(),
        "n_queries": report.n_queries,
        "top_k": report.top_k,
        "baseline": report.baseline,
        "best": report.best().config.label,
        "best_by_family": {family: report.best(family).config.label for family in report.families()},
        "latency_note": LATENCY_NOTE,
        "configs": [_row_dict(row) for row in report.rows],
        "routing": _routing_dict(report.routing),
        "route_counts": _plain(report.route_counts),
    }


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    return lines + ["| " + " | ".join(cells) + " |" for cells in rows]


def _all_rows(report: TuningReport) -> list[str]:
    """Every configuration: nDCG@10 overall and per category, R@5, p50, marks for best and default."""
    best, categories = report.best().config.label, report.categories
    header = ["config", "nDCG@10", *(f"nDCG@10 {cat}" for cat in categories), "R@5", "p50 ms (cached emb.)", ""]
    rows = []
    for row in report.rows:
        label = row.config.label
        mark = " ".join(m for m, on in (("**best**", label == best), ("default", label == report.baseline)) if on)
        ndcg = f"**{row.ndcg:.3f}**" if label == best else f"{row.ndcg:.3f}"
        rows.append([label, ndcg, *(f"{row.category_ndcg(cat):.3f}" for cat in categories),
                     f"{row.summary.overall[RECALL_METRIC]:.3f}", f"{row.summary.p50_ms:.1f}", mark])
    return _table(header, rows)


def _family_rows(report: TuningReport) -> list[str]:
    """The best configuration of each family against the default."""
    base = report.row(report.baseline)
    rows = [[family, best.config.label, f"{best.ndcg:.3f}", f"{best.ndcg - base.ndcg:+.3f}",
             *(f"{best.category_ndcg(cat) - base.category_ndcg(cat):+.3f}" for cat in report.categories),
             f"{best.summary.p50_ms:.1f}"]
            for family in report.families() for best in [report.best(family)]]
    header = ["family", "best config", "nDCG@10", "Δ vs default", *(f"Δ {cat}" for cat in report.categories),
              "p50 ms"]
    return _table(header, rows)


def _tech_rows(report: TuningReport) -> list[str]:
    """The technical-terms field off and on (the tech family)."""
    rows = [[str(row.config.params.get("tech_boost")), f"{row.ndcg:.3f}",
             *(f"{row.category_ndcg(cat):.3f}" for cat in report.categories)]
            for row in report.rows if row.config.family == "tech"]
    if not rows:
        return ["(not in this sweep)"]
    return _table(["tech_boost", "nDCG@10 overall", *(f"nDCG@10 {cat}" for cat in report.categories)], rows)


def _delta(delta: PairedDelta) -> str:
    """A paired delta with its CI."""
    return f"{delta.delta:+.3f} [{delta.ci_low:+.3f}, {delta.ci_high:+.3f}]"


def _routing_lines(report: TuningReport) -> list[str]:
    """Routed fusion vs the default RRF, per category, with the rule that decides the default."""
    verdict = report.routing
    if verdict is None:
        return ["(not in this sweep)"]
    base, routed = report.row(report.baseline), report.best("routed")
    cats = report.categories
    table = _table(["", "overall", *cats], [
        [base.config.label, f"{base.ndcg:.3f}", *(f"{base.category_ndcg(c):.3f}" for c in cats)],
        ["routed", f"{routed.ndcg:.3f}", *(f"{routed.category_ndcg(c):.3f}" for c in cats)],
        ["Δ [95% CI]", _delta(verdict.overall), *(_delta(verdict.by_category[c]) for c in cats)],
    ])
    weights = "; ".join(f"{route.value} (bm25 {w[Leg.BM25]:g}, dense {w[Leg.DENSE]:g})"
                        for route, w in ROUTE_WEIGHTS.items())
    counts = "; ".join(f"{cat}: " + ", ".join(f"{route} {n}" for route, n in routes.items())
                       for cat, routes in report.route_counts.items())
    rule = (f"Rule: routing may become the default only if it beats the default on nDCG@10 overall and loses at most "
            f"{ROUTING_MAX_CATEGORY_LOSS} in every category. Verdict: **"
            + ("routing qualifies (the lead decides)" if verdict.beats_default else "keep routing off") + "**.")
    return [*table, "", f"Route weights (weighted RRF): {weights}.", "",
            f"Routes per category: {counts or 'n/a'}.", "", rule]


def render_tuning_markdown(report: TuningReport, *, command: str) -> str:
    """The Markdown report."""
    best = report.best()
    base = report.row(report.baseline)
    lines = [
        f"# Fusion tuning: {report.dataset}", "",
        f"{report.created_at.isoformat()} · {report.n_queries} queries · hybrid mode in-process · nDCG@10 and R@5 "
        f"at document level (top_k={report.top_k}). Produced by `{command}`. This report changes no default.", "",
        f"Best: **{best.config.label}**, nDCG@10 {best.ndcg:.3f} ({best.ndcg - base.ndcg:+.3f} vs the default "
        f"{report.baseline}, {base.ndcg:.3f}).", "",
        LATENCY_NOTE, "",
        "## Best per family vs the default", "", *_family_rows(report), "",
        "## All configurations", "", *_all_rows(report), "",
        "## Technical-terms field (tech_boost: 0 = off)", "", *_tech_rows(report), "",
        "## Query-type routing vs fixed RRF (nDCG@10)", "", *_routing_lines(report),
    ]
    return "\n".join(lines) + "\n"


def write_tuning_reports(report: TuningReport, markdown_path: Path, *, command: str) -> list[Path]:
    """Write the Markdown report and its JSON (same name, .json); return both paths."""
    markdown_path.parent.mkdir(parents=True, exist_ok=True)
    json_path = markdown_path.with_suffix(".json")
    markdown_path.write_text(render_tuning_markdown(report, command=command), encoding="utf-8")
    json_path.write_text(json.dumps(tuning_to_dict(report), indent=2) + "\n", encoding="utf-8")
    return [markdown_path, json_path]
