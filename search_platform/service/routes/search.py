"""POST /v1/search."""

from __future__ import annotations

from fastapi import APIRouter

from search_platform.domain.models import Filters, FusedHit, Leg, SearchResult
from search_platform.retrieval.hybrid import SearchRequest
from search_platform.service.deps import ResourcesDep
from search_platform.service.schemas import (
    ErrorBody,
    FiltersBody,
    HitBody,
    LegScoreBody,
    SearchBody,
    SearchResponseBody,
    WeightsBody,
)
from search_platform.service.search_service import SearchParams

router = APIRouter()


def to_filters(body: FiltersBody) -> Filters:
    """Wire filters -> domain filters."""
    return Filters(
        doc_ids=tuple(body.doc_ids),
        sources=tuple(body.sources),
        tags=tuple(body.tags),
        langs=tuple(body.langs),
        tenants=tuple(body.tenants),
        indexed_after=body.indexed_after,
        indexed_before=body.indexed_before,
    )


def to_weights(body: WeightsBody | None) -> dict[Leg, float] | None:
    """Wire weights -> per-leg weights (None when not sent)."""
    return None if body is None else {Leg.BM25: body.bm25, Leg.DENSE: body.dense}


def to_hit(hit: FusedHit) -> HitBody:
    """Domain hit -> wire hit."""
    source = hit.source
    return HitBody(
        rank=hit.rank,
        score=hit.score,
        chunk_id=hit.chunk_id,
        doc_id=str(source.get("doc_id", "")),
        chunk_index=int(source.get("chunk_index", 0)),
        title=str(source.get("title", "")),
        section=str(source.get("section", "")),
        text=str(source.get("text", "")),
        source=str(source.get("source", "")),
        tags=list(source.get("tags", [])),
        tenant=str(source.get("tenant", "")),
        legs={leg.value: LegScoreBody(rank=s.rank, score=s.score) for leg, s in hit.legs.items()},
    )


def to_response(request: SearchRequest, result: SearchResult) -> SearchResponseBody:
    """Domain result -> wire response."""
    return SearchResponseBody(
        mode=result.mode,
        index=request.index,
        top_k=request.top_k,
        candidate_k=request.candidate_k,
        rrf_k=request.rrf_k,
        fusion=request.fusion,
        took_ms=result.took_ms,
        leg_took_ms={leg.value: ms for leg, ms in result.leg_took_ms.items()},
        hits=[to_hit(hit) for hit in result.hits],
    )


@router.post(
    "/v1/search",
    response_model=SearchResponseBody,
    responses={404: {"model": ErrorBody}, 422: {"model": ErrorBody}, 503: {"model": ErrorBody}},
)
async def search(body: SearchBody, resources: ResourcesDep) -> SearchResponseBody:
    """Search in bm25, semantic or hybrid mode (fused by rrf, weighted_rrf, convex or dbsf)."""
    params = SearchParams(
        query=body.query,
        mode=body.mode,
        top_k=body.top_k,
        candidate_k=body.candidate_k,
        rrf_k=body.rrf_k,
        filters=to_filters(body.filters),
        index=body.index,
        fusion=body.fusion,
        weights=to_weights(body.weights),
        alpha=body.alpha,
        normalization=body.normalization,
    )
    request, result = await resources.search.search(params)
    return to_response(request, result)
