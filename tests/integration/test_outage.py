"""The API's answers when Elasticsearch or Redis cannot be reached: 503 with a clear body, never a stack trace."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from search_platform.config import Settings
from tests.integration.conftest import _free_port, _stop, launch_api

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def api_without_elasticsearch(services: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = launch_api(
        services,
        tmp_path_factory.mktemp("api-no-es") / "api.log",
        SP_ELASTICSEARCH__URL=f"http://127.0.0.1:{_free_port()}",
        SP_ELASTICSEARCH__MAX_RETRIES="1",
    )
    yield url
    _stop(process)


@pytest.fixture(scope="module")
def api_without_redis(services: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = launch_api(services, tmp_path_factory.mktemp("api-no-redis") / "api.log",
                              SP_REDIS__URL=f"redis://127.0.0.1:{_free_port()}/0")
    yield url
    _stop(process)


def test_search_is_503_with_a_clear_body(api_without_elasticsearch, auth_headers):
    response = httpx.post(f"{api_without_elasticsearch}/v1/search", json={"query": "anything"}, timeout=30,
                          headers=auth_headers)
    assert response.status_code == 503
    body = response.json()
    assert body["error"] == "backend_unavailable"
    assert "Elasticsearch" in body["message"]
    assert "Traceback" not in response.text


def test_healthz_names_the_failing_dependency(api_without_elasticsearch):
    response = httpx.get(f"{api_without_elasticsearch}/healthz", timeout=30)
    assert response.status_code == 503
    dependencies = response.json()["dependencies"]
    assert dependencies["elasticsearch"]["ok"] is False
    assert dependencies["redis"]["ok"] is True


def test_ingest_without_redis_is_503(api_without_redis, auth_headers):
    response = httpx.post(f"{api_without_redis}/v1/ingest", json={"documents": [{"doc_id": "a", "content": "x"}]},
                          timeout=60, headers=auth_headers)
    assert response.status_code == 503
    assert response.json()["error"] == "queue_unavailable"
    health = httpx.get(f"{api_without_redis}/healthz", timeout=30)
    assert health.status_code == 503
    assert health.json()["dependencies"]["redis"]["ok"] is False
