"""Pure request-body builders: every query the platform sends is built here as a dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from search_platform.backends.elasticsearch.mappings import RecordKind

SOURCE_FIELDS: tuple[str, ...] = (
    "doc_id",
    "chunk_index",
    "text",
    "title",
    "section",
    "source",
    "tags",
    "lang",
    "tenant",
    "indexed_at",
)

HIGHLIGHT_FRAGMENT_CHARS = 150
HIGHLIGHT_FRAGMENTS = 3
HIGHLIGHT: dict[str, Any] = {
    "pre_tags": ["<em>"],
    "post_tags": ["</em>"],
    "fields": {"text": {"fragment_size": HIGHLIGHT_FRAGMENT_CHARS, "number_of_fragments": HIGHLIGHT_FRAGMENTS}},
}


def bm25_body(
    query: str,
    *,
    fields: Mapping[str, float],
    kind: RecordKind,
    tech_query: str,
    candidate_k: int,
    filters: list[dict[str, Any]],
    tech_boost: float,
) -> dict[str, Any]:
    """BM25 over the records of one kind: a match clause per field with its boost (scores add up), plus the
    technical-terms field when the query has technical terms and tech_boost > 0 (0 turns the field off)."""
    should: list[dict[str, Any]] = [_match(field, query, boost) for field, boost in fields.items() if boost > 0]
    if tech_query and tech_boost > 0:
        should.append({"match": {"tech": {"query": tech_query, "boost": tech_boost}}})
    return {
        "size": candidate_k,
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {
            "bool": {
                "should": should,
                "minimum_should_match": 1,
                "filter": [{"term": {"kind": kind.value}}, *filters],
            }
        },
    }


def _match(field: str, query: str, boost: float) -> dict[str, Any]:
    clause: dict[str, Any] = {"query": query}
    if boost != 1.0:
        clause["boost"] = boost
    return {"match": {field: clause}}


def passages_body(query: str, *, doc_ids: list[str], filters: list[dict[str, Any]]) -> dict[str, Any]:
    """For a page of documents: each document's best-matching chunk (collapsed on doc_id) with highlights."""
    return {
        "size": len(doc_ids),
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {
            "bool": {
                "filter": [{"term": {"kind": RecordKind.CHUNK.value}}, {"terms": {"doc_id": doc_ids}}, *filters],
                "should": [{"match": {"text": {"query": query}}}],
                "minimum_should_match": 1,
            }
        },
        "collapse": {"field": "doc_id"},
        "highlight": HIGHLIGHT,
    }


def highlight_body(query: str, *, chunk_ids: list[str]) -> dict[str, Any]:
    """Highlights for just these chunks (a page), not for every BM25 candidate: up to 3 fragments of ~150
    characters of text, matches in <em>."""
    return {
        "size": len(chunk_ids),
        "_source": False,
        "query": {
            "bool": {
                "filter": [{"ids": {"values": chunk_ids}}],
                "should": [{"match": {"text": {"query": query}}}],
            }
        },
        "highlight": HIGHLIGHT,
    }


def num_candidates_for(candidate_k: int, *, factor: float, minimum: int) -> int:
    """HNSW candidates per shard: a multiple of k, never below a floor, within the server's 10,000 cap."""
    return min(10_000, max(candidate_k, minimum, round(candidate_k * factor)))


def knn_body(
    vector: list[float],
    *,
    candidate_k: int,
    num_candidates: int,
    filters: list[dict[str, Any]],
) -> dict[str, Any]:
    """Approximate kNN on the embedding field with the filters applied inside the search (pre-filter)."""
    knn: dict[str, Any] = {
        "field": "embedding",
        "query_vector": vector,
        "k": candidate_k,
        "num_candidates": num_candidates,
    }
    if filters:
        knn["filter"] = filters
    return {"size": candidate_k, "_source": list(SOURCE_FIELDS), "knn": knn}
