"""Chunk index settings and mappings, versioned index names behind an alias."""

from __future__ import annotations

from typing import Any

from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.config import ElasticsearchSettings

MAPPING_VERSION = 1
SIMILARITY = "sp_bm25"


def versioned_index_name(alias: str, version: int = MAPPING_VERSION) -> str:
    """The concrete index an alias points to, e.g. sp-chunks-v1."""
    return f"{alias}-v{version}"


def _text(**extra: Any) -> dict[str, Any]:
    return {"type": "text", "analyzer": "standard", "similarity": SIMILARITY, **extra}


def index_body(settings: ElasticsearchSettings, *, dims: int) -> dict[str, Any]:
    """Settings and mappings of the chunk index."""
    return {
        "settings": {
            "number_of_shards": settings.number_of_shards,
            "number_of_replicas": settings.number_of_replicas,
            "similarity": {SIMILARITY: {"type": "BM25", "k1": settings.bm25_k1, "b": settings.bm25_b}},
        },
        "mappings": {
            "dynamic": "strict",
            "_source": {"excludes": ["embedding"]},
            "properties": {
                "doc_id": {"type": "keyword"},
                "chunk_index": {"type": "integer"},
                "content_hash": {"type": "keyword"},
                "text": _text(),
                "title": _text(fields={"keyword": {"type": "keyword", "ignore_above": 512}}),
                "section": _text(),
                "tech": _text(),
                "source": {"type": "keyword"},
                "tags": {"type": "keyword"},
                "lang": {"type": "keyword"},
                "tenant": {"type": "keyword"},
                "indexed_at": {"type": "date"},
                "embedding": {
                    "type": "dense_vector",
                    "dims": dims,
                    "index": True,
                    "similarity": "cosine",
                    "index_options": _vector_index_options(settings),
                },
            },
        },
    }


def _vector_index_options(settings: ElasticsearchSettings) -> dict[str, Any]:
    options: dict[str, Any] = {"type": settings.vector_index_type}
    if settings.vector_index_type.endswith("hnsw"):
        options.update(m=settings.hnsw_m, ef_construction=settings.hnsw_ef_construction)
    return options


def ensure_index(client: Elasticsearch, settings: ElasticsearchSettings, *, alias: str, dims: int) -> str:
    """Create the versioned index behind alias if the alias is missing; return the alias."""
    with translated_errors():
        if client.indices.exists_alias(name=alias):
            return alias
        index = versioned_index_name(alias)
        body = index_body(settings, dims=dims)
        if not client.indices.exists(index=index):
            client.options(ignore_status=400).indices.create(
                index=index, settings=body["settings"], mappings=body["mappings"]
            )
        client.indices.put_alias(index=index, name=alias, is_write_index=True)
    return alias


def swap_alias(client: Elasticsearch, *, alias: str, new_index: str) -> None:
    """Point alias at new_index atomically, removing it from every other index."""
    with translated_errors():
        current = list(client.indices.get_alias(name=alias)) if client.indices.exists_alias(name=alias) else []
        actions: list[dict[str, Any]] = [{"remove": {"index": index, "alias": alias}} for index in current]
        actions.append({"add": {"index": new_index, "alias": alias, "is_write_index": True}})
        client.indices.update_aliases(actions=actions)


def delete_index(client: Elasticsearch, *, alias: str) -> None:
    """Delete every index behind alias (tests and evaluation runs clean up with this)."""
    with translated_errors():
        if not client.indices.exists_alias(name=alias):
            return
        indices = list(client.indices.get_alias(name=alias))
        if indices:
            client.indices.delete(index=",".join(indices), ignore_unavailable=True)
