"""Search logs, experiments, feedback, the report and rollover against real Elasticsearch and a real API."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from click.testing import Result
from elasticsearch import Elasticsearch
from search_platform_client import InvalidRequestError, SearchClient
from typer.testing import CliRunner

from search_platform.analytics.experiments import choose_arm, pseudonymize
from search_platform.analytics.log_index import (
    LOG_MAPPINGS,
    delete_log_indices,
    ensure_log_index,
    generation_index_name,
)
from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.cli import app as cli_app
from search_platform.config import ExperimentSettings, Settings
from tests.integration.conftest import _stop, launch_api
from tests.integration.corpus import DOCUMENTS

pytestmark = pytest.mark.integration

EXPERIMENT = {"name": "fusion-test", "arms": [{"name": "control", "share": 0.5},
                                              {"name": "dbsf", "share": 0.5, "fusion": "dbsf"}]}
QUERY = "how should I water tomato plants in hot weather"
WAIT_S = 30.0


@pytest.fixture(scope="module")
def es(services: Settings) -> Iterator[Elasticsearch]:
    client = build_client(services.elasticsearch)
    yield client
    client.close()


@pytest.fixture(scope="module")
def log_alias(es: Elasticsearch) -> Iterator[str]:
    alias = f"sp-test-logs-{uuid.uuid4().hex[:12]}"
    yield alias
    delete_log_indices(es, alias=alias)


@pytest.fixture(scope="module")
def analytics_api(services: Settings, worker: subprocess.Popen[bytes], log_alias: str,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An API logging to this module's alias, flushing every 0.2 s, running the fusion-test experiment."""
    process, url = launch_api(services, tmp_path_factory.mktemp("api-analytics") / "api.log",
                              SP_ANALYTICS__LOG_ALIAS=log_alias, SP_ANALYTICS__FLUSH_INTERVAL_S="0.2",
                              SP_EXPERIMENTS=json.dumps([EXPERIMENT]))
    yield url
    _stop(process)


@pytest.fixture(scope="module")
def sdk(analytics_api: str, admin_key: str) -> Iterator[SearchClient]:
    with SearchClient(analytics_api, timeout=60, api_key=admin_key) as client:
        yield client


@pytest.fixture(scope="module")
def corpus(sdk: SearchClient, es: Elasticsearch) -> Iterator[str]:
    alias = f"sp-test-analytics-{uuid.uuid4().hex[:8]}"
    job = sdk.ingest(DOCUMENTS, index=alias)
    assert sdk.wait_for_job(job.job_id, timeout_s=300).state == "done"
    yield alias
    delete_index(es, alias=alias)


def logged(es: Elasticsearch, alias: str, *, event: str, request_id: str, expected: int = 1) -> list[dict[str, Any]]:
    """The events of one request, polled until `expected` are searchable (bounded by WAIT_S)."""
    query = {"bool": {"filter": [{"term": {"event": event}}, {"term": {"request_id": request_id}}]}}
    deadline = time.monotonic() + WAIT_S
    while True:
        if es.indices.exists_alias(name=alias):
            es.indices.refresh(index=alias)
            hits = es.search(index=alias, query=query, size=10)["hits"]["hits"]
            if len(hits) >= expected or time.monotonic() > deadline:
                return [hit["_source"] for hit in hits]
        elif time.monotonic() > deadline:
            return []
        time.sleep(0.2)


def user_in_arm(arm: str) -> str:
    """A user id the experiment assigns to `arm`."""
    experiment = ExperimentSettings.model_validate(EXPERIMENT)
    return next(uid for uid in (f"user-{i}" for i in range(1000))
                if (found := choose_arm(experiment, uid)) is not None and found.name == arm)


