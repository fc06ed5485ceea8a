"""A large job loads with refresh off; afterwards the index has its own refresh_interval back and every document
is searchable without anyone refreshing by hand."""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from search_platform_client import SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import Settings

pytestmark = pytest.mark.slow

MODULES = ("os", "os.path", "shutil", "json", "re", "string", "textwrap", "itertools", "functools", "operator",
           "collections", "math", "cmath", "statistics", "random", "datetime", "time", "calendar", "pathlib",
           "subprocess", "socket", "ssl", "threading", "asyncio", "logging", "argparse", "unittest", "inspect",
           "typing", "dataclasses", "enum", "pickle", "copy", "pprint", "ast", "tokenize", "codecs", "locale",
           "urllib.parse", "http.client", "email.utils", "base64", "binascii", "hashlib", "hmac", "secrets",
           "zlib", "gzip", "bz2", "lzma", "zipfile", "tarfile", "csv", "sqlite3", "decimal", "fractions",
           "heapq", "bisect", "array", "weakref", "types", "contextlib", "abc", "io", "tempfile", "glob",
           "fnmatch", "sys", "builtins", "platform", "errno", "signal", "select", "selectors", "queue", "sched",
           "uuid", "difflib", "unicodedata", "stringprep", "struct", "traceback", "warnings", "gc", "dis")


def docstring_documents(count: int) -> list[dict[str, object]]:
    """`count` documents from the standard library's function and class docstrings (real text everywhere)."""
    documents: dict[str, dict[str, object]] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, member in sorted(vars(module).items()):
            text = inspect.getdoc(member) if callable(member) and not name.startswith("_") else None
            if text and len(text) > 40:
                doc_id = f"{module_name}.{name}"
                documents[doc_id] = {"doc_id": doc_id, "title": doc_id, "content": text, "source": "stdlib"}
            if len(documents) == count:
                return list(documents.values())
    raise AssertionError(f"only {len(documents)} docstrings found")


@pytest.fixture
def es(services: Settings) -> Iterator[Elasticsearch]:
    client = build_client(services.elasticsearch)
    yield client
    client.close()


def refresh_interval(es: Elasticsearch, alias: str) -> str | None:
    answer = dict(es.indices.get_settings(index=alias, name="index.refresh_interval", flat_settings=True))
    value: str | None = next(iter(answer.values()))["settings"].get("index.refresh_interval")
    return value


def test_large_job_runs_with_refresh_off_and_restores_it(services: Settings, client: SearchClient, index: str,
                                                         es: Elasticsearch) -> None:
    threshold = services.ingestion.bulk_mode_min_documents
    seed = client.wait_for_job(client.ingest([{"doc_id": "seed", "content": "creates the index"}],
                                             index=index).job_id, timeout_s=120)
    assert seed.state == "done"
    es.indices.put_settings(index=index, settings={"refresh_interval": "7s"})
    documents = docstring_documents(threshold)
    job_id = client.ingest(documents, index=index).job_id
    seen_during: set[str | None] = set()
    deadline = time.monotonic() + 600
    while not (job := client.job(job_id)).finished and time.monotonic() < deadline:
        seen_during.add(refresh_interval(es, index))
        time.sleep(0.3)
    assert job.state == "done" and job.documents_done == threshold, job.errors
    assert "-1" in seen_during
    assert refresh_interval(es, index) == "7s"
    assert es.count(index=index)["count"] >= threshold + 1
    found = es.search(index=index, size=0, query={"terms": {"doc_id": [d["doc_id"] for d in documents]}},
                      aggs={"docs": {"cardinality": {"field": "doc_id", "precision_threshold": 4000}}})
    assert found["aggregations"]["docs"]["value"] == threshold
