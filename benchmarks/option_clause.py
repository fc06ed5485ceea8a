"""Should the query's options (`-executable`, `--follow=name`, `status=progress`) also match an identifier-aware
field that keeps their dashes, and how strongly? The English field stems `-executable` to the stem of
"execution" and reads `--follow=name` as two common words, so pages that discuss execution or names outrank the
page that writes the option.

    .venv/bin/python benchmarks/option_clause.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/definitions-runs-v4.json --out benchmarks/reports/option-clause.md

Needs the platform up with a worker and the rankings of benchmarks/definitions.py (`--runs`, same datasets): their
dense and lead-passage lists are reused, since the clause moves only the lexical ones. For every boost of BOOSTS it
records the three BM25 lists (document records, chunks, the definitions list) through the platform's own search
service with `retrieval.option_boost` set, for the queries that write an option (for the others the clause is
never sent, so their recorded lists stand), then fuses the five lists offline with the routed weighted RRF of the
settings. Prints measured numbers only; the settings' defaults are not changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from definitions import dataset_sessions, rerecorded, rerecorded_main, settings_hybrid, systems
from lexical_lists import score, table_row

from search_platform.config import Settings
from search_platform.text.tokenizer import query_options

BOOSTS = (0.0, 0.5, 1.0, 2.0, 3.0)
LEXICAL_LISTS = ("doc", "passage", "definitions")


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings,
            recorded_runs: Mapping[str, Any]) -> dict[str, Any]:
    """Per boost label, every query's five lists: the lexical ones of queries with options recorded at that boost,
    everything else as recorded in `recorded_runs`."""
    out: dict[str, Any] = {}
    for dataset, session in dataset_sessions(datasets, corpus, settings):
        for boost in BOOSTS:
            lists = {name: system for name, system in systems(session, {"option_boost": boost}).items()
                     if name in LEXICAL_LISTS}
            out.setdefault(f"option boost {boost:g}", {})[dataset.name] = rerecorded(
                dataset, recorded_runs[dataset.name], lists, only=lambda text: bool(query_options(text)))
        print(f"{dataset.name}: {sum(1 for q in dataset.queries if query_options(q.text))} queries with options",
              flush=True)
    return out


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    hybrid = settings_hybrid(settings)
    names = list(next(iter(runs.values())))
    retrieval = settings.retrieval
    lines = ["# The option clause: the query's options on the identifier-aware field (nDCG@10)", "",
             f"Command: `{command}`  ",
             f"Default: option_boost={retrieval.option_boost:g} on `{retrieval.document_option_field}` and "
             f"`{retrieval.chunk_option_field}`; hybrid = the routed weighted RRF of the settings over "
             "document BM25, passage BM25, dense, lead passage and definitions (dense lists recorded once); each "
             "dataset: all / exact_match / mixed", "",
             "| boost | list | macro | macro exact_match | macro conceptual | macro mixed | "
             + " | ".join(f"{n} all/exact/mixed" for n in names) + " |",
             "|---|---|---|---|---|---|" + "---|" * len(names)]
    for label, by_dataset in runs.items():
        row = table_row("hybrid", score(by_dataset, hybrid), details=("exact_match", "mixed"), digits=4)
        lines.append(f"| {label} {row}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    rerecorded_main("option_clause.py", __doc__.split("\n\n")[0], collect, report)
