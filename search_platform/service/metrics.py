"""Prometheus metrics of one API app: its own registry, the HTTP timing middleware, search and error counters,
and a collector that reads the Celery backlog and the workers' ingest counters from Redis on each scrape."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from redis import Redis
from redis.exceptions import RedisError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from search_platform.domain.models import Leg, SearchMode, SearchResult
from search_platform.domain.timings import StageTiming
from search_platform.ingestion.ingest_metrics import IngestCounters
from search_platform.service.request_id import RequestIdMiddleware, with_request_id
from search_platform.service.resources import Resources
from search_platform.service.server_timing import ServerTimingMiddleware

METRICS_PATH = "/metrics"
UNMATCHED_ROUTE = "unmatched"  # requests no route answered share one label value, whatever their path
LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0, 30.0)
# one stage of a search takes from tens of microseconds (fusion) to tens of milliseconds (encoding, a leg)
STAGE_BUCKETS_S = (0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05,
                   0.1, 0.25, 0.5, 1.0, 2.5)
# kombu's Redis transport keeps a queue's priority levels (other than 0) in lists named queue + sep + level.
KOMBU_PRIORITY_SEPARATOR = "\x06\x16"
KOMBU_PRIORITY_STEPS = (3, 6, 9)


@dataclass(frozen=True, slots=True)
class Metrics:
    """The series one API process exposes, in a registry of its own (so apps and tests never collide)."""

    registry: CollectorRegistry
    http_latency: Histogram
    search_latency: Histogram
    leg_latency: Histogram
    stage_latency: Histogram
    degraded: Counter
    errors: Counter

    @classmethod
    def create(cls) -> Metrics:
        """A fresh registry with every series defined and every mode and leg present at zero."""
        registry = CollectorRegistry()
        metrics = cls(
            registry=registry,
            http_latency=Histogram("sp_http_request_duration_seconds", "HTTP request latency by route and status.",
                                   ["method", "route", "status"], buckets=LATENCY_BUCKETS_S, registry=registry),
            search_latency=Histogram("sp_search_latency_seconds", "Search latency (legs, fusion, rerank) by mode.",
                                     ["mode"], buckets=LATENCY_BUCKETS_S, registry=registry),
            leg_latency=Histogram("sp_es_leg_latency_seconds", "Elasticsearch latency of one retrieval leg.",
                                  ["leg"], buckets=LATENCY_BUCKETS_S, registry=registry),
            stage_latency=Histogram("sp_search_stage_duration_seconds", "Duration of one stage of a search (auth, "
                                    "encode, each leg, fusion, rerank, page, log; the Server-Timing stages) by mode.",
                                    ["stage", "mode"], buckets=STAGE_BUCKETS_S, registry=registry),
            degraded=Counter("sp_search_degraded", "Searches answered by fewer legs than asked (a leg failed).",
                             ["mode"], registry=registry),
            errors=Counter("sp_errors", "Error responses by error type (the `error` field of the body).",
                           ["type"], registry=registry),
        )
        for mode in SearchMode:
            metrics.search_latency.labels(mode=mode.value)
            metrics.degraded.labels(mode=mode.value)
        for leg in Leg:
            metrics.leg_latency.labels(leg=leg.value)
        return metrics

    def observe_search(self, result: SearchResult) -> None:
        """Record one answered search: its latency, each leg's latency, and whether it was degraded."""
        mode = result.mode.value
        self.search_latency.labels(mode=mode).observe(result.took_ms / 1000)
        for leg, took_ms in result.leg_took_ms.items():
            self.leg_latency.labels(leg=leg.value).observe(took_ms / 1000)
        if result.degraded_reason is not None:
            self.degraded.labels(mode=mode).inc()

    def observe_stages(self, mode: SearchMode, stages: Iterable[StageTiming]) -> None:
        """Record one search's stage durations."""
        for stage in stages:
            self.stage_latency.labels(stage=stage.name, mode=mode.value).observe(stage.ms / 1000)

    def count_error(self, error_type: str) -> None:
        """Count one error response."""
        self.errors.labels(type=error_type).inc()

    def render(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)


