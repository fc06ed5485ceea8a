"""Re-index an alias: rebuild its documents into a new index with the current model and mapping, then swap.

1. Read the documents behind the alias: from their document records (the exact original content) where present,
   else rebuilt from their chunks (version-1 indices keep no records; see reconstruct.py).
2. Ingest them through the normal Celery pipeline into a staging alias `<alias>-v<N>-r<UTC time>`, one job per
   tenant and at most DOCUMENTS_PER_JOB documents, so every chunk is re-chunked and re-embedded as ingestion does now.
3. Catch up with the old index: documents whose record was rewritten since it was read (its indexed_at changed),
   documents that appeared there and documents deleted from it, until a round finds no change (at most
   CATCH_UP_ROUNDS rounds).
4. Verify the new index: the same set of (tenant, doc_id) as the old one, each with its record (by its
   deterministic id) and as many chunks as its record says. Then point the alias at the new concrete index in one
   atomic alias update and drop the staging alias; the old index is kept unless delete_old.
Searches keep answering throughout: the alias serves the old index until the swap and the new one after it.

Not covered: writes to the old index after the last catch-up round (the few seconds of the round's ingest, the
verification and the swap) are not in the new index; a version-1 index changed in place during the run (the
pipeline refuses to write to an outdated index, but direct writes to Elasticsearch) is caught up only for documents
that appeared or disappeared, not for changed ones (version-1 chunks have no document record to compare); an
ingest job running across the swap may leave part of a document in each index; rebuilt version-1 documents are
their chunks' text, not the original markup (see reconstruct.py).
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from elasticsearch import Elasticsearch, helpers

from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.backends.elasticsearch.mappings import (
    MAPPING_VERSION,
    RecordKind,
    delete_index,
    document_record_id,
    ensure_index,
    outdated_reasons,
    swap_alias,
    versioned_index_name,
)
from search_platform.config import Settings
from search_platform.domain.errors import IndexMissingError, SearchPlatformError
from search_platform.domain.models import Document
from search_platform.ingestion.jobs import Enqueue, JobState, JobStore, submit, wait_for
from search_platform.ingestion.lifecycle import remove_written
from search_platform.ingestion.reconstruct import document_from_record, reconstruct_document

Pair = tuple[str, str]  # (tenant, doc_id)
DOCUMENTS_PER_JOB = 1000
CATCH_UP_ROUNDS = 3
SCAN_SIZE = 500
MAX_TERMS = 10_000  # below index.max_terms_count (65,536)
CHUNK_FIELDS = ["doc_id", "chunk_index", "text", "title", "section", "source", "tags", "lang", "tenant"]
RECORD_FIELDS = ["doc_id", "content", "content_type", "title", "source", "tags", "lang", "tenant"]
IS_RECORD = {"term": {"kind": RecordKind.DOCUMENT.value}}


class ReindexError(SearchPlatformError):
    """The re-index could not finish; the alias still points at the old index."""


class ReindexTimeoutError(ReindexError):
    """Ingestion into the staging index did not finish in time (its jobs go on; the staging index is kept)."""


@dataclass(slots=True)
class Inventory:
    """What an index holds: chunks per document and, for documents with one, the id and fields of its record."""

    chunks: Counter[Pair] = field(default_factory=Counter)
    records: dict[Pair, dict[str, Any]] = field(default_factory=dict)

    @property
    def pairs(self) -> set[Pair]:
        """Every document with a chunk or a record."""
        return set(self.chunks) | set(self.records)

    def counts(self) -> IndexCounts:
        """Documents, chunks and records."""
        return IndexCounts(documents=len(self.pairs), chunks=sum(self.chunks.values()), records=len(self.records))


@dataclass(frozen=True, slots=True)
class IndexCounts:
    """How much one index holds."""

    documents: int
    chunks: int
    records: int


@dataclass(frozen=True, slots=True)
class ReindexReport:
    """What a re-index did, with its counts before and after and the time of each step."""

    alias: str
    old_indices: tuple[str, ...]
    new_index: str
    before: IndexCounts
    after: IndexCounts
    from_records: int  # documents read from their record
    rebuilt: int  # documents rebuilt from their chunks
    caught_up: int  # documents written to the old index during the run, ingested again
    removed: int  # documents deleted from the old index during the run, removed from the new one
    old_deleted: bool
    seconds: dict[str, float]


@dataclass(frozen=True, slots=True)
class Reindexer:
    """What a re-index needs: settings, an Elasticsearch client, the job store and the queue."""

    settings: Settings
    client: Elasticsearch
    store: JobStore
    enqueue: Enqueue
    dims: Callable[[], int]  # the embedding model's dims, asked only to create an empty index
    timeout_s: float = 7200.0
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def run(self, *, alias: str, delete_old: bool = False) -> ReindexReport:
        """Rebuild alias into a new index, verify it, swap the alias; ReindexError leaves the alias as it was."""
        clock = _Clock()
        old = concrete_indices(self.client, alias)
        before = inventory(self.client, alias)
        staging = staging_alias(alias, self.now())
        with translated_errors():
            if (self.client.indices.exists_alias(name=staging)
                    or self.client.indices.exists(index=versioned_index_name(staging))):
                raise ReindexError(f"{staging} exists already: another re-index of {alias} started this millisecond")
        rebuilt = before.pairs - set(before.records)
        try:
            if not before.pairs:
                ensure_index(self.client, self.settings.elasticsearch, alias=staging, dims=self.dims())
            self.ingest(read_documents(self.client, alias, rebuild=rebuilt), staging=staging)
            clock.lap("read+ingest")
            expected, caught_up, removed = self.catch_up(alias, staging, read=before)
            clock.lap("catch-up")
            after = verify(self.client, staging, expected=expected)
            clock.lap("verify")
        except ReindexTimeoutError:
            raise
        except SearchPlatformError:
            with contextlib.suppress(SearchPlatformError):  # the error that stopped the run matters more
                delete_index(self.client, alias=staging)
            raise
        new_index = concrete_indices(self.client, staging)[0]
        swap(self.client, alias=alias, new_index=new_index, staging=staging)
        if delete_old:
            with translated_errors():
                self.client.indices.delete(index=",".join(old))
        clock.lap("swap")
        return ReindexReport(alias=alias, old_indices=tuple(old), new_index=new_index, before=before.counts(),
                             after=after, from_records=len(before.pairs) - len(rebuilt), rebuilt=len(rebuilt),
                             caught_up=caught_up, removed=removed, old_deleted=delete_old,
                             seconds={**clock.laps, "total": clock.total()})

    def ingest(self, documents: Iterable[Document], *, staging: str) -> int:
        """Ingest documents into staging through Celery, one job per tenant and DOCUMENTS_PER_JOB documents (a
        batch never mixes tenants); ReindexError names the documents that failed."""
        jobs: list[str] = []
        pending: dict[str, list[Document]] = defaultdict(list)
        count = 0
        for document in documents:
            count += 1
            batch = pending[document.tenant]
            batch.append(document)
            if len(batch) >= DOCUMENTS_PER_JOB:
                jobs.append(self._submit(pending.pop(document.tenant), staging=staging))
        jobs.extend(self._submit(batch, staging=staging) for batch in pending.values())
        deadline = time.monotonic() + self.timeout_s
        statuses = [wait_for(self.store, job_id, timeout_s=max(1.0, deadline - time.monotonic())) for job_id in jobs]
        if running := [status.job_id for status in statuses if not status.finished]:
            raise ReindexTimeoutError(f"jobs {', '.join(running)} did not finish within {self.timeout_s:.0f} s; the "
                                      f"alias is unchanged; {staging} is kept while its jobs go on")
        for status in statuses:  # every job has finished: nothing writes to staging any more
            if status.state is not JobState.DONE or status.errors:
                failed = "; ".join(f"{doc}: {why}" for doc, why in list(status.errors.items())[:5])
                raise ReindexError(f"job {status.job_id} ended {status.state}, {status.documents_failed} "
                                   f"document(s) failed ({failed}); the alias is unchanged and {staging} was deleted")
        return count

    def _submit(self, documents: list[Document], *, staging: str) -> str:
        ingestion = self.settings.ingestion
        return submit(self.store, self.enqueue, documents, index=staging, per_batch=ingestion.documents_per_task,
                      max_batch_bytes=ingestion.max_batch_bytes, tenant=documents[0].tenant)

    def catch_up(self, alias: str, staging: str, *, read: Inventory) -> tuple[set[Pair], int, int]:
        """Bring staging up to date with what the old index gained, rewrote or lost since `read` was taken; returns
        the documents staging should now hold and how many were ingested again and removed."""
        expected, stamps = set(read.pairs), _stamps(read)
        caught_up = removed = 0
        for _ in range(CATCH_UP_ROUNDS):
            current = inventory(self.client, alias)
            changed = {pair for pair, stamp in _stamps(current).items() if stamps.get(pair) != stamp}
            changed |= current.pairs - expected
            gone = expected - current.pairs
            if not changed and not gone:
                break
            with_record = changed & set(current.records)
            caught_up += self.ingest(read_documents(self.client, alias, from_records=with_record,
                                                    rebuild=changed - with_record), staging=staging)
            if gone:
                remove_written(self.client, index=staging, documents=gone)
                removed += len(gone)
            expected = (expected | changed) - gone
            stamps = _stamps(current)
        return expected, caught_up, removed


def staging_alias(alias: str, at: datetime) -> str:
    """The alias a re-index builds under, e.g. sp-chunks-v2-r20261203101500123 (to the millisecond, so two runs in
    one second never build into the same index; index names are lower case)."""
    at = at.astimezone(UTC)
    return f"{alias}-v{MAPPING_VERSION}-r{at:%Y%m%d%H%M%S}{at.microsecond // 1000:03d}"


def reindex_reasons(client: Elasticsearch, alias: str, *, dims: Callable[[], int]) -> list[str]:
    """Why alias needs a re-index (mappings.outdated_reasons); empty when it is current, or missing (nothing to
    rebuild). dims is asked only when the alias exists."""
    with translated_errors():
        if not client.indices.exists_alias(name=alias):
            return []
    return outdated_reasons(client, alias=alias, dims=dims())


def concrete_indices(client: Elasticsearch, alias: str) -> list[str]:
    """The indices behind alias; IndexMissingError when there is no such alias."""
    with translated_errors():
        if not client.indices.exists_alias(name=alias):
            raise IndexMissingError(f"no alias {alias!r}", 404)
        return sorted(client.indices.get_alias(name=alias))


def inventory(client: Elasticsearch, index: str) -> Inventory:
    """Chunks per document and each document's record, after a refresh (ids and a few fields, not the text)."""
    found = Inventory()
    with translated_errors():
        client.indices.refresh(index=index)
        for hit in helpers.scan(client, index=index, size=SCAN_SIZE, query={
                "query": {"match_all": {}}, "_source": ["tenant", "doc_id", "kind", "chunk_count", "indexed_at"]}):
            source = hit["_source"]
            pair = (str(source["tenant"]), str(source["doc_id"]))
            if source.get("kind") == RecordKind.DOCUMENT.value:
                found.records[pair] = {**source, "_id": hit["_id"]}
            else:
                found.chunks[pair] += 1
    return found


