"""Bad input to the live API gets a clear 4xx naming the problem, and nothing wrong is queued or indexed.

Complements the hostile-input tests of test_search.py (query DSL smuggling, special characters, huge top_k and
page, unknown filter fields): this covers ingestion and the characters a query must not carry."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import Settings

pytestmark = pytest.mark.integration

JOB_TIMEOUT_S = 300
GOOD = {"doc_id": "sentinel", "content": "The sentinel document about retries and idempotent writes."}


def _post(api: str, headers: dict[str, str], body: bytes | dict[str, Any], path: str = "/v1/ingest",
          **extra: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else httpx.Request("POST", api, json=body).content
    return httpx.post(f"{api}{path}", content=content, timeout=120,
                      headers={**headers, "content-type": "application/json", **extra})


def _documents(*documents: dict[str, Any], index: str) -> dict[str, Any]:
    return {"documents": list(documents), "index": index}


def _cases(index: str) -> list[tuple[str, bytes | dict[str, Any], int]]:
    return [
        ("malformed JSON", b'{"documents": [{"doc_id": "a", "content": "x"}', 422),
        ("invalid UTF-8", b'{"documents": [{"doc_id": "a", "content": "\xff\xfe"}], "index": "' + index.encode()
         + b'"}', 400),
        ("not an object", b"[]", 422),
        ("documents not a list", {"documents": "a", "index": index}, 422),
        ("no documents", _documents(index=index), 422),
        ("an empty document", _documents({}, index=index), 422),
        ("empty content", _documents({"doc_id": "e", "content": ""}, index=index), 422),
        ("blank content", _documents({"doc_id": "e", "content": " \n\t "}, index=index), 422),
        ("wrong types", _documents({"doc_id": 7, "content": ["x"], "tags": "t"}, index=index), 422),
        ("unknown document field", _documents({"doc_id": "u", "content": "x", "colour": "red"}, index=index), 422),
        ("NUL in content", _documents({"doc_id": "n", "content": "abc\u0000def"}, index=index), 422),
        ("escape in content", _documents({"doc_id": "c", "content": "a\u001b[31m red"}, index=index), 422),
        ("bell in doc_id", _documents({"doc_id": "bell\u0007", "content": "x"}, index=index), 422),
        ("newline in a tag", _documents({"doc_id": "t", "content": "x", "tags": ["a\nb"]}, index=index), 422),
        ("lone surrogate", b'{"documents": [{"doc_id": "s", "content": "a\\ud800b"}], "index": "' + index.encode()
         + b'"}', 422),
        ("index with DSL", {"documents": [GOOD], "index": '{"match_all": {}}'}, 422),
        ("index path", {"documents": [GOOD], "index": "../_all"}, 422),
    ]


def test_bad_ingest_requests_get_a_clear_4xx_and_queue_nothing(api, auth_headers, index, services: Settings):
    for name, body, status in _cases(index):
        response = _post(api, auth_headers, body)
        assert response.status_code == status, (name, response.status_code, response.text)
        payload = response.json()
        assert payload["error"] == "invalid_request" and payload["message"], (name, payload)
        assert "Traceback" not in response.text, name
    _assert_index_holds_only_the_sentinel(api, auth_headers, index, services)


def test_an_oversize_document_is_413_and_queues_nothing(api, auth_headers, index, services: Settings):
    limit = services.ingestion.max_document_bytes
    big = {"doc_id": "big", "content": "a" * (limit + 1)}
    response = _post(api, auth_headers, _documents(GOOD, big, index=index))
    assert response.status_code == 413, response.text
    assert response.json()["error"] == "payload_too_large" and "big" in response.json()["message"]
    _assert_index_holds_only_the_sentinel(api, auth_headers, index, services)


def test_a_bad_document_among_good_ones_is_rejected_alone(api, auth_headers, index, services: Settings):
    response = _post(api, auth_headers, _documents(GOOD, {"doc_id": "ctl", "content": "a\u0000b"}, index=index))
    assert response.status_code == 202
    assert list(response.json()["rejected"]) == ["ctl"] and "U+0000" in response.json()["rejected"]["ctl"]


def test_bad_idempotency_keys_get_422(api, auth_headers, index):
    for key in ("", "x" * 129, "with space", "tab\tkey"):
        response = httpx.post(f"{api}/v1/ingest", json=_documents(GOOD, index=index), timeout=30,
                              headers={**auth_headers, "Idempotency-Key": key})
        assert response.status_code == 422, (key, response.text)


@pytest.mark.parametrize("query", ["abc\u0000def", "\u001b[2J clear screen", "bell\u0007", "a\ud800b"])
def test_control_characters_in_a_query_get_422(api, auth_headers, query):
    raw = json.dumps({"query": query}).encode()  # escaped as \\uXXXX: valid JSON carrying the character
    response = _post(api, auth_headers, raw, path="/v1/search")
    assert response.status_code == 422, response.text
    assert response.json()["details"][0]["field"] == "query"


def test_unknown_top_level_search_fields_get_422(api, auth_headers):
    response = httpx.post(f"{api}/v1/search", json={"query": "x", "script": {"source": "1"}}, headers=auth_headers,
                          timeout=30)
    assert response.status_code == 422 and response.json()["details"][0]["field"] == "script"


def test_resume_of_an_unknown_job_is_404(api, auth_headers):
    response = httpx.post(f"{api}/v1/jobs/no-such-job/resume", headers=auth_headers, timeout=30)
    assert response.status_code == 404 and response.json()["error"] == "job_not_found"


def _assert_index_holds_only_the_sentinel(api: str, headers: dict[str, str], index: str,
                                          services: Settings) -> None:
    """Queue a good document after the bad requests and wait for it: the worker takes tasks in order, so any bad
    document that had been queued would be indexed by now."""
    job = _post(api, headers, _documents(GOOD, index=index)).json()
    deadline = time.monotonic() + JOB_TIMEOUT_S
    status = httpx.get(f"{api}/v1/jobs/{job['job_id']}", headers=headers, timeout=30).json()
    while status["state"] not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.5)
        status = httpx.get(f"{api}/v1/jobs/{job['job_id']}", headers=headers, timeout=30).json()
    assert status["state"] == "done", status
    es = build_client(services.elasticsearch)
    try:
        es.indices.refresh(index=index)
        hits = es.search(index=index, size=100, source=["doc_id"])["hits"]["hits"]
    finally:
        es.close()
    assert {hit["_source"]["doc_id"] for hit in hits} == {"sentinel"}
