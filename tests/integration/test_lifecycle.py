"""Issue 15 against the real API, worker, Redis and Elasticsearch: sealed indices, tenant-scoped identifiers and
the document lifecycle (get, delete by id and by filter, a delete racing an ingest, tenant purge, key deletion)."""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis import Redis

from search_platform.auth.errors import KeyPolicyError
from search_platform.auth.keys import Scope
from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.config import Settings
from tests.integration.conftest import CLI, ROOT, _child_env, key_store

pytestmark = pytest.mark.integration

MODES = ("bm25", "semantic", "hybrid")
TIMEOUT_S = 300


def _key(settings: Settings, *scopes: Scope, tenant: str | None, indices: tuple[str, ...] = ()) -> str:
    _, plaintext = key_store(settings).create(name=f"lifecycle-{uuid.uuid4().hex[:6]}", scopes=frozenset(scopes),
                                              tenant=tenant, rate_limit_per_minute=100_000, indices=indices)
    return plaintext


def _h(key: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", **extra}


def _ingest(api: str, key: str, documents: list[dict[str, Any]], index: str, **headers: str) -> httpx.Response:
    return httpx.post(f"{api}/v1/ingest", json={"documents": documents, "index": index}, headers=_h(key, **headers),
                      timeout=60)


def _wait(api: str, key: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        job = httpx.get(f"{api}/v1/jobs/{job_id}", headers=_h(key), timeout=30).json()
        if job["state"] in ("done", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.5)


def _ingested(api: str, key: str, documents: list[dict[str, Any]], index: str) -> dict[str, Any]:
    response = _ingest(api, key, documents, index)
    assert response.status_code == 202, response.text
    job = _wait(api, key, response.json()["job_id"])
    assert job["state"] == "done" and job["documents_failed"] == 0, job
    return job


def _search(api: str, key: str, index: str, query: str, **body: Any) -> httpx.Response:
    return httpx.post(f"{api}/v1/search", json={"query": query, "index": index, **body}, headers=_h(key),
                      timeout=60)


def _doc_ids_everywhere(api: str, key: str, index: str, query: str) -> set[str]:
    """Doc ids any mode finds, chunk- and document-grouped, on the first 50 hits."""
    found: set[str] = set()
    for mode in MODES:
        for group_by in ("chunk", "document"):
            response = _search(api, key, index, query, mode=mode, group_by=group_by, top_k=50)
            assert response.status_code == 200, response.text
            found |= {hit["doc_id"] for hit in response.json()["hits"]}
    return found


def _sequence(settings: Settings) -> int:
    redis = Redis.from_url(settings.redis.url)
    value = redis.get("sp:job-seq")
    redis.close()
    return int(value or 0)


@pytest.fixture(scope="module")
def tenants() -> tuple[str, str]:
    suffix = uuid.uuid4().hex[:8]
    return f"life-a-{suffix}", f"life-b-{suffix}"


@pytest.fixture(scope="module")
def keys(services: Settings, tenants: tuple[str, str]) -> dict[str, str]:
    a, b = tenants
    return {"a": _key(services, Scope.SEARCH, Scope.INGEST, tenant=a),
            "b": _key(services, Scope.SEARCH, Scope.INGEST, tenant=b)}


@pytest.fixture(scope="module")
def a_index(api: str, services: Settings, tenants: tuple[str, str], keys: dict[str, str]) -> Iterator[str]:
    """An index in tenant A's own namespace, written with A's key."""
    alias = f"sp-tenant-{tenants[0]}.docs"
    _ingested(api, keys["a"], [{"doc_id": "seed", "content": "Tenant A's runbook for rotating TLS certificates."}],
              alias)
    yield alias
    es = build_client(services.elasticsearch)
    delete_index(es, alias=alias)
    es.close()


# --- 1. sealed indices -----------------------------------------------------------------------------------------


def test_another_tenant_cannot_write_into_or_read_a_tenant_s_index(api, services, keys, a_index):
    before = _sequence(services)
    refused = _ingest(api, keys["b"], [{"doc_id": "intruder", "content": "B's chunk in A's index"}], a_index)
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "forbidden"
    assert "another tenant" in refused.json()["message"]
    assert _sequence(services) == before  # refused before any job was created or queued
    searched = _search(api, keys["b"], a_index, "runbook")
    assert searched.status_code == 403 and "another tenant" in searched.json()["message"]
    own = _search(api, keys["a"], a_index, "runbook", mode="bm25")
    assert own.status_code == 200 and [hit["doc_id"] for hit in own.json()["hits"]] == ["seed"]


@pytest.mark.parametrize(("index", "reason"), [
    ("sp-search-logs", "reserved for the platform"),
    ("sp-search-logs-000001", "reserved for the platform"),
    ("sp-test-search-logs", "reserved for the platform"),
    ("sp-eval-0123456789ab", "reserved for the platform"),
    ("sp-tenant-someone-else.docs", "another tenant"),
    ("sp-chunks-v2", "may not use index"),
    ("sp-anything", "may not use index"),
    ("not-sp-at-all", "outside the platform"),
])
def test_hostile_index_names_are_403_with_the_reason_for_read_and_write(api, services, keys, index, reason):
    before = _sequence(services)
    write = _ingest(api, keys["a"], [{"doc_id": "d", "content": "x"}], index)
    read = _search(api, keys["a"], index, "x")
    for response in (write, read):
        assert response.status_code == 403, response.text
        assert reason in response.json()["message"]
    assert _sequence(services) == before


@pytest.mark.parametrize("index", ["../sp-x", "SP-UPPER", "sp-a b", "_all", "sp-*", "sp-a,sp-b", ".security"])
def test_malformed_index_names_are_422(api, keys, index):
    assert _ingest(api, keys["a"], [{"doc_id": "d", "content": "x"}], index).status_code == 422
    assert _search(api, keys["a"], index, "x").status_code == 422


def test_an_admin_key_is_refused_an_index_outside_the_platform_before_queueing(api, services, admin_key):
    before = _sequence(services)
    response = _ingest(api, admin_key, [{"doc_id": "d", "content": "x"}], "outside-sp")
    assert response.status_code == 403 and "outside the platform" in response.json()["message"]
    assert _sequence(services) == before


def test_a_key_granted_an_index_uses_it_and_nothing_else(api, services, tenants, index):
    key = _key(services, Scope.SEARCH, Scope.INGEST, tenant=tenants[0], indices=(index,))
    _ingested(api, key, [{"doc_id": "granted", "content": "Granted index content about message queues."}], index)
    assert _search(api, key, index, "message queues").status_code == 200
    assert _ingest(api, key, [{"doc_id": "d", "content": "x"}], "sp-chunks").status_code == 403


def test_tenant_keys_reaching_other_tenants_or_the_platform_cannot_be_created(services, tenants):
    store = key_store(services)
    for grant in ("sp-*", "sp-search-logs*", f"sp-tenant-{tenants[1]}.*", "sp-tenant-*", "sp-eval-x"):
        with pytest.raises(KeyPolicyError):
            store.create(name="x", scopes=frozenset({Scope.SEARCH}), tenant=tenants[0], indices=(grant,))


def test_unknown_top_level_ingest_fields_are_422(api, keys, a_index):
    response = httpx.post(f"{api}/v1/ingest", headers=_h(keys["a"]), timeout=30,
                          json={"documents": [{"doc_id": "d", "content": "x"}], "index": a_index, "indx": "typo"})
    assert response.status_code == 422 and "indx" in response.text


# --- 2. tenant-scoped identifiers ------------------------------------------------------------------------------


def test_idempotency_keys_never_collide_across_tenants(api, services, index):
    suffix = uuid.uuid4().hex[:6]
    plain = _key(services, Scope.INGEST, tenant=f"pa{suffix}", indices=(index,))
    # a key stored before tenant names were restricted, whose tenant contains the old separator
    legacy = _key(services, Scope.INGEST, tenant=f"pa{suffix}", indices=(index,))
    redis = Redis.from_url(services.redis.url)
    redis.hset(f"{services.auth.key_prefix}:{legacy.split('_')[1]}", "tenant", f"pa{suffix}:x")
    redis.close()
    first = _ingest(api, plain, [{"doc_id": "one", "content": "first tenant's document"}], index,
                    **{"Idempotency-Key": "x:K"})
    second = _ingest(api, legacy, [{"doc_id": "two", "content": "second tenant's document"}], index,
                     **{"Idempotency-Key": "K"})
    assert first.status_code == 202, first.text
    assert second.status_code == 202, second.text  # before: 409 naming the other tenant's job
    assert first.json()["job_id"] != second.json()["job_id"]
    with pytest.raises(KeyPolicyError, match="tenant must be"):
        key_store(services).create(name="x", scopes=frozenset({Scope.INGEST}), tenant="pa:x")


def test_feedback_only_for_the_tenant_s_own_searches(api, keys, a_index):
    search = _search(api, keys["a"], a_index, "certificates", mode="bm25")
    assert search.status_code == 200
    request_id = search.json()["request_id"]
    click = {"request_id": request_id, "doc_id": "seed", "position": 1}
    foreign = httpx.post(f"{api}/v1/feedback", json=click, headers=_h(keys["b"]), timeout=30)
    assert foreign.status_code == 404, foreign.text
    unknown = httpx.post(f"{api}/v1/feedback", json={**click, "request_id": uuid.uuid4().hex},
                         headers=_h(keys["a"]), timeout=30)
    assert unknown.status_code == 404
    own = httpx.post(f"{api}/v1/feedback", json=click, headers=_h(keys["a"]), timeout=30)
    assert own.status_code == 202, own.text


def test_another_tenant_cannot_reuse_a_request_id(api, services, tenants, keys, a_index):
    search = _search(api, keys["a"], a_index, "certificates", mode="bm25")
    request_id = search.json()["request_id"]
    b_index = f"sp-tenant-{tenants[1]}.docs"
    _ingested(api, keys["b"], [{"doc_id": "b-seed", "content": "Tenant B's certificates."}], b_index)
    try:
        reused = httpx.post(f"{api}/v1/search", json={"query": "certificates", "index": b_index, "mode": "bm25"},
                            headers=_h(keys["b"], **{"X-Request-ID": request_id}), timeout=60)
        assert reused.status_code == 200
        assert reused.json()["request_id"] != request_id  # the id stays A's; B's search gets its own
        click = {"request_id": request_id, "doc_id": "b-seed", "position": 1}
        assert httpx.post(f"{api}/v1/feedback", json=click, headers=_h(keys["b"]), timeout=30).status_code == 404
    finally:
        es = build_client(services.elasticsearch)
        delete_index(es, alias=b_index)
        es.close()


# --- 3. document lifecycle -------------------------------------------------------------------------------------

CORPUS = [
    {"doc_id": "kafka", "title": "Kafka retention", "content": "Kafka topic retention keeps log segments for seven "
     "days before compaction removes old records.", "source": "wiki", "tags": ["streaming"]},
    {"doc_id": "pgbouncer", "title": "PgBouncer pooling", "content": "PgBouncer transaction pooling shares server "
     "connections between clients of the Postgres database.", "source": "runbooks", "tags": ["db"]},
    {"doc_id": "vacuum", "title": "Autovacuum tuning", "content": "Autovacuum thresholds decide when Postgres "
     "reclaims dead tuples from busy tables.", "source": "runbooks", "tags": ["db", "tuning"]},
]


def test_get_and_delete_documents_by_id_and_by_filter(api, keys, tenants, index, services):
    key = _key(services, Scope.SEARCH, Scope.INGEST, tenant=tenants[0], indices=(index,))
    other = _key(services, Scope.SEARCH, Scope.INGEST, tenant=tenants[1], indices=(index,))
    _ingested(api, key, CORPUS, index)
    got = httpx.get(f"{api}/v1/documents/kafka", params={"index": index}, headers=_h(key), timeout=30)
    assert got.status_code == 200, got.text
    info = got.json()
    assert (info["doc_id"], info["tenant"], info["source"], info["tags"]) == ("kafka", tenants[0], "wiki",
                                                                             ["streaming"])
    assert info["chunk_count"] >= 1 and info["content_hash"] and info["indexed_at"]
    # the same doc id in another tenant is another document
    assert httpx.get(f"{api}/v1/documents/kafka", params={"index": index}, headers=_h(other),
                     timeout=30).status_code == 404
    assert httpx.get(f"{api}/v1/documents/kafka", params={"index": index, "tenant": tenants[1]},
                     headers=_h(key), timeout=30).status_code == 403

    deleted = httpx.delete(f"{api}/v1/documents/kafka", params={"index": index}, headers=_h(key), timeout=60)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["records_deleted"] >= 1
    assert httpx.get(f"{api}/v1/documents/kafka", params={"index": index}, headers=_h(key),
                     timeout=30).status_code == 404
    assert "kafka" not in _doc_ids_everywhere(api, key, index, "Kafka topic retention log segments")

    refused = httpx.post(f"{api}/v1/documents/delete", json={"index": index}, headers=_h(key), timeout=30)
    assert refused.status_code == 422  # no criteria: never "delete everything" by accident
    by_filter = httpx.post(f"{api}/v1/documents/delete", headers=_h(key), timeout=60,
                           json={"index": index, "sources": ["runbooks"], "tags": ["tuning"]})
    assert by_filter.status_code == 200, by_filter.text
    assert by_filter.json()["documents"] == [{"tenant": tenants[0], "doc_id": "vacuum"}]
    left = _doc_ids_everywhere(api, key, index, "Postgres autovacuum dead tuples connections pooling")
    assert "vacuum" not in left and "pgbouncer" in left


def test_a_delete_racing_an_in_flight_ingest_ends_deleted(api, keys, tenants, index, services):
    key = _key(services, Scope.SEARCH, Scope.INGEST, tenant=tenants[0], indices=(index,))
    filler = [{"doc_id": f"filler-{n}", "content": f"Filler document {n} about unrelated gardening topics."}
              for n in range(40)]
    target = {"doc_id": "racer", "content": "Zookeeper quorum elections need a majority of the ensemble."}
    submitted = _ingest(api, key, [*filler, target], index)  # the target sits in the job's last batch
    assert submitted.status_code == 202
    deleted = httpx.delete(f"{api}/v1/documents/racer", params={"index": index}, headers=_h(key), timeout=60)
    assert deleted.status_code == 200, deleted.text
    job = _wait(api, key, submitted.json()["job_id"])
    assert job["state"] == "done", job
    assert "deleted" in job["errors"]["racer"]
    assert "racer" not in _doc_ids_everywhere(api, key, index, "Zookeeper quorum elections majority ensemble")
    assert httpx.get(f"{api}/v1/documents/racer", params={"index": index}, headers=_h(key),
                     timeout=30).status_code == 404
    _ingested(api, key, [target], index)  # a job submitted after the delete brings it back
    assert "racer" in _doc_ids_everywhere(api, key, index, "Zookeeper quorum elections majority ensemble")


def test_purge_a_tenant_and_delete_keys(api, services, admin_key):
    tenant = f"purge-{uuid.uuid4().hex[:8]}"
    key = _key(services, Scope.SEARCH, Scope.INGEST, tenant=tenant)
    own = f"sp-tenant-{tenant}.docs"
    _ingested(api, key, [{"doc_id": "p1", "content": "Purged tenant's notes on DNS failover."}], own)
    assert httpx.delete(f"{api}/v1/tenants/{tenant}", headers=_h(key), timeout=30).status_code == 403  # no admin
    purged = httpx.delete(f"{api}/v1/tenants/{tenant}", headers=_h(admin_key), timeout=120)
    assert purged.status_code == 200, purged.text
    body = purged.json()
    assert body["indices_deleted"] and all(name.startswith(f"sp-tenant-{tenant}.") for name in body["indices_deleted"])
    assert key.split("_")[1] in body["keys_deleted"]
    assert httpx.post(f"{api}/v1/search", json={"query": "DNS", "index": own}, headers=_h(key),
                      timeout=30).status_code == 401
    es = build_client(services.elasticsearch)
    assert not es.indices.exists(index=own)
    es.close()

    doomed = _key(services, Scope.SEARCH, tenant=tenant)
    doomed_id = doomed.split("_")[1]
    assert httpx.delete(f"{api}/v1/keys/{doomed_id}", headers=_h(admin_key), timeout=30).json() == {
        "key_id": doomed_id, "deleted": True}
    assert httpx.post(f"{api}/v1/search", json={"query": "x"}, headers=_h(doomed), timeout=30).status_code == 401
    assert httpx.delete(f"{api}/v1/keys/{doomed_id}", headers=_h(admin_key), timeout=30).status_code == 404
    assert key_store(services).get(doomed_id) is None


def test_the_keys_cli_deletes_keys_and_prunes_revoked_ones(services):
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CLI, "keys", *args], cwd=ROOT, env={**_child_env(services), "COLUMNS": "400"},
                              capture_output=True, text=True, timeout=120, check=False)

    created = cli("create", "--name", "to-delete", "--scopes", "search", "--tenant", "cli-delete",
                  "--index", "sp-tenant-cli-delete.*")
    assert created.returncode == 0, created.stderr
    key_id = created.stdout.strip().split("_")[1]
    assert "sp-tenant-cli-delete.*" in cli("list").stdout
    assert cli("delete", key_id).returncode == 0
    assert key_id not in cli("list").stdout
    assert cli("delete", key_id).returncode == 1
    revoked = _key(services, Scope.SEARCH, tenant="cli-delete").split("_")[1]
    key_store(services).revoke(revoked)
    pruned = cli("prune", "--revoked")
    assert pruned.returncode == 0, pruned.stderr
    assert key_store(services).get(revoked) is None
    refused = cli("create", "--name", "x", "--scopes", "search", "--tenant", "cli-delete", "--index", "sp-*")
    assert refused.returncode == 2 and "platform" in refused.stderr
