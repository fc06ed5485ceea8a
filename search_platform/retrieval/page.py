"""What the hits of one page show: the stored fields and highlights fetched for the page only (the legs return ids,
scores and grouping fields), or a client-side snippet where Elasticsearch highlighted nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors
from search_platform.backends.elasticsearch.queries import page_body
from search_platform.domain.models import FusedHit, SnippetSource
from search_platform.retrieval.grouping import chunk_ref
from search_platform.retrieval.passages import Passage
from search_platform.retrieval.snippets import best_snippet


class RecordFetcher(Protocol):
    """Fetches the stored fields (and highlights) of a few records by id."""

    async def records(self, query: str, *, index: str, chunk_ids: list[str], highlight: bool) -> dict[str, Passage]:
        """Each found record by id, with highlights where its text matches when asked; missing records are absent."""
        ...


class ElasticsearchRecordFetcher:
    """One ids-restricted search returning _source and, when asked, Elasticsearch's highlights on the text field."""

    def __init__(self, client: AsyncElasticsearch) -> None:
        self._client = client

    async def records(self, query: str, *, index: str, chunk_ids: list[str], highlight: bool) -> dict[str, Passage]:
        """Each found record by id, with highlights where its text matches when asked; missing records are absent."""
        if not chunk_ids:
            return {}
        async with async_translated_errors():
            response = await self._client.search(index=index,
                                                 body=page_body(query, chunk_ids=chunk_ids, highlight=highlight))
        return {
            hit["_id"]: Passage(chunk_id=hit["_id"], source=hit["_source"],
                                highlights=tuple(hit.get("highlight", {}).get("text", ())))
            for hit in response["hits"]["hits"]
        }


def shown_id(hit: FusedHit) -> str:
    """The record whose stored fields the hit shows: for a document hit, the best chunk a leg found (its id kept
    as `chunk_id` in the source) or the document record; for a chunk hit, the chunk."""
    return str(hit.source.get("chunk_id", hit.chunk_id))


def hydrated(hit: FusedHit, record: Passage | None) -> FusedHit:
    """The hit with its record's stored fields in place of the lean ones (a document hit keeps the `chunk_id` it
    shows); unchanged when the record was not found."""
    if record is None:
        return hit
    source = dict(record.source)
    if "chunk_id" in hit.source:
        source["chunk_id"] = hit.source["chunk_id"]
    return replace(hit, source=source)


def with_snippet(hit: FusedHit, query: str) -> FusedHit:
    """The hit with highlights: Elasticsearch's when the page request found some, else a client-side snippet."""
    if hit.highlights:
        return replace(hit, snippet_source=SnippetSource.BM25)
    snippet = best_snippet(str(hit.source.get("text", "")), query)
    return replace(hit, highlights=(snippet,) if snippet else (), snippet_source=SnippetSource.DENSE)


def with_passage(hit: FusedHit, passage: Passage | None, query: str) -> FusedHit:
    """A document hit shown as its passage (when one matched) or as the best chunk a leg found (its stored fields
    as fetched, when they were); its `chunks` name the chunk shown."""
    if passage is not None and passage.matched:
        shown = replace(hit, chunk_id=passage.chunk_id, source=dict(passage.source), highlights=passage.highlights)
    else:
        source = dict(passage.source) if passage is not None else {
            key: value for key, value in hit.source.items() if key != "chunk_id"}
        shown = replace(hit, chunk_id=shown_id(hit), source=source)
    shown = with_snippet(shown, query)
    return replace(shown, chunks=(chunk_ref(shown),))
