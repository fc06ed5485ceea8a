"""Bulk writes through helpers.streaming_bulk, reporting success or failure per document."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from elasticsearch import Elasticsearch, helpers

from search_platform.backends.elasticsearch.errors import translated_errors


@dataclass(slots=True)
class BulkReport:
    """Outcome of one bulk write: chunks written per document, and the first error of each failed one."""

    written: dict[str, int] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BulkOptions:
    """The bulk writer's own retry of per-document 429s."""

    chunk_size: int = 500
    max_retries: int = 3
    initial_backoff_s: float = 1.0


def write_actions(
    client: Elasticsearch, actions: Iterable[dict[str, Any]], *, doc_of: dict[str, str], options: BulkOptions
) -> BulkReport:
    """Index actions; per-document failures are collected, connection failures raise (retried by the caller)."""
    report = BulkReport()
    with translated_errors():
        for ok, item in helpers.streaming_bulk(
            client,
            actions,
            chunk_size=options.chunk_size,
            max_retries=options.max_retries,
            initial_backoff=options.initial_backoff_s,
            raise_on_error=False,
            raise_on_exception=True,
            # writes go through the versioned index's alias; if it vanished (deleted while a batch embedded), a
            # write must fail with a reason, not auto-create a concrete index with a guessed mapping
            require_alias=True,
        ):
            result = next(iter(item.values()))
            doc_id = doc_of[result["_id"]]
            if ok:
                report.written[doc_id] = report.written.get(doc_id, 0) + 1
            else:
                report.errors.setdefault(doc_id, _describe(result))
    return report


def _describe(result: dict[str, Any]) -> str:
    error = result.get("error")
    if isinstance(error, dict):
        return f"Elasticsearch rejected a chunk ({result.get('status')}): {error.get('type')}: {error.get('reason')}"
    return f"Elasticsearch rejected a chunk ({result.get('status')}): {error}"


def recorded_chunk_ids(client: Elasticsearch, *, index: str, record_ids: Sequence[str]) -> dict[str, set[str]]:
    """The chunk ids each existing document record lists (a realtime get: no refresh needed)."""
    if not record_ids:
        return {}
    with translated_errors():
        response = client.mget(index=index, ids=list(record_ids), source=["chunk_ids"])
    return {doc["_id"]: set(doc["_source"].get("chunk_ids", [])) for doc in response["docs"] if doc.get("found")}


def delete_chunks(client: Elasticsearch, *, index: str, stale: Mapping[str, set[str]], options: BulkOptions
                  ) -> dict[str, str]:
    """Delete the given chunk ids of each document; returns the first failure per document (a chunk already gone
    is no failure)."""
    doc_of = {chunk_id: doc_id for doc_id, ids in stale.items() for chunk_id in ids}
    if not doc_of:
        return {}
    actions = [{"_op_type": "delete", "_index": index, "_id": chunk_id} for chunk_id in doc_of]
    errors: dict[str, str] = {}
    with translated_errors():
        for ok, item in helpers.streaming_bulk(client, actions, chunk_size=options.chunk_size,
                                               max_retries=options.max_retries,
                                               initial_backoff=options.initial_backoff_s,
                                               raise_on_error=False, raise_on_exception=True):
            result = next(iter(item.values()))
            if not ok and result.get("status") != 404:
                errors.setdefault(doc_of[result["_id"]], "deleting an older chunk failed: " + _describe(result))
    return errors
