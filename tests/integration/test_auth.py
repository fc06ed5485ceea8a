"""API keys against the real API, worker, Redis and Elasticsearch: 401/403/429, tenant isolation on every leg,
tenant stamping at ingest, keys stored hashed, and the `keys` CLI."""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from search_platform_client import SearchClient

from search_platform.auth.keys import Scope
from search_platform.auth.rate_limit import RateLimiter
from search_platform.config import Settings
from tests.integration.conftest import CLI, ROOT, _child_env, ingested_alias, key_store

pytestmark = pytest.mark.integration

MODES = ("bm25", "semantic", "hybrid")
# the same words in both tenants, so only the tenant filter keeps B's chunks out of A's results
SHARED_TEXT = "Rotating the quarterly encryption keys for the billing database follows the runbook."


def _key(settings: Settings, *scopes: Scope, tenant: str | None = None, rate_limit: int | None = None,
         indices: tuple[str, ...] = ("sp-test-auth-*",)) -> str:
    """A key; tenant keys are granted this module's indices (sealed indices: nothing else is open to them)."""
    _, plaintext = key_store(settings).create(name=f"test-{uuid.uuid4().hex[:6]}", scopes=frozenset(scopes),
                                              tenant=tenant, rate_limit_per_minute=rate_limit,
                                              indices=indices if tenant is not None else ())
    return plaintext


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, "keys", *args], cwd=ROOT, env=_child_env(settings), capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.fixture(scope="module")
def tenants() -> tuple[str, str]:
    suffix = uuid.uuid4().hex[:8]
    return f"tenant-a-{suffix}", f"tenant-b-{suffix}"


@pytest.fixture(scope="module")
def two_tenant_index(api: str, admin_key: str, services: Settings, tenants: tuple[str, str]) -> Iterator[str]:
    """An index holding the same documents under tenant A and tenant B, ingested with the admin key."""
    documents = [{"doc_id": f"{tenant}-doc{n}", "title": f"Key rotation {n}", "content": SHARED_TEXT, "tenant": tenant}
                 for tenant in tenants for n in range(3)]
    with ingested_alias(api, admin_key, services, documents, prefix="sp-test-auth") as alias:
        yield alias


def _search(api: str, key: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{api}/v1/search", json=body, headers=_bearer(key), timeout=60)


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/v1/search", {"query": "x"}),
    ("POST", "/v1/ingest", {"documents": [{"doc_id": "d", "content": "x"}]}),
    ("GET", "/v1/jobs/0123", None),
])
def test_no_key_is_401_with_www_authenticate(api, method, path, body):
    response = httpx.request(method, f"{api}{path}", json=body, timeout=30)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"] == "unauthorized"
    assert "API key" in response.json()["message"]


