"""Ingest one batch of documents: every good document is indexed, every bad one is reported alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.mappings import document_record_id, ensure_index
from search_platform.config import Settings
from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import Chunk, Document
from search_platform.embeddings.base import Embedder
from search_platform.ingestion.pipeline import (
    chunk_document,
    document_action,
    embed_chunks,
    index_actions,
    validate_document,
)
from search_platform.ingestion.writer import (
    BulkOptions,
    BulkReport,
    delete_chunks,
    recorded_chunk_ids,
    write_actions,
)


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
            made = chunk_document(document, chunking=ctx.settings.chunking, count_tokens=ctx.embedder.count_tokens)
            check_chunk_count(len(made), limit=ctx.settings.ingestion.max_chunks_per_document)
            chunks[document.doc_id] = made
        except InvalidDocumentError as error:
            errors[document.doc_id] = str(error)
        except (ValueError, UnicodeError, RecursionError) as error:
            errors[document.doc_id] = f"could not parse the document: {error}"
    return chunks, errors


def check_chunk_count(count: int, *, limit: int) -> None:
    """InvalidDocumentError when a document makes more chunks than one document may (it would hold the worker)."""
    if count > limit:
        raise InvalidDocumentError(f"the document makes {count} chunks, over the limit of {limit} per document "
                                   "(SP_INGESTION__MAX_CHUNKS_PER_DOCUMENT); split it into smaller documents")


def ingest_documents(documents: Sequence[Document], *, index: str, ctx: IngestContext) -> BulkReport:
    """Validate, chunk, embed and bulk-index documents, then their records; then delete the chunks their previous
    records listed that this version no longer has (no refresh, no scan: the records are read in real time); a
    document whose stale chunks could not be deleted is reported failed with the reason."""
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
    indexed_at = datetime.now(UTC)
    actions = index_actions(all_chunks, vectors, index=index, indexed_at=indexed_at)
    written = write_actions(ctx.client, actions, doc_of={c.chunk_id: c.doc_id for c in all_chunks}, options=options)
    report.written.update(written.written)
    report.errors.update(written.errors)
    complete = {doc_id: chunks for doc_id, chunks in chunks_by_doc.items() if doc_id not in written.errors}
    record_of = {doc_id: document_record_id(tenant=chunks[0].tenant, doc_id=doc_id)
                 for doc_id, chunks in complete.items()}
    previous = recorded_chunk_ids(ctx.client, index=index, record_ids=list(record_of.values()))
    record_errors = write_document_records(documents, complete, index=index, indexed_at=indexed_at, ctx=ctx,
                                           options=options)
    report.errors.update(record_errors)
    stale = {doc_id: previous[record_of[doc_id]] - {chunk.chunk_id for chunk in chunks}
             for doc_id, chunks in complete.items() if doc_id not in record_errors and record_of[doc_id] in previous}
    report.errors.update(delete_chunks(ctx.client, index=index, stale=stale, options=options))
    return report  # no refresh: the job refreshes once, when its last batch settles (ingestion/bulk_mode.py)


def write_document_records(documents: Sequence[Document], complete: dict[str, list[Chunk]], *, index: str,
                           indexed_at: datetime, ctx: IngestContext, options: BulkOptions) -> dict[str, str]:
    """Write the record of each document whose chunks were all written (its presence marks a complete document);
    returns the reason for each document whose record failed."""
    actions = [document_action(document, complete[document.doc_id], index=index, indexed_at=indexed_at)
               for document in documents if document.doc_id in complete]
    if not actions:
        return {}
    doc_of = {action["_id"]: action["_source"]["doc_id"] for action in actions}
    return write_actions(ctx.client, actions, doc_of=doc_of, options=options).errors
