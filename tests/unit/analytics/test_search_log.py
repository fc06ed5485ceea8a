from datetime import UTC, datetime

from search_platform.analytics.search_log import LogContext, click_event, search_event
from search_platform.domain.models import Filters, FusedHit, Leg, SearchMode, SearchResult
from search_platform.retrieval.fusion import Normalization
from search_platform.retrieval.hybrid import SearchRequest
from search_platform.retrieval.routing import Route

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
CONTEXT = LogContext(request_id="r1", timestamp=WHEN, tenant=("acme",), user_id="u-hash", experiment="exp",
                     arm="dbsf")


def _hit(chunk_id: str, rank: int) -> FusedHit:
    return FusedHit(chunk_id=chunk_id, rank=rank, score=1.0 / rank, legs={}, source={})


def _request(**overrides) -> SearchRequest:
    fields = dict(query="reset password", mode=SearchMode.HYBRID, index="docs", top_k=2, candidate_k=3, rrf_k=60,
                  filters=Filters(tenants=("acme",)), fusion="routed", weights={Leg.BM25: 2.0},
                  alpha=0.3, normalization=Normalization.ZSCORE, route=Route.LEXICAL, page=2)
    return SearchRequest(**{**fields, **overrides})


def test_search_event_is_the_literal_document():
    result = SearchResult(
        mode=SearchMode.HYBRID, hits=(_hit("c3", 3), _hit("c4", 4)), took_ms=12.5,
        leg_took_ms={Leg.BM25: 4.0, Leg.DENSE: 7.5},
        leg_hit_ids={Leg.BM25: ("c1", "c2", "c3"), Leg.DENSE: ("c4", "c1", "c9")},
        total_in_window=5, degraded_reason=None,
    )
    event = search_event(_request(), result, context=CONTEXT, max_leg_hit_ids=2)
    assert event == {
        "@timestamp": "2026-01-02T03:04:05+00:00",
        "event": "search",
        "request_id": "r1",
        "tenant": ["acme"],
        "user_id": "u-hash",
        "experiment": "exp",
        "arm": "dbsf",
        "query": "reset password",
        "mode": "hybrid",
        "fusion": "routed",
        "route": "lexical",
        "params": {"top_k": 2, "candidate_k": 3, "rrf_k": 60, "alpha": 0.3,
                   "weights": {"bm25": 2.0, "dense": 1.0}, "normalization": "zscore"},
        "latency_ms": 12.5,
        "legs": {"bm25": {"latency_ms": 4.0, "hit_ids": ["c1", "c2"]},
                 "dense": {"latency_ms": 7.5, "hit_ids": ["c4", "c1"]}},
        "hits": 2,
        "zero_result": False,
        "degraded": False,
        "degraded_reason": None,
        "page": 2,
    }


def test_one_leg_search_has_no_fusion_and_flags_zero_results_and_degradation():
    result = SearchResult(mode=SearchMode.BM25, hits=(), took_ms=3.0, leg_took_ms={Leg.BM25: 2.0},
                          leg_hit_ids={Leg.BM25: ()}, total_in_window=0, degraded_reason="dense leg failed: x")
    event = search_event(_request(mode=SearchMode.BM25, route=None), result,
                         context=LogContext(request_id="r2", timestamp=WHEN))
    assert (event["fusion"], event["route"], event["hits"], event["zero_result"]) == ("none", None, 0, True)
    assert (event["degraded"], event["degraded_reason"]) == (True, "dense leg failed: x")
    assert event["legs"] == {"bm25": {"latency_ms": 2.0, "hit_ids": []}}
    assert (event["user_id"], event["experiment"], event["arm"], event["tenant"]) == (None, None, None, [])


def test_click_event_is_the_literal_document():
    assert click_event(context=CONTEXT, doc_id="d1", position=3, chunk_id="d1#0") == {
        "@timestamp": "2026-01-02T03:04:05+00:00",
        "event": "click",
        "request_id": "r1",
        "tenant": ["acme"],
        "user_id": "u-hash",
        "experiment": "exp",
        "arm": "dbsf",
        "doc_id": "d1",
        "chunk_id": "d1#0",
        "position": 3,
    }
