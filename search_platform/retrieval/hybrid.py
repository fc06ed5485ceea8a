"""Runs the legs a mode needs concurrently and fuses them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from search_platform.domain.models import (
    Filters,
    FusedHit,
    Leg,
    LegScore,
    RankedList,
    SearchMode,
    SearchResult,
)
from search_platform.retrieval.base import LegRequest, Retriever
from search_platform.retrieval.fusion import (
    DEFAULT_ALPHA,
    DEFAULT_NORMALIZATION,
    FUSERS,
    FuseFn,
    FusionParams,
    Normalization,
)

MODE_LEGS: dict[SearchMode, tuple[Leg, ...]] = {
    SearchMode.BM25: (Leg.BM25,),
    SearchMode.SEMANTIC: (Leg.DENSE,),
    SearchMode.HYBRID: (Leg.BM25, Leg.DENSE),
}


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated search: every k named and resolved."""

    query: str
    mode: SearchMode
    index: str
    top_k: int
    candidate_k: int
    rrf_k: int
    filters: Filters = Filters()
    fusion: str = "rrf"
    weights: Mapping[Leg, float] = field(default_factory=dict)
    alpha: float = DEFAULT_ALPHA
    normalization: Normalization = DEFAULT_NORMALIZATION

    def fusion_params(self) -> FusionParams:
        """The parameters handed to the fusion method."""
        return FusionParams(rrf_k=self.rrf_k, weights=self.weights, alpha=self.alpha,
                            normalization=self.normalization)


class HybridSearcher:
    """BM25, semantic or hybrid search over the given legs."""

    def __init__(self, retrievers: dict[Leg, Retriever], fusers: dict[str, FuseFn] | None = None) -> None:
        self._retrievers = retrievers
        self._fusers = fusers if fusers is not None else FUSERS

    @property
    def fusion_methods(self) -> tuple[str, ...]:
        """Names a request's fusion may take."""
        return tuple(self._fusers)

    async def search(self, request: SearchRequest) -> SearchResult:
        """Run the mode's legs in parallel, fuse (hybrid) or pass through (single leg), cut to top_k."""
        started = time.perf_counter()
        leg_request = LegRequest(
            text=request.query, index=request.index, candidate_k=request.candidate_k, filters=request.filters
        )
        legs = MODE_LEGS[request.mode]
        lists = await asyncio.gather(*(self._retrievers[leg].retrieve(leg_request) for leg in legs))
        if request.mode is SearchMode.HYBRID:
            fused = self._fusers[request.fusion](lists, request.fusion_params())
        else:
            fused = single_leg_hits(lists[0])
        return SearchResult(
            mode=request.mode,
            hits=tuple(fused[: request.top_k]),
            took_ms=(time.perf_counter() - started) * 1000,
            leg_took_ms={ranked.leg: ranked.took_ms for ranked in lists},
        )


def single_leg_hits(ranked: RankedList) -> list[FusedHit]:
    """A single leg's list in the fused shape: its raw score is the score."""
    return [
        FusedHit(
            chunk_id=hit.chunk_id,
            rank=hit.rank,
            score=hit.score,
            legs={ranked.leg: LegScore(rank=hit.rank, score=hit.score)},
            source=hit.source,
        )
        for hit in ranked.hits
    ]
