"""Encoder throughput vs end-to-end ingestion throughput, and query-encoding latency, for the configured backend.

Usage: SP_EMBEDDING__BACKEND=onnx .venv/bin/python benchmarks/ingest_throughput.py [--limit 600] [--no-e2e]
The end-to-end part goes through the running API, Celery worker and Elasticsearch: start the worker with the same
SP_EMBEDDING__* settings, or the two numbers measure different encoders. Numbers are indicative on a shared CPU.

Both parts encode exactly the same passages: the demo chunks as documents whose titles carry a per-run tag (the
title is part of each passage the encoder sees, not of the chunk's token count), chunked by the platform's own
chunker, so the worker's passage-vector cache (embeddings/cache.py) never serves a vector and the end-to-end number
pays for every encoding. The encoder is timed before and after the end-to-end run (the ratio uses their mean, so a
load that changes during the run on a shared machine shows instead of skewing one side); --worker-batches also times
it in calls of one worker batch (SP_INGESTION__DOCUMENTS_PER_TASK passages each).

During the end-to-end run it also reads the CPU seconds each service spent (from /proc: the worker with its pool
processes, Elasticsearch, the API), so what shares the cores with the encoder shows as numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from pathlib import Path

from search_platform_client import SearchClient

from infra.app_processes import API, MARKER, WORKER
from infra.elasticsearch import running_pid
from infra.process import live_pid
from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.cli.keys import run_api_key
from search_platform.config import Settings, get_settings
from search_platform.domain.models import Chunk, Document
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.datasets import load_directory_documents
from search_platform.ingestion.pipeline import chunk_document, embedding_text


def demo_documents(corpus: Path, settings: Settings, embedder: Embedder, *, limit: int) -> list[Document]:
    """The first `limit` chunks of the corpus, cut by the platform's own chunker, as one document each, tagged with
    this run's mark (so no cache has seen them)."""
    mark = uuid.uuid4().hex[:8]
    chunks: list[Chunk] = []
    for document in load_directory_documents(corpus):
        chunks.extend(chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens))
        if len(chunks) >= limit:
            break
    return [Document(doc_id=f"bench-{i}", content=c.text,
                     title=" > ".join(part for part in (f"{c.title} ({mark})", c.section) if part))
            for i, c in enumerate(chunks[:limit])]


def passages(documents: list[Document], settings: Settings, embedder: Embedder) -> list[str]:
    """What the worker encodes for these documents."""
    return [embedding_text(chunk) for document in documents
            for chunk in chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens)]


def encoder_rate(embedder: Embedder, texts: list[str], *, per_call: int | None = None) -> float:
    """Passages per second of embed_documents (all at once, or per_call at a time), after a warm-up batch."""
    embedder.embed_documents(texts[:32])
    step = per_call or len(texts)
    started = time.perf_counter()
    for start in range(0, len(texts), step):
        embedder.embed_documents(texts[start:start + step])
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


CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def service_pids(settings: Settings) -> dict[str, int]:
    """The running services' main pids, as the project's own scripts find them."""
    pids = {"worker": live_pid(WORKER.pid_file(settings), marker=MARKER),
            "api": live_pid(API.pid_file(settings), marker=MARKER),
            "elasticsearch": running_pid(settings)}
    return {name: pid for name, pid in pids.items() if pid is not None}


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of a process and every live descendant (a Celery worker's pool processes)."""
    stats: dict[int, tuple[int, float]] = {}  # pid -> (parent pid, cpu seconds)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _) in stats.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier += children
    return sum(stats[pid][1] for pid in tree if pid in stats)


def cpu_by_service(pids: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of each service's process tree."""
    return {name: tree_cpu_seconds(pid) for name, pid in pids.items()}


def end_to_end_rate(api: str, documents: list[Document], settings: Settings
                    ) -> tuple[float, int, float, dict[str, float]]:
    """Chunks per second through the API, the worker and Elasticsearch into a throwaway index, the count, the wall
    seconds and the CPU seconds each service spent meanwhile."""
    index = f"sp-bench-{uuid.uuid4().hex[:12]}"
    payload = [{"doc_id": d.doc_id, "content": d.content, "title": d.title} for d in documents]
    es = build_client(settings.elasticsearch)
    try:
        with (run_api_key(settings, name="bench-ingest", scopes="ingest") as api_key,
              SearchClient(api, timeout=120, api_key=api_key) as client):
            warm = client.ingest([{"doc_id": "warm-up", "content": f"warm the worker's model {uuid.uuid4().hex}"}],
                                 index=index)
            client.wait_for_job(warm.job_id, timeout_s=600)
            pids = service_pids(settings)
            cpu_before = cpu_by_service(pids)
            started = time.perf_counter()
            job = client.wait_for_job(client.ingest(payload, index=index).job_id, timeout_s=3600, poll_s=0.2)
            elapsed = time.perf_counter() - started
            cpu = {name: seconds - cpu_before[name] for name, seconds in cpu_by_service(pids).items()}
        if job.state != "done" or job.documents_failed:
            raise SystemExit(f"benchmark job ended {job.state}: {dict(list(job.errors.items())[:3])}")
        return job.chunks_done / elapsed, job.chunks_done, elapsed, cpu
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
    parser.add_argument("--worker-batches", action="store_true",
                        help="also time the encoder in calls of one worker batch (documents_per_task passages)")
    args = parser.parse_args()
    settings = get_settings()
    embedder = build_embedder(settings.embedding)
    documents = demo_documents(args.corpus, settings, embedder, limit=args.limit)
    texts = passages(documents, settings, embedder)
    rate = encoder_rate(embedder, texts)
    per_task = settings.ingestion.documents_per_task
    batched = encoder_rate(embedder, texts, per_call=per_task) if args.worker_batches else None
    queries = [item["query"] for item in json.loads(args.golden.read_text())][: args.queries]
    mean_ms, median_ms = query_ms(embedder, queries)
    quantised = " int8" if settings.embedding.backend == "onnx" and settings.embedding.onnx_quantize else ""
    print(f"backend {settings.embedding.backend}{quantised}, {len(texts)} chunks, {len(queries)} queries")
    print(f"encoder:     {rate:8.1f} passages/s")
    if batched is not None:
        print(f"encoder:     {batched:8.1f} passages/s in calls of {per_task} (one worker batch)")
    print(f"query:       {mean_ms:8.2f} ms mean, {median_ms:.2f} ms median")
    if not args.no_e2e:
        e2e, indexed, elapsed, cpu = end_to_end_rate(args.api, documents, settings)
        after = encoder_rate(embedder, texts)  # again, so a load that changed during the run shows
        print(f"end-to-end:  {e2e:8.1f} chunks/s ({indexed} chunks indexed)")
        print(f"encoder:     {after:8.1f} passages/s after the end-to-end run")
        print(f"end-to-end / encoder = {2 * e2e / (rate + after):.2f} (mean of before and after; "
              f"{e2e / rate:.2f} / {e2e / after:.2f})")
        cores = os.cpu_count() or 1
        print(f"CPU seconds during the {elapsed:.1f} s end-to-end run ({cores} cores = {cores * elapsed:.1f} CPU-s):")
        for name, seconds in cpu.items():
            print(f"  {name:<14}{seconds:8.1f}  ({seconds / (cores * elapsed):.0%} of the machine)")

if __name__ == "__main__":
    main()
