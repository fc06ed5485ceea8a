"""Scale benchmark: ingest 10k and 100k+ chunks of real text on this machine and measure the query legs at each size.

Usage: SP_EMBEDDING__BACKEND=onnx SP_EMBEDDING__ONNX_QUANTIZE=true \
       .venv/bin/python benchmarks/scale.py [--target-chunks 100000] [--small-chunks 10000] > var/scale.log 2>&1

The corpus is Debian's package descriptions (`apt-cache dumpavail`; run `apt-get update` first if it is empty)
followed by text files under /usr/share/doc (changelogs, READMEs, copyright files). Documents are taken in that order
until the platform's own chunker says the target is reached; the small alias gets the leading subset.
Ingestion goes through the platform: this script starts its own `search-platform worker` and `serve` on a private
Redis database and port (so it neither takes nor feeds other workers' tasks) and posts through the SDK.
Writes benchmarks/reports/scale-<timestamp>.{json,md}. Numbers are indicative on a shared 2-core CPU.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx
from search_platform_client import SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import Settings, get_settings
from search_platform.domain.models import Document
from search_platform.embeddings.factory import build_embedder
from search_platform.ingestion.pipeline import chunk_document

ROOT = Path(__file__).resolve().parents[1]
CLI = str(Path(sys.executable).parent / "search-platform")
MODES: tuple[Literal["bm25", "semantic", "hybrid"], ...] = ("bm25", "semantic", "hybrid")
DOC_SUFFIXES = (".txt", ".md")
DOC_NAMES = ("changelog.Debian.gz", "changelog.gz", "NEWS.Debian.gz", "copyright", "README", "README.Debian")
MAX_DOC_BYTES = 200_000
INGEST_BATCH = 5000


@dataclass
class Selection:
    """Documents chosen for the run and how many chunks the leading subset and the whole make."""

    documents: list[dict[str, Any]]
    small_documents: int
    small_chunks: int
    chunks: int


def package_documents() -> Iterator[dict[str, Any]]:
    """One document per Debian package: title = name and synopsis, content = long description."""
    dump = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    seen: set[str] = set()
    for stanza in dump.split("\n\n"):
        fields: dict[str, str] = {}
        key = ""
        for line in stanza.splitlines():
            if line.startswith(" ") and key:
                fields[key] += "\n" + line[1:]
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        name, description = fields.get("Package"), fields.get("Description")
        if not name or not description or name in seen:
            continue
        seen.add(name)
        synopsis, _, body = description.partition("\n")
        body = "\n".join("" if part.strip() == "." else part for part in body.splitlines())
        yield {"doc_id": f"pkg:{name}", "title": f"{name}: {synopsis}", "content": body or synopsis,
               "tags": [fields.get("Section", "unknown")], "source": "apt"}


def doc_files() -> Iterator[dict[str, Any]]:
    """Text files under /usr/share/doc, decompressed, capped at MAX_DOC_BYTES each."""
    for path in sorted(Path("/usr/share/doc").rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        if path.name not in DOC_NAMES and path.suffix not in DOC_SUFFIXES:
            continue
        try:
            with gzip.open(path) if path.suffix == ".gz" else path.open("rb") as handle:
                raw = handle.read(MAX_DOC_BYTES)
            text = raw.decode("utf-8", errors="replace").strip()
        except (OSError, EOFError):
            continue
        if text:
            yield {"doc_id": f"doc:{path.relative_to('/usr/share/doc')}", "title": f"{path.parent.name} {path.name}",
                   "content": text, "tags": ["usr-share-doc"], "source": "doc"}


def select(settings: Settings, *, target: int, small: int) -> Selection:
    """Documents in corpus order until the chunker reaches target chunks; the prefix reaching `small`."""
    embedder = build_embedder(settings.embedding)
    chosen: list[dict[str, Any]] = []
    chunks = 0
    small_docs = small_chunks = 0
    for data in (*package_documents(), *doc_files()):
        document = Document(doc_id=data["doc_id"], content=data["content"], title=data["title"])
        chunks += len(chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens))
        chosen.append(data)
        if not small_docs and chunks >= small:
            small_docs, small_chunks = len(chosen), chunks
        if chunks >= target:
            break
    return Selection(chosen, small_docs, small_chunks, chunks)


def free_port() -> int:
    """An unused loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_stack(redis_url: str, port: int, logs: Path) -> list[subprocess.Popen[bytes]]:
    """Our own worker and API on a private Redis database and port, with this process's SP_* settings; no API keys
    or search logging on this private loopback stack, so the numbers measure retrieval alone."""
    env = {**os.environ, "SP_REDIS__URL": redis_url, "SP_SERVICE__PORT": str(port), "HF_HUB_OFFLINE": "1",
           "SP_AUTH__ENABLED": "false", "SP_ANALYTICS__ENABLED": "false"}  # a private loopback stack
    processes = []
    for command in ("worker", "serve"):
        log = (logs / f"scale-{command}.log").open("ab")
        processes.append(subprocess.Popen([CLI, command], cwd=ROOT, env=env, stdout=log, stderr=log))
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                return processes
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
            stop_stack(processes)
            raise SystemExit(f"the benchmark's API did not start; see {logs}/scale-serve.log")
        time.sleep(1)


