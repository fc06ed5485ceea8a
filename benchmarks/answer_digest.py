"""What the search answers, as JSON lines without timings: run it under two versions of the code against the same
index and diff the files to show a change kept every answer (hits, order, fields, highlights, explanations).

Usage: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/answer_digest.py --index ALIAS --out FILE [--queries 20]
(one torch thread makes query vectors, hence dense scores, bit-for-bit repeatable; with several threads they vary
in the 7th digit from run to run). To cover the rerank path, point SP_RERANK__MODEL_PATH at a cross-encoder
(tests/tiny_cross_encoder.py builds a tiny one).
Runs the golden set's first N queries in-process through the search service (the HTTP layer's wire conversion)
over every mode, chunk and document results, highlights on and off, explain on, the score-based fusions, a
second page and a rerank request when a reranker is configured. The query-embedding cache in Redis is not used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import load_settings
from search_platform.domain.models import GroupBy, SearchMode
from search_platform.embeddings.factory import build_embedder
from search_platform.service.resources import build_search_service
from search_platform.service.routes.search import to_response
from search_platform.service.search_service import SearchParams

TIMINGS = ("took_ms", "leg_took_ms")


def variants(query: str, index: str, *, rerank: bool) -> Iterator[SearchParams]:
    """Every request shape the digest covers, for one query."""
    for mode in SearchMode:
        for group_by in GroupBy:
            for highlight in (True, False):
                yield SearchParams(query=query, mode=mode, group_by=group_by, highlight=highlight, explain=True,
                                   top_k=10, index=index)
    for fusion in ("convex", "dbsf", "weighted_rrf"):
        yield SearchParams(query=query, fusion=fusion, highlight=True, explain=True, top_k=10, index=index)
    yield SearchParams(query=query, page=2, window=30, highlight=True, top_k=10, index=index)
    yield SearchParams(query=query, page=2, window=30, group_by=GroupBy.DOCUMENT, top_k=10, index=index)
    if rerank:
        yield SearchParams(query=query, rerank=True, highlight=True, explain=True, top_k=10, index=index)


def without_timings(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with the fields that differ from run to run removed."""
    return {key: value for key, value in answer.items() if key not in TIMINGS}


async def run(args: argparse.Namespace) -> None:
    """Write one line per request: the request's shape and the answer."""
    settings = load_settings(embedding={"query_cache_redis": False})
    es = build_async_client(settings.elasticsearch)
    service = build_search_service(settings, es, build_embedder(settings.embedding))
    queries = [item["query"] for item in json.loads(args.golden.read_text())][: args.queries]
    rerank = settings.rerank.model_path is not None
    lines = 0
    try:
        with args.out.open("w") as out:
            for query in queries:
                for params in variants(query, args.index, rerank=rerank):
                    request, result = await service.search(params)
                    answer = without_timings(to_response(request, result).model_dump(mode="json"))
                    shape = {"query": query, "mode": params.mode.value, "group_by": params.group_by.value,
                             "highlight": params.highlight, "fusion": params.fusion, "page": params.page,
                             "rerank": params.rerank}
                    out.write(json.dumps({"request": shape, "answer": answer}, sort_keys=True) + "\n")
                    lines += 1
    finally:
        await es.close()
    print(f"wrote {lines} answers to {args.out}")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
