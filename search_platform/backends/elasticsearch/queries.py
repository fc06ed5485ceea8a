"""Pure request-body builders: every query the platform sends is built here as a dict."""

from __future__ import annotations

from typing import Any

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
    tech_query: str,
    candidate_k: int,
    filters: list[dict[str, Any]],
    title_boost: float,
    tech_boost: float,
) -> dict[str, Any]:
    """BM25 over text and title, plus the technical-terms field when the query has technical terms and tech_boost
    > 0 (0 turns the field off)."""
    should: list[dict[str, Any]] = [
        {"match": {"text": {"query": query}}},
        {"match": {"title": {"query": query, "boost": title_boost}}},
    ]
    if tech_query and tech_boost > 0:
        should.append({"match": {"tech": {"query": tech_query, "boost": tech_boost}}})
    body: dict[str, Any] = {
        "size": candidate_k,
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {"bool": {"should": should, "minimum_should_match": 1, "filter": filters}},
    }
    return body


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
