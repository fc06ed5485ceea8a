"""Which RRF constant suits the routed fusion of five document lists (document BM25, passage BM25, dense, lead
passage, definitions)? A small k lets the first places of each list decide; a large one lets agreement lower down
add up.

    .venv/bin/python benchmarks/rrf_k.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/definitions-runs-v5.json --out benchmarks/reports/rrf-k.md

Reads (or records, as benchmarks/definitions.py does, through the platform's own search service) every query's
five lists, then fuses them offline with the routed weighted RRF of the settings at each k of KS and prints
nDCG@10 macro-averaged over the datasets, per category and per dataset, and each k's paired bootstrap difference
from BASELINE_K per dataset (95% CI). Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from definitions import recorded_main, settings_hybrid
from lexical_lists import CATEGORIES, per_query, score, table_header, table_row

from search_platform.config import Settings
from search_platform.evaluation.bootstrap import paired_bootstrap

KS = (2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 60)
BASELINE_K = 10  # the default before this sweep


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = ["# The RRF constant of routed fusion (nDCG@10)", "", f"Command: `{command}`  ",
             f"Default: rrf_k={settings.retrieval.rrf_k}; route and list weights from the settings; each dataset: "
             "all / exact_match / conceptual / mixed", "",
             *table_header(("k",), names, "all/exact/conceptual/mixed")]
    lines += [table_row(f"k={k}", score(runs, settings_hybrid(settings, k)), details=CATEGORIES, digits=4) for k in KS]
    lines += ["", f"Difference from k={BASELINE_K} per dataset, all queries (paired bootstrap, 95% CI):", "",
              "| k | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    baseline = {name: per_query(runs[name], settings_hybrid(settings, BASELINE_K)) for name in names}
    for k in KS:
        fuse = settings_hybrid(settings, k)
        deltas = [paired_bootstrap(per_query(runs[name], fuse), baseline[name]) for name in names]
        lines.append(f"| k={k} | " + " | ".join(f"{d.delta:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]"
                                                 for d in deltas) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    recorded_main("rrf_k.py", __doc__.split("\n\n")[0], report)
