"""The API's answers when Elasticsearch cannot be reached: 503 with a clear body, never a stack trace."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest

from search_platform.config import Settings
from tests.integration.conftest import CLI, ROOT, _child_env, _free_port, _stop

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def api_without_elasticsearch(services: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port, dead_port = _free_port(), _free_port()
    env = {**_child_env(services), "SP_SERVICE__PORT": str(port),
           "SP_ELASTICSEARCH__URL": f"http://127.0.0.1:{dead_port}", "SP_ELASTICSEARCH__MAX_RETRIES": "1"}
    log = (tmp_path_factory.mktemp("api-down") / "api.log").open("wb")
    process = subprocess.Popen([CLI, "serve"], cwd=ROOT, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"{url}/healthz", timeout=2)
            break
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                _stop(process)
                pytest.fail(f"API did not start; see {log.name}")
            time.sleep(0.5)
    yield url
    _stop(process)


def test_search_is_503_with_a_clear_body(api_without_elasticsearch):
    response = httpx.post(f"{api_without_elasticsearch}/v1/search", json={"query": "anything"}, timeout=30)
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
