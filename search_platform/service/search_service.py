"""Search orchestration: resolve defaults, enforce limits, run the searcher. Knows nothing of HTTP."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from search_platform.config import RetrievalSettings
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Filters, GroupBy, Leg, SearchMode, SearchResult
from search_platform.retrieval.fusion import (
    DEFAULT_ALPHA,
    DEFAULT_NORMALIZATION,
    OPT_IN_LEGS,
    FusionParams,
    Normalization,
)
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest, legs_for
from search_platform.retrieval.routing import Route, classify_query
from search_platform.text.definitions import query_names

ROUTED = "routed"  # the fusion whose weights the query's route picks
WEIGHTED_RRF = "weighted_rrf"


@dataclass(frozen=True, slots=True)
class SearchParams:
    """A caller's request before defaults: None means 'use the configured default'.

    page_size is the page length and top_k its older name: send either (or both, equal). window is how many
    fused hits pages are cut from (default: settings.window, raised to page_size so page 1 always fits); page *
    page_size must not exceed it. highlight defaults to off here (the HTTP API turns it on). rerank None: the
    configured default (settings.rerank.enabled).
    """

    query: str
    mode: SearchMode = SearchMode.HYBRID
    top_k: int | None = None
    page: int = 1
    page_size: int | None = None
    window: int | None = None
    highlight: bool = False
    explain: bool = False
    group_by: GroupBy = GroupBy.CHUNK
    candidate_k: int | None = None
    rrf_k: int | None = None
    filters: Filters = Filters()
    index: str | None = None
    fusion: str | None = None  # None: settings.fusion
    weights: Mapping[Leg, float] | None = None  # None: settings.bm25_weight / dense_weight
    alpha: float | None = None
    normalization: Normalization | None = None
    rerank: bool | None = None
    tech_boost: float | None = None  # internal (tuning): the BM25 `tech` boost; not on the HTTP API


class SearchService:
    """Turns SearchParams into a validated SearchRequest and runs it."""

    def __init__(self, searcher: HybridSearcher, settings: RetrievalSettings, *, default_index: str,
                 rerank_by_default: bool = False) -> None:
        self._searcher = searcher
        self._settings = settings
        self._default_index = default_index
        self._rerank_by_default = rerank_by_default
        self._default_weights = {Leg.BM25: settings.bm25_weight, Leg.DENSE: settings.dense_weight}

    def resolve(self, params: SearchParams) -> SearchRequest:
        """Apply defaults and limits; raise InvalidQueryError naming the bad parameter."""
        limits = self._settings
        query = params.query.strip()
        if not query:
            raise InvalidQueryError("query is empty")
        if len(params.query) > limits.max_query_chars:  # as sent, the limit the OpenAPI document states
            raise InvalidQueryError(f"query is {len(params.query)} characters, over the {limits.max_query_chars} "
                                    "limit", fields=("query",))
        top_k = checked_page_size(params, limits)
        candidate_k = params.candidate_k or max(limits.candidate_k, top_k)
        if candidate_k > limits.max_candidate_k:
            raise InvalidQueryError(f"candidate_k must be at most {limits.max_candidate_k}")
        if candidate_k < top_k and params.mode is not SearchMode.HYBRID:
            raise InvalidQueryError(f"candidate_k ({candidate_k}) must be at least top_k ({top_k}) for one leg")
        fusion = self._checked_fusion(params.fusion or default_fusion(limits.fusion, weights_sent=params.weights
                                                                      is not None))
        sent_weights = params.weights if params.weights is not None or fusion == ROUTED else self._default_weights
        route, weights = routed_weights(fusion, query, checked_weights(sent_weights), limits)
        return SearchRequest(
            query=query,
            mode=params.mode,
            index=params.index or self._default_index,
            top_k=top_k,
            candidate_k=candidate_k,
            rrf_k=params.rrf_k or limits.rrf_k,
            filters=params.filters,
            fusion=fusion,
            weights=weights,
            route=route,
            tech_boost=checked_tech_boost(params.tech_boost),
            alpha=checked_alpha(params.alpha),
            normalization=checked_normalization(params.normalization),
            page=params.page,
            window=checked_window(params, page_size=top_k, limits=limits),
            highlight=params.highlight,
            explain=params.explain,
            group_by=params.group_by,
            legs=legs_for(params.mode, params.group_by, limits.lexical_unit, opted_in=opted_in(query, weights)),
            rerank=self._checked_rerank(params.rerank),
        )

    def _checked_fusion(self, fusion: str) -> str:
        """The fusion method's name, if the searcher knows it."""
        choices = self._searcher.fusion_methods
        if fusion not in choices:
            raise InvalidQueryError(f"unknown fusion {fusion!r}: choose one of {', '.join(choices)}")
        return fusion

    def _checked_rerank(self, rerank: bool | None) -> bool:
        """Whether to rerank: the request's choice, else the default; asking without a reranker is refused."""
        wanted = self._rerank_by_default if rerank is None else rerank
        if wanted and not self._searcher.can_rerank:
            raise InvalidQueryError("rerank: no reranker is configured on this service (set SP_RERANK__MODEL_PATH "
                                    "to a local cross-encoder directory)", fields=("rerank",))
        return wanted

    async def search(self, params: SearchParams) -> tuple[SearchRequest, SearchResult]:
        """Validate and run one search."""
        request = self.resolve(params)
        return request, await self._searcher.search(request)


