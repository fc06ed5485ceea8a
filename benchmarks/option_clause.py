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

from definitions import list_weights, systems
from lexical_lists import DEPTH, arguments, cached_runs, command_line, publish, score, table_row, weighted_rrf

from search_platform.config import ArmWeights, Settings, load_settings
from search_platform.evaluation.session import load_eval_dataset, platform_session
from search_platform.text.tokenizer import query_options

BOOSTS = (0.0, 0.5, 1.0, 2.0, 3.0)
LEXICAL_LISTS = ("doc", "passage", "definitions")


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings,
            recorded_runs: Mapping[str, Any]) -> dict[str, Any]:
    """Per boost label, every query's five lists: the lexical ones of queries with options recorded at that boost,
    everything else as recorded in `recorded_runs`."""
    out: dict[str, Any] = {}
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        assert dataset.corpus is not None
        recorded = recorded_runs[dataset.name]
        with platform_session(settings, dataset.corpus, query_cache=True) as session:
            for boost in BOOSTS:
                lists = {name: system for name, system in systems(session, {"option_boost": boost}).items()
                         if name in LEXICAL_LISTS}
                out.setdefault(f"option boost {boost:g}", {})[dataset.name] = [
                    {**record, "lists": {**record["lists"], **{
                        name: [hit.doc_id for hit in system.search(query.text, top_k=DEPTH) if hit.score > 0]
                        for name, system in lists.items()}}} if query_options(query.text) else record
                    for query, record in zip(dataset.queries, recorded, strict=True)]
            print(f"{dataset.name}: {sum(1 for q in dataset.queries if query_options(q.text))} queries with options",
                  flush=True)
    return out


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    table: Mapping[Any, ArmWeights] = settings.retrieval.route_weights

    def hybrid(lists: Mapping[str, Sequence[str]], route: str) -> list[str]:
        return weighted_rrf(lists, list_weights(table[route], table[route].definitions), k=settings.retrieval.rrf_k)

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


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0])
    if args.runs is None or not args.runs.exists():
        raise SystemExit("--runs: the rankings file of benchmarks/definitions.py for the same datasets")
    settings = load_settings()
    recorded_runs = cached_runs(args.runs, dict)
    out = args.runs.with_name(f"{args.runs.stem}-option-clause.json")
    runs = cached_runs(out, lambda: collect(args.dataset, args.corpus, settings, recorded_runs))
    publish(report(runs, settings, command_line("option_clause.py", args)), args.out)


if __name__ == "__main__":
    main()
