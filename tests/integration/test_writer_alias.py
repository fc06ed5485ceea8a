"""Chunk writes go through the index's alias: a vanished alias fails each document with a reason and never
auto-creates a concrete index with a guessed mapping (which would then block the alias from being recreated)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index, ensure_index
from search_platform.config import Settings
from search_platform.domain.models import Document
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.ingestion.pipeline import chunk_document, embed_chunks, index_actions
from search_platform.ingestion.writer import BulkOptions, write_actions

pytestmark = pytest.mark.integration

DIMS = 16


def test_a_write_to_a_vanished_alias_fails_per_document_and_creates_nothing(services: Settings, index: str) -> None:
    embedder = FakeEmbedder(DIMS)
    es = build_client(services.elasticsearch)
    try:
        ensure_index(es, services.elasticsearch, alias=index, dims=DIMS)
        document = Document(doc_id="runbook", content="Rotate the TLS certificates monthly. " * 40, title="Runbook")
        chunks = chunk_document(document, chunking=services.chunking, count_tokens=embedder.count_tokens)
        actions = index_actions(chunks, embed_chunks(chunks, embedder), index=index, indexed_at=datetime.now(UTC))
        delete_index(es, alias=index)  # e.g. deleted by an operator while the batch was embedding

        report = write_actions(es, actions, doc_of={c.chunk_id: c.doc_id for c in chunks}, options=BulkOptions())

        assert report.written == {}
        assert set(report.errors) == {"runbook"}
        assert "Elasticsearch rejected a chunk (404)" in report.errors["runbook"]
        assert not es.indices.exists(index=index)  # no concrete index under the alias's name
        ensure_index(es, services.elasticsearch, alias=index, dims=DIMS)  # so the alias can come back
        assert es.indices.exists_alias(name=index)
    finally:
        delete_index(es, alias=index)
        es.close()
