"""Defaults chosen on several dev sets at once: every configuration runs on every dataset, and configurations are
compared by the macro average over datasets (each dataset weighs the same, whatever its number of queries), so a
gain on one set that costs another does not count as a gain.

A configuration is a search mode, request parameters (SearchParams fields: fusion, rrf_k, candidate_k, weights,
...) and query-time retrieval settings (fields and boosts, the lexical unit), so each point is something a request
or a setting can ask for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from search_platform.domain.models import Leg, SearchMode
from search_platform.evaluation.datasets import EvalDataset
from search_platform.evaluation.runner import VERDICT_METRIC, RetrievalSystem, SystemResult, run_system, summarise

SUMMARY_RESAMPLES = 200  # point estimates only: the per-dataset CIs are not used to pick
MACRO = "macro"


@dataclass(frozen=True, slots=True)
class SweepConfig:
    """One point: a family (what is varied), a unique label, the mode, request params and retrieval overrides."""

    family: str
    label: str
    mode: SearchMode = SearchMode.HYBRID
    params: Mapping[str, Any] = field(default_factory=dict)
    retrieval: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DatasetScores:
    """One configuration on one dataset: nDCG@10 overall and per category, and the per-query results."""

    overall: float
    by_category: dict[str, float]
    result: SystemResult


@dataclass(frozen=True, slots=True)
class SweepRow:
    """One configuration on every dataset."""

    config: SweepConfig
    per_dataset: dict[str, DatasetScores]

    @property
    def macro(self) -> float:
        """nDCG@10 averaged over datasets."""
        return sum(scores.overall for scores in self.per_dataset.values()) / len(self.per_dataset)

    def macro_category(self, category: str) -> float:
        """nDCG@10 of one category averaged over the datasets that have it."""
        values = [s.by_category[category] for s in self.per_dataset.values() if category in s.by_category]
        return sum(values) / len(values) if values else float("nan")


@dataclass(frozen=True, slots=True)
class MacroReport:
    """Every configuration's row in grid order, the datasets (with their query counts) and the baseline label."""

    created_at: datetime
    datasets: dict[str, int]
    baseline: str
    rows: tuple[SweepRow, ...]

    @property
    def categories(self) -> list[str]:
        """Query categories seen on any dataset, sorted."""
        return sorted({cat for row in self.rows for s in row.per_dataset.values() for cat in s.by_category})

    def row(self, label: str) -> SweepRow:
        """The row of one configuration."""
        return next(row for row in self.rows if row.config.label == label)

    def best(self, *, mode: SearchMode = SearchMode.HYBRID) -> SweepRow:
        """The configuration of a mode with the best macro nDCG@10; ties go to the earlier one."""
        return max((row for row in self.rows if row.config.mode is mode), key=lambda row: row.macro)


SystemFactory = Callable[[EvalDataset, SweepConfig], RetrievalSystem]


def run_macro_sweep(datasets: Sequence[EvalDataset], configs: Sequence[SweepConfig], system_for: SystemFactory, *,
                    baseline: str, top_k: int = 10, fetch_k: int = 100) -> MacroReport:
    """Run every configuration on every dataset's queries (each dataset's first configuration warms the query cache
    with an untimed pass) and score nDCG@10 overall and per category."""
    labels = [config.label for config in configs]
    if len(set(labels)) != len(labels) or baseline not in labels:
        raise ValueError(f"configuration labels must be unique and include the baseline {baseline!r}")
    scores: dict[str, dict[str, DatasetScores]] = {label: {} for label in labels}
    for dataset in datasets:
        categories = {query.query_id: query.category for query in dataset.queries}
        for position, config in enumerate(configs):
            warmup = len(dataset.queries) if position == 0 else 1
            result = run_system(system_for(dataset, config), dataset.queries, top_k=top_k, fetch_k=fetch_k,
                                warmup_queries=warmup)
            summary = summarise(result, categories, n_resamples=SUMMARY_RESAMPLES)
            scores[config.label][dataset.name] = DatasetScores(
                overall=summary.overall[VERDICT_METRIC],
                by_category={cat: values[VERDICT_METRIC] for cat, values in summary.by_category.items()},
                result=result)
    return MacroReport(created_at=datetime.now(UTC), datasets={d.name: len(d.queries) for d in datasets},
                       baseline=baseline, rows=tuple(SweepRow(config, scores[config.label]) for config in configs))


def weights(bm25: float, dense: float) -> dict[Leg, float]:
    """Per-leg weights of a weighted fusion."""
    return {Leg.BM25: bm25, Leg.DENSE: dense}


def render_markdown(report: MacroReport, *, command: str) -> str:
    """The report as Markdown: one row per configuration, macro and per-dataset nDCG@10."""
    cats = report.categories
    names = list(report.datasets)
    header = ["family", "configuration", "mode", "macro", *(f"macro {c}" for c in cats), *names]
    lines = [
        "# Defaults chosen on every dev set (nDCG@10, macro average over datasets)",
        "",
        f"Command: `{command}`  ",
        f"Run: {report.created_at:%Y-%m-%d %H:%M} UTC; datasets (queries): "
        + ", ".join(f"{name} ({n})" for name, n in report.datasets.items()),
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for row in report.rows:
        cells = [row.config.family, row.config.label, row.config.mode.value, f"{row.macro:.3f}",
                 *(f"{row.macro_category(c):.3f}" for c in cats),
                 *(f"{row.per_dataset[n].overall:.3f}" for n in names)]
        lines.append("| " + " | ".join(cells) + " |")
    best = report.best()
    base = report.row(report.baseline)
    lines += ["", f"Best hybrid configuration: **{best.config.label}** (macro {best.macro:.3f}); "
                  f"baseline `{base.config.label}`: {base.macro:.3f}.", "",
              "Per dataset and category, best hybrid configuration:", "",
              "| dataset | all | " + " | ".join(cats) + " |", "|---|---|" + "---|" * len(cats)]
    for name in names:
        scores = best.per_dataset[name]
        lines.append(f"| {name} | {scores.overall:.3f} | "
                     + " | ".join(f"{scores.by_category.get(c, float('nan')):.3f}" for c in cats) + " |")
    return "\n".join(lines) + "\n"


def report_to_dict(report: MacroReport) -> dict[str, Any]:
    """The report as plain data (no per-query results)."""
    return {
        "created_at": report.created_at.isoformat(),
        "datasets": report.datasets,
        "baseline": report.baseline,
        "rows": [
            {"family": row.config.family, "label": row.config.label, "mode": row.config.mode.value,
             "params": {k: (v if not isinstance(v, dict) else {str(kk): vv for kk, vv in v.items()})
                        for k, v in row.config.params.items()},
             "retrieval": dict(row.config.retrieval), "macro": row.macro,
             "per_dataset": {name: {"overall": s.overall, "by_category": s.by_category}
                             for name, s in row.per_dataset.items()}}
            for row in report.rows
        ],
    }
