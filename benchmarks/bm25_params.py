"""Do BM25's parameters suit reference pages: how much should a long page's length count against it (b), and how
fast should repeated terms saturate (k1)? Whole pages differ in length by two orders of magnitude (a one-option
page against a manual chapter), and the document-level list scores whole pages.

    .venv/bin/python benchmarks/bm25_params.py \
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \
        --runs var/definitions-runs.json --out benchmarks/reports/bm25-params.md

Needs the platform up with a worker and the rankings of benchmarks/definitions.py (`--runs`, same datasets): their
dense and lead-passage lists are reused, since the similarity moves only the lexical ones. For every (k1, b) of GRID it
closes each evaluation index, sets its `sp_bm25` similarity (a custom similarity's parameters change on a closed
index without re-indexing: they are applied at search time), reopens it and records the three BM25 lists through
the platform's own search service (document records, chunks, the definitions list), then fuses the five lists
offline with the routed weighted RRF of the settings. Every index gets its own parameters back at the end. Prints
measured numbers only; the settings' defaults are not changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from definitions import list_weights, systems
from elasticsearch import Elasticsearch
from lexical_lists import (
    DEPTH,
    arguments,
    cached_runs,
    command_line,
    publish,
    score,
    single,
    table_row,
    weighted_rrf,
)

from search_platform.backends.elasticsearch.client import build_admin_client
from search_platform.backends.elasticsearch.mappings import SIMILARITY
from search_platform.config import ArmWeights, Settings, load_settings
from search_platform.evaluation.session import load_eval_dataset, platform_session

# b from little to nearly full length normalisation at the default k1, then k1 either side at the default b
GRID = ((1.2, 0.3), (1.2, 0.5), (1.2, 0.75), (1.2, 0.9), (0.9, 0.75), (1.5, 0.75))
LEXICAL_LISTS = ("doc", "passage", "definitions")


@contextmanager
def similarity(client: Elasticsearch, alias: str, *, k1: float, b: float) -> Iterator[None]:
    """The indices behind alias score with (k1, b) inside the block and with what they had before after it."""
    indices = sorted(client.indices.get_alias(name=alias))
    before = {index: client.indices.get_settings(index=index, name=f"index.similarity.{SIMILARITY}.*",
                                                 flat_settings=True)[index]["settings"] for index in indices}
    try:
        for index in indices:
            _put_similarity(client, index, {f"index.similarity.{SIMILARITY}.k1": k1,
                                            f"index.similarity.{SIMILARITY}.b": b})
        yield
    finally:
        for index, settings in before.items():
            _put_similarity(client, index, settings)


def _put_similarity(client: Elasticsearch, index: str, settings: Mapping[str, Any]) -> None:
    client.indices.close(index=index)
    try:
        client.indices.put_settings(index=index, settings=dict(settings))
    finally:
        client.indices.open(index=index, wait_for_active_shards="all")
        client.cluster.health(index=index, wait_for_status="green", timeout="60s")


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings,
            dense_runs: Mapping[str, Any]) -> dict[str, Any]:
    """Per (k1, b) label, every query's five lists: the lexical ones recorded under those parameters, the dense
    ones from `dense_runs`."""
    client = build_admin_client(settings.elasticsearch)
    out: dict[str, Any] = {}
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        assert dataset.corpus is not None
        recorded = dense_runs[dataset.name]
        with platform_session(settings, dataset.corpus, query_cache=True) as session:
            lists = {name: system for name, system in systems(session).items() if name in LEXICAL_LISTS}
            for k1, b in GRID:
                with similarity(client, session.index, k1=k1, b=b):
                    out.setdefault(f"k1={k1:g} b={b:g}", {})[dataset.name] = [
                        {**record, "lists": {**record["lists"], **{
                            name: [hit.doc_id for hit in system.search(query.text, top_k=DEPTH) if hit.score > 0]
                            for name, system in lists.items()}}}
                        for query, record in zip(dataset.queries, recorded, strict=True)]
                print(f"{dataset.name} k1={k1:g} b={b:g}", flush=True)
    return out


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    table: Mapping[Any, ArmWeights] = settings.retrieval.route_weights

    def hybrid(lists: Mapping[str, Sequence[str]], route: str) -> list[str]:
        return weighted_rrf(lists, list_weights(table[route], table[route].definitions), k=settings.retrieval.rrf_k)

    names = list(next(iter(runs.values())))
    es = settings.elasticsearch
    lines = ["# BM25 parameters for whole pages and passages (nDCG@10)", "", f"Command: `{command}`  ",
             f"Defaults: k1={es.bm25_k1:g} b={es.bm25_b:g}; hybrid = the routed weighted RRF of the settings over "
             "document BM25, passage BM25, dense, lead passage and definitions (dense lists recorded once)", "",
             "| k1, b | list | macro | macro exact_match | macro conceptual | macro mixed | "
             + " | ".join(f"{n} all/exact" for n in names) + " |", "|---|---|---|---|---|---|" + "---|" * len(names)]
    for label, by_dataset in runs.items():
        for list_label, ranker in (("hybrid", hybrid), ("doc alone", single("doc")),
                                   ("passage alone", single("passage"))):
            row = table_row(list_label, score(by_dataset, ranker), details=("exact_match",), digits=4)
            lines.append(f"| {label} {row}")
    return "\n".join(lines) + "\n"


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0])
    if args.runs is None or not args.runs.exists():
        raise SystemExit("--runs: the rankings file of benchmarks/definitions.py for the same datasets")
    settings = load_settings()
    dense_runs = cached_runs(args.runs, dict)
    out = args.runs.with_name(f"{args.runs.stem}-bm25-params.json")
    runs = cached_runs(out, lambda: collect(args.dataset, args.corpus, settings, dense_runs))
    publish(report(runs, settings, command_line("bm25_params.py", args)), args.out)


if __name__ == "__main__":
    main()
