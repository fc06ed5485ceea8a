"""Elasticsearch highlights for the hits of one page, fetched after fusion so only the page pays for them."""

from __future__ import annotations

from typing import Protocol

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors
from search_platform.backends.elasticsearch.queries import highlight_body


class Highlighter(Protocol):
    """Finds highlighted fragments of the query in the given chunks."""

    async def highlight(self, query: str, *, index: str, chunk_ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Fragments per chunk id; chunks whose text does not match are absent."""
        ...


class ElasticsearchHighlighter:
    """One ids-restricted search with Elasticsearch's highlighter on the text field."""

    def __init__(self, client: AsyncElasticsearch) -> None:
        self._client = client

    async def highlight(self, query: str, *, index: str, chunk_ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Fragments per chunk id; chunks whose text does not match are absent."""
        async with async_translated_errors():
            response = await self._client.search(index=index, body=highlight_body(query, chunk_ids=chunk_ids))
        return {
            hit["_id"]: tuple(hit["highlight"]["text"])
            for hit in response["hits"]["hits"]
            if hit.get("highlight", {}).get("text")
        }
