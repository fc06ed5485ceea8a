"""Time `search-platform reindex` on a dev-set corpus: ingest it through Celery into a throwaway alias, then rebuild
that alias from its document records and swap it, printing the counts and the seconds of each step.

Usage: .venv/bin/python benchmarks/reindex_migration.py [--corpus datasets/postgresql-docs/corpus.jsonl]
       [--limit 300] [--keep]
Needs Elasticsearch, Redis and a Celery worker on the configured settings (`search-platform up --app`). The worker's
passage-vector cache (SP_EMBEDDING__PASSAGE_CACHE_DIR) serves text it has encoded before, so with an unchanged model
the rebuild mostly measures chunking, bulk writes and verification; a new model pays the encoder on every chunk,
as the initial ingest does on a cold cache. Numbers are indicative on a shared CPU.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from functools import partial
from pathlib import Path

from redis import Redis

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.config import get_settings
from search_platform.domain.models import Document
from search_platform.embeddings.factory import build_embedder
from search_platform.ingestion.jobs import JobState, JobStore, submit, wait_for
from search_platform.ingestion.queue import create_celery, enqueue_batch
from search_platform.ingestion.reindex import Reindexer


def read_corpus(path: Path, *, limit: int) -> list[Document]:
    """The first `limit` documents of a BEIR corpus.jsonl."""
    documents = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            documents.append(Document(doc_id=row["_id"], content=row["text"], title=row.get("title", ""),
                                      source=path.parent.name))
            if len(documents) >= limit:
                break
    return documents


def main() -> None:
    """Ingest, re-index, print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("datasets/postgresql-docs/corpus.jsonl"))
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--keep", action="store_true", help="keep the indices afterwards")
    args = parser.parse_args()
    settings = get_settings()
    celery = create_celery(settings)
    if not celery.control.ping(timeout=2.0):
        raise SystemExit("no Celery worker answers: start one with `search-platform up --app`")
    documents = read_corpus(args.corpus, limit=args.limit)
    alias = f"sp-bench-reindex-{uuid.uuid4().hex[:10]}"
    redis: Redis[bytes] = Redis.from_url(settings.redis.url)
    es = build_client(settings.elasticsearch)
    store = JobStore.from_settings(redis, settings)
    enqueue = partial(enqueue_batch, celery)
    old: tuple[str, ...] = ()
    try:
        started = time.perf_counter()
        job_id = submit(store, enqueue, documents, index=alias, per_batch=settings.ingestion.documents_per_task,
                        max_batch_bytes=settings.ingestion.max_batch_bytes, tenant="default")
        status = wait_for(store, job_id, timeout_s=7200, poll_s=0.2)
        ingest_s = time.perf_counter() - started
        if status.state is not JobState.DONE or status.documents_failed:
            raise SystemExit(f"initial ingest ended {status.state}: {dict(list(status.errors.items())[:3])}")
        reindexer = Reindexer(settings=settings, client=es, store=store, enqueue=enqueue,
                              dims=lambda: build_embedder(settings.embedding).dims)
        report = reindexer.run(alias=alias)
        old = report.old_indices
        chunks = report.after.chunks
        print(f"corpus {args.corpus} ({len(documents)} documents), model backend {settings.embedding.backend}")
        print(f"initial ingest: {ingest_s:.1f} s, {chunks / ingest_s:.1f} chunks/s")
        print(f"before: {report.before}\nafter:  {report.after}")
        print("reindex: " + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in report.seconds.items())
              + f"; {chunks / report.seconds['total']:.1f} chunks/s")
    finally:
        if not args.keep:
            delete_index(es, alias=alias)
            for index in old:
                es.indices.delete(index=index, ignore_unavailable=True)
        es.close()
        redis.close()


if __name__ == "__main__":
    main()