def stop_stack(processes: list[subprocess.Popen[bytes]]) -> None:
    """Terminate the worker and API we started."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def ingest(client: SearchClient, documents: list[dict[str, Any]], *, alias: str) -> dict[str, float]:
    """Post every document in API-sized batches, wait for all jobs; chunks, seconds and chunks/s."""
    started = time.perf_counter()
    job_ids = [client.ingest(documents[i : i + INGEST_BATCH], index=alias).job_id
               for i in range(0, len(documents), INGEST_BATCH)]
    chunks = failed = 0
    for job_id in job_ids:
        job = client.wait_for_job(job_id, timeout_s=4 * 3600, poll_s=2.0)
        chunks += job.chunks_done
        failed += job.documents_failed
        print(f"  {alias}: job {job_id} {job.state}, {job.chunks_done} chunks, {time.perf_counter() - started:.0f}s",
              flush=True)
    elapsed = time.perf_counter() - started
    return {"chunks": chunks, "failed_documents": failed, "seconds": elapsed, "chunks_per_s": chunks / elapsed}


def missing(settings: Settings, alias: str, documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documents none of whose chunks the alias holds yet (all of them when the alias does not exist)."""
    es = build_client(settings.elasticsearch)
    try:
        if not es.indices.exists_alias(name=alias):
            return documents
        present: set[str] = set()
        ids = [d["doc_id"] for d in documents]
        for start in range(0, len(ids), 1000):
            body = {"size": 0, "query": {"terms": {"doc_id": ids[start : start + 1000]}},
                    "aggs": {"ids": {"terms": {"field": "doc_id", "size": 1000}}}}
            buckets = es.search(index=alias, body=body)["aggregations"]["ids"]["buckets"]
            present.update(bucket["key"] for bucket in buckets)
    finally:
        es.close()
    return [d for d in documents if d["doc_id"] not in present]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def latencies(client: SearchClient, queries: list[str], *, alias: str) -> dict[str, dict[str, float]]:
    """p50/p95 per mode; each (query, mode) text is distinct so no mode reuses another's cached embedding."""
    for mode in MODES:
        client.search("warm up", mode=mode, index=alias)
    timings: dict[str, list[float]] = {mode: [] for mode in MODES}
    for number, query in enumerate(queries):
        for mode in MODES:
            text = f"{query} {mode} {number}"
            started = time.perf_counter()
            client.search(text, mode=mode, top_k=10, index=alias)
            timings[mode].append((time.perf_counter() - started) * 1000)
    return {mode: {"p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95), "n": len(v)}
            for mode, v in timings.items()}


def footprint(settings: Settings, alias: str) -> dict[str, float]:
    """Chunks, store size and the node's JVM heap in use, after a refresh."""
    es = build_client(settings.elasticsearch)
    try:
        es.indices.refresh(index=alias)
        count = int(es.count(index=alias)["count"])
        stats = es.indices.stats(index=alias, metric="store")["_all"]["primaries"]["store"]["size_in_bytes"]
        total = es.indices.stats(index=alias, metric="store")["_all"]["total"]["store"]["size_in_bytes"]
        nodes = es.nodes.stats(metric="jvm")["nodes"]
        heap = sum(node["jvm"]["mem"]["heap_used_in_bytes"] for node in nodes.values())
        heap_max = sum(node["jvm"]["mem"]["heap_max_in_bytes"] for node in nodes.values())
    finally:
        es.close()
    return {"chunks": count, "store_bytes": float(total), "primary_store_bytes": float(stats),
            "heap_used_bytes": float(heap), "heap_max_bytes": float(heap_max),
            "store_kib_per_1k_chunks": total / 1024 / (count / 1000) if count else 0.0}


def sample_queries(documents: list[dict[str, Any]], count: int) -> list[str]:
    """Package synopses of a fixed random sample, as natural short queries."""
    synopses = [d["title"].split(": ", 1)[1] for d in documents if d["source"] == "apt" and ": " in d["title"]]
    return random.Random(7).sample(synopses, min(count, len(synopses)))


def write_report(result: dict[str, Any], out_dir: Path) -> Path:
    """JSON and a Markdown table next to it."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"scale-{stamp}.json").write_text(json.dumps(result, indent=2))
    lines = [f"# Scale benchmark {stamp}", "", f"backend: {result['backend']}; {result['note']}", "",
             "| alias | chunks | ingest chunks/s | bm25 p50/p95 ms | semantic p50/p95 ms | hybrid p50/p95 ms "
             "| store KiB / 1k chunks | node heap used MiB |", "|---|---|---|---|---|---|---|---|"]
    for alias, row in result["sizes"].items():
        lat, foot = row["latency"], row["footprint"]
        legs = " | ".join(f"{lat[m]['p50_ms']:.1f} / {lat[m]['p95_ms']:.1f}" for m in MODES)
        rate = row["ingest"].get("chunks_per_s")
        lines.append(f"| {alias} | {foot['chunks']} | {'-' if rate is None else f'{rate:.1f}'} | {legs} | "
                     f"{foot['store_kib_per_1k_chunks']:.0f} | {foot['heap_used_bytes'] / 2**20:.0f} |")
    path = out_dir / f"scale-{stamp}.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    """Select, ingest both sizes, measure, report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--target-chunks", type=int, default=100_000)
    parser.add_argument("--small-chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--prefix", default="sp-scale")
    parser.add_argument("--redis-db", type=int, default=15, help="private Redis database of the benchmark's stack")
    parser.add_argument("--logs", type=Path, default=Path("var"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/reports"))
    parser.add_argument("--skip-present", action="store_true",
                        help="resume an interrupted run: ingest only documents the alias does not hold yet "
                             "(ingest throughput is then that of the remainder)")
    args = parser.parse_args()
    settings = get_settings()
    selection = select(settings, target=args.target_chunks, small=args.small_chunks)
    print(f"selected {len(selection.documents)} documents, {selection.chunks} chunks "
          f"(small: {selection.small_documents} documents, {selection.small_chunks} chunks)", flush=True)
    queries = sample_queries(selection.documents, args.queries)
    redis_url = settings.redis.url.rsplit("/", 1)[0] + f"/{args.redis_db}"
    port = free_port()
    args.logs.mkdir(parents=True, exist_ok=True)
    processes = start_stack(redis_url, port, args.logs)
    sizes: dict[str, Any] = {}
    try:
        with SearchClient(f"http://127.0.0.1:{port}", timeout=120) as client:
            plan = ((f"{args.prefix}-10k", selection.documents[: selection.small_documents]),
                    (f"{args.prefix}-100k", selection.documents))
            for alias, wanted in plan:
                documents = missing(settings, alias, wanted) if args.skip_present else wanted
                print(f"  {alias}: {len(documents)} of {len(wanted)} documents to ingest", flush=True)
                report = ingest(client, documents, alias=alias) if documents else {}
                sizes[alias] = {"ingest": report, "footprint": footprint(settings, alias),
                                "latency": latencies(client, queries, alias=alias)}
                print(json.dumps({alias: sizes[alias]}), flush=True)
    finally:
        stop_stack(processes)
    quantised = " int8" if settings.embedding.backend == "onnx" and settings.embedding.onnx_quantize else ""
    result = {"backend": settings.embedding.backend + quantised, "cpus": os.cpu_count(), "sizes": sizes,
              "note": "one shared 2-core machine: other test suites ran at the same time (CPU contention)"}
    print(f"wrote {write_report(result, args.out)}")


if __name__ == "__main__":
    main()
