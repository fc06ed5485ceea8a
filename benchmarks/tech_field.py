"""Is the technical-terms field worth its keep? nDCG@10 with the field on vs off, per dataset and mode.

    .venv/bin/python benchmarks/tech_field.py --corpus var/demo-corpus \
        datasets/golden/python-docs.json datasets/identifiers/python-bare-names.json

Needs the platform up with a worker (`search-platform up --app`): the corpus is ingested once, through Celery,
into the same evaluation index `search-platform eval` uses. For each dataset it runs bm25 and hybrid with the
field off (tech_boost=0), on with the query's technical terms only, on with the plain words of lookup-shaped
queries too (retrieval.tech_lookup_max_words=2) and on with every query's plain words, and prints nDCG@10 and
Recall@10 per category with the paired-bootstrap 95% CI of each variant minus "off".
Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import Settings, load_settings
from search_platform.domain.models import Document, SearchMode
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.bootstrap import compare_systems
from search_platform.evaluation.platform import PlatformSystem
from search_platform.evaluation.runner import SystemResult, run_system, summarise
from search_platform.evaluation.session import load_eval_dataset, platform_session
from search_platform.service.resources import build_search_service

METRICS = ("ndcg_at_10", "recall_at_10")
TOP_K = 10
MODES = (SearchMode.BM25, SearchMode.HYBRID)
# label -> retrieval.tech_lookup_max_words ("off" also sends tech_boost=0)
VARIANTS = {"off": 0, "technical only": 0, "lookups <= 2 words": 2, "every query": 10_000}


def _row(label: str, values: dict[str, float]) -> str:
    return f"| {label} | " + " | ".join(f"{values[m]:.3f}" for m in METRICS) + " |"


def report(name: str, results: list[SystemResult], categories: dict[str, str]) -> list[str]:
    """Markdown lines: each variant's means per category, then each variant's paired difference to the first."""
    lines = [f"### {name}", "", "| variant | " + " | ".join(METRICS) + " |", "|---|---|---|"]
    for result in results:
        summary = summarise(result, categories)
        lines.append(_row(f"{result.name}, all ({len(categories)})", summary.overall))
        lines += [_row(f"{result.name}, {category}", values) for category, values in summary.by_category.items()]
    baseline = results[0]
    for result in results[1:]:
        comparison = compare_systems((result.name, result.per_query), (baseline.name, baseline.per_query),
                                     categories, METRICS)
        for metric in METRICS:
            delta = comparison.overall[metric]
            lines.append(f"\n{result.name} - {baseline.name}, {metric}: {delta.delta:+.3f} "
                         f"[95% CI {delta.ci_low:+.3f}, {delta.ci_high:+.3f}]")
    return [*lines, ""]


def main() -> None:
    """Run both variants on each dataset and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--index", help="search this already-ingested alias instead of the evaluation index")
    args = parser.parse_args()
    settings = load_settings()
    loaded = [(path, *load_eval_dataset(path, args.corpus)) for path in args.datasets]
    corpus = loaded[0][2]
    with _session(settings, corpus, args.index) as (loop, es, embedder, index):
        services = {label: build_search_service(_variant(settings, lookup_words=words), es, embedder)
                    for label, words in VARIANTS.items()}
        params: dict[str, dict[str, Any]] = {label: {"tech_boost": 0.0} if label == "off" else {}
                                             for label in VARIANTS}
        for path, dataset, _ in loaded:
            categories = {query.query_id: query.category for query in dataset.queries}
            for mode in MODES:
                results = [
                    run_system(PlatformSystem(mode, service, index, loop, params=params[label], label=label),
                               dataset.queries, top_k=TOP_K, fetch_k=100)
                    for label, service in services.items()
                ]
                print("\n".join(report(f"{path.name}, {mode.value}", results, categories)), flush=True)


def _variant(settings: Settings, *, lookup_words: int) -> Settings:
    retrieval = settings.retrieval.model_copy(update={"tech_lookup_max_words": lookup_words})
    return settings.model_copy(update={"retrieval": retrieval})


@contextmanager
def _session(settings: Settings, corpus: Sequence[Document], index: str | None
             ) -> Iterator[tuple[asyncio.AbstractEventLoop, AsyncElasticsearch, Embedder, str]]:
    """The evaluation index (ingested once through Celery), or an alias that is already there."""
    if index is None:
        with platform_session(settings, corpus, query_cache=True) as session:
            es = build_async_client(settings.elasticsearch)
            yield session.loop, es, session.embedder, session.index
            session.loop.run_until_complete(es.close())
        return
    loop = asyncio.new_event_loop()
    es = build_async_client(settings.elasticsearch)
    try:
        yield loop, es, build_embedder(settings.embedding), index
    finally:
        loop.run_until_complete(es.close())
        loop.close()

if __name__ == "__main__":
    main()
