"""Should a lookup match its words as written? English analysis stems `locate` and `locations` alike, so a bare
command name finds the pages that write its stem as readily as the page of the command; a short query (at most
`tech_lookup_max_words` words) is a name, and its unstemmed form is evidence the stem is not.

    .venv/bin/python benchmarks/lookup_exact.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/lookup-exact.md

Needs the platform up with a worker and the rankings of benchmarks/definitions.py (`--runs`, same datasets). For
every boost of BOOSTS it records the three BM25 lists (document records, chunks, the definitions list) of the lookup
queries again through the platform's own search service with `lookup_exact_boost` overridden (a query-time setting:
nothing is re-indexed); the other queries' lists and every dense list are the recorded ones. The five lists are then
fused offline with the routed weighted RRF of the settings. Prints measured numbers only; it changes no default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from definitions import dataset_sessions, rerecorded, rerecorded_main, systems, variants_table

from search_platform.config import Settings

BOOSTS = (0.0, 0.5, 1.0, 2.0)  # the first is the default
LEXICAL_LISTS = ("doc", "passage", "definitions")


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings,
            recorded: Mapping[str, Any]) -> dict[str, Any]:
    """Per boost, every query's five lists, the lookups' lexical ones recorded anew at that boost."""
    max_words = settings.retrieval.tech_lookup_max_words
    out: dict[str, Any] = {}
    for dataset, session in dataset_sessions(datasets, corpus, settings):
        for boost in BOOSTS:
            label = f"boost {boost:g}" + (" (default)" if boost == BOOSTS[0] else "")
            lists = {name: system for name, system in systems(session, {"lookup_exact_boost": boost}).items()
                     if name in LEXICAL_LISTS}
            out.setdefault(label, {})[dataset.name] = rerecorded(
                dataset, recorded[dataset.name], lists, only=lambda text: len(text.split()) <= max_words)
            print(f"{dataset.name} {label}", flush=True)
    return out


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    lines = ["# A lookup's words as written, unstemmed (nDCG@10)", "", f"Command: `{command}`  ",
             f"Lookups: queries of at most {settings.retrieval.tech_lookup_max_words} words; each variant adds their "
             f"match on `{settings.retrieval.document_phrase_field}` (documents) and "
             f"`{settings.retrieval.chunk_phrase_field}` (chunks) at the boost; hybrid = the routed weighted RRF of "
             "the settings over the five lists", "", *variants_table(runs, settings, "lookup_exact_boost")]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    rerecorded_main("lookup_exact.py", __doc__.split("\n\n")[0], collect, report)
