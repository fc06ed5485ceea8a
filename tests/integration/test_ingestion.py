"""Ingestion through the API, Redis and a real Celery worker into a real Elasticsearch index."""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest
from elasticsearch import Elasticsearch
from redis import Redis
from search_platform_client import SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import ChunkingSettings, Settings
from search_platform.domain.models import Document
from search_platform.ingestion.jobs import JobStore
from search_platform.ingestion.pipeline import chunk_document
from search_platform.ingestion.writer import BulkOptions, delete_chunks
from search_platform.service.routes.ingest import split_documents
from tests.integration.corpus import DOCUMENTS, LONG_DOCUMENT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def count_tokens():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    from search_platform.embeddings.sentence_transformers import packaged_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(packaged_model_path()))
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


@pytest.fixture
def es(services: Settings):
    client = build_client(services.elasticsearch)
    yield client
    client.close()


def expected_chunk_ids(raw: list[dict[str, Any]], chunking: ChunkingSettings, count_tokens) -> set[str]:
    documents: list[Document] = split_documents(raw)[0]
    return {c.chunk_id for d in documents for c in chunk_document(d, chunking=chunking, count_tokens=count_tokens)}


def stored_chunk_ids(es: Elasticsearch, index: str) -> list[str]:
    es.indices.refresh(index=index)
    response = es.search(index=index, size=1000, source=False, query={"term": {"kind": "chunk"}})
    return [hit["_id"] for hit in response["hits"]["hits"]]


def ingest(client: SearchClient, documents: list[dict[str, Any]], index: str):
    job = client.ingest(documents, index=index)
    return client.wait_for_job(job.job_id, timeout_s=300)


def test_exact_chunk_count_and_idempotent_rerun(client, es, index, services, count_tokens):
    corpus = [*DOCUMENTS, LONG_DOCUMENT]
    expected = expected_chunk_ids(corpus, services.chunking, count_tokens)
    assert len(expected) > len(corpus), "the long document must span several chunks"

    first = ingest(client, corpus, index)
    assert first.state == "done", first.errors
    assert (first.documents_done, first.documents_failed, first.chunks_done) == (len(corpus), 0, len(expected))
    assert sorted(stored_chunk_ids(es, index)) == sorted(expected)

    second = ingest(client, corpus, index)
    assert second.state == "done"
    assert sorted(stored_chunk_ids(es, index)) == sorted(expected)


def test_changed_document_leaves_no_old_chunks(client, es, index, services, count_tokens):
    ingest(client, [LONG_DOCUMENT], index)
    old = set(stored_chunk_ids(es, index))
    changed = {**LONG_DOCUMENT, "content": "## Only section\n\nThe guide was rewritten into one short paragraph."}
    job = ingest(client, [changed], index)
    assert job.state == "done"
    now = set(stored_chunk_ids(es, index))
    assert now == expected_chunk_ids([changed], services.chunking, count_tokens)
    assert not now & old


def test_malformed_documents_fail_alone(client, es, index):
    batch: list[dict[str, Any]] = [
        DOCUMENTS[0],
        {"doc_id": "wrong-type", "content": 12345},
        {"doc_id": "blank", "content": "   \n  "},
        {"content": "no id at all"},
        {"doc_id": "bad-type", "content": "x", "content_type": "pdf"},
        DOCUMENTS[1],
    ]
    job = ingest(client, batch, index)
    assert job.documents_total == 6
    assert job.documents_done == 2
    assert set(job.errors) == {"wrong-type", "blank", "#3", "bad-type"}
    assert "content" in job.errors["wrong-type"]
    assert "empty" in job.errors["blank"]
    es.indices.refresh(index=index)
    docs = {hit["_source"]["doc_id"] for hit in es.search(index=index, size=100)["hits"]["hits"]}
    assert docs == {DOCUMENTS[0]["doc_id"], DOCUMENTS[1]["doc_id"]}


def test_job_status_of_unknown_job_is_404(client):
    from search_platform_client import NotFoundError

    with pytest.raises(NotFoundError):
        client.job("no-such-job")


def external_refreshes(es: Elasticsearch, index: str) -> int:
    """Refreshes asked for from outside (the index's own periodic and realtime-get refreshes are not counted)."""
    return int(es.indices.stats(index=index, metric="refresh")["_all"]["primaries"]["refresh"]["external_total"])


def test_a_done_job_is_searchable_after_one_refresh(client, es, index, services, count_tokens):
    seed = ingest(client, [DOCUMENTS[0]], index)
    assert seed.state == "done"
    es.indices.put_settings(index=index, settings={"refresh_interval": "-1"})  # nothing refreshes on its own
    per_batch = services.ingestion.documents_per_task
    corpus = [{"doc_id": f"note-{n}", "title": f"Note {n}", "content": f"Workshop note {n}: the hinge order "
               f"number {1000 + n} ships with {n % 7 + 1} screws and a brass plate."} for n in range(2 * per_batch + 3)]
    before = external_refreshes(es, index)
    job = ingest(client, corpus, index)
    assert job.state == "done" and job.batches_total == 3, job
    assert (job.documents_done, job.documents_failed) == (len(corpus), 0)
    # no refresh by hand: the job's status said done, so its chunks are searchable
    found = es.count(index=index, query={"bool": {"filter": [{"term": {"kind": "chunk"}},
                                                             {"prefix": {"doc_id": "note-"}}]}})["count"]
    assert found == len(expected_chunk_ids(corpus, services.chunking, count_tokens)) == job.chunks_done
    assert external_refreshes(es, index) - before == 1  # one refresh for the job, none per batch


def test_stale_chunk_delete_failures_are_reported_per_document(es, services):
    name = f"sp-test-closed-{uuid.uuid4().hex[:12]}"
    es.indices.create(index=name)
    try:
        es.index(index=name, id="old-chunk", document={"doc_id": "kept"}, refresh=True)
        options = BulkOptions(max_retries=0)
        assert delete_chunks(es, index=name, stale={"kept": {"old-chunk", "already-gone"}}, options=options) == {}
        es.indices.close(index=name)
        errors = delete_chunks(es, index=name, stale={"a": {"chunk-a"}, "b": {"chunk-b1", "chunk-b2"}},
                               options=options)
        assert set(errors) == {"a", "b"}
        assert all(reason.startswith("deleting an older chunk failed") and "closed" in reason
                   for reason in errors.values())
    finally:
        es.indices.delete(index=name, ignore_unavailable=True)


def test_the_last_batch_to_settle_is_known_once_per_run(services):
    redis: Redis[bytes] = Redis.from_url(services.redis.url)
    prefix = f"sp-test-job-{uuid.uuid4().hex[:8]}"
    store = JobStore(redis, ttl_s=600, prefix=prefix)
    batches = [[Document(doc_id=f"d{n}", content="text")] for n in range(3)]
    job_id = store.create(index="sp-test-unused", batches=batches)
    try:
        assert [store.last_to_settle(job_id, n) for n in (0, 2)] == [False, False]
        assert store.last_to_settle(job_id, 1)
        assert store.last_to_settle(job_id, 1)  # a redelivery of the last batch refreshes again: harmless
        store.fail_batch(job_id, ["d1"], "gave up", batch=1)
        assert store.take_failed_batches(job_id) == [1]  # resumed: batch 1 settles again when it re-runs
        assert not store.last_to_settle(job_id, 0)
        assert store.last_to_settle(job_id, 1)
    finally:
        redis.delete(*redis.keys(f"{prefix}*"))
        redis.close()