@pytest.mark.slow  # the module's API start and corpus ingestion
def test_one_search_is_logged_once_with_its_fields(sdk, corpus, es, log_alias):
    user = user_in_arm("dbsf")
    response = sdk.search(QUERY, index=corpus, top_k=3, candidate_k=5, user_id=user)
    assert (response.experiment, response.arm, response.fusion) == ("fusion-test", "dbsf", "dbsf")
    assert len(response.request_id) >= 16
    events = logged(es, log_alias, event="search", request_id=response.request_id)
    time.sleep(0.5)  # nothing else arrives for this request after a further flush interval
    assert len(logged(es, log_alias, event="search", request_id=response.request_id)) == 1
    event = events[0]
    assert {k: event[k] for k in ("query", "mode", "fusion", "experiment", "arm", "hits", "zero_result",
                                  "degraded", "page")} == {
        "query": QUERY, "mode": "hybrid", "fusion": "dbsf", "experiment": "fusion-test", "arm": "dbsf",
        "hits": len(response.hits), "zero_result": False, "degraded": False, "page": 1}
    assert event["user_id"] == pseudonymize(user) and user not in json.dumps(event)
    assert event["params"]["top_k"] == 3 and event["params"]["candidate_k"] == 5
    assert event["latency_ms"] == pytest.approx(response.took_ms)
    assert datetime.fromisoformat(event["@timestamp"]) > datetime.now(UTC) - timedelta(minutes=5)
    for leg in ("bm25", "dense"):
        assert event["legs"][leg]["latency_ms"] == pytest.approx(response.leg_took_ms[leg])
        hit_ids = event["legs"][leg]["hit_ids"]
        assert 0 < len(hit_ids) <= 5
        for hit in response.hits:
            if leg in hit.legs:
                assert hit_ids[hit.legs[leg].rank - 1] == hit.chunk_id


@pytest.mark.slow  # the module's API start and corpus ingestion
def test_assignment_is_sticky_and_explicit_parameters_leave_the_experiment(sdk, corpus, es, log_alias):
    user = user_in_arm("control")
    arms = {sdk.search(QUERY, index=corpus, top_k=2, user_id=user).arm for _ in range(3)}
    assert arms == {"control"}
    by_session = sdk.search(QUERY, index=corpus, top_k=2, session_id=user_in_arm("dbsf"))
    assert (by_session.arm, by_session.fusion) == ("dbsf", "dbsf")
    pinned = sdk.search(QUERY, index=corpus, top_k=2, user_id=user_in_arm("dbsf"), fusion="rrf")
    assert (pinned.experiment, pinned.arm, pinned.fusion) == (None, None, "rrf")
    anonymous = sdk.search(QUERY, index=corpus, top_k=2)
    assert anonymous.experiment is None
    event = logged(es, log_alias, event="search", request_id=pinned.request_id)[0]
    assert (event["experiment"], event["arm"], event["fusion"]) == (None, None, "rrf")


@pytest.mark.slow  # the module's API start and corpus ingestion
def test_feedback_is_logged_as_a_click(sdk, corpus, es, log_alias, analytics_api, auth_headers):
    user = user_in_arm("control")
    response = sdk.search(QUERY, index=corpus, top_k=3, user_id=user)
    hit = response.hits[1]
    assert sdk.feedback(response.request_id, doc_id=hit.doc_id, chunk_id=hit.chunk_id, position=hit.rank,
                        user_id=user) is True
    clicks = logged(es, log_alias, event="click", request_id=response.request_id)
    assert len(clicks) == 1
    assert {k: clicks[0][k] for k in ("doc_id", "chunk_id", "position", "experiment", "arm", "user_id")} == {
        "doc_id": hit.doc_id, "chunk_id": hit.chunk_id, "position": hit.rank, "experiment": "fusion-test",
        "arm": "control", "user_id": pseudonymize(user)}
    with pytest.raises(InvalidRequestError):
        sdk.feedback(response.request_id, doc_id=hit.doc_id, position=0)
    raw = httpx.post(f"{analytics_api}/v1/feedback", headers=auth_headers, timeout=10,
                     json={"request_id": "r", "doc_id": "d", "position": 1, "unknown": 1})
    assert raw.status_code == 422


def _event(request_id: str, arm: str | None, *, latency_ms: float = 0.0, zero: bool = False, age_h: float = 0.1,
           click_at: int | None = None) -> dict[str, Any]:
    when = (datetime.now(UTC) - timedelta(hours=age_h)).isoformat()
    if click_at is not None:
        return {"@timestamp": when, "event": "click", "request_id": request_id, "doc_id": "d", "position": click_at}
    return {"@timestamp": when, "event": "search", "request_id": request_id, "experiment": "exp" if arm else None,
            "arm": arm, "latency_ms": latency_ms, "zero_result": zero, "mode": "hybrid", "hits": 0 if zero else 3}