def opted_in(query: str, weights: Mapping[Leg, float]) -> list[Leg]:
    """The opt-in lists (lead passages, definitions) this query runs: those that weigh more than 0, but the
    definitions list only when the query writes a name."""
    weighted = [leg for leg in OPT_IN_LEGS if FusionParams(weights=weights).weight(leg) > 0]
    return [leg for leg in weighted if leg is not Leg.DEFINITIONS or query_names(query)]


def checked_page_size(params: SearchParams, limits: RetrievalSettings) -> int:
    """The page size: page_size or its alias top_k (they must agree when both are sent), within max_top_k."""
    if params.page_size and params.top_k and params.page_size != params.top_k:
        raise InvalidQueryError(f"page_size ({params.page_size}) and top_k ({params.top_k}) differ: top_k is "
                                "page_size's older name, send one", fields=("page_size", "top_k"))
    page_size = params.page_size or params.top_k or limits.top_k
    if page_size > limits.max_top_k:
        raise InvalidQueryError(f"top_k must be at most {limits.max_top_k}", fields=("page_size", "top_k"))
    return page_size


def checked_window(params: SearchParams, *, page_size: int, limits: RetrievalSettings) -> int:
    """The fusion window (settings.window by default, never below one page), holding page * page_size hits."""
    window = params.window or max(limits.window, page_size)
    if window > limits.max_window:
        raise InvalidQueryError(f"window must be at most {limits.max_window}", fields=("window",))
    if params.page < 1:
        raise InvalidQueryError("page starts at 1", fields=("page",))
    if params.page * page_size > window:
        raise InvalidQueryError(
            f"page * page_size ({params.page} * {page_size} = {params.page * page_size}) must be at most window "
            f"({window}): pages are cut from the first `window` fused hits", fields=("page", "page_size", "window"))
    return window


def default_fusion(configured: str, *, weights_sent: bool) -> str:
    """The fusion of a request that names none: the configured one, except that weights sent while the default is
    routed (whose route picks the weights) ask for weighted RRF with those weights."""
    return WEIGHTED_RRF if weights_sent and configured == ROUTED else configured


def checked_weights(weights: Mapping[Leg, float] | None) -> dict[Leg, float]:
    """Per-leg weights: known legs, finite, at least 0, and not all 0 (an unset leg weighs 1.0)."""
    try:
        checked = {Leg(leg): float(weight) for leg, weight in (weights or {}).items()}
    except (TypeError, ValueError) as error:
        raise InvalidQueryError(f"weights: {error}; legs are {', '.join(Leg)}") from error
    if not all(math.isfinite(weight) and weight >= 0 for weight in checked.values()):
        raise InvalidQueryError("weights must be finite and at least 0")
    if all(FusionParams(weights=checked).weight(leg) == 0 for leg in Leg):
        raise InvalidQueryError("weights must not all be 0")
    return checked


def routed_weights(fusion: str, query: str, weights: dict[Leg, float], settings: RetrievalSettings
                   ) -> tuple[Route | None, dict[Leg, float]]:
    """fusion=routed: the query's route and that route's weights from the settings (sent weights are refused);
    else no route."""
    if fusion != ROUTED:
        return None, weights
    if weights:
        raise InvalidQueryError("weights cannot be sent with fusion=routed: the query's route picks them",
                                fields=("weights",))
    route = classify_query(query)
    chosen = settings.route_weights[route.value]
    return route, {Leg(name): weight for name, weight in chosen.model_dump().items()}


def checked_tech_boost(tech_boost: float | None) -> float | None:
    """The BM25 `tech` boost override: finite and at least 0 (0 turns the field off); None keeps the setting."""
    if tech_boost is not None and not (math.isfinite(tech_boost) and tech_boost >= 0):
        raise InvalidQueryError(f"tech_boost must be finite and at least 0, got {tech_boost}")
    return tech_boost


def checked_alpha(alpha: float | None) -> float:
    """Alpha in [0, 1] (the default when unset)."""
    if alpha is None:
        return DEFAULT_ALPHA
    if not 0.0 <= alpha <= 1.0:
        raise InvalidQueryError(f"alpha must be between 0 and 1, got {alpha}")
    return float(alpha)


def checked_normalization(normalization: Normalization | str | None) -> Normalization:
    """A known normalisation (the default when unset)."""
    if normalization is None:
        return DEFAULT_NORMALIZATION
    try:
        return Normalization(normalization)
    except ValueError as error:
        choices = ", ".join(Normalization)
        raise InvalidQueryError(f"unknown normalization {normalization!r}: choose one of {choices}") from error
