"""Where a search's time went, seen from outside: the Server-Timing header of a real hybrid search and the stage
histogram on /metrics after it (real Elasticsearch, Redis, worker and API)."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.config import Settings
from tests.integration.corpus import DOCUMENTS

pytestmark = pytest.mark.integration

ENTRY = re.compile(r'(?P<name>[a-z0-9_]+);dur=(?P<dur>\d+\.\d\d)(;desc="[^"]*")?')
STAGE_COUNT = "sp_search_stage_duration_seconds_count"


def stages_of(header: str) -> dict[str, float]:
    """name -> milliseconds of a Server-Timing value; every entry must parse."""
    entries = [ENTRY.fullmatch(entry.strip()) for entry in header.split(",")]
    assert all(entries), header
    return {match["name"]: float(match["dur"]) for match in entries if match}


def stage_counts(url: str) -> dict[tuple[str, str], float]:
    """(stage, mode) -> how many searches /metrics has recorded for that stage."""
    text = httpx.get(f"{url}/metrics", timeout=30).text
    return {(s.labels["stage"], s.labels["mode"]): s.value for family in text_string_to_metric_families(text)
            for s in family.samples if s.name == STAGE_COUNT}


@pytest.fixture(scope="module")
def indexed(api: str, services: Settings, auth_headers: dict[str, str]) -> Iterator[str]:
    """The test corpus ingested into an index of this module's own, deleted afterwards."""
    alias = f"sp-test-timing-{uuid.uuid4().hex[:12]}"
    http = httpx.Client(base_url=api, headers=auth_headers, timeout=120)
    accepted = http.post("/v1/ingest", json={"documents": DOCUMENTS, "index": alias})
    assert accepted.status_code == 202, accepted.text
    deadline = time.monotonic() + 300
    while (job := http.get(f"/v1/jobs/{accepted.json()['job_id']}").json())["state"] not in ("done", "failed"):
        assert time.monotonic() < deadline, job
        time.sleep(0.5)
    assert job["state"] == "done", job
    yield alias
    es = build_client(services.elasticsearch)
    delete_index(es, alias=alias)
    es.close()


def test_a_hybrid_search_says_where_its_time_went(api: str, indexed: str, auth_headers: dict[str, str]) -> None:
    before = stage_counts(api)
    response = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                          json={"query": "cabinet hinge KX9ZQ4471", "mode": "hybrid", "index": indexed,
                                "explain": True})
    assert response.status_code == 200, response.text
    body = response.json()

    stages = stages_of(response.headers["Server-Timing"])
    assert list(stages) == ["auth", "bm25", "encode", "dense", "fusion", "page", "log", "search"]
    assert all(ms >= 0 for ms in stages.values())
    assert stages["dense"] > 0 and stages["bm25"] > 0
    # the legs' stages are the response's leg_took_ms, with the encoding split out of the dense leg
    assert stages["bm25"] == pytest.approx(body["leg_took_ms"]["bm25"], abs=0.006)
    assert stages["encode"] + stages["dense"] == pytest.approx(body["leg_took_ms"]["dense"], abs=0.011)
    assert stages["search"] == pytest.approx(body["took_ms"], abs=0.006)
    assert stages["search"] >= max(stages["bm25"], stages["encode"] + stages["dense"]) - 0.01
    # explain carries the same stages (the core total is took_ms)
    assert set(body["timings_ms"]) == set(stages) - {"search"}
    assert all(body["timings_ms"][name] == pytest.approx(ms, abs=0.006) for name, ms in stages.items()
               if name != "search")

    after = stage_counts(api)
    for stage in ("auth", "encode", "bm25", "dense", "fusion", "page", "log"):
        assert after[(stage, "hybrid")] - before.get((stage, "hybrid"), 0.0) == 1, stage
    assert after.get(("rerank", "hybrid"), 0.0) == before.get(("rerank", "hybrid"), 0.0)  # no rerank ran


def test_without_explain_the_body_has_no_timings_but_the_header_does(api: str, indexed: str,
                                                                     auth_headers: dict[str, str]) -> None:
    response = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                          json={"query": "cabinet", "mode": "bm25", "index": indexed})
    assert response.status_code == 200, response.text
    assert response.json()["timings_ms"] is None
    assert list(stages_of(response.headers["Server-Timing"])) == ["auth", "bm25", "fusion", "page", "log", "search"]


def test_documents_add_the_passage_leg(api: str, indexed: str, auth_headers: dict[str, str]) -> None:
    response = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                          json={"query": "cabinet hinge", "mode": "hybrid", "index": indexed,
                                "group_by": "document"})
    assert response.status_code == 200, response.text
    legs = [name for name in stages_of(response.headers["Server-Timing"]) if name in response.json()["leg_took_ms"]]
    assert legs == ["bm25", "bm25_passage", "dense"]


def test_errors_after_the_key_check_still_say_how_long_it_took(api: str, indexed: str,
                                                                 auth_headers: dict[str, str]) -> None:
    unknown_key = httpx.post(f"{api}/v1/search", headers={"Authorization": "Bearer sp_not-a-key"}, timeout=60,
                             json={"query": "cabinet", "index": indexed})
    assert unknown_key.status_code == 401, unknown_key.text
    assert list(stages_of(unknown_key.headers["Server-Timing"])) == ["auth"]

    missing_index = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                               json={"query": "cabinet", "index": f"sp-test-missing-{uuid.uuid4().hex[:8]}"})
    assert missing_index.status_code in (403, 404), missing_index.text
    assert "auth" in stages_of(missing_index.headers["Server-Timing"])


def test_a_response_with_no_stage_has_no_header(api: str) -> None:
    assert "Server-Timing" not in httpx.get(f"{api}/healthz", timeout=60).headers
