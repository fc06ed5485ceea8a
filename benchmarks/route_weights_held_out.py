"""Do the route weights of the settings hold on a dev set they were not chosen on? Leave one dataset out: for each
dev set, pick each route's weights on the other sets alone and score them on the one left out.

    .venv/bin/python benchmarks/route_weights_held_out.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/route-weights-held-out.md

Reads the five lists benchmarks/definitions.py recorded for every query, with the route the router gave it, and
fuses them offline with weighted RRF (k = retrieval.rrf_k), each route's weights taken from GRID (every weighting
the settings can express: bm25 weighs the document and passage lists alone). Routes split the queries, so each
route's weights are chosen on its own queries: a dataset's share of a route is the sum of nDCG@10 over its queries
on that route divided by all its queries, and the shares of the three routes add up to the dataset's nDCG@10. A
choice maximises the sum of the shares over the datasets it may see (each dataset weighs the same, as in the macro
average). Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from definitions import list_weights, recorded_runs, routed, settings_hybrid
from lexical_lists import (
    CATEGORIES,
    Ranker,
    command_line,
    ndcg_at_10,
    per_query,
    publish,
    score,
    table_header,
    table_row,
    weighted_rrf,
)

from search_platform.config import ArmWeights, Settings
from search_platform.evaluation.bootstrap import paired_bootstrap

BM25_WEIGHTS = (0.3, 0.5, 1.0)
DENSE_WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0)
LEAD_WEIGHTS = (0.0, 0.25, 0.5, 1.0)
DEFINITIONS_WEIGHTS = (0.0, 0.25, 0.5, 1.0)
GRID = tuple(ArmWeights(bm25=bm25, dense=dense, dense_lead=lead, definitions=definitions)
             for bm25, dense, lead, definitions in itertools.product(BM25_WEIGHTS, DENSE_WEIGHTS, LEAD_WEIGHTS,
                                                                     DEFINITIONS_WEIGHTS))
Shares = dict[str, float]  # dataset -> its share of nDCG@10 on one route


def route_shares(runs: Mapping[str, Any], route: str, arm: ArmWeights, k: int) -> Shares:
    """Each dataset's share of nDCG@10 from its queries on the route, fused with the arm's weights."""
    weights = list_weights(arm, arm.definitions)
    return {name: sum(ndcg_at_10(weighted_rrf(query["lists"], weights, k=k), query["relevance"])
                      for query in queries if query["route"] == route) / len(queries)
            for name, queries in runs.items()}


def best_arm(table: Sequence[tuple[ArmWeights, Shares]], seen: Sequence[str]) -> tuple[ArmWeights, Shares]:
    """The weighting whose shares over the seen datasets add up highest (the first of a tie, in GRID order)."""
    return max(table, key=lambda row: sum(row[1][name] for name in seen))


def describe(arm: ArmWeights) -> str:
    return f"{arm.bm25:g} / {arm.dense:g} / {arm.dense_lead:g} / {arm.definitions:g}"


def routed_by(arms: Mapping[str, ArmWeights], k: int) -> Ranker:
    """The routed weighted RRF of the arms, each route's definitions list at its arm's weight."""
    return routed(arms, {route: arm.definitions for route, arm in arms.items()}, k)


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    k = settings.retrieval.rrf_k
    defaults = settings.retrieval.route_weights
    names = list(runs)
    lines = ["# Route weights on a dev set they were not chosen on (nDCG@10, leave one dataset out)", "",
             f"Command: `{command}`  ",
             f"Weighted RRF, k={k}; weights bm25 / dense / dense_lead / definitions, the grid "
             f"{len(BM25_WEIGHTS)} x {len(DENSE_WEIGHTS)} x {len(LEAD_WEIGHTS)} x {len(DEFINITIONS_WEIGHTS)} "
             f"= {len(GRID)} per route. A share is a dataset's nDCG@10 from its queries on that route (the three "
             "shares add up to its nDCG@10); deltas are against the settings' weights. In brackets, the datasets a "
             "weighting was chosen on; Δ scored is the mean delta on the others (all four for the in-sample row, "
             "the one left out for the rest).", ""]
    held_out_arms: dict[str, dict[str, ArmWeights]] = {name: {} for name in names}
    for route, default in defaults.items():
        table = [(arm, route_shares(runs, route, arm, k)) for arm in GRID]
        base = route_shares(runs, route, default, k)
        counts = {name: sum(query["route"] == route for query in queries) for name, queries in runs.items()}
        best, best_shares = best_arm(table, names)
        lines += [f"## The {route} route ({', '.join(f'{name} {n}' for name, n in counts.items())} queries)", "",
                  "| weights chosen on | bm25 / dense / lead / definitions | "
                  + " | ".join(f"Δ {name}" for name in names) + " | Δ scored |",
                  "|---|---|" + "---|" * (len(names) + 1),
                  f"| the settings | {describe(default)} | " + " | ".join("0" for _ in names) + " | 0 |",
                  delta_row("all four (in sample)", best, best_shares, base, names, names)]
        for held in names:
            seen = [name for name in names if name != held]
            arm, shares = best_arm(table, seen)
            held_out_arms[held][route] = arm
            lines.append(delta_row(f"all but {held}", arm, shares, base, names, [held]))
        lines.append("")
    lines += held_out_summary(runs, settings, held_out_arms)
    return "\n".join(lines) + "\n"


def delta_row(label: str, arm: ArmWeights, shares: Shares, base: Shares, names: Sequence[str],
              scored: Sequence[str]) -> str:
    """A table row: the deltas of the arm's shares against the settings' on every dataset; the ones it was chosen
    on in brackets when it was chosen without them all (only the held-out one counts), and the macro delta."""
    cells = [f"{shares[name] - base[name]:+.4f}" if name in scored else f"({shares[name] - base[name]:+.4f})"
             for name in names]
    macro = sum(shares[name] - base[name] for name in scored) / len(scored)
    return f"| {label} | {describe(arm)} | " + " | ".join(cells) + f" | {macro:+.4f} |"


def held_out_summary(runs: Mapping[str, Any], settings: Settings,
                     held_out_arms: Mapping[str, Mapping[str, ArmWeights]]) -> list[str]:
    """Each dataset scored with the three routes' weights chosen without it, against the settings' weights."""
    k = settings.retrieval.rrf_k
    names = list(runs)
    defaults = settings_hybrid(settings)
    held = {name: score({name: runs[name]}, routed_by(held_out_arms[name], k))[name] for name in names}
    lines = ["## Every dataset with the weights chosen without it", "",
             *table_header(("weights",), names, "all/exact/conceptual/mixed"),
             table_row("the settings", score(runs, defaults), details=CATEGORIES, digits=4),
             table_row("chosen without the dataset", held, details=CATEGORIES, digits=4), "",
             "Chosen without the dataset minus the settings, all queries (paired bootstrap, 95% CI):", ""]
    for name in names:
        delta = paired_bootstrap(per_query(runs[name], routed_by(held_out_arms[name], k)),
                                 per_query(runs[name], defaults))
        lines.append(f"- {name}: {delta.delta:+.4f} [{delta.ci_low:+.4f}, {delta.ci_high:+.4f}] "
                     f"(wins {delta.wins}, losses {delta.losses})")
    return lines


def main() -> None:
    args, settings, runs = recorded_runs(__doc__.split("\n\n")[0])
    publish(report(runs, settings, command_line("route_weights_held_out.py", args)), args.out)


if __name__ == "__main__":
    main()