def read_documents(client: Elasticsearch, index: str, *, from_records: Collection[Pair] | None = None,
                   rebuild: Collection[Pair] = ()) -> Iterator[Document]:
    """Documents of index: from their record (every record, or those of `from_records`), then those of `rebuild`
    rebuilt from their chunks, read in (tenant, doc_id, chunk_index) order one document at a time."""
    with translated_errors():
        if from_records is None or from_records:
            for hit in helpers.scan(client, index=index, size=SCAN_SIZE, query={
                    "query": _narrowed(IS_RECORD, from_records), "_source": RECORD_FIELDS}):
                source = hit["_source"]
                if from_records is None or (source["tenant"], source["doc_id"]) in from_records:
                    yield document_from_record(source)
        if not rebuild:
            return
        chunks = helpers.scan(client, index=index, size=SCAN_SIZE, preserve_order=True, query={
            "query": _narrowed({"bool": {"must_not": [IS_RECORD]}}, rebuild), "_source": CHUNK_FIELDS,
            "sort": [{"tenant": "asc"}, {"doc_id": "asc"}, {"chunk_index": "asc"}]})
        for pair, group in itertools.groupby((hit["_source"] for hit in chunks),
                                             key=lambda source: (str(source["tenant"]), str(source["doc_id"]))):
            if pair in rebuild:
                yield reconstruct_document(group)


