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

from definitions import dataset_sessions, rerecorded, rerecorded_main, systems, variants_table
from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.client import build_admin_client
from search_platform.backends.elasticsearch.mappings import SIMILARITY
from search_platform.config import Settings

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
    for dataset, session in dataset_sessions(datasets, corpus, settings):
        lists = {name: system for name, system in systems(session).items() if name in LEXICAL_LISTS}
        for k1, b in GRID:
            with similarity(client, session.index, k1=k1, b=b):
                out.setdefault(f"k1={k1:g} b={b:g}", {})[dataset.name] = rerecorded(
                    dataset, dense_runs[dataset.name], lists)
            print(f"{dataset.name} k1={k1:g} b={b:g}", flush=True)
    return out


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    es = settings.elasticsearch
    lines = ["# BM25 parameters for whole pages and passages (nDCG@10)", "", f"Command: `{command}`  ",
             f"Defaults: k1={es.bm25_k1:g} b={es.bm25_b:g}; hybrid = the routed weighted RRF of the settings over "
             "document BM25, passage BM25, dense, lead passage and definitions (dense lists recorded once)", "",
             *variants_table(runs, settings, "k1, b")]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    rerecorded_main("bm25_params.py", __doc__.split("\n\n")[0], collect, report)
