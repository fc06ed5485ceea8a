"""Encoder throughput vs end-to-end ingestion throughput, and query-encoding latency, for the configured backend.

Usage: SP_EMBEDDING__BACKEND=onnx .venv/bin/python benchmarks/ingest_throughput.py [--limit 600] [--no-e2e]
The end-to-end part goes through the running API, Celery worker and Elasticsearch: start the worker with the same
SP_EMBEDDING__* settings, or the two numbers measure different encoders. Numbers are indicative on a shared CPU.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid
from pathlib import Path

from search_platform_client import SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.cli.keys import run_api_key
from search_platform.config import Settings, get_settings
from search_platform.domain.models import Chunk
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.datasets import load_directory_documents
from search_platform.ingestion.pipeline import chunk_document, embedding_text


def demo_chunks(corpus: Path, settings: Settings, embedder: Embedder, *, limit: int) -> list[Chunk]:
    """The first `limit` chunks of the corpus, cut by the platform's own chunker."""
    chunks: list[Chunk] = []
    for document in load_directory_documents(corpus):
        chunks.extend(chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens))
        if len(chunks) >= limit:
            break
    return chunks[:limit]


def encoder_rate(embedder: Embedder, texts: list[str]) -> float:
    """Passages per second of embed_documents, after a warm-up batch."""
    embedder.embed_documents(texts[:32])
    started = time.perf_counter()
    embedder.embed_documents(texts)
    return len(texts) / (time.perf_counter() - started)


def query_ms(embedder: Embedder, queries: list[str]) -> tuple[float, float]:
    """Mean and median milliseconds to encode one query."""
    embedder.embed_query("warm-up")
    timings = []
    for query in queries:
        started = time.perf_counter()
        embedder.embed_query(query)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.fmean(timings), statistics.median(timings)


def end_to_end_rate(api: str, chunks: list[Chunk], settings: Settings) -> tuple[float, int]:
    """Chunks per second through the API, the worker and Elasticsearch into a throwaway index, and the count."""
    index = f"sp-bench-{uuid.uuid4().hex[:12]}"
    documents = [{"doc_id": f"bench-{i}", "content": c.text,
                  "title": " > ".join(part for part in (c.title, c.section) if part)} for i, c in enumerate(chunks)]
    es = build_client(settings.elasticsearch)
    try:
        with (run_api_key(settings, name="bench-ingest", scopes="ingest") as api_key,
              SearchClient(api, timeout=120, api_key=api_key) as client):
            warm = client.ingest([{"doc_id": "warm-up", "content": "warm the worker's model"}], index=index)
            client.wait_for_job(warm.job_id, timeout_s=600)
            started = time.perf_counter()
            job = client.wait_for_job(client.ingest(documents, index=index).job_id, timeout_s=3600, poll_s=0.2)
            elapsed = time.perf_counter() - started
        if job.state != "done" or job.documents_failed:
            raise SystemExit(f"benchmark job ended {job.state}: {dict(list(job.errors.items())[:3])}")
        return job.chunks_done / elapsed, job.chunks_done
    finally:
        delete_index(es, alias=index)
        es.close()


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("var/demo-corpus"))
    parser.add_argument("--limit", type=int, default=600)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--no-e2e", action="store_true", help="only the in-process encoder numbers")
    args = parser.parse_args()
    settings = get_settings()
    embedder = build_embedder(settings.embedding)
    chunks = demo_chunks(args.corpus, settings, embedder, limit=args.limit)
    rate = encoder_rate(embedder, [embedding_text(c) for c in chunks])
    queries = [item["query"] for item in json.loads(args.golden.read_text())][: args.queries]
    mean_ms, median_ms = query_ms(embedder, queries)
    quantised = " int8" if settings.embedding.backend == "onnx" and settings.embedding.onnx_quantize else ""
    print(f"backend {settings.embedding.backend}{quantised}, {len(chunks)} chunks, {len(queries)} queries")
    print(f"encoder:     {rate:8.1f} passages/s")
    print(f"query:       {mean_ms:8.2f} ms mean, {median_ms:.2f} ms median")
    if not args.no_e2e:
        e2e, indexed = end_to_end_rate(args.api, chunks, settings)
        print(f"end-to-end:  {e2e:8.1f} chunks/s ({indexed} chunks indexed)")
        print(f"end-to-end / encoder = {e2e / rate:.2f}")


if __name__ == "__main__":
    main()
