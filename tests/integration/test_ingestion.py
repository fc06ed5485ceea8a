"""Ingestion through the API, Redis and a real Celery worker into a real Elasticsearch index."""

from __future__ import annotations

import os
from typing import Any

import pytest
from elasticsearch import Elasticsearch
from search_platform_client import SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import ChunkingSettings, Settings
from search_platform.domain.models import Document
from search_platform.ingestion.pipeline import chunk_document
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
