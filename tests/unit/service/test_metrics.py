"""Metrics of one app: series, the timing and request-id middleware, error counting, the Redis collector."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families
from redis import Redis

from search_platform.domain.errors import BackendUnavailableError, InvalidQueryError
from search_platform.domain.models import Leg, SearchMode, SearchResult
from search_platform.domain.timings import StageTiming
from search_platform.ingestion.ingest_metrics import IngestCounters
from search_platform.service.errors import install_error_handlers
from search_platform.service.metrics import (
    UNMATCHED_ROUTE,
    BacklogCollector,
    Metrics,
    install_observability,
    queue_keys,
)


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the text exposition, keyed by name and sorted labels."""
    text = metrics.render().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def result(mode: SearchMode, legs: dict[Leg, float], *, took_ms: float = 40.0, degraded: str | None = None
           ) -> SearchResult:
    return SearchResult(mode=mode, hits=(), took_ms=took_ms, leg_took_ms=legs, degraded_reason=degraded)


def test_every_mode_and_leg_is_exposed_at_zero_before_traffic() -> None:
    values = samples(Metrics.create())
    for mode in SearchMode:
        assert values[("sp_search_latency_seconds_count", (("mode", mode.value),))] == 0
        assert values[("sp_search_degraded_total", (("mode", mode.value),))] == 0
    for leg in Leg:
        assert values[("sp_es_leg_latency_seconds_count", (("leg", leg.value),))] == 0


def test_a_search_is_recorded_under_its_mode_and_each_leg() -> None:
    metrics = Metrics.create()
    metrics.observe_search(result(SearchMode.HYBRID, {Leg.BM25: 12.0, Leg.DENSE: 30.0}, took_ms=45.0))
    metrics.observe_search(result(SearchMode.BM25, {Leg.BM25: 8.0}, took_ms=9.0))
    metrics.observe_search(result(SearchMode.HYBRID, {Leg.BM25: 5.0}, took_ms=300.0,
                                  degraded="dense leg failed: timeout"))
    values = samples(metrics)
    assert values[("sp_search_latency_seconds_count", (("mode", "hybrid"),))] == 2
    assert values[("sp_search_latency_seconds_count", (("mode", "bm25"),))] == 1
    assert values[("sp_search_latency_seconds_count", (("mode", "semantic"),))] == 0
    assert values[("sp_search_latency_seconds_sum", (("mode", "bm25"),))] == pytest.approx(0.009)
    assert values[("sp_es_leg_latency_seconds_count", (("leg", "bm25"),))] == 3
    assert values[("sp_es_leg_latency_seconds_sum", (("leg", "dense"),))] == pytest.approx(0.030)
    assert values[("sp_search_degraded_total", (("mode", "hybrid"),))] == 1
    # 45 ms falls in the 50 ms bucket (not the 25 ms one), 300 ms only from the 500 ms bucket on
    assert values[("sp_search_latency_seconds_bucket", (("le", "0.025"), ("mode", "hybrid")))] == 0
    assert values[("sp_search_latency_seconds_bucket", (("le", "0.05"), ("mode", "hybrid")))] == 1
    assert values[("sp_search_latency_seconds_bucket", (("le", "0.5"), ("mode", "hybrid")))] == 2


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/items/{item_id}")
    async def item(item_id: str) -> dict[str, str]:
        if item_id == "bad":
            raise InvalidQueryError("bad item", fields=("item_id",))
        if item_id == "down":
            raise BackendUnavailableError("es down")
        if item_id == "bug":
            raise RuntimeError("a bug")
        return {"id": item_id}

    install_observability(app)
    return app


@pytest.fixture
async def api() -> Any:
    app = _app()
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield app, http


async def test_requests_are_timed_by_route_template_and_status(api: Any) -> None:
    app, http = api
    for item_id in ("a", "b", "bad", "bug"):
        await http.get(f"/items/{item_id}")
    await http.get("/no/such/path")
    values = samples(app.state.metrics)
    route = "/items/{item_id}"

    def count(route: str, status: str) -> float:
        return values[("sp_http_request_duration_seconds_count",
                       (("method", "GET"), ("route", route), ("status", status)))]

    assert count(route, "200") == 2
    assert count(route, "422") == 1
    assert count(route, "500") == 1
    assert count(UNMATCHED_ROUTE, "404") == 1
    assert not any(dict(labels).get("route") == "/items/a" for _, labels in values)


