"""The passage shown for each document of a page: its best lexically matching chunk, with highlights, fetched in
one request after fusion so only the page pays for it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors
from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.backends.elasticsearch.queries import passages_body
from search_platform.domain.models import Filters


@dataclass(frozen=True, slots=True)
class Passage:
    """One document's best-matching chunk: its id, stored fields and highlighted fragments."""

    chunk_id: str
    source: Mapping[str, Any]
    highlights: tuple[str, ...] = field(default_factory=tuple)


class PassageFinder(Protocol):
    """Finds each document's best-matching chunk for a query."""

    async def passages(self, query: str, *, index: str, doc_ids: list[str], filters: Filters) -> dict[str, Passage]:
        """Best passage per doc_id; documents with no matching chunk are absent."""
        ...


class ElasticsearchPassageFinder:
    """One search over the page's documents' chunks, collapsed on doc_id, with Elasticsearch's highlighter."""

    def __init__(self, client: AsyncElasticsearch) -> None:
        self._client = client

    async def passages(self, query: str, *, index: str, doc_ids: list[str], filters: Filters) -> dict[str, Passage]:
        """Best passage per doc_id; documents with no matching chunk are absent."""
        if not doc_ids:
            return {}
        body = passages_body(query, doc_ids=doc_ids, filters=filter_clauses(filters))
        async with async_translated_errors():
            response = await self._client.search(index=index, body=body)
        return {
            str(hit["_source"]["doc_id"]): Passage(chunk_id=hit["_id"], source=hit["_source"],
                                                    highlights=tuple(hit.get("highlight", {}).get("text", ())))
            for hit in response["hits"]["hits"]
        }
