"""Bulk writes through helpers.streaming_bulk, reporting success or failure per document."""

from __future__ import annotations

from collections.abc import Iterable
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


def delete_stale_chunks(client: Elasticsearch, *, index: str, keep: dict[tuple[str, str], set[str]]) -> int:
    """Delete chunks of the given (tenant, doc_id) documents whose ids are not kept (older versions)."""
    if not keep:
        return 0
    doc_ids = sorted({doc_id for _, doc_id in keep})
    with translated_errors():
        client.indices.refresh(index=index)
        stored = helpers.scan(
            client,
            index=index,
            query={"query": {"terms": {"doc_id": doc_ids}}, "_source": ["doc_id", "tenant"]},
            size=1000,
        )
        stale = [
            {"_op_type": "delete", "_index": hit["_index"], "_id": hit["_id"]}
            for hit in stored
            if (key := (hit["_source"]["tenant"], hit["_source"]["doc_id"])) in keep and hit["_id"] not in keep[key]
        ]
        if stale:
            helpers.bulk(client, stale, raise_on_error=False)
    return len(stale)
