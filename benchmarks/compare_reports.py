"""Compare `search-platform eval` JSON reports of one dataset made by different code (or settings): each retriever's
nDCG@10, hybrid's per category, and hybrid's paired bootstrap delta against the first report, per query category.

    .venv/bin/python benchmarks/compare_reports.py --dataset var/typeset/gnu-info \
        --report 28ef30c=/tmp/old/eval-gnu-info-....json --report HEAD=/tmp/new/eval-gnu-info-....json

The first report is the baseline. Queries are paired by id, so every report must cover the same queries (the same
dataset); their categories come from the dataset. Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexical_lists import CATEGORIES, publish

from search_platform.evaluation.bootstrap import PairedDelta, compare_systems
from search_platform.evaluation.session import load_eval_dataset

RETRIEVERS = ("bm25", "semantic", "hybrid", "seed")
METRIC = "ndcg_at_10"


def labelled_report(argument: str) -> tuple[str, dict[str, Any]]:
    label, separator, path = argument.partition("=")
    if not separator or not label:
        raise argparse.ArgumentTypeError(f"--report takes LABEL=PATH, not {argument!r}")
    return label, json.loads(Path(path).read_text())


def delta_cell(delta: PairedDelta) -> str:
    return f"{delta.delta:+.3f} [{delta.ci_low:+.3f}, {delta.ci_high:+.3f}]"


def report(reports: Sequence[tuple[str, Mapping[str, Any]]], categories: Mapping[str, str], command: str) -> str:
    """The Markdown comparison: one row per report, hybrid's deltas against the first."""
    present = [category for category in CATEGORIES if category in categories.values()]
    baseline_label, baseline = reports[0]
    header = (["report", *RETRIEVERS, *(f"hybrid {category}" for category in present), "Δ hybrid (95% CI)",
               *(f"Δ {category}" for category in present)])
    lines = [f"Command: `{command}`", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for position, (label, run) in enumerate(reports):
        retrievers = run["retrievers"]
        cells = [label, *(f"{retrievers[name][METRIC]:.3f}" if name in retrievers else "" for name in RETRIEVERS)]
        by_category = retrievers["hybrid"]["by_category"]
        cells += [f"{by_category[category][METRIC]:.3f}" for category in present]
        if position == 0:
            cells += ["baseline"] + [""] * len(present)
        else:
            comparison = compare_systems((label, _per_query(run)), (baseline_label, _per_query(baseline)),
                                         categories, [METRIC])
            cells += [delta_cell(comparison.overall[METRIC]),
                      *(delta_cell(comparison.by_category[category][METRIC]) for category in present)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _per_query(run: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    return {query: {METRIC: scores[METRIC]} for query, scores in run["retrievers"]["hybrid"]["per_query"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="The BEIR directory the reports evaluated.")
    parser.add_argument("--report", type=labelled_report, action="append", required=True,
                        help="LABEL=PATH of an eval JSON report; the first is the baseline.")
    parser.add_argument("--out", type=Path, help="Also write the Markdown here.")
    args = parser.parse_args()
    dataset = load_eval_dataset(args.dataset, None)[0]
    categories = {query.query_id: query.category for query in dataset.queries}
    command = "python benchmarks/compare_reports.py --dataset " + str(args.dataset) + "".join(
        f" --report {label}=…" for label, _ in args.report)
    publish(report(args.report, categories, command), args.out)


if __name__ == "__main__":
    main()