def _run_cli(services: Settings, *args: str) -> Result:
    """The CLI in-process (same commands, same settings from the environment, no interpreter start-up)."""
    return CliRunner().invoke(cli_app, list(args), env={"COLUMNS": "200"})


def test_report_computes_the_figures_of_logs_the_test_writes(services, es):
    alias = f"sp-test-report-{uuid.uuid4().hex[:12]}"
    ensure_log_index(es, alias=alias)
    try:
        a_latencies = [float(v) for v in range(10, 110, 10)]  # 10 searches of arm a
        events = [_event(f"a{i}", "a", latency_ms=ms, zero=i >= 8) for i, ms in enumerate(a_latencies)]
        events += [_event(f"b{i}", "b", latency_ms=5.0) for i in range(4)]
        events += [_event("a0", None, click_at=1), _event("a0", None, click_at=3), _event("a1", None, click_at=2),
                   _event("a2", None, click_at=4), _event("b0", None, click_at=1)]
        events += [_event("old", "a", latency_ms=1000.0, age_h=48), _event("other", None, latency_ms=1.0)]
        operations = [part for event in events for part in ({"index": {}}, event)]
        assert not es.bulk(index=alias, operations=operations, refresh=True, require_alias=True)["errors"]
        result = _run_cli(services, "report", "--alias", alias, "--since", "24h", "--experiment", "exp",
                          "--format", "json")
        assert result.exit_code == 0, result.output
        arms = {arm["arm"]: arm for arm in json.loads(result.output)["arms"]}
        assert set(arms) == {"a", "b"}
        a, b = arms["a"], arms["b"]
        assert (a["searches"], a["clicks"], a["clicked_searches"]) == (10, 4, 3)
        assert a["ctr"]["value"] == pytest.approx(3 / 10)
        assert a["mrr"]["value"] == pytest.approx((1 / 1 + 1 / 2 + 1 / 4) / 10)
        assert a["latency_p50_ms"]["value"] == pytest.approx((50 + 60) / 2)
        assert a["latency_p95_ms"]["value"] == pytest.approx(90 + (9 * 0.95 - 8) * (100 - 90))
        assert a["zero_result_rate"]["value"] == pytest.approx(2 / 10)
        assert (b["searches"], b["clicks"]) == (4, 1)
        assert b["ctr"]["value"] == pytest.approx(1 / 4) and b["mrr"]["value"] == pytest.approx(1 / 4)
        assert b["latency_p95_ms"]["value"] == pytest.approx(5.0) and b["zero_result_rate"]["value"] == 0.0
        assert a["ctr"]["low"] < a["ctr"]["value"] < a["ctr"]["high"]
        table = _run_cli(services, "report", "--alias", alias, "--since", "24h")
        assert table.exit_code == 0, table.output
        assert "(none)" in table.output and "30.0%" in table.output
        assert _run_cli(services, "report", "--alias", alias, "--since", "yesterday").exit_code == 2
    finally:
        delete_log_indices(es, alias=alias)


def test_rollover_moves_the_write_alias_to_a_new_generation(services, es):
    alias = f"sp-test-rollover-{uuid.uuid4().hex[:12]}"
    ensure_log_index(es, alias=alias)
    try:
        es.index(index=alias, document=_event("r1", "a", latency_ms=1.0), refresh=True, require_alias=True)
        kept = _run_cli(services, "logs", "rollover", "--alias", alias, "--max-docs", "100")
        assert kept.exit_code == 0, kept.output
        assert "kept" in kept.output
        rolled = _run_cli(services, "logs", "rollover", "--alias", alias, "--max-docs", "1")
        assert rolled.exit_code == 0, rolled.output
        first, second = generation_index_name(alias, 1), generation_index_name(alias, 2)
        assert f"{first} -> {second}" in rolled.output
        aliases = es.indices.get_alias(name=alias).body
        assert aliases[first]["aliases"][alias]["is_write_index"] is False
        assert aliases[second]["aliases"][alias]["is_write_index"] is True
        mapping = es.indices.get_mapping(index=second).body[second]["mappings"]
        assert mapping["dynamic"] == "strict" and set(mapping["properties"]) == set(LOG_MAPPINGS["properties"])
        written = es.index(index=alias, document=_event("r2", "a", latency_ms=2.0), refresh=True, require_alias=True)
        assert written["_index"] == second
        assert es.count(index=alias)["count"] == 2
    finally:
        delete_log_indices(es, alias=alias)
