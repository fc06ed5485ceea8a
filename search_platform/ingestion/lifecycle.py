"""Document lifecycle: look a document up, delete documents (by id or by filter), purge a tenant.

Deletes and ingest jobs are ordered by one sequence (JobStore.next_sequence). A delete takes the next number and
leaves a tombstone per document (per tenant for a purge) in Redis *before* it deletes from Elasticsearch; a worker
drops the documents of its batch that were tombstoned after its job was created, and looks again after writing,
deleting what it wrote if a tombstone appeared meanwhile. Either the worker's write finished before the tombstone
(then the delete, which refreshes first, finds and removes it) or the worker sees the tombstone: a delete racing an
in-flight ingest of the same document always ends deleted, and only a job submitted after the delete brings it back.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from elasticsearch import AsyncElasticsearch, Elasticsearch
from elasticsearch.helpers import async_bulk, async_scan, bulk, scan
from redis import Redis

from search_platform.backends.elasticsearch.errors import async_translated_errors, translated_errors
from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.domain.errors import SearchPlatformError
from search_platform.domain.ids import scoped
from search_platform.domain.models import Document, Filters
from search_platform.ingestion.batch import IngestContext, ingest_documents
from search_platform.ingestion.writer import BulkReport

DELETED_REASON = "deleted: a delete request made after this job was submitted wins over it"
Pair = tuple[str, str]  # (tenant, doc_id)


class DocumentNotFoundError(SearchPlatformError):
    """No document with this id (for this tenant) in the index (HTTP 404)."""


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """What the index holds of one document."""

    doc_id: str
    tenant: str
    index: str
    chunk_count: int
    content_hash: str  # of the whole content when the index keeps document records, else of the chunks' hashes
    indexed_at: str | None
    title: str = ""
    source: str = ""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DeleteReport:
    """What a delete did: the documents it tombstoned and the records it removed from Elasticsearch."""

    documents: tuple[Pair, ...] = ()
    records_deleted: int = 0
    indices_deleted: tuple[str, ...] = field(default_factory=tuple)


class Tombstones:
    """Per-document and per-tenant delete marks, holding the sequence number of the delete."""

    def __init__(self, redis: Redis[bytes], *, ttl_s: int, prefix: str = "sp:tombstone") -> None:
        self._redis = redis
        self._ttl_s = ttl_s
        self._prefix = prefix

    def _document(self, index: str, tenant: str, doc_id: str) -> str:
        return f"{self._prefix}:doc:{scoped(tenant, json.dumps([index, doc_id]))}"

    def _tenant(self, tenant: str) -> str:
        return f"{self._prefix}:tenant:{scoped(tenant)}"

    def bury(self, sequence: int, *, index: str, documents: Iterable[Pair]) -> None:
        """Mark documents of an index deleted as of sequence."""
        pipe = self._redis.pipeline()
        for tenant, doc_id in documents:
            pipe.set(self._document(index, tenant, doc_id), sequence, ex=self._ttl_s)
        pipe.execute()

    def bury_tenant(self, sequence: int, tenant: str) -> None:
        """Mark every document of a tenant, in every index, deleted as of sequence."""
        self._redis.set(self._tenant(tenant), sequence, ex=self._ttl_s)

    def deleted_after(self, sequence: int, *, index: str, documents: Sequence[Document]) -> set[str]:
        """The doc ids among documents deleted by a delete later than sequence (a job's own number)."""
        if not documents:
            return set()
        names = [self._document(index, d.tenant, d.doc_id) for d in documents]
        names += [self._tenant(d.tenant) for d in documents]
        marks = self._redis.mget(names)
        count = len(documents)
        return {d.doc_id for n, d in enumerate(documents)
                if any(mark is not None and int(mark) > sequence for mark in (marks[n], marks[count + n]))}


def records_query(filters: Filters) -> dict[str, Any]:
    """The query matching every record (chunks and document records) that the filters select."""
    return {"bool": {"filter": filter_clauses(filters)}}


def summarize(hits: Sequence[dict[str, Any]], *, index: str, tenant: str, doc_id: str) -> DocumentInfo:
    """A document's summary from its records: chunks have a chunk_index, the document record (if any) does not."""
    chunks = sorted((h["_source"] for h in hits if "chunk_index" in h["_source"]), key=lambda s: s["chunk_index"])
    records = [h["_source"] for h in hits if "chunk_index" not in h["_source"]]
    if not chunks:
        raise DocumentNotFoundError(f"no document {doc_id!r} of tenant {tenant!r} in index {index!r}")
    first = records[0] if records else chunks[0]
    if records and records[0].get("content_hash"):
        digest = str(records[0]["content_hash"])
    else:
        digest = hashlib.sha256("".join(str(c.get("content_hash", "")) for c in chunks).encode()).hexdigest()[:16]
    stamps = [str(c["indexed_at"]) for c in chunks if c.get("indexed_at")]
    return DocumentInfo(doc_id=doc_id, tenant=tenant, index=index, chunk_count=len(chunks), content_hash=digest,
                        indexed_at=max(stamps) if stamps else None, title=str(first.get("title", "")),
                        source=str(first.get("source", "")), tags=tuple(first.get("tags", ())))


SUMMARY_FIELDS = ["doc_id", "chunk_index", "content_hash", "indexed_at", "title", "source", "tags", "tenant"]


async def get_document(es: AsyncElasticsearch, *, index: str, tenant: str, doc_id: str, max_records: int
                       ) -> DocumentInfo:
    """The summary of one document of a tenant; DocumentNotFoundError when the index has none of its chunks."""
    query = records_query(Filters(doc_ids=(doc_id,), tenants=(tenant,)))
    async with async_translated_errors():
        response = await es.search(index=index, query=query, size=max_records + 1, source_includes=SUMMARY_FIELDS)
    return summarize(response["hits"]["hits"], index=index, tenant=tenant, doc_id=doc_id)


async def matching_documents(es: AsyncElasticsearch, *, index: str, filters: Filters) -> set[Pair]:
    """Every (tenant, doc_id) with a record the filters select."""
    found: set[Pair] = set()
    async with async_translated_errors():
        async for hit in async_scan(es, index=index, query={"query": records_query(filters),
                                                            "_source": ["doc_id", "tenant"]}, size=1000,
                                    ignore_unavailable=True):  # no index yet: an ingest may still create it
            found.add((str(hit["_source"]["tenant"]), str(hit["_source"]["doc_id"])))
    return found


async def delete_records(es: AsyncElasticsearch, *, index: str, filters: Filters) -> int:
    """Delete every record the filters select, after a refresh so that writes acknowledged so far are seen (scan and
    bulk delete: the minimal Elasticsearch distribution has no delete-by-query)."""
    async with async_translated_errors():
        await es.indices.refresh(index=index, ignore_unavailable=True)
        actions = [{"_op_type": "delete", "_index": hit["_index"], "_id": hit["_id"]}
                   async for hit in async_scan(es, index=index, query={"query": records_query(filters)},
                                               _source=False, size=1000, ignore_unavailable=True)]
        if not actions:
            return 0
        deleted, _ = await async_bulk(es, actions, refresh=True, raise_on_error=False)
    return int(deleted)


async def delete_documents(es: AsyncElasticsearch, tombstones: Tombstones, sequence: int, *, index: str,
                           filters: Filters, by_id: Sequence[Pair] = ()) -> DeleteReport:
    """Tombstone, then delete, the documents the filters select (and the (tenant, doc_id) pairs named by id, even
    those not indexed yet, so that an ingest still in flight ends deleted too)."""
    pairs = set(by_id) | await matching_documents(es, index=index, filters=filters)
    tombstones.bury(sequence, index=index, documents=pairs)
    deleted = await delete_records(es, index=index, filters=filters) if pairs else 0
    return DeleteReport(documents=tuple(sorted(pairs)), records_deleted=deleted)


async def purge_tenant(es: AsyncElasticsearch, tombstones: Tombstones, sequence: int, *, tenant: str,
                       indices: str, namespace: str | None) -> DeleteReport:
    """Every record of the tenant in every index matching `indices` deleted, and its own namespace's indices."""
    tombstones.bury_tenant(sequence, tenant)
    dropped: list[str] = []
    async with async_translated_errors():
        if namespace is not None:
            owned = await es.indices.get(index=f"{namespace}*", ignore_unavailable=True, allow_no_indices=True)
            dropped = sorted(name for name in owned if name.startswith(namespace))
            for name in dropped:
                await es.indices.delete(index=name)
    deleted = await delete_records(es, index=indices, filters=Filters(tenants=(tenant,)))
    return DeleteReport(records_deleted=deleted, indices_deleted=tuple(dropped))


def remove_written(client: Elasticsearch, *, index: str, documents: Iterable[Pair]) -> int:
    """Delete what a worker wrote for documents tombstoned while it wrote them (sync, for the worker)."""
    by_tenant: dict[str, list[str]] = defaultdict(list)
    for tenant, doc_id in documents:
        by_tenant[tenant].append(doc_id)
    with translated_errors():
        client.indices.refresh(index=index)
        actions = [{"_op_type": "delete", "_index": hit["_index"], "_id": hit["_id"]}
                   for tenant, doc_ids in sorted(by_tenant.items())
                   for hit in scan(client, index=index, size=1000, _source=False,
                                   query={"query": records_query(Filters(doc_ids=tuple(doc_ids), tenants=(tenant,)))})]
        if not actions:
            return 0
        deleted, _ = bulk(client, actions, refresh=True, raise_on_error=False)
    return int(deleted)


def ingest_unless_deleted(documents: Sequence[Document], *, index: str, sequence: int, ctx: IngestContext,
                          tombstones: Tombstones) -> BulkReport:
    """Ingest a batch of a job with this sequence number, leaving out (or deleting again) the documents a later
    delete tombstoned; they are reported as errors with DELETED_REASON."""
    gone = tombstones.deleted_after(sequence, index=index, documents=documents)
    live = [document for document in documents if document.doc_id not in gone]
    report = ingest_documents(live, index=index, ctx=ctx) if live else BulkReport()
    written = [document for document in live if document.doc_id in report.written]
    late = tombstones.deleted_after(sequence, index=index, documents=written)
    if late:
        remove_written(ctx.client, index=index,
                       documents=[(d.tenant, d.doc_id) for d in written if d.doc_id in late])
    for doc_id in gone | late:
        report.written.pop(doc_id, None)
        report.errors[doc_id] = DELETED_REASON
    return report