class BacklogCollector(Collector):
    """Celery queue depth and ingest totals from Redis; `sp_redis_up 0` (and nothing else) when it is down."""

    def __init__(self, redis: Redis[bytes], *, queues: Sequence[str], counters: IngestCounters) -> None:
        self._redis = redis
        self._queues = tuple(queues)
        self._counters = counters

    def _depths(self) -> dict[str, int]:
        pipe = self._redis.pipeline(transaction=False)
        for queue in self._queues:
            for key in queue_keys(queue):
                pipe.llen(key)
        lengths = iter(pipe.execute())
        return {queue: sum(next(lengths) for _ in queue_keys(queue)) for queue in self._queues}

    def collect(self) -> Iterable[Metric]:
        """Read Redis now; a failure becomes sp_redis_up 0 instead of a failed scrape."""
        try:
            depths = self._depths()
            totals = self._counters.read()
        except RedisError:
            yield GaugeMetricFamily("sp_redis_up", "Whether /metrics could read Redis.", value=0)
            return
        yield GaugeMetricFamily("sp_redis_up", "Whether /metrics could read Redis.", value=1)
        depth = GaugeMetricFamily("sp_celery_queue_depth", "Tasks waiting in a Celery queue.", labels=["queue"])
        for queue, length in depths.items():
            depth.add_metric([queue], length)
        yield depth
        documents = CounterMetricFamily("sp_ingest_documents", "Documents the workers ingested, by outcome.",
                                        labels=["outcome"])
        documents.add_metric(["ok"], totals.documents_ok)
        documents.add_metric(["failed"], totals.documents_failed)
        yield documents
        yield CounterMetricFamily("sp_ingest_chunks", "Chunks the workers indexed.", value=totals.chunks)


def queue_keys(queue: str) -> tuple[str, ...]:
    """The Redis lists holding a kombu queue's messages: the queue itself and one per priority level."""
    return (queue, *(f"{queue}{KOMBU_PRIORITY_SEPARATOR}{step}" for step in KOMBU_PRIORITY_STEPS))


class MetricsMiddleware:
    """Times every HTTP request and records it by method, route template and status (500 when it raised)."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self._app = app
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request through, timing it."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self._app(scope, receive, send_and_note_status)
        finally:
            self._metrics.http_latency.labels(
                method=scope["method"], route=route_label(scope), status=str(status)
            ).observe(time.perf_counter() - started)


def route_label(scope: Scope) -> str:
    """The matched route's path template (/v1/jobs/{job_id}), never the raw path, so labels stay bounded."""
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else UNMATCHED_ROUTE


def get_metrics(request: Request) -> Metrics:
    """The app's Metrics, installed by install_observability."""
    metrics: Metrics = request.app.state.metrics
    return metrics


MetricsDep = Annotated[Metrics, Depends(get_metrics)]


def error_type(response: Response) -> str:
    """The `error` code of one of our error bodies, else http_<status> (Starlette's 404/405 bodies)."""
    if isinstance(response, JSONResponse):
        try:
            body = json.loads(bytes(response.body))
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            return str(body["error"])
    return f"http_{response.status_code}"


ErrorHandler = Callable[[Request, Exception], Any]


def counted(handler: ErrorHandler, metrics: Metrics) -> ErrorHandler:
    """Wrap an exception handler: count its response by error type and tag it with the request id."""

    async def counting_handler(request: Request, error: Exception) -> Response:
        response = handler(request, error)
        if inspect.isawaitable(response):
            response = await response
        assert isinstance(response, Response)
        metrics.count_error(error_type(response))
        return with_request_id(request, response)

    return counting_handler


def install_observability(app: FastAPI) -> Metrics:
    """Request ids and metrics for app: call last in create_app, after every exception handler is installed.

    Adds the request-id middleware (outermost), the timing middleware and the Server-Timing one for errors; counts
    every handled error (ours, the auth handlers', Starlette's 404/405) in sp_errors_total, and serves GET /metrics.
    """
    metrics = Metrics.create()
    app.state.metrics = metrics
    for error_class, handler in list(app.exception_handlers.items()):
        app.exception_handlers[error_class] = counted(handler, metrics)
    app.add_middleware(ServerTimingMiddleware)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(RequestIdMiddleware)

    @app.get(METRICS_PATH, include_in_schema=False)
    async def prometheus_metrics() -> Response:
        """Every series in the Prometheus text format (Redis is read off the event loop)."""
        return Response(await asyncio.to_thread(metrics.render), media_type=CONTENT_TYPE_LATEST)

    return metrics


def watch_backlog(metrics: Metrics, resources: Resources) -> Callable[[], None]:
    """Report the Celery queues' depth and the ingest counters from the app's Redis; returns the undo."""
    queues = [queue.name for queue in resources.celery.conf.task_queues or ()]
    collector = BacklogCollector(resources.redis, queues=queues, counters=IngestCounters(resources.redis))
    metrics.registry.register(collector)
    return lambda: metrics.registry.unregister(collector)
