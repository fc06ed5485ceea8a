"""The least-privilege Elasticsearch user: what it may and may not do, and that the API really runs as it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from elasticsearch import AuthenticationException, AuthorizationException
from pydantic import SecretStr

from infra.es_security import ROLE_NAME
from search_platform.backends.elasticsearch.client import build_admin_client, build_client
from search_platform.config import Settings
from tests.integration.conftest import _stop, launch_api

pytestmark = pytest.mark.integration


def test_data_clients_authenticate_as_the_service_user(services: Settings):
    es = build_client(services.elasticsearch)
    try:
        me = es.security.authenticate()
    finally:
        es.close()
    assert me["username"] == services.elasticsearch.service_username != "elastic"
    assert me["roles"] == [ROLE_NAME]


def test_the_service_user_manages_sp_indices_only(services: Settings):
    es = build_client(services.elasticsearch)
    name = f"sp-test-priv-{uuid.uuid4().hex[:8]}"
    outside = f"not-sp-{uuid.uuid4().hex[:8]}"
    try:
        es.indices.create(index=f"{name}-000001", aliases={name: {"is_write_index": True}})
        es.index(index=name, id="1", document={"text": "allowed"}, refresh=True)
        assert es.search(index=name, query={"match_all": {}})["hits"]["total"]["value"] == 1
        assert es.indices.rollover(alias=name)["rolled_over"] is True
        assert es.cluster.health()["status"] in ("green", "yellow")
        with pytest.raises(AuthorizationException):
            es.indices.create(index=outside)
        with pytest.raises(AuthorizationException):
            es.cluster.put_settings(persistent={"search.max_buckets": 10_000})
        with pytest.raises(AuthorizationException):
            es.search(index=outside, query={"match_all": {}})
    finally:
        es.indices.delete(index=[f"{name}-000001", f"{name}-000002"], ignore_unavailable=True)
        es.close()
    admin = build_admin_client(services.elasticsearch)
    try:
        assert not admin.indices.exists(index=outside)
    finally:
        admin.close()


@pytest.fixture(scope="module")
def api_with_a_wrong_service_password(services: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = launch_api(services, tmp_path_factory.mktemp("api-bad-es-user") / "api.log",
                              SP_ELASTICSEARCH__SERVICE_PASSWORD="not-the-service-password")
    yield url
    _stop(process)


@pytest.mark.slow
def test_the_api_runs_as_the_service_user(api, api_with_a_wrong_service_password, auth_headers, services):
    """Only the service user's password differs between the two APIs: the healthy one uses it, the other fails."""
    assert httpx.get(f"{api}/healthz", timeout=30).json()["dependencies"]["elasticsearch"]["ok"] is True
    broken = httpx.get(f"{api_with_a_wrong_service_password}/healthz", timeout=30).json()
    assert broken["dependencies"]["elasticsearch"]["ok"] is False
    assert "Authentication" in broken["dependencies"]["elasticsearch"]["detail"]
    search = httpx.post(f"{api_with_a_wrong_service_password}/v1/search", json={"query": "x", "mode": "bm25"},
                        headers=auth_headers, timeout=60)
    assert search.status_code >= 500 and "Traceback" not in search.text
    es = build_client(services.elasticsearch.model_copy(update={"service_password": SecretStr("wrong-password")}))
    try:
        with pytest.raises(AuthenticationException):
            es.security.authenticate()
    finally:
        es.close()
