"""Scale-out on a real 3-node cluster: a bounded Locust load survives SIGKILL of the elected master.

The index has 3 shards and 1 replica, so every node holds two shard copies: killing the elected master forces a
master election *and* the promotion of replicas for the primaries it held, the harder of the two failures. The
worker and API know all three node URLs, so the clients fail over to the live nodes.

The worker and API embed with the deterministic fake embedder: this test is about the cluster, and two more
processes loading the real model would only stretch its start-up on a 2-core machine; the kNN leg still runs.
"""

from __future__ import annotations

import csv
import inspect
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from search_platform_client import SearchClient

from infra import cluster
from search_platform.auth.keys import Scope
from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import Settings
from search_platform.ingestion.queue import create_celery
from tests.integration.conftest import CLI, ROOT, _child_env, _stop, key_store, launch_api
from tests.integration.corpus import DOCUMENTS

pytestmark = pytest.mark.slow

USERS = 10
RUN_S = 40
KILL_AFTER_S = 13.0  # about a third of the way into the run
MAX_ERROR_RATE = 0.001  # with fewer than 1,000 requests this means: no failed request at all
MIN_REQUESTS = 50
STDLIB_MODULES = ("json", "csv", "pathlib", "argparse", "logging", "sqlite3", "asyncio", "subprocess", "shutil",
                  "tempfile", "functools", "itertools", "collections", "datetime", "re", "string", "textwrap",
                  "unittest", "doctest", "gzip", "zipfile", "tarfile", "hashlib", "hmac", "secrets", "random",
                  "statistics", "decimal", "fractions", "heapq", "bisect", "socket", "ssl", "threading",
                  "multiprocessing", "queue", "sched", "contextlib", "abc", "typing", "dataclasses", "enum",
                  "pickle", "shelve", "copy", "pprint", "inspect", "ast", "dis", "tokenize", "codecs", "locale",
                  "gettext", "calendar", "time", "uuid", "urllib.parse", "http.client", "email", "mailbox")


@dataclass(frozen=True)
class ClusterStack:
    """The cluster's URL list, the API in front of it and a key for that API."""

    settings: Settings
    es_urls: str
    api: str
    api_key: str


def real_documents() -> list[dict[str, object]]:
    """The hand-written test corpus plus the docstrings of standard-library modules: real text on every machine."""
    documents = [dict(d) for d in DOCUMENTS]
    for name in STDLIB_MODULES:
        module = __import__(name, fromlist=["_"])
        text = inspect.getdoc(module) or ""
        if len(text) > 200:
            documents.append({"doc_id": f"stdlib-{name}", "title": f"The {name} module",
                              "content": text, "source": "stdlib"})
    return documents


@pytest.fixture(scope="module")
def cluster_stack(services: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterStack]:
    """Cluster up; a worker and an API on it, on their own Redis database so no other worker takes the tasks."""
    base, db = services.redis.url.rsplit("/", 1)
    redis = services.redis.model_copy(update={"url": f"{base}/{(int(db) + 8) % 16}"})
    own = services.model_copy(update={"redis": redis})
    cluster.up(own)
    es_urls = cluster.urls(own)
    overrides = {"SP_ELASTICSEARCH__URL": es_urls, "SP_ELASTICSEARCH__NUMBER_OF_REPLICAS": "1",
                 "SP_ELASTICSEARCH__NUMBER_OF_SHARDS": "3", "SP_EMBEDDING__BACKEND": "fake",
                 # the search log's index would be created lazily mid-run, and killed before its replica is in
                 # sync (red): search logging is best-effort and not what this test measures
                 "SP_ANALYTICS__ENABLED": "false"}
    logs = tmp_path_factory.mktemp("cluster")
    worker_log = (logs / "worker.log").open("wb")
    worker = subprocess.Popen([CLI, "worker"], cwd=ROOT, env={**_child_env(own), **overrides},
                              stdout=worker_log, stderr=worker_log)
    api = None
    try:
        deadline = time.monotonic() + 120
        while not create_celery(own).control.ping(timeout=1.0):
            assert worker.poll() is None and time.monotonic() < deadline, f"worker did not start; see {logs}"
        api, url = launch_api(own, logs / "api.log", **overrides)
        _, key = key_store(own).create(name="cluster-test", scopes=frozenset(Scope), tenant=None,
                                       rate_limit_per_minute=1_000_000)
        yield ClusterStack(own, es_urls, url, key)
    finally:
        if api is not None:
            _stop(api)
        _stop(worker)
        cluster.down(own, wipe=True)  # never leave three JVMs behind


