"""Which way of running the two legs is faster: asyncio.gather of two searches, or one _msearch?

gather lets the BM25 request run while the query is being embedded; _msearch needs the vector first but
saves a round trip. Usage: .venv/bin/python benchmarks/legs_concurrency.py [--index ALIAS] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.backends.elasticsearch.mappings import RecordKind
from search_platform.backends.elasticsearch.queries import bm25_body, knn_body, num_candidates_for
from search_platform.config import RetrievalSettings, load_settings
from search_platform.domain.models import Leg, SearchMode
from search_platform.embeddings.factory import build_embedder
from search_platform.retrieval.base import ranked_list_from_response
from search_platform.retrieval.fusion import FusionParams, fuse_rrf
from search_platform.retrieval.hybrid import SearchRequest
from search_platform.service.resources import build_search_service
from search_platform.text.tokenizer import technical_query


def msearch_bodies(query: str, vector: list[float], candidate_k: int, settings: RetrievalSettings
                   ) -> list[dict[str, Any]]:
    """The two leg bodies (chunk BM25 with the configured fields, kNN) as one _msearch payload."""
    bm25 = bm25_body(query, fields=settings.chunk_fields, kind=RecordKind.CHUNK, tech_query=technical_query(query),
                     candidate_k=candidate_k, filters=[], tech_boost=settings.tech_boost)
    knn = knn_body(vector, candidate_k=candidate_k,
                   num_candidates=num_candidates_for(candidate_k, factor=2.0, minimum=100), filters=[])
    return [{}, bm25, {}, knn]


async def run(index: str, queries: list[str], rounds: int) -> None:
    """Time both strategies on the same queries, alternating to share any drift."""
    settings = load_settings(embedding={"query_cache_size": 0})
    embedder = build_embedder(settings.embedding)
    es = build_async_client(settings.elasticsearch)
    service = build_search_service(settings, es, embedder)
    searcher = service._searcher
    timings: dict[str, list[float]] = {"gather": [], "msearch": []}
    for round_number in range(rounds):
        for query in queries:
            text = f"{query} {round_number}" if round_number else query
            started = time.perf_counter()
            await searcher.search(SearchRequest(query=text, mode=SearchMode.HYBRID, index=index, top_k=10,
                                                candidate_k=100, rrf_k=60))
            timings["gather"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            vector = await asyncio.to_thread(embedder.embed_query, text)
            response = await es.msearch(index=index, searches=msearch_bodies(text, vector, 100, settings.retrieval))
            lists = [ranked_list_from_response(leg, body, started=started)
                     for leg, body in zip((Leg.BM25, Leg.DENSE), response["responses"], strict=True)]
            fuse_rrf(lists, FusionParams(rrf_k=60))
            timings["msearch"].append((time.perf_counter() - started) * 1000)
    await es.close()
    for name, values in timings.items():
        ordered = sorted(values)
        print(f"{name:<8} n={len(values)} p50={statistics.median(values):.1f} ms "
              f"p95={ordered[int(0.95 * (len(ordered) - 1))]:.1f} ms mean={statistics.fmean(values):.1f} ms")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", default="sp-chunks")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    args = parser.parse_args()
    queries = [item["query"] for item in json.loads(args.golden.read_text())]
    asyncio.run(run(args.index, queries, args.rounds))


if __name__ == "__main__":
    main()
