"""How high can fusion lift each query category (exact_match, conceptual, mixed) on the dev sets, given the five
document lists hybrid fuses? Three ceilings per category, each from the same recorded rankings:

    .venv/bin/python benchmarks/fusion_ceiling.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/fusion-ceiling.md

- fitted weights: the weighted RRF (one weight per list, one k) that scores best on the category's queries
  themselves, over the grid of GRID_WEIGHTS x RRF_KS. It is fitted to the very queries it is scored on, so it is an
  upper bound for any fixed weighting of these lists, not a default to adopt;
- best list per query: an oracle that takes, for each query, whichever single list (or the recorded hybrid) ranks
  it best;
- found anywhere: the relevant documents any list holds in its top 50, in the judged order (what a perfect
  reranker of the candidates would reach).

Reads (or records, as benchmarks/definitions.py does, through the platform's own search service) every query's
five lists. Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from definitions import LIST_NAMES, recorded_main, settings_hybrid
from lexical_lists import CATEGORIES, Lists, Ranker, ndcg_at_10, per_query, single, weighted_rrf

from search_platform.config import Settings

GRID_WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0)  # the weights of the passage, dense, lead and definitions lists
RRF_KS = (2, 5, 10, 20)  # the document list weighs 1: only the ratios matter
SHOWN = 5  # the best fitted weightings listed


def category_queries(runs: Mapping[str, Any], category: str) -> dict[str, list[Mapping[str, Any]]]:
    return {name: [query for query in queries if query["category"] == category] for name, queries in runs.items()}


def ranked_by(queries: Mapping[str, list[Mapping[str, Any]]], fuse: Ranker) -> dict[str, float]:
    return {name: fmean(per_query(qs, fuse)) for name, qs in queries.items()}


def best_list(queries: Mapping[str, list[Mapping[str, Any]]]) -> dict[str, float]:
    return {name: fmean([max(ndcg_at_10(ranking, q["relevance"]) for ranking in q["lists"].values()) for q in qs])
            for name, qs in queries.items()}


def found_anywhere(queries: Mapping[str, list[Mapping[str, Any]]]) -> dict[str, float]:
    def ideal(query: Mapping[str, Any]) -> float:
        found = set().union(*map(set, query["lists"].values()))
        relevance = query["relevance"]
        return ndcg_at_10(sorted((doc for doc in relevance if doc in found), key=lambda doc: -relevance[doc]),
                          relevance)
    return {name: fmean([ideal(q) for q in qs]) for name, qs in queries.items()}


def fixed_weights(weights: Mapping[str, float], k: int) -> Ranker:
    def fuse(lists: Lists, _route: str) -> list[str]:
        return weighted_rrf(lists, weights, k=k)
    return fuse


def fitted(queries: Mapping[str, list[Mapping[str, Any]]]) -> list[tuple[float, int, dict[str, float],
                                                                         dict[str, float]]]:
    """Every grid weighting with its macro and per-set nDCG@10 on the queries given, best first."""
    results = []
    for k, rest in itertools.product(RRF_KS, itertools.product(GRID_WEIGHTS, repeat=len(LIST_NAMES) - 1)):
        weights = dict(zip(LIST_NAMES, (1.0, *rest), strict=True))
        per_set = ranked_by(queries, fixed_weights(weights, k))
        results.append((fmean(list(per_set.values())), k, weights, per_set))
    return sorted(results, key=lambda result: -result[0])


def row(label: str, per_set: Mapping[str, float]) -> str:
    values = list(per_set.values())
    return f"| {label} | {fmean(values):.4f} | " + " | ".join(f"{value:.4f}" for value in values) + " |"


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = ["# How far fusion can lift each query category (nDCG@10)", "", f"Command: `{command}`  ",
             f"Grid: the doc list at 1, the others at each of {GRID_WEIGHTS}, k in {RRF_KS}, fitted to each "
             "category's queries: an upper bound, not a default"]
    for category in CATEGORIES:
        lines += category_section(category_queries(runs, category), names, category, settings)
    return "\n".join(lines) + "\n"


def category_section(queries: Mapping[str, list[Mapping[str, Any]]], names: Sequence[str], category: str,
                     settings: Settings) -> list[str]:
    grid = fitted(queries)
    lines = ["", f"## {category}", "",
             "Queries: " + ", ".join(f"{name} ({len(qs)})" for name, qs in queries.items()), "",
             "| ranking | macro | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names),
             row("default hybrid (routed weights, offline)", ranked_by(queries, settings_hybrid(settings))),
             row("platform hybrid, as recorded", ranked_by(queries, single("hybrid"))),
             *(row(f"{name} alone", ranked_by(queries, single(name))) for name in LIST_NAMES),
             row(f"fitted weights (best of {len(grid)})", grid[0][3]),
             row("best list per query (oracle)", best_list(queries)),
             row("relevant documents found anywhere, in judged order", found_anywhere(queries)),
             "", f"The {SHOWN} best weightings of the grid:", "",
             "| k | " + " | ".join(LIST_NAMES) + " | macro |", "|---|" + "---|" * (len(LIST_NAMES) + 1)]
    lines += [f"| {k} | " + " | ".join(f"{weights[n]:g}" for n in LIST_NAMES) + f" | {macro:.4f} |"
              for macro, k, weights, _per_set in grid[:SHOWN]]
    return lines


if __name__ == "__main__":
    recorded_main("fusion_ceiling.py", __doc__.split("\n\n")[0], report)
