"""Search-log index: pure settings and mappings, creation behind a write alias, manual rollover."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch, Elasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors, translated_errors
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.domain.models import Leg

LOG_ALIAS = "sp-search-logs"
FIRST_GENERATION = 1

_KEYWORD: dict[str, Any] = {"type": "keyword"}
_FLOAT: dict[str, Any] = {"type": "float"}
_INTEGER: dict[str, Any] = {"type": "integer"}


def _leg() -> dict[str, Any]:
    return {"properties": {"latency_ms": _FLOAT, "hit_ids": _KEYWORD}}


LOG_MAPPINGS: dict[str, Any] = {
    "dynamic": "strict",
    "properties": {
        "@timestamp": {"type": "date"},
        "event": _KEYWORD,
        "request_id": _KEYWORD,
        "tenant": _KEYWORD,
        "user_id": _KEYWORD,
        "query": {"type": "text", "analyzer": "standard", "fields": {"raw": {"type": "keyword", "ignore_above": 512}}},
        "mode": _KEYWORD,
        "fusion": _KEYWORD,
        "route": _KEYWORD,
        "experiment": _KEYWORD,
        "arm": _KEYWORD,
        "params": {
            "properties": {
                "top_k": _INTEGER,
                "candidate_k": _INTEGER,
                "rrf_k": _INTEGER,
                "alpha": _FLOAT,
                "weights": {"properties": {leg.value: _FLOAT for leg in Leg}},
                "normalization": _KEYWORD,
            }
        },
        "latency_ms": _FLOAT,
        "legs": {"properties": {leg.value: _leg() for leg in Leg}},
        "hits": _INTEGER,
        "zero_result": {"type": "boolean"},
        "degraded": {"type": "boolean"},
        "degraded_reason": _KEYWORD,
        "page": _INTEGER,
        "doc_id": _KEYWORD,
        "chunk_id": _KEYWORD,
        "position": _INTEGER,
    },
}


def log_index_body(*, number_of_shards: int = 1, number_of_replicas: int = 0) -> dict[str, Any]:
    """Settings and mappings of one generation of the search-log index."""
    return {
        "settings": {"number_of_shards": number_of_shards, "number_of_replicas": number_of_replicas},
        "mappings": LOG_MAPPINGS,
    }


def generation_index_name(alias: str, generation: int = FIRST_GENERATION) -> str:
    """The concrete index of one generation, e.g. sp-search-logs-000001 (the pattern _rollover increments)."""
    return f"{alias}-{generation:06d}"


def rollover_conditions(
    *, max_age: str | None = None, max_size: str | None = None, max_docs: int | None = None
) -> dict[str, Any]:
    """The _rollover conditions body; any one condition met rolls the index, none given rolls unconditionally."""
    conditions: dict[str, Any] = {"max_age": max_age, "max_primary_shard_size": max_size, "max_docs": max_docs}
    return {name: value for name, value in conditions.items() if value is not None}


def ensure_log_index(client: Elasticsearch, *, alias: str = LOG_ALIAS, body: dict[str, Any] | None = None) -> str:
    """Create generation 1 as the write index of alias unless the alias exists (then add any field the mappings
    gained since, e.g. a new leg: the mapping is strict); return the alias."""
    body = body or log_index_body()
    with translated_errors():
        if client.indices.exists_alias(name=alias):
            client.indices.put_mapping(index=alias, body=body["mappings"])
            return alias
        client.options(ignore_status=400).indices.create(
            index=generation_index_name(alias),
            settings=body["settings"],
            mappings=body["mappings"],
            aliases={alias: {"is_write_index": True}},
        )
    return alias


async def async_ensure_log_index(
    client: AsyncElasticsearch, *, alias: str = LOG_ALIAS, body: dict[str, Any] | None = None
) -> str:
    """Async twin of ensure_log_index for the service's background writer."""
    body = body or log_index_body()
    async with async_translated_errors():
        if await client.indices.exists_alias(name=alias):
            await client.indices.put_mapping(index=alias, body=body["mappings"])
            return alias
        await client.options(ignore_status=400).indices.create(
            index=generation_index_name(alias),
            settings=body["settings"],
            mappings=body["mappings"],
            aliases={alias: {"is_write_index": True}},
        )
    return alias


def rollover_log_index(
    client: Elasticsearch,
    *,
    alias: str = LOG_ALIAS,
    conditions: dict[str, Any],
    body: dict[str, Any] | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Roll the write alias to the next generation if a condition is met; the new index gets the same mappings."""
    body = body or log_index_body()
    with translated_errors():
        response = client.indices.rollover(
            alias=alias,
            conditions=conditions or None,
            settings=body["settings"],
            mappings=body["mappings"],
            dry_run=dry_run,
        )
    return dict(response.body)


delete_log_indices = delete_index  # every generation behind the alias (tests clean up with this)
