"""Does routing gain from the exact signals today's router reads that the router of a recording did not? First an
option of one dash and several letters (`find -mtime ...`, `test -nt ...`), as the option clause already reads it
(report routing-signals.md); then code shapes: a short option that is a digit (`xargs -0`), a format directive
(`date +%s`, `printf %q`) and a macro (`write!`) (report routing-code-shapes.md, on the version-6 recording).

    .venv/bin/python benchmarks/routing_signals.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/routing-code-shapes.md

Reads the five lists benchmarks/definitions.py recorded for every query (their route as the router of the recording
gave it: there, such a signal was none) and fuses them offline with the routed weighted RRF of the settings,
once under the recorded routes and once under today's router (retrieval/routing.py), and counts the queries whose
route changed, per category. The lists themselves do not depend on the route. Prints measured numbers only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from definitions import query_texts, recorded_runs, settings_hybrid
from lexical_lists import (
    CATEGORIES,
    command_line,
    per_query,
    publish,
    score,
    table_header,
    table_row,
)

from search_platform.evaluation.bootstrap import paired_bootstrap
from search_platform.retrieval.routing import classify_query


def rerouted(runs: Mapping[str, Any], texts: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The recorded rankings with each query's route as today's router gives it."""
    return {name: [{**query, "route": classify_query(text).value}
                   for query, text in zip(queries, texts[name], strict=True)]
            for name, queries in runs.items()}


def main() -> None:
    args, settings, runs = recorded_runs(__doc__.split("\n\n")[0])
    texts = query_texts(args.dataset, args.corpus)
    today = rerouted(runs, texts)
    fuse = settings_hybrid(settings)
    names = list(runs)
    lines = ["# Routing signals: today's router against the router of the recording (nDCG@10)", "",
             f"Command: `{command_line('routing_signals.py', args)}`  ",
             f"Routed weighted RRF of the settings (k={settings.retrieval.rrf_k}); each dataset: all / exact_match / "
             "conceptual / mixed", "",
             *table_header(("routes",), names, "all/exact/conceptual/mixed"),
             table_row("as recorded", score(runs, fuse), details=CATEGORIES, digits=4),
             table_row("today's router", score(today, fuse), details=CATEGORIES, digits=4),
             "", "Queries whose route changed (category: recorded -> today):", ""]
    for name in names:
        moves = Counter(f"{old['category']}: {old['route']} -> {new['route']}"
                        for old, new in zip(runs[name], today[name], strict=True) if old["route"] != new["route"])
        lines.append(f"- {name}: " + (", ".join(f"{move} ({count})" for move, count in sorted(moves.items()))
                                      or "none"))
    recorded = {name: per_query(runs[name], fuse) for name in names}
    rerouted_scores = {name: per_query(today[name], fuse) for name in names}
    lines += ["", "Today's router minus the recorded routes, all queries (paired bootstrap, 95% CI):", ""]
    for name in names:
        delta = paired_bootstrap(rerouted_scores[name], recorded[name])
        lines.append(f"- {name}: {delta.delta:+.4f} [{delta.ci_low:+.4f}, {delta.ci_high:+.4f}]")
    lines += ["", "Each query whose route changed (nDCG@10 recorded -> today):", ""]
    for name in names:
        for old, new, text, before, after in zip(runs[name], today[name], texts[name], recorded[name],
                                                 rerouted_scores[name], strict=True):
            if old["route"] != new["route"]:
                lines.append(f"- {name}, {old['category']}: `{text}` {old['route']} -> {new['route']}, "
                             f"{before:.3f} -> {after:.3f}")
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
