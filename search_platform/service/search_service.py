"""Search orchestration: resolve defaults, enforce limits, run the searcher. Knows nothing of HTTP."""

from __future__ import annotations

from dataclasses import dataclass

from search_platform.config import RetrievalSettings
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Filters, SearchMode, SearchResult
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest


@dataclass(frozen=True, slots=True)
class SearchParams:
    """A caller's request before defaults: None means 'use the configured default'."""

    query: str
    mode: SearchMode = SearchMode.HYBRID
    top_k: int | None = None
    candidate_k: int | None = None
    rrf_k: int | None = None
    filters: Filters = Filters()
    index: str | None = None


class SearchService:
    """Turns SearchParams into a validated SearchRequest and runs it."""

    def __init__(self, searcher: HybridSearcher, settings: RetrievalSettings, *, default_index: str) -> None:
        self._searcher = searcher
        self._settings = settings
        self._default_index = default_index

    def resolve(self, params: SearchParams) -> SearchRequest:
        """Apply defaults and limits; raise InvalidQueryError naming the bad parameter."""
        limits = self._settings
        query = params.query.strip()
        if not query:
            raise InvalidQueryError("query is empty")
        if len(query) > limits.max_query_chars:
            raise InvalidQueryError(f"query is {len(query)} characters, over the {limits.max_query_chars} limit")
        top_k = params.top_k or limits.top_k
        candidate_k = params.candidate_k or max(limits.candidate_k, top_k)
        if top_k > limits.max_top_k:
            raise InvalidQueryError(f"top_k must be at most {limits.max_top_k}")
        if candidate_k > limits.max_candidate_k:
            raise InvalidQueryError(f"candidate_k must be at most {limits.max_candidate_k}")
        if candidate_k < top_k and params.mode is not SearchMode.HYBRID:
            raise InvalidQueryError(f"candidate_k ({candidate_k}) must be at least top_k ({top_k}) for one leg")
        return SearchRequest(
            query=query,
            mode=params.mode,
            index=params.index or self._default_index,
            top_k=top_k,
            candidate_k=candidate_k,
            rrf_k=params.rrf_k or limits.rrf_k,
            filters=params.filters,
        )

    async def search(self, params: SearchParams) -> tuple[SearchRequest, SearchResult]:
        """Validate and run one search."""
        request = self.resolve(params)
        return request, await self._searcher.search(request)
