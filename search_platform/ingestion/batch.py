"""Ingest one batch of documents: every good document is indexed, every bad one is reported alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.mappings import ensure_index
from search_platform.config import Settings
from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import Chunk, Document
from search_platform.embeddings.base import Embedder
from search_platform.ingestion.pipeline import chunk_document, embed_chunks, index_actions, validate_document
from search_platform.ingestion.writer import BulkOptions, BulkReport, delete_stale_chunks, write_actions


@dataclass(frozen=True, slots=True)
class IngestContext:
    """What ingestion needs, built once per worker process."""

    settings: Settings
    client: Elasticsearch
    embedder: Embedder


def prepare(documents: Sequence[Document], ctx: IngestContext) -> tuple[dict[str, list[Chunk]], dict[str, str]]:
    """Chunks per valid document, and the reason for each invalid one."""
    chunks: dict[str, list[Chunk]] = {}
    errors: dict[str, str] = {}
    for document in documents:
        try:
            validate_document(document, max_bytes=ctx.settings.ingestion.max_document_bytes)
            chunks[document.doc_id] = chunk_document(
                document, chunking=ctx.settings.chunking, count_tokens=ctx.embedder.count_tokens
            )
        except InvalidDocumentError as error:
            errors[document.doc_id] = str(error)
        except (ValueError, UnicodeError, RecursionError) as error:
            errors[document.doc_id] = f"could not parse the document: {error}"
    return chunks, errors


def ingest_documents(documents: Sequence[Document], *, index: str, ctx: IngestContext) -> BulkReport:
    """Validate, chunk, embed and bulk-index documents; then drop chunks left from their older versions."""
    chunks_by_doc, invalid = prepare(documents, ctx)
    report = BulkReport(errors=dict(invalid))
    all_chunks = [chunk for chunks in chunks_by_doc.values() for chunk in chunks]
    if not all_chunks:
        return report
    ensure_index(ctx.client, ctx.settings.elasticsearch, alias=index, dims=ctx.embedder.dims)
    vectors = embed_chunks(all_chunks, ctx.embedder)
    options = BulkOptions(
        chunk_size=ctx.settings.ingestion.bulk_chunk_size,
        max_retries=ctx.settings.ingestion.bulk_max_retries,
        initial_backoff_s=ctx.settings.ingestion.bulk_initial_backoff_s,
    )
    actions = index_actions(all_chunks, vectors, index=index, indexed_at=datetime.now(UTC))
    written = write_actions(ctx.client, actions, doc_of={c.chunk_id: c.doc_id for c in all_chunks}, options=options)
    report.written.update(written.written)
    report.errors.update(written.errors)
    complete = {
        (chunks[0].tenant, doc_id): {chunk.chunk_id for chunk in chunks}
        for doc_id, chunks in chunks_by_doc.items()
        if doc_id not in written.errors
    }
    delete_stale_chunks(ctx.client, index=index, keep=complete)
    return report
