"""The floor under a hybrid request on this machine: what the cheapest possible piece of each stage costs.

Usage: .venv/bin/python benchmarks/latency_floor.py [--api URL] [--index ALIAS] [--n N]

Measures, each as a p50 over N requests or calls:
- HTTP: a request the API answers without any work (an unknown path: routing, middleware, a 404 body);
- Elasticsearch: a search that matches nothing, through the platform's async client (HTTP, security, parsing);
- query encoding in this process, fp32 and int8 ONNX, over query texts never encoded before.

A hybrid search needs at least one HTTP request, one query encoding and two Elasticsearch round trips one after
the other (the legs, then the page's stored fields); the BM25 legs run while the query is encoded, so they hide.
The sum of those floors is printed beside the fast-path target (hybrid p50 <= 13 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import Settings, load_settings
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.metrics import percentile

TARGET_MS = 13.0


def timed(call: Callable[[], object], n: int) -> float:
    """p50 milliseconds of n calls."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return percentile(samples, 50)


async def timed_async(call: Callable[[], Awaitable[object]], n: int) -> float:
    """p50 milliseconds of n awaited calls."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return percentile(samples, 50)


async def elasticsearch_floor(settings: Settings, index: str, n: int) -> float:
    """An empty search's round trip through the platform's client."""
    client = build_async_client(settings.elasticsearch)
    body = {"size": 0, "track_total_hits": False, "query": {"match_none": {}}}
    try:
        await client.search(index=index, body=body)  # connection and warm-up
        return await timed_async(lambda: client.search(index=index, body=body), n)
    finally:
        await client.close()


def encode_floor(settings: Settings, queries: list[str], *, quantize: bool) -> float:
    """One query's encoding, every text new to the encoder."""
    embedding = settings.embedding.model_copy(update={"backend": "onnx", "onnx_quantize": quantize})
    embedder = build_embedder(embedding)
    embedder.embed_query("warm up")
    texts = iter(f"{query} {number}" for number, query in enumerate(queries * 10))
    return timed(lambda: embedder.embed_query(next(texts)), min(len(queries) * 10, 300))


def main() -> None:
    """Measure each floor and print them with their sum."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--index", default=None, help="alias to search (default: the configured one)")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    args = parser.parse_args()
    settings = load_settings()
    index = args.index or settings.elasticsearch.index_alias
    queries = [item["query"] for item in json.loads(args.golden.read_text())]
    with httpx.Client(base_url=args.api, timeout=30) as http:
        http.get("/no-such-path")
        http_ms = timed(lambda: http.get("/no-such-path"), args.n)
    es_ms = asyncio.run(elasticsearch_floor(settings, index, args.n))
    fp32_ms = encode_floor(settings, queries, quantize=False)
    int8_ms = encode_floor(settings, queries, quantize=True)
    print(f"{'floor':<44}{'p50 ms':>8}")
    print(f"{'HTTP request answered with no work':<44}{http_ms:>8.2f}")
    print(f"{'Elasticsearch empty search':<44}{es_ms:>8.2f}")
    print(f"{'query encoding, ONNX fp32 (default)':<44}{fp32_ms:>8.2f}")
    print(f"{'query encoding, ONNX int8':<44}{int8_ms:>8.2f}")
    for name, encode_ms in (("fp32", fp32_ms), ("int8", int8_ms)):
        floor = http_ms + encode_ms + 2 * es_ms
        print(f"hybrid floor with {name}: HTTP + encode + 2 x ES = {floor:.2f} ms (target {TARGET_MS:.0f} ms)")


if __name__ == "__main__":
    main()