def elected_master(settings: Settings) -> cluster.ClusterNode:
    """The node that is the elected master now."""
    es = build_client(settings.elasticsearch.model_copy(update={"url": cluster.urls(settings)}))
    try:
        name = es.cat.master(format="json")[0]["node"]
    finally:
        es.close()
    return next(node for node in cluster.nodes(settings) if node.name == name)


def run_locust(stack: ClusterStack, alias: str, queries: Path, csv_prefix: Path) -> subprocess.Popen[bytes]:
    """A headless, time-bounded Locust run against the API, writing <prefix>_stats.csv."""
    env = {**os.environ, "SP_LOADTEST_INDEX": alias, "SP_LOADTEST_API_KEY": stack.api_key,
           "SP_LOADTEST_QUERIES": str(queries)}
    command = [str(Path(sys.executable).parent / "locust"), "-f", str(ROOT / "loadtests" / "locustfile.py"),
               "--headless", "--users", str(USERS), "--spawn-rate", str(USERS), "--run-time", f"{RUN_S}s",
               "--host", stack.api, "--csv", str(csv_prefix), "--only-summary", "--stop-timeout", "10"]
    log = csv_prefix.with_suffix(".log").open("wb")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)


def aggregated(csv_prefix: Path) -> tuple[int, int]:
    """Total requests and failures from Locust's stats CSV."""
    with Path(f"{csv_prefix}_stats.csv").open(newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["Name"] == "Aggregated")
    return int(row["Request Count"]), int(row["Failure Count"])


def recovery_seconds(settings: Settings, killed_at: float, nodes: int) -> float:
    """Seconds from the kill until the survivors report `nodes` nodes and every primary assigned (yellow)."""
    cluster.wait_for(settings, status="yellow", node_count=nodes, timeout_s=90)
    return time.monotonic() - killed_at


def found_doc_ids(stack: ClusterStack, alias: str, doc_ids: list[str]) -> set[str]:
    """The doc_ids a terms query over all of them finds, through a client that knows every node URL."""
    es = build_client(stack.settings.elasticsearch.model_copy(update={"url": stack.es_urls}))
    try:
        response = es.search(index=alias, query={"terms": {"doc_id": doc_ids}}, size=0,
                             aggs={"ids": {"terms": {"field": "doc_id", "size": len(doc_ids) + 10}}})
    finally:
        es.close()
    return {bucket["key"] for bucket in response["aggregations"]["ids"]["buckets"]}


def test_load_survives_killing_the_elected_master(cluster_stack: ClusterStack, tmp_path: Path) -> None:
    stack = cluster_stack
    alias = f"sp-test-cluster-{uuid.uuid4().hex[:10]}"
    documents = real_documents()
    doc_ids = [str(d["doc_id"]) for d in documents]
    with SearchClient(stack.api, timeout=120, api_key=stack.api_key) as client:
        job = client.wait_for_job(client.ingest(documents, index=alias).job_id, timeout_s=300)
    assert job.state == "done" and job.documents_done == len(documents), job.errors
    cluster.wait_for(stack.settings, status="green", node_count=3, timeout_s=120)
    assert found_doc_ids(stack, alias, doc_ids) == set(doc_ids)

    queries = tmp_path / "queries.json"
    queries.write_text(json.dumps([{"query": str(d["title"])} for d in documents]))
    victim = elected_master(stack.settings)
    pid = cluster.running_pid(victim)
    assert pid is not None
    csv_prefix = tmp_path / "locust"
    locust = run_locust(stack, alias, queries, csv_prefix)
    try:
        time.sleep(KILL_AFTER_S)
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        recovered_s = recovery_seconds(stack.settings, killed_at, nodes=2)
        assert locust.wait(timeout=RUN_S + 60) == 0, f"locust failed; see {csv_prefix.with_suffix('.log')}"
    finally:
        if locust.poll() is None:
            locust.kill()
    requests, failures = aggregated(csv_prefix)
    error_rate = failures / requests
    print(f"\ncluster failover: killed elected master {victim.name} at {KILL_AFTER_S:.0f}s of a {RUN_S}s run with "
          f"{USERS} users; {requests} requests, {failures} failed, error rate {error_rate:.4%}; cluster yellow "
          f"with 2 nodes {recovered_s:.1f}s after the kill")
    assert requests >= MIN_REQUESTS, "the load was too small to measure an error rate"
    assert error_rate < MAX_ERROR_RATE
    assert found_doc_ids(stack, alias, doc_ids) == set(doc_ids)
    health = cluster.health(stack.settings)
    assert health is not None and health["number_of_nodes"] == 2 and health["status"] in ("yellow", "green")