async def test_error_responses_are_counted_by_their_error_code(api: Any) -> None:
    app, http = api
    for item_id in ("bad", "bad", "down", "bug"):
        await http.get(f"/items/{item_id}")
    await http.get("/no/such/path")
    await http.post("/items/a")
    values = samples(app.state.metrics)
    assert values[("sp_errors_total", (("type", "invalid_request"),))] == 2
    assert values[("sp_errors_total", (("type", "backend_unavailable"),))] == 1
    assert values[("sp_errors_total", (("type", "internal_error"),))] == 1
    assert values[("sp_errors_total", (("type", "http_404"),))] == 1
    assert values[("sp_errors_total", (("type", "http_405"),))] == 1


async def test_a_sane_request_id_is_echoed_and_an_unsafe_one_replaced(api: Any) -> None:
    _, http = api
    sent = await http.get("/items/a", headers={"X-Request-ID": "abc-123.x:y_z"})
    assert sent.headers["X-Request-ID"] == "abc-123.x:y_z"
    for bad in ("a" * 129, "has space", "quote\"", ""):
        replaced = await http.get("/items/a", headers={"X-Request-ID": bad})
        assert replaced.headers["X-Request-ID"] != bad
        assert len(replaced.headers["X-Request-ID"]) == 32
    generated = await http.get("/items/a")
    assert len(generated.headers["X-Request-ID"]) == 32


async def test_error_responses_carry_the_request_id_too(api: Any) -> None:
    _, http = api
    for item_id in ("bad", "down", "bug"):
        response = await http.get(f"/items/{item_id}", headers={"X-Request-ID": f"rid-{item_id}"})
        assert response.headers["X-Request-ID"] == f"rid-{item_id}"


async def test_metrics_endpoint_serves_the_text_format(api: Any) -> None:
    _, http = api
    await http.get("/items/a")
    response = await http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert {"sp_http_request_duration_seconds", "sp_search_latency_seconds", "sp_errors"} <= names


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_scrape_with_redis_down_reports_redis_up_zero_instead_of_failing() -> None:
    metrics = Metrics.create()
    redis: Redis[bytes] = Redis(host="127.0.0.1", port=_closed_port(), socket_connect_timeout=1)
    metrics.registry.register(BacklogCollector(redis, queues=["ingest"], counters=IngestCounters(redis)))
    values = samples(metrics)
    assert values[("sp_redis_up", ())] == 0
    assert not any(name.startswith(("sp_celery_queue_depth", "sp_ingest_")) for name, _ in values)


def test_queue_keys_include_kombu_priority_lists() -> None:
    assert queue_keys("ingest") == ("ingest", "ingest\x06\x163", "ingest\x06\x166", "ingest\x06\x169")


def test_stages_are_recorded_in_seconds_by_stage_and_mode() -> None:
    metrics = Metrics.create()
    metrics.observe_stages(SearchMode.HYBRID, [StageTiming("encode", 3.0), StageTiming("bm25", 4.0),
                                               StageTiming("dense", 6.0)])
    metrics.observe_stages(SearchMode.HYBRID, [StageTiming("encode", 2.0)])
    metrics.observe_stages(SearchMode.SEMANTIC, [StageTiming("encode", 1.0)])
    values = samples(metrics)
    hybrid_encode = (("mode", "hybrid"), ("stage", "encode"))
    assert values[("sp_search_stage_duration_seconds_count", hybrid_encode)] == 2
    assert values[("sp_search_stage_duration_seconds_sum", hybrid_encode)] == pytest.approx(0.003 + 0.002)
    assert values[("sp_search_stage_duration_seconds_count", (("mode", "semantic"), ("stage", "encode")))] == 1
    bucket = "sp_search_stage_duration_seconds_bucket"
    assert values[(bucket, (("le", "0.002"), *hybrid_encode))] == 1  # the 2 ms one
    assert values[(bucket, (("le", "0.003"), *hybrid_encode))] == 2
