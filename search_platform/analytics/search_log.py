"""Log events: one search (request + result) or one click, as the document the search-log index stores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from search_platform.domain.models import SearchMode, SearchResult
from search_platform.retrieval.hybrid import SearchRequest

SEARCH_EVENT = "search"
CLICK_EVENT = "click"
NO_FUSION = "none"  # one-leg modes do not fuse


@dataclass(frozen=True, slots=True)
class LogContext:
    """Who asked and when: everything an event needs besides the search itself (user_id already pseudonymised)."""

    request_id: str
    timestamp: datetime
    tenant: Sequence[str] = ()
    user_id: str | None = None
    experiment: str | None = None
    arm: str | None = None


def _context_fields(context: LogContext, event: str) -> dict[str, Any]:
    return {
        "@timestamp": context.timestamp.isoformat(),
        "event": event,
        "request_id": context.request_id,
        "tenant": list(context.tenant),
        "user_id": context.user_id,
        "experiment": context.experiment,
        "arm": context.arm,
    }


def _params(request: SearchRequest) -> dict[str, Any]:
    return {
        "top_k": request.top_k,
        "candidate_k": request.candidate_k,
        "rrf_k": request.rrf_k,
        "alpha": request.alpha,
        "weights": request.fusion_params().leg_weights(request.legs_to_run),
        "normalization": request.normalization.value,
    }


def _legs(result: SearchResult, *, max_hit_ids: int) -> dict[str, Any]:
    return {
        leg.value: {"latency_ms": took_ms, "hit_ids": list(result.leg_hit_ids.get(leg, ())[:max_hit_ids])}
        for leg, took_ms in result.leg_took_ms.items()
    }


def search_event(
    request: SearchRequest, result: SearchResult, *, context: LogContext, max_leg_hit_ids: int = 100
) -> dict[str, Any]:
    """The log document of one search; hits counts the page, zero_result means nothing matched at all."""
    hybrid = request.mode is SearchMode.HYBRID
    return {
        **_context_fields(context, SEARCH_EVENT),
        "query": request.query,
        "mode": request.mode.value,
        "fusion": request.fusion if hybrid else NO_FUSION,
        "route": request.route.value if hybrid and request.route else None,
        "params": _params(request),
        "latency_ms": result.took_ms,
        "legs": _legs(result, max_hit_ids=max_leg_hit_ids),
        "hits": len(result.hits),
        "zero_result": result.total_in_window == 0,
        "degraded": result.degraded_reason is not None,
        "degraded_reason": result.degraded_reason,
        "page": request.page,
    }


def click_event(*, context: LogContext, doc_id: str, position: int, chunk_id: str | None = None) -> dict[str, Any]:
    """The log document of one click on a result of the search context.request_id (position from 1)."""
    return {**_context_fields(context, CLICK_EVENT), "doc_id": doc_id, "chunk_id": chunk_id, "position": position}