@pytest.mark.parametrize("key", ["not-a-key", "sp_0123456789abcdef_" + "A" * 43])
def test_malformed_or_unknown_keys_are_401(api, key):
    response = httpx.post(f"{api}/v1/search", json={"query": "x"}, headers=_bearer(key), timeout=30)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_wrong_secret_for_a_real_key_id_is_401(api, services):
    key = _key(services, Scope.SEARCH, tenant="t")
    forged = key[: -4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    assert httpx.post(f"{api}/v1/search", json={"query": "x"}, headers=_bearer(forged), timeout=30).status_code == 401


def test_healthz_stays_open(api):
    assert httpx.get(f"{api}/healthz", timeout=30).status_code == 200


def test_the_x_api_key_header_works_too(api, services, two_tenant_index):
    key = _key(services, Scope.SEARCH, tenant="nobody")
    response = httpx.post(f"{api}/v1/search", json={"query": "keys", "index": two_tenant_index},
                          headers={"X-API-Key": key}, timeout=60)
    assert response.status_code == 200
    assert response.json()["hits"] == []


def test_out_of_scope_is_403(api, services):
    search_only = _key(services, Scope.SEARCH, tenant="t")
    ingest_only = _key(services, Scope.INGEST, tenant="t")
    ingest = httpx.post(f"{api}/v1/ingest", json={"documents": [{"doc_id": "d", "content": "x"}]},
                        headers=_bearer(search_only), timeout=30)
    assert ingest.status_code == 403
    assert ingest.json() == {"error": "forbidden", "message": "this API key lacks the 'ingest' scope", "details": []}
    assert httpx.get(f"{api}/v1/jobs/0123", headers=_bearer(search_only), timeout=30).status_code == 403
    search = httpx.post(f"{api}/v1/search", json={"query": "x"}, headers=_bearer(ingest_only), timeout=30)
    assert search.status_code == 403


def test_a_key_revoked_with_the_cli_is_401(api, services, tenants, two_tenant_index):
    created = _cli(services, "create", "--name", "to-revoke", "--scopes", "search", "--tenant", tenants[0],
                   "--index", "sp-test-auth-*")
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    body = {"query": "encryption keys", "index": two_tenant_index}
    assert _search(api, key, body).status_code == 200
    key_id = key.split("_")[1]
    revoked = _cli(services, "revoke", key_id)
    assert revoked.returncode == 0, revoked.stderr
    response = _search(api, key, body)
    assert response.status_code == 401
    assert "revoked" in response.json()["message"]
    assert _cli(services, "revoke", "ffffffffffffffff").returncode == 1


def test_keys_list_never_shows_secrets(services):
    key = _key(services, Scope.SEARCH, Scope.INGEST, tenant="listed")
    listed = _cli(services, "list")
    assert listed.returncode == 0, listed.stderr
    key_id, secret = key.split("_", 2)[1:]
    assert key_id in listed.stdout
    assert secret not in listed.stdout


def test_creating_an_unbound_non_admin_key_is_refused_by_the_cli(services):
    refused = _cli(services, "create", "--name", "x", "--scopes", "search")
    assert refused.returncode != 0
    assert "admin scope" in refused.stderr


def test_keys_are_stored_hashed(services):
    import redis

    key = _key(services, Scope.SEARCH, tenant="hashed")
    key_id, secret = key.split("_", 2)[1:]
    client = redis.Redis.from_url(services.redis.url)
    stored = {k.decode(): v.decode() for k, v in client.hgetall(f"{services.auth.key_prefix}:{key_id}").items()}
    client.close()
    assert stored["scopes"] == "search" and stored["tenant"] == "hashed"
    assert len(stored["secret_hash"]) == 64 and stored["secret_hash"] != secret
    assert not any(secret in value or key in value for value in stored.values())


@pytest.mark.parametrize("mode", MODES)
def test_a_tenant_key_sees_only_its_tenant_in_every_mode(api, services, tenants, two_tenant_index, mode):
    tenant_a, tenant_b = tenants
    key = _key(services, Scope.SEARCH, tenant=tenant_a)
    base = {"query": "encryption keys rotation billing", "index": two_tenant_index, "mode": mode, "top_k": 20}
    b_docs = [f"{tenant_b}-doc{n}" for n in range(3)]
    for filters in ({}, {"tenants": [tenant_a, tenant_b]}, {"doc_ids": [*b_docs, f"{tenant_a}-doc0"]}):
        response = _search(api, key, {**base, "filters": filters})
        assert response.status_code == 200, response.text
        hits = response.json()["hits"]
        assert hits, (mode, filters)
        assert {hit["tenant"] for hit in hits} == {tenant_a}, (mode, filters)
    only_b = _search(api, key, {**base, "filters": {"tenants": [tenant_b]}})
    assert only_b.status_code == 403
    assert tenant_b in only_b.json()["message"]
    only_b_docs = _search(api, key, {**base, "filters": {"doc_ids": b_docs}})
    assert only_b_docs.status_code == 200 and only_b_docs.json()["hits"] == []


def test_the_admin_key_sees_every_tenant(api, auth_headers, tenants, two_tenant_index):
    response = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                          json={"query": "encryption keys", "index": two_tenant_index, "mode": "bm25", "top_k": 20})
    assert {hit["tenant"] for hit in response.json()["hits"]} == set(tenants)


