"""A second, dedicated stack for fault tests: its own Elasticsearch (9250), Redis (6390), workers and API, all
provisioned by infra/ under /var/lib/search-platform-faults, so killing and restarting them never touches the
shared services other tests use. Everything runs on 127.0.0.1 and every wait is bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from celery import Celery
from elasticsearch import Elasticsearch, helpers
from kombu.exceptions import OperationalError
from redis import Redis, RedisError

from infra import elasticsearch as infra_es
from infra import redis as infra_redis
from infra import services as infra_services
from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.config import Settings, load_settings
from search_platform.domain.models import Document
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.ingestion.jobs import JobStatus, JobStore
from search_platform.ingestion.pipeline import chunk_document
from tests.integration.conftest import CLI, ROOT, _child_env, _stop, create_admin_key, launch_api

FAULT_HOME = Path("/var/lib/search-platform-faults")
FAULT_ES_URL = "http://127.0.0.1:9250"
FAULT_REDIS_URL = "redis://127.0.0.1:6390/0"
VISIBILITY_TIMEOUT_S = 20  # a dead worker's unacked batch is redelivered after this long
WORKER_START_TIMEOUT_S = 90.0
JOB_TIMEOUT_S = 240.0
# The workers embed with the deterministic fake embedder: the faults under test are in delivery, storage and
# bookkeeping, not in the model, and the real model would cost the shared two cores minutes per test.
FAULT_ENV = {
    "SP_ELASTICSEARCH__URL": FAULT_ES_URL,
    "SP_REDIS__URL": FAULT_REDIS_URL,
    "SP_INFRA__HOME": str(FAULT_HOME),
    "SP_REDIS__VISIBILITY_TIMEOUT_S": str(VISIBILITY_TIMEOUT_S),
    "SP_EMBEDDING__BACKEND": "fake",
    "SP_INGESTION__DOCUMENTS_PER_TASK": "2",
    "SP_INGESTION__TASK_BACKOFF_S": "1",
    "SP_INGESTION__TASK_BACKOFF_MAX_S": "4",
    "SP_INGESTION__TASK_MAX_RETRIES": "40",
    "SP_INGESTION__TASK_TIME_LIMIT_S": "0",  # below the 20 s visibility timeout it would stop batches held by faults
    "SP_ELASTICSEARCH__MAX_RETRIES": "1",
    "SP_ELASTICSEARCH__REQUEST_TIMEOUT_S": "10",
    "SP_ANALYTICS__ENABLED": "false",
    "SP_SERVICE__LOG_FORMAT": "text",
}


@pytest.fixture(scope="session")
def fault_settings() -> Settings:
    return load_settings(
        environment="test",
        infra={"home": FAULT_HOME, "es_heap": "1g"},
        elasticsearch={"url": FAULT_ES_URL},
        redis={"url": FAULT_REDIS_URL, "visibility_timeout_s": VISIBILITY_TIMEOUT_S},
        embedding={"backend": "fake"},
        ingestion={"documents_per_task": 2, "task_backoff_max_s": 4, "task_time_limit_s": 0},
    )


@pytest.fixture(scope="session")
def fault_stack(fault_settings: Settings) -> Iterator[Settings]:
    """Elasticsearch and Redis of the fault stack, started here and stopped at the end of the session."""
    infra_services.up(fault_settings)
    Redis.from_url(FAULT_REDIS_URL).flushdb()
    yield fault_settings
    infra_es.stop(fault_settings)
    infra_redis.stop(fault_settings)


@pytest.fixture(scope="session")
def fault_admin_key(fault_stack: Settings) -> str:
    return create_admin_key(fault_stack, name="fault-tests")


@pytest.fixture(scope="session")
def fault_headers(fault_admin_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {fault_admin_key}"}


@pytest.fixture(scope="session")
def fault_api(fault_stack: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API on the fault stack (no worker of its own: each test starts the workers it needs)."""
    process, url = launch_api(fault_stack, tmp_path_factory.mktemp("fault-api") / "api.log", **FAULT_ENV)
    yield url
    _stop(process)


@pytest.fixture
def fault_index(fault_stack: Settings) -> Iterator[str]:
    alias = f"sp-fault-{uuid.uuid4().hex[:12]}"
    yield alias
    if infra_es.is_healthy(fault_stack):
        client = build_client(fault_stack.elasticsearch)
        delete_index(client, alias=alias)
        client.close()


class Worker:
    """One `search-platform worker` process group on the fault stack, startable, killable and restartable."""

    def __init__(self, settings: Settings, name: str, log_dir: Path, **env: str) -> None:
        self.settings = settings
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._env = {**_child_env(settings), **FAULT_ENV, **env}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def node(self) -> str:
        """The Celery node name, as recorded on the batches it completes."""
        return f"{self.name}@{os.uname().nodename}"

    def start(self) -> None:
        """Start the worker and wait until it answers a ping."""
        self.launch()
        self.await_ready()

    def launch(self) -> None:
        """Start the worker process in its own session."""
        log = self.log_path.open("ab")
        self.process = subprocess.Popen([CLI, "worker", "--name", self.name], cwd=ROOT, env=self._env,
                                        stdout=log, stderr=log, start_new_session=True)

    def await_ready(self) -> None:
        """Wait until the worker answers a ping."""
        from search_platform.ingestion.queue import create_celery

        assert self.process is not None
        app = create_celery(self.settings)
        deadline = time.monotonic() + WORKER_START_TIMEOUT_S
        while not self._pong(app):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"worker {self.name} did not start; see {self.log_path}")

    def _pong(self, app: Celery) -> bool:
        try:
            return bool(app.control.ping(destination=[self.node], timeout=1.0))
        except (RedisError, OperationalError):  # a connection left from before a Redis restart: try again
            return False

    def kill(self) -> None:
        """SIGKILL the whole process group (main process and pool children), as a crash or OOM kill would."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop gracefully if still running."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)

    def log(self) -> str:
        """The worker's output so far."""
        return self.log_path.read_text(errors="replace")


