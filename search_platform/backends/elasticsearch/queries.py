"""Pure request-body builders: every query the platform sends is built here as a dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from search_platform.backends.elasticsearch.mappings import RecordKind
from search_platform.domain.models import GroupBy

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

GROUPING_FIELDS: tuple[str, ...] = ("kind", "doc_id", "tenant")  # what per-document grouping reads of a candidate
PASSAGE_QUERY = "passage"  # the name of the passage clause: a page hit that matched it is a passage, else a fallback

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
    doc_values: Sequence[str] = (),
    phrases: Sequence[str] = (),
    phrase_field: str = "",
    phrase_boost: float = 0.0,
    options: Sequence[str] = (),
    option_field: str = "",
    option_boost: float = 0.0,
) -> dict[str, Any]:
    """BM25 over the records of one kind: a match clause per field with its boost (scores add up), plus the
    technical-terms field when the query has technical terms and tech_boost > 0 (0 turns the field off), plus a
    phrase clause on phrase_field for each of the query's identifier phrases when phrase_boost > 0, plus one match
    of the query's options on option_field when there are any and option_boost > 0.
    Candidates come back lean: id, score and the doc_values fields, no _source."""
    should: list[dict[str, Any]] = [_match(field, query, boost) for field, boost in fields.items() if boost > 0]
    if tech_query and tech_boost > 0:
        should.append({"match": {"tech": {"query": tech_query, "boost": tech_boost}}})
    if phrase_field and phrase_boost > 0:
        should.extend({"match_phrase": {phrase_field: {"query": phrase, "boost": phrase_boost}}} for phrase in phrases)
    if options and option_field and option_boost > 0:
        should.append({"match": {option_field: {"query": " ".join(options), "boost": option_boost}}})
    return {
        "size": candidate_k,
        "track_total_hits": False,
        **lean(doc_values),
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


def lean(doc_values: Sequence[str]) -> dict[str, Any]:
    """Body entries for candidates without stored documents: no _source, the named keyword fields from doc values
    (read per hit without loading and parsing its _source)."""
    entries: dict[str, Any] = {"_source": False}
    if doc_values:
        entries["docvalue_fields"] = list(doc_values)
    return entries


def grouping_fields(unit: GroupBy) -> tuple[str, ...]:
    """What a leg returns of each candidate besides id and score: nothing for chunk results (fusion reads only
    ids, ranks and scores), the record fields per-document grouping keys on for document results."""
    return GROUPING_FIELDS if unit is GroupBy.DOCUMENT else ()


def passages_body(query: str, *, doc_ids: list[str], shown_ids: list[str],
                  filters: list[dict[str, Any]]) -> dict[str, Any]:
    """For a page of documents, in one search: each document's best-matching chunk (collapsed on doc_id) with
    highlights, named PASSAGE_QUERY; a document with no matching chunk comes back as its record in shown_ids (the
    record its hit would show), matched by an ids clause that adds nothing to any score."""
    passage = {
        "bool": {
            "filter": [{"term": {"kind": RecordKind.CHUNK.value}}, {"terms": {"doc_id": doc_ids}}],
            "must": [{"match": {"text": {"query": query}}}],
            "_name": PASSAGE_QUERY,
        }
    }
    return {
        "size": len(doc_ids),
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {
            "bool": {
                "filter": filters,
                "should": [passage, {"ids": {"values": shown_ids, "boost": 0.0}}],
                "minimum_should_match": 1,
            }
        },
        "collapse": {"field": "doc_id"},
        "highlight": HIGHLIGHT,
    }


def page_body(query: str, *, chunk_ids: list[str], highlight: bool) -> dict[str, Any]:
    """Stored fields of just these chunks (a page, not every candidate) and, when asked, highlights: up to 3
    fragments of ~150 characters of text, matches in <em>."""
    if not highlight:
        return {"size": len(chunk_ids), "track_total_hits": False, "_source": list(SOURCE_FIELDS),
                "query": {"ids": {"values": chunk_ids}}}
    return {
        "size": len(chunk_ids),
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
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


def defines_filter(names: Sequence[str]) -> dict[str, Any]:
    """Document records that define one of the names (text/definitions.py)."""
    return {"terms": {"defines": list(names)}}


def lead_passage_filter() -> dict[str, Any]:
    """Only each document's lead passage: its first chunk (ingestion numbers chunks from 0 in reading order)."""
    return {"term": {"chunk_index": 0}}


def knn_body(
    vector: list[float],
    *,
    candidate_k: int,
    num_candidates: int,
    filters: list[dict[str, Any]],
    doc_values: Sequence[str] = (),
    rescore_oversample: float | None = None,
) -> dict[str, Any]:
    """Approximate kNN on the embedding field with the filters applied inside the search (pre-filter); candidates
    come back lean: id, score and the doc_values fields, no _source. With rescore_oversample, the quantized search
    gathers that many times k and the float vectors rescore them (a no-op on an index that is not quantized)."""
    knn: dict[str, Any] = {
        "field": "embedding",
        "query_vector": vector,
        "k": candidate_k,
        "num_candidates": num_candidates,
    }
    if filters:
        knn["filter"] = filters
    if rescore_oversample is not None:
        knn["rescore_vector"] = {"oversample": rescore_oversample}
    return {"size": candidate_k, **lean(doc_values), "knn": knn}
