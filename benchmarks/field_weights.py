"""How much should a page's title and a passage's section heading count in BM25? A known-item query often names
what the page is about, which its title says (`BufWriter::into_inner` against the page *BufWriter*, an option
against the command's page), and the title weight (0.5 beside the text's 1) was set by hand, never measured.

    .venv/bin/python benchmarks/field_weights.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/field-weights.md

Needs the platform up with a worker and the rankings of benchmarks/definitions.py (`--runs`, same datasets): their
dense and lead-passage lists are reused, since field weights move only the lexical ones. For every variant of
VARIANTS it records the three BM25 lists (document records, chunks, the definitions list) through the platform's
own search service with `chunk_fields` and `document_fields` overridden (query-time settings: nothing is
re-indexed), then fuses the five lists offline with the routed weighted RRF of the settings. Prints measured
numbers only; the settings' defaults are not changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from definitions import dataset_sessions, rerecorded, rerecorded_main, systems, variants_table

from search_platform.config import Settings

# variant label -> (chunk_fields, document_fields); the first is the default
VARIANTS: dict[str, tuple[dict[str, float], dict[str, float]]] = {
    "title 0.5 (default)": ({"text": 1.0, "title": 0.5}, {"body": 1.0, "title": 0.5}),
    "title 0": ({"text": 1.0}, {"body": 1.0}),
    "title 1": ({"text": 1.0, "title": 1.0}, {"body": 1.0, "title": 1.0}),
    "title 2": ({"text": 1.0, "title": 2.0}, {"body": 1.0, "title": 2.0}),
    "title 0.5, section 0.5 on chunks": ({"text": 1.0, "title": 0.5, "section": 0.5}, {"body": 1.0, "title": 0.5}),
    "title 0.5, title.exact 0.5": ({"text": 1.0, "title": 0.5, "title.exact": 0.5},
                                   {"body": 1.0, "title": 0.5, "title.exact": 0.5}),
}
LEXICAL_LISTS = ("doc", "passage", "definitions")


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings,
            dense_runs: Mapping[str, Any]) -> dict[str, Any]:
    """Per variant label, every query's five lists: the lexical ones recorded with the variant's fields, the dense
    ones from `dense_runs`."""
    out: dict[str, Any] = {}
    for dataset, session in dataset_sessions(datasets, corpus, settings):
        for label, (chunk_fields, document_fields) in VARIANTS.items():
            override = {"chunk_fields": chunk_fields, "document_fields": document_fields}
            lists = {name: system for name, system in systems(session, override).items() if name in LEXICAL_LISTS}
            out.setdefault(label, {})[dataset.name] = rerecorded(dataset, dense_runs[dataset.name], lists)
            print(f"{dataset.name} {label}", flush=True)
    return out


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    lines = ["# Title and section weights in BM25 (nDCG@10)", "", f"Command: `{command}`  ",
             "Each variant sets the BM25 fields of chunks and of whole documents (the text's weight stays 1); "
             "hybrid = the routed weighted RRF of the settings over document BM25, passage BM25, dense, lead "
             "passage and definitions (dense lists recorded once)", "", *variants_table(runs, settings, "variant")]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    rerecorded_main("field_weights.py", __doc__.split("\n\n")[0], collect, report)
