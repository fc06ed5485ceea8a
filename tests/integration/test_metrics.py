"""/metrics after real traffic through the API and the worker, and JSON logs carrying the request id."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis import Redis

from search_platform.config import Settings
from search_platform.ingestion.ingest_metrics import IngestCounters
from search_platform.service.metrics import BacklogCollector, Metrics
from tests.integration.conftest import _stop, launch_api
from tests.integration.corpus import DOCUMENTS

pytestmark = [pytest.mark.integration, pytest.mark.slow]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
SEARCHES_PER_MODE = {"bm25": 2, "semantic": 3, "hybrid": 1}  # different counts, so a mix-up shows


@pytest.fixture(scope="module")
def observed_api(services: Settings, worker: subprocess.Popen[bytes], tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[tuple[str, Path]]:
    """An API of its own, logging JSON to a file this module reads (at DEBUG: the Elasticsearch client's request
    lines, which the request id must reach, are logged at DEBUG only)."""
    log_path = tmp_path_factory.mktemp("observed-api") / "api.log"
    process, url = launch_api(services, log_path, SP_SERVICE__LOG_FORMAT="json", SP_SERVICE__LOG_LEVEL="DEBUG")
    yield url, log_path
    _stop(process)


def scrape(url: str) -> Samples:
    """Every sample of GET /metrics, keyed by name and sorted labels."""
    response = httpx.get(f"{url}/metrics", timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    assert key in after, f"{key} missing from /metrics"
    return after[key] - before.get(key, 0.0)


def test_metrics_grow_by_exactly_the_traffic_sent(observed_api: tuple[str, Path], index: str,
                                                  auth_headers: dict[str, str]) -> None:
    url, _ = observed_api
    http = httpx.Client(base_url=url, headers=auth_headers, timeout=120)
    before = scrape(url)

    accepted = http.post("/v1/ingest", json={"documents": DOCUMENTS[:4], "index": index})
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    deadline = time.monotonic() + 300
    while (job := http.get(f"/v1/jobs/{job_id}").json())["state"] not in ("done", "failed"):
        assert time.monotonic() < deadline, job
        time.sleep(0.5)
    assert job["state"] == "done" and job["documents_done"] == 4 and job["chunks_done"] >= 4

    for mode, times in SEARCHES_PER_MODE.items():
        for _ in range(times):
            response = http.post("/v1/search", json={"query": "cabinet hinge", "mode": mode, "index": index})
            assert response.status_code == 200, response.text
    assert http.post("/v1/search", json={"query": "x", "top_k": 0, "index": index}).status_code == 422
    assert http.post("/v1/search", json={"query": "x", "index": f"{index}-missing"}).status_code == 404
    after = scrape(url)

    for mode, times in SEARCHES_PER_MODE.items():
        assert delta(before, after, "sp_search_latency_seconds_count", mode=mode) == times
        assert delta(before, after, "sp_search_latency_seconds_sum", mode=mode) > 0
    legs = {"bm25": SEARCHES_PER_MODE["bm25"] + SEARCHES_PER_MODE["hybrid"],
            "dense": SEARCHES_PER_MODE["semantic"] + SEARCHES_PER_MODE["hybrid"]}
    for leg, times in legs.items():
        assert delta(before, after, "sp_es_leg_latency_seconds_count", leg=leg) == times
    assert delta(before, after, "sp_search_degraded_total", mode="hybrid") == 0
    assert delta(before, after, "sp_errors_total", type="invalid_request") == 1
    assert delta(before, after, "sp_errors_total", type="index_not_found") == 1
    route = {"method": "POST", "route": "/v1/search"}
    assert delta(before, after, "sp_http_request_duration_seconds_count", **route, status="200") == 6
    assert delta(before, after, "sp_http_request_duration_seconds_count", **route, status="422") == 1
    assert delta(before, after, "sp_http_request_duration_seconds_count", **route, status="404") == 1
    assert delta(before, after, "sp_http_request_duration_seconds_count", method="POST", route="/v1/ingest",
                 status="202") == 1

    assert after[("sp_redis_up", ())] == 1
    assert after[("sp_celery_queue_depth", (("queue", "ingest"),))] == 0  # the job is done: nothing waits
    assert delta(before, after, "sp_ingest_documents_total", outcome="ok") == job["documents_done"]
    assert delta(before, after, "sp_ingest_documents_total", outcome="failed") == job["documents_failed"] == 0
    assert delta(before, after, "sp_ingest_chunks_total") == job["chunks_done"]


def test_queue_depth_is_read_from_the_broker_lists(services: Settings) -> None:
    redis: Redis[bytes] = Redis.from_url(services.redis.url, socket_timeout=5)
    queue = f"sp-test-queue-{uuid.uuid4().hex[:8]}"
    try:
        redis.rpush(queue, "a", "b", "c")
        redis.rpush(f"{queue}\x06\x166", "d")  # kombu's list for priority 6
        metrics = Metrics.create()
        metrics.registry.register(BacklogCollector(redis, queues=[queue], counters=IngestCounters(redis)))
        depth = {s.labels["queue"]: s.value for family in metrics.registry.collect()
                 if family.name == "sp_celery_queue_depth" for s in family.samples}
        assert depth == {queue: 4}
    finally:
        redis.delete(queue, f"{queue}\x06\x166")
        redis.close()


def read_log(log_path: Path, request_id: str, *, timeout_s: float = 10) -> list[dict[str, object]]:
    """The JSON log lines of one request (waiting briefly for the access line to be flushed)."""
    deadline = time.monotonic() + timeout_s
    while True:
        lines = [line for line in log_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        entries = [json.loads(line) for line in lines]  # every line is JSON, or this raises
        mine = [entry for entry in entries if entry.get("request_id") == request_id]
        if any(entry["logger"] == "uvicorn.access" for entry in mine) or time.monotonic() > deadline:
            return mine
        time.sleep(0.2)


def test_logs_are_json_lines_carrying_the_request_id(observed_api: tuple[str, Path], index: str,
                                                     auth_headers: dict[str, str]) -> None:
    url, log_path = observed_api
    request_id = f"it-{uuid.uuid4().hex}"
    response = httpx.post(f"{url}/v1/search", json={"query": "hinge", "mode": "bm25", "index": f"{index}-none"},
                          headers={**auth_headers, "X-Request-ID": request_id}, timeout=60)
    assert response.status_code == 404
    assert response.headers["X-Request-ID"] == request_id
    entries = read_log(log_path, request_id)
    access = [entry for entry in entries if entry["logger"] == "uvicorn.access"]
    assert len(access) == 1
    assert (access[0]["method"], access[0]["path"], access[0]["status"]) == ("POST", "/v1/search", 404)
    assert {"timestamp", "level", "message"} <= set(access[0])
    # the id reaches the lines the request's own code logs too, e.g. the Elasticsearch client's
    assert any(entry["logger"] == "elastic_transport.transport" for entry in entries)


def test_an_unsafe_request_id_is_replaced_and_returned(observed_api: tuple[str, Path]) -> None:
    url, log_path = observed_api
    response = httpx.get(f"{url}/healthz", headers={"X-Request-ID": "bad id with spaces"}, timeout=30)
    generated = response.headers["X-Request-ID"]
    assert generated != "bad id with spaces" and len(generated) == 32
    assert read_log(log_path, generated)
