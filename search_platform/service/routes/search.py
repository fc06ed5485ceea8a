"""POST /v1/search."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Request

from search_platform.analytics.experiments import ARM_PARAMETERS
from search_platform.auth.request_ids import RequestIds
from search_platform.auth.tenancy import restrict_filters
from search_platform.domain.models import Filters, FusedHit, Leg, SearchMode, SearchResult
from search_platform.domain.timings import Stage
from search_platform.retrieval.fusion import FUSION_READS, explain_params
from search_platform.retrieval.hybrid import SearchRequest
from search_platform.service.auth import SearchPrincipal, authorize_index
from search_platform.service.deps import ResourcesDep
from search_platform.service.metrics import MetricsDep
from search_platform.service.openapi import KEYED, WITH_BODY, error_responses
from search_platform.service.request_id import request_id_of
from search_platform.service.schemas import (
    ChunkRefBody,
    ExplanationBody,
    FiltersBody,
    HitBody,
    LegExplanationBody,
    LegScoreBody,
    SearchBody,
    SearchResponseBody,
    WeightsBody,
)
from search_platform.service.search_service import SearchParams
from search_platform.service.server_timing import request_timings

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
    return None if body is None else {Leg(name): weight for name, weight in body.model_dump().items()}


def pinned_parameters(body: SearchBody) -> frozenset[str]:
    """The arm-settable parameters the caller sent explicitly."""
    return frozenset(name for name in ARM_PARAMETERS
                     if name in body.model_fields_set and getattr(body, name) is not None)


def to_explanation(hit: FusedHit, request: SearchRequest) -> ExplanationBody:
    """A hit's fused score taken apart by leg, with the parameters its fusion method read."""
    hybrid = request.mode is SearchMode.HYBRID
    fusion = request.fusion if hybrid else "none"
    reads = FUSION_READS.get(fusion, ())
    params = explain_params(request.fusion_params(), reads, request.legs_to_run) if hybrid else {}
    legs = {}
    for leg in Leg:
        if leg not in hit.legs and leg not in hit.contributions:
            continue
        found = hit.legs.get(leg)
        legs[leg.value] = LegExplanationBody(
            rank=found.rank if found else None, score=found.score if found else None,
            normalized=hit.normalized.get(leg), contribution=hit.contributions.get(leg, 0.0))
    return ExplanationBody(fusion=fusion, params=params, score=hit.score, legs=legs, rerank_score=hit.rerank_score,
                          route=request.route.value if hybrid and request.route else None)


def to_hit(hit: FusedHit, request: SearchRequest) -> HitBody:
    """Domain hit -> wire hit (with its explanation when the request asked)."""
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
        highlights=list(hit.highlights),
        snippet_source=hit.snippet_source,
        explanation=to_explanation(hit, request) if request.explain else None,
        chunks=[ChunkRefBody(chunk_id=c.chunk_id, chunk_index=c.chunk_index, rank=c.rank, score=c.score)
                for c in hit.chunks],
        rerank_score=hit.rerank_score,
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
        page=request.page,
        page_size=request.top_k,
        window=request.fusion_window,
        total_in_window=result.total_in_window,
        group_by=request.group_by,
        took_ms=result.took_ms,
        leg_took_ms={leg.value: ms for leg, ms in result.leg_took_ms.items()},
        reranked=result.reranked,
        rerank_reason=result.rerank_reason,
        degraded=result.degraded_reason is not None,
        degraded_reason=result.degraded_reason,
        hits=[to_hit(hit, request) for hit in result.hits],
    )


def to_params(body: SearchBody, *, tenant: str | None) -> SearchParams:
    """Wire search -> the service's parameters, its filters restricted to the key's tenant."""
    return SearchParams(
        query=body.query,
        mode=body.mode,
        top_k=body.top_k,
        page=body.page,
        page_size=body.page_size,
        window=body.window,
        highlight=body.highlight,
        explain=body.explain,
        group_by=body.group_by,
        candidate_k=body.candidate_k,
        rrf_k=body.rrf_k,
        filters=restrict_filters(to_filters(body.filters), tenant),
        index=body.index,
        fusion=body.fusion,
        weights=to_weights(body.weights),
        alpha=body.alpha,
        normalization=body.normalization,
        rerank=body.rerank,
    )


@router.post(
    "/v1/search",
    response_model=SearchResponseBody,
    responses=error_responses(*KEYED, *WITH_BODY, 404, 409, 502),  # 409: an index of another model's vectors
)
async def search(
    body: SearchBody, resources: ResourcesDep, principal: SearchPrincipal, metrics: MetricsDep, http: Request,
) -> SearchResponseBody:
    """Search in bm25, semantic or hybrid mode (fused by rrf, weighted_rrf, convex or dbsf); with a user_id or
    session_id, an experiment may assign an arm whose retrieval settings apply (parameters sent explicitly win:
    a search pinning a parameter an experiment varies is left out of that experiment). The Server-Timing header
    gives the request's stages."""
    timings = request_timings(http)
    with timings.measure(Stage.AUTH):
        authorize_index(resources.settings, principal, body.index)
    unit_id = body.user_id or body.session_id
    assignment = resources.analytics.assign(unit_id, pinned=pinned_parameters(body))
    params = to_params(body, tenant=principal.tenant)
    if assignment is not None:
        params = replace(params, **assignment.overrides)
    request, result = await resources.search.search(params)
    timings.extend(result.stages)
    with timings.measure(Stage.LOG):
        request_ids = RequestIds(resources.redis, ttl_s=resources.settings.redis.job_ttl_s)
        request_id = request_ids.claim_or_new(request_id_of(http), principal.tenant)
        resources.analytics.record_search(request, result, request_id=request_id, unit_id=unit_id,
                                          assignment=assignment)
    stages = timings.stages()
    metrics.observe_search(result)
    metrics.observe_stages(result.mode, stages)
    timings.record(Stage.SEARCH, result.took_ms)  # last in the Server-Timing header the middleware writes
    response = to_response(request, result)
    if request.explain:
        response.timings_ms = {stage.name: stage.ms for stage in stages}
    response.request_id = request_id
    if assignment is not None:
        response.experiment, response.arm = assignment.experiment, assignment.arm
    return response
