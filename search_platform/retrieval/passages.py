"""The passage shown for each document of a page: its best lexically matching chunk, with highlights, fetched in
one request after fusion so only the page pays for it; the same request brings the stored fields of the records
the page's hits show when no chunk of their document matches."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors
from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.backends.elasticsearch.queries import PASSAGE_QUERY, passages_body
from search_platform.domain.models import Filters


@dataclass(frozen=True, slots=True)
class Passage:
    """One record: its id, stored fields and highlighted fragments; matched: it is its document's best-matching
    chunk (False: a record fetched by id, shown for lack of one)."""

    chunk_id: str
    source: Mapping[str, Any]
    highlights: tuple[str, ...] = field(default_factory=tuple)
    matched: bool = True


@dataclass(frozen=True, slots=True)
class PagePassages:
    """What one passages request found: the best-matching chunk per doc_id, and shown records by id."""

    matched: dict[str, Passage] = field(default_factory=dict)
    shown: dict[str, Passage] = field(default_factory=dict)


class PassageFinder(Protocol):
    """Finds each document's best-matching chunk for a query, and the records shown for the others."""

    async def passages(self, query: str, *, index: str, doc_ids: list[str], shown_ids: list[str],
                       filters: Filters) -> PagePassages:
        """Best passage per doc_id (documents with no matching chunk are absent), and those of shown_ids whose
        document has none."""
        ...


class ElasticsearchPassageFinder:
    """One search over the page's documents' chunks, collapsed on doc_id, with Elasticsearch's highlighter."""

    def __init__(self, client: AsyncElasticsearch) -> None:
        self._client = client

    async def passages(self, query: str, *, index: str, doc_ids: list[str], shown_ids: list[str],
                       filters: Filters) -> PagePassages:
        """Best passage per doc_id (documents with no matching chunk are absent), and those of shown_ids whose
        document has none."""
        if not doc_ids:
            return PagePassages()
        body = passages_body(query, doc_ids=doc_ids, shown_ids=shown_ids, filters=filter_clauses(filters))
        async with async_translated_errors():
            response = await self._client.search(index=index, body=body)
        found = PagePassages()
        for hit in response["hits"]["hits"]:
            if PASSAGE_QUERY in hit.get("matched_queries", ()):
                found.matched[str(hit["_source"]["doc_id"])] = Passage(
                    chunk_id=hit["_id"], source=hit["_source"],
                    highlights=tuple(hit.get("highlight", {}).get("text", ())))
            else:
                found.shown[hit["_id"]] = Passage(chunk_id=hit["_id"], source=hit["_source"], matched=False)
        return found
