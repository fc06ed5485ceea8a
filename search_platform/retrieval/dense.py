"""The semantic legs: approximate kNN over chunk embeddings (every chunk, or each document's lead passage only),
filters applied inside the search."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors
from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.backends.elasticsearch.queries import (
    grouping_fields,
    knn_body,
    lead_passage_filter,
    num_candidates_for,
)
from search_platform.config import RetrievalSettings
from search_platform.domain.models import Leg, RankedList
from search_platform.retrieval.base import LegRequest, ranked_list_from_response
from search_platform.retrieval.query_encoder import QueryEncoder


class DenseRetriever:
    """Encodes the query, then runs knn_body against one index: over every chunk (Leg.DENSE) or over each
    document's lead passage (Leg.DENSE_LEAD)."""

    def __init__(self, client: AsyncElasticsearch, encoder: QueryEncoder, settings: RetrievalSettings, *,
                 leg: Leg = Leg.DENSE) -> None:
        if not leg.dense:
            raise ValueError(f"a dense retriever cannot run the {leg} leg")
        self.leg = leg
        self._client = client
        self._encoder = encoder
        self._settings = settings

    async def retrieve(self, request: LegRequest) -> RankedList:
        """Embed, search, rank; took_ms includes the encoding, encode_ms is that part of it."""
        started = time.perf_counter()
        vector = await self._encoder.encode(request.text)
        encode_ms = (time.perf_counter() - started) * 1000
        body = knn_body(
            vector,
            candidate_k=request.candidate_k,
            num_candidates=num_candidates_for(
                request.candidate_k,
                factor=self._settings.num_candidates_factor,
                minimum=self._settings.min_num_candidates,
            ),
            filters=[*filter_clauses(request.filters), *self._own_filters()],
            doc_values=grouping_fields(request.unit),
            rescore_oversample=self._settings.knn_rescore_oversample,
        )
        async with async_translated_errors():
            response = await self._client.search(index=request.index, body=body)
        return replace(ranked_list_from_response(self.leg, response, started=started), encode_ms=encode_ms)

    def _own_filters(self) -> list[dict[str, Any]]:
        return [lead_passage_filter()] if self.leg is Leg.DENSE_LEAD else []
