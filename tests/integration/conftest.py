"""Real services for integration tests: Elasticsearch and Redis from infra/, a Celery worker and the API as
subprocesses. Nothing is mocked and nothing is skipped: a missing service fails the run."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from redis import Redis
from search_platform_client import SearchClient

from search_platform.auth.keys import KeyStore, Scope
from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.config import Settings, load_settings
from search_platform.ingestion.queue import create_celery

ROOT = Path(__file__).resolve().parents[2]
# Redis database of the test broker and job store; concurrent test sessions on one machine pick different ones.
TEST_REDIS_DB = int(os.environ.get("SP_TEST_REDIS_DB", "1"))
TEST_CHUNK_CAP = 1000  # the chunk cap test feeds a document just over it: small enough to stay under the byte cap
CLI = str(Path(sys.executable).parent / "search-platform")
# loading the model on a busy 2-core machine has taken over 4 minutes; SP_TEST_START_TIMEOUT_S raises the bound
START_TIMEOUT_S = float(os.environ.get("SP_TEST_START_TIMEOUT_S", "300"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def settings() -> Settings:
    base = load_settings()
    redis_url = base.redis.url.rsplit("/", 1)[0] + f"/{TEST_REDIS_DB}"
    return load_settings(environment="test", redis={"url": redis_url},
                         service={"port": _free_port()},
                         ingestion={"task_backoff_s": 0.5, "task_max_retries": 3,
                                    "max_chunks_per_document": TEST_CHUNK_CAP})


@pytest.fixture(scope="session")
def services(settings: Settings) -> Settings:
    from infra import services as infra_services

    infra_services.up(settings)
    return settings


def _child_env(settings: Settings) -> dict[str, str]:
    return {
        **os.environ,
        "SP_ENVIRONMENT": "test",
        "SP_REDIS__URL": settings.redis.url,
        "SP_SERVICE__PORT": str(settings.service.port),
        "SP_INGESTION__TASK_BACKOFF_S": "0.5",
        "SP_INGESTION__TASK_MAX_RETRIES": "3",
        "SP_INGESTION__MAX_CHUNKS_PER_DOCUMENT": str(TEST_CHUNK_CAP),
        "HF_HUB_OFFLINE": "1",
        "SP_ANALYTICS__LOG_ALIAS": "sp-test-search-logs",  # test traffic stays out of the dev/demo report
    }


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def worker(services: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[subprocess.Popen[bytes]]:
    log = (tmp_path_factory.mktemp("worker") / "worker.log").open("wb")
    process = subprocess.Popen([CLI, "worker"], cwd=ROOT, env=_child_env(services), stdout=log, stderr=log)
    app = create_celery(services)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not app.control.ping(timeout=1.0):
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(process)
            pytest.fail(f"Celery worker did not start; see {log.name}")
    yield process
    _stop(process)


def launch_api(settings: Settings, log_path: Path, **env_overrides: str) -> tuple[subprocess.Popen[bytes], str]:
    """Start `search-platform serve` on a free port and wait until it answers /healthz (healthy or not)."""
    port = _free_port()
    env = {**_child_env(settings), "SP_SERVICE__PORT": str(port), **env_overrides}
    log = log_path.open("wb")
    process = subprocess.Popen([CLI, "serve"], cwd=ROOT, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            httpx.get(f"{url}/healthz", timeout=5)
            return process, url
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                _stop(process)
                pytest.fail(f"API did not start; see {log_path}")
            time.sleep(0.5)


@pytest.fixture(scope="session")
def api(services: Settings, worker: subprocess.Popen[bytes], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = launch_api(services, tmp_path_factory.mktemp("api") / "api.log")
    if httpx.get(f"{url}/healthz", timeout=10).status_code != 200:
        _stop(process)
        pytest.fail("API started but /healthz is not 200")
    yield url
    _stop(process)


@pytest.fixture
def index(services: Settings) -> Iterator[str]:
    """A unique alias per test, deleted afterwards."""
    alias = f"sp-test-{uuid.uuid4().hex[:12]}"
    yield alias
    client = build_client(services.elasticsearch)
    delete_index(client, alias=alias)
    client.close()


def key_store(settings: Settings) -> KeyStore:
    """The API's key store on the test Redis database."""
    redis: Redis[bytes] = Redis.from_url(settings.redis.url, socket_timeout=5, socket_connect_timeout=5)
    return KeyStore.from_settings(redis, settings.auth)


def create_admin_key(settings: Settings, *, name: str) -> str:
    """An API key with every scope and no tenant (sees every tenant), stored in the settings' Redis database; its
    rate limit is high enough that no test trips it by accident."""
    _, plaintext = key_store(settings).create(name=name, scopes=frozenset(Scope), tenant=None,
                                              rate_limit_per_minute=1_000_000)
    return plaintext


@pytest.fixture(scope="session")
def admin_key(services: Settings) -> str:
    """The integration tests' admin key (create_admin_key) in the test Redis database."""
    return create_admin_key(services, name="integration-tests")


@pytest.fixture(scope="session")
def auth_headers(admin_key: str) -> dict[str, str]:
    """Headers for raw httpx calls to the API."""
    return {"Authorization": f"Bearer {admin_key}"}


@pytest.fixture
def client(api: str, admin_key: str) -> Iterator[SearchClient]:
    with SearchClient(api, timeout=60, api_key=admin_key) as sdk:
        yield sdk


@contextmanager
def ingested_alias(api: str, admin_key: str, settings: Settings, documents: Sequence[dict[str, object]], *,
                   prefix: str) -> Iterator[str]:
    """A new alias `<prefix>-<random>` holding the documents, ingested through the API and the worker (the job
    must end done); the index is deleted afterwards, so suites sharing the cluster never see each other's."""
    alias = f"{prefix}-{uuid.uuid4().hex[:12]}"
    with SearchClient(api, timeout=60, api_key=admin_key) as sdk:
        job = sdk.ingest(list(documents), index=alias)
        assert sdk.wait_for_job(job.job_id, timeout_s=300).state == "done"
    try:
        yield alias
    finally:
        es = build_client(settings.elasticsearch)
        delete_index(es, alias=alias)
        es.close()