@pytest.fixture
def start_workers(fault_stack: Settings, tmp_path: Path) -> Iterator[Callable[..., list[Worker]]]:
    """Start workers on the fault stack (in parallel); every one still running is stopped after the test."""
    started: list[Worker] = []

    def start(*names: str, **env: str) -> list[Worker]:
        workers = [Worker(fault_stack, name, tmp_path, **env) for name in names]
        started.extend(workers)
        for worker in workers:
            worker.launch()
        for worker in workers:
            worker.await_ready()
        return workers

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def job_store(fault_stack: Settings) -> Iterator[JobStore]:
    redis: Redis[bytes] = Redis.from_url(FAULT_REDIS_URL, socket_timeout=5, socket_connect_timeout=5)
    yield JobStore(redis, ttl_s=fault_stack.redis.job_ttl_s)
    redis.close()


@pytest.fixture
def fault_es(fault_stack: Settings) -> Iterator[Elasticsearch]:
    client = build_client(fault_stack.elasticsearch)
    yield client
    client.close()


WORDS = (
    "replica", "shard", "segment", "merge", "flush", "refresh", "translog", "mapping", "analyzer",
    "tokenizer", "vector", "quantize", "graph", "neighbour", "cosine", "score", "boost", "filter", "bucket",
    "cursor", "snapshot", "restore", "rollover", "alias", "tenant", "latency", "throughput", "backpressure",
    "retry", "backoff", "idempotent", "broker", "visibility", "acknowledge", "worker",
)


def make_documents(count: int, *, words: int = 900, prefix: str = "doc") -> list[dict[str, str]]:
    """Deterministic documents of several chunks each (the fake embedder counts words as tokens)."""
    documents = []
    for n in range(count):
        body = " ".join(WORDS[(n * 7 + i * (n % 5 + 1)) % len(WORDS)] for i in range(words))
        sentences = ". ".join(body[i : i + 240] for i in range(0, len(body), 240))
        documents.append({"doc_id": f"{prefix}-{n:04d}", "title": f"Document {n}",
                          "content": f"# Document {n}\n\n{sentences}.", "tags": ["faults"]})
    return documents


def expected_chunk_ids(documents: list[dict[str, str]], settings: Settings) -> set[str]:
    """The chunk ids the pipeline derives for these documents: what the index must hold, exactly."""
    embedder = FakeEmbedder()
    ids: set[str] = set()
    for raw in documents:
        document = Document(**{**raw, "tags": tuple(raw.get("tags", ()))})  # type: ignore[arg-type]
        ids.update(c.chunk_id for c in chunk_document(document, chunking=settings.chunking,
                                                      count_tokens=embedder.count_tokens))
    return ids


def stored_chunk_ids(es: Elasticsearch, index: str) -> list[str]:
    """Every chunk id in the index, one entry per stored document (a duplicate would show twice)."""
    es.indices.refresh(index=index)
    chunks = {"query": {"term": {"kind": "chunk"}}}
    return [hit["_id"] for hit in helpers.scan(es, index=index, query=chunks, _source=False)]


def assert_exactly(es: Elasticsearch, index: str, expected: set[str]) -> None:
    """The index holds exactly the expected chunks: none missing, none extra, none twice."""
    stored = stored_chunk_ids(es, index)
    assert len(stored) == len(set(stored)), "a chunk is stored twice"
    missing, extra = expected - set(stored), set(stored) - expected
    assert not missing and not extra, f"{len(missing)} chunks missing, {len(extra)} unexpected"
    assert es.count(index=index, query={"term": {"kind": "chunk"}})["count"] == len(expected)


def submit(api: str, headers: dict[str, str], documents: list[dict[str, str]], index: str,
           **extra_headers: str) -> httpx.Response:
    """POST /v1/ingest on the fault API."""
    return httpx.post(f"{api}/v1/ingest", json={"documents": documents, "index": index},
                      headers={**headers, **extra_headers}, timeout=60)


def wait_until(store: JobStore, job_id: str, predicate: Callable[[JobStatus], bool], *,
               timeout_s: float = JOB_TIMEOUT_S, poll_s: float = 0.01) -> JobStatus:
    """Poll the job until predicate holds; fail with the last status when timeout_s passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        status = store.get(job_id)
        if predicate(status):
            return status
        if time.monotonic() > deadline:
            pytest.fail(f"job {job_id} did not reach the expected state in {timeout_s:.0f}s: {status}")
        time.sleep(poll_s)


def finished(status: JobStatus) -> bool:
    return status.finished