def _narrowed(query: dict[str, Any], pairs: Collection[Pair] | None) -> dict[str, Any]:
    """The query limited to the doc ids of pairs (unless there are too many for one terms query)."""
    if pairs is None or len(pairs) > MAX_TERMS:
        return query
    return {"bool": {"filter": [query, {"terms": {"doc_id": sorted({doc_id for _, doc_id in pairs})}}]}}


def _stamps(found: Inventory) -> dict[Pair, str]:
    """When each document's record was written (a rewrite of the document changes it)."""
    return {pair: str(record.get("indexed_at")) for pair, record in found.records.items()}


def verify(client: Elasticsearch, index: str, *, expected: set[Pair]) -> IndexCounts:
    """The new index's counts, or ReindexError unless it holds exactly the expected documents, each with its
    record (under its deterministic id) and all the chunks its record counts."""
    found = inventory(client, index)
    problems = {
        "missing": sorted(expected - found.pairs),
        "unexpected": sorted(found.pairs - expected),
        "without a record": sorted(expected - set(found.records)),
        "with a record under another id": sorted(
            pair for pair, record in found.records.items()
            if record["_id"] != document_record_id(tenant=pair[0], doc_id=pair[1])),
        "with a chunk count unlike their record's": sorted(
            pair for pair, record in found.records.items() if found.chunks[pair] != record.get("chunk_count")),
    }
    wrong = {name: pairs for name, pairs in problems.items() if pairs}
    if wrong:
        detail = "; ".join(f"{len(pairs)} {name} (e.g. {pairs[:3]})" for name, pairs in wrong.items())
        raise ReindexError(f"{index} failed verification: {detail}; the alias is unchanged")
    return found.counts()


def swap(client: Elasticsearch, *, alias: str, new_index: str, staging: str) -> None:
    """Point alias at new_index atomically, then drop the staging alias."""
    swap_alias(client, alias=alias, new_index=new_index)
    with translated_errors():
        client.indices.delete_alias(index=new_index, name=staging)


class _Clock:
    """Seconds spent in each step, and in total."""

    def __init__(self) -> None:
        self._start = self._last = time.monotonic()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        """Close the step `name`."""
        now = time.monotonic()
        self.laps[name] = round(now - self._last, 3)
        self._last = now

    def total(self) -> float:
        """Seconds since the start."""
        return round(time.monotonic() - self._start, 3)