def test_ingest_with_a_tenant_key_stamps_and_rejects_per_document(api, services, tenants, index):
    tenant_a, tenant_b = tenants
    key_a = _key(services, Scope.INGEST, Scope.SEARCH, tenant=tenant_a, indices=(index,))
    key_b = _key(services, Scope.INGEST, Scope.SEARCH, tenant=tenant_b, indices=(index,))
    documents = [
        {"doc_id": "unstamped", "content": "Canary deploys roll out to five percent of hosts first."},
        {"doc_id": "own", "content": "Canary deploys are watched for ten minutes.", "tenant": tenant_a},
        {"doc_id": "foreign", "content": "Canary deploys in another tenant.", "tenant": tenant_b},
    ]
    with SearchClient(api, timeout=60, api_key=key_a) as sdk:
        accepted = sdk.ingest(documents, index=index)
        assert accepted.documents == 2
        assert accepted.rejected == {"foreign": f"tenant {tenant_b!r} is not this API key's tenant {tenant_a!r}"}
        job = sdk.wait_for_job(accepted.job_id, timeout_s=300)
        assert (job.documents_done, job.documents_failed) == (2, 1)
        hits = sdk.search("canary deploys", index=index, mode="bm25").hits
    assert {(hit.doc_id, hit.tenant) for hit in hits} == {("unstamped", tenant_a), ("own", tenant_a)}
    other = httpx.get(f"{api}/v1/jobs/{accepted.job_id}", headers=_bearer(key_b), timeout=30)
    assert other.status_code == 404
    assert other.json()["error"] == "job_not_found"
    with SearchClient(api, timeout=60, api_key=key_b) as sdk:
        assert sdk.search("canary deploys", index=index, mode="bm25").hits == []


def test_over_the_limit_is_429_with_retry_after(api, services, two_tenant_index):
    key = _key(services, Scope.SEARCH, tenant="limited", rate_limit=3)
    body = {"query": "anything", "index": two_tenant_index, "mode": "bm25"}
    statuses = [_search(api, key, body) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 200]
    assert statuses[-1].headers["x-ratelimit-remaining"] == "0"
    limited = _search(api, key, body)
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert limited.json()["error"] == "rate_limited"
    other = _key(services, Scope.SEARCH, tenant="limited", rate_limit=3)
    assert _search(api, other, body).status_code == 200  # limits are per key


def test_the_sliding_window_counts_in_redis(services):
    import redis

    client = redis.Redis.from_url(services.redis.url)
    limiter = RateLimiter(client, window_s=1, prefix=f"sp:test-ratelimit:{uuid.uuid4().hex[:8]}")
    try:
        verdicts = [limiter.hit("k", limit=2) for _ in range(3)]
        assert [v.allowed for v in verdicts] == [True, True, False]
        assert [v.remaining for v in verdicts] == [1, 0, 0]
        assert verdicts[2].retry_after_s == 1
        assert limiter.hit("other", limit=2).allowed
        time.sleep(1.1)
        assert limiter.hit("k", limit=2).allowed
    finally:
        limiter.reset("k")
        limiter.reset("other")
        client.close()


def test_the_query_cli_sends_the_api_key(api, services, tenants, two_tenant_index):
    key = _key(services, Scope.SEARCH, tenant=tenants[0])
    env = {**_child_env(services), "SP_API_URL": api, "COLUMNS": "300"}
    env.pop("SP_API_KEY", None)
    command = [CLI, "query", "encryption keys", "--mode", "bm25", "--index", two_tenant_index]
    refused = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode == 1
    assert "401" in refused.stderr
    answered = subprocess.run([*command, "--api-key", key], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120, check=False)
    assert answered.returncode == 0, answered.stderr
    assert "bm25 · 3 hits" in answered.stdout
    assert f"{tenants[0]}-doc" in answered.stdout
    assert f"{tenants[1]}-doc" not in answered.stdout
