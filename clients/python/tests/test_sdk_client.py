"""The SDK against httpx.MockTransport: what it sends, how it retries, which error each answer becomes."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest

from search_platform_client import (
    AsyncSearchClient,
    ConflictError,
    ConnectError,
    Document,
    ForbiddenError,
    JobTimeoutError,
    RateLimitedError,
    RequestTimeoutError,
    RetryPolicy,
    SearchClient,
    SearchOptions,
    ServiceUnavailableError,
    UnauthorizedError,
)

NO_WAIT = RetryPolicy(max_retries=3, backoff_s=0, max_backoff_s=0)
Handler = Callable[[httpx.Request], httpx.Response]


def page(number: int, size: int, *, total: int, window: int = 100) -> dict[str, Any]:
    """A search answer with `size` hits numbered from the page's first rank."""
    first = (number - 1) * size + 1
    hits = [{"rank": r, "score": 1.0 / r, "chunk_id": f"c{r}", "doc_id": f"d{r}", "chunk_index": 0}
            for r in range(first, min(first + size, total + 1))]
    return {"mode": "hybrid", "index": "i", "top_k": size, "candidate_k": 50, "rrf_k": 60, "fusion": "rrf",
            "page": number, "page_size": size, "window": window, "total_in_window": total, "group_by": "chunk",
            "took_ms": 1.0, "leg_took_ms": {}, "hits": hits}


JOB = {"job_id": "j1", "state": "done", "index": "i", "documents_total": 1, "documents_done": 1,
       "documents_failed": 0, "chunks_done": 2, "errors": {}, "created_at": 0.0, "updated_at": 1.0,
       "batches_total": 1, "batches_done": 1, "batches_failed": 0, "deliveries": 1, "workers": ["w@h"]}


def client_with(handler: Handler, **kwargs: Any) -> SearchClient:
    return SearchClient("http://sp.test", transport=httpx.MockTransport(handler), retry=NO_WAIT, **kwargs)


def recorder(answers: list[httpx.Response]) -> tuple[Handler, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers[min(len(seen), len(answers)) - 1]

    return handler, seen


def test_search_sends_only_the_options_set_and_keywords_override_options():
    handler, seen = recorder([httpx.Response(200, json=page(1, 2, total=2))])
    with client_with(handler, api_key="k") as client:
        client.search("fox", SearchOptions(mode="bm25", page_size=5), page_size=2, fusion="convex", alpha=0.3,
                      filters={"tags": ["a"]}, highlight=False)
    body = json.loads(seen[0].content)
    assert body == {"query": "fox", "mode": "bm25", "page_size": 2, "fusion": "convex", "alpha": 0.3,
                    "filters": {"doc_ids": [], "sources": [], "tags": ["a"], "langs": [], "tenants": []},
                    "highlight": False}
    assert seen[0].headers["authorization"] == "Bearer k"
    assert seen[0].headers["user-agent"].startswith("search-platform-client/")


def test_an_unknown_search_option_is_refused_before_sending():
    with client_with(lambda _: httpx.Response(500)) as client, pytest.raises(ValueError, match="fusion"):
        client.search("fox", fusion="borda")  # type: ignore[typeddict-item]


def test_a_date_filter_without_a_utc_offset_is_refused_before_sending():
    with client_with(lambda _: httpx.Response(500)) as client, pytest.raises(ValueError, match="timezone"):
        client.search("fox", filters={"indexed_after": datetime(2026, 1, 31, 12)})


def test_a_date_filter_is_sent_with_its_offset():
    handler, seen = recorder([httpx.Response(200, json=page(1, 1, total=1))])
    with client_with(handler) as client:
        client.search("fox", filters={"indexed_after": datetime(2026, 1, 31, 12, tzinfo=timezone.utc)})
    assert json.loads(seen[0].content)["filters"]["indexed_after"] == "2026-01-31T12:00:00Z"


def test_a_document_without_tenant_leaves_it_to_the_key():
    handler, seen = recorder([httpx.Response(202, json={"job_id": "j1", "documents": 1, "rejected": {},
                                                        "status_url": "/v1/jobs/j1"})])
    with client_with(handler) as client:
        client.ingest([Document(doc_id="a", content="x")], index="docs", idempotency_key="batch-1")
    body = json.loads(seen[0].content)
    assert "tenant" not in body["documents"][0]
    assert body["index"] == "docs"
    assert seen[0].headers["idempotency-key"] == "batch-1"


def test_429_and_503_are_retried_honouring_retry_after():
    answers = [httpx.Response(429, headers={"Retry-After": "7"}, json={"error": "x", "message": "slow"}),
               httpx.Response(503, json={"error": "x", "message": "down"}),
               httpx.Response(200, json=JOB)]
    handler, seen = recorder(answers)
    waits: list[float] = []
    policy = RetryPolicy(max_retries=3, backoff_s=0.25, max_backoff_s=10)
    client = SearchClient("http://sp.test", transport=httpx.MockTransport(handler), retry=policy)
    import search_platform_client._sync as sync_face

    original = sync_face.time.sleep
    sync_face.time.sleep = waits.append  # type: ignore[assignment]
    try:
        assert client.job("j1").workers == ["w@h"]
    finally:
        sync_face.time.sleep = original
    assert len(seen) == 3
    assert waits[0] == 7.0  # Retry-After
    assert 0.125 <= waits[1] <= 0.25 * 2  # jittered backoff of the second attempt


def test_retries_are_bounded_and_end_in_the_typed_error():
    handler, seen = recorder([httpx.Response(429, headers={"Retry-After": "1"}, json={"message": "slow"})])
    with client_with(handler) as client, pytest.raises(RateLimitedError) as caught:
        client.job("j1")
    assert len(seen) == 1 + NO_WAIT.max_retries
    assert caught.value.retry_after_s == 1.0


def test_no_retries_when_turned_off():
    handler, seen = recorder([httpx.Response(503, json={"message": "down"})])
    client = SearchClient("http://sp.test", transport=httpx.MockTransport(handler), retry=RetryPolicy(max_retries=0))
    with pytest.raises(ServiceUnavailableError):
        client.job("j1")
    assert len(seen) == 1


@pytest.mark.parametrize(("status", "kind"), [(401, UnauthorizedError), (403, ForbiddenError),
                                              (409, ConflictError)])
def test_each_status_has_its_own_error(status, kind):
    client = client_with(lambda _: httpx.Response(status, json={"error": "e", "message": "m"}))
    with client, pytest.raises(kind, match=f"{status}: m"):
        client.resume_job("j1")
    assert not issubclass(ForbiddenError, UnauthorizedError)


def test_no_answer_is_a_transport_error_not_a_503():
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with client_with(timeout) as client, pytest.raises(RequestTimeoutError):
        client.health()
    with client_with(refused) as client, pytest.raises(ConnectError, match=r"http://sp\.test"):
        client.health()


def test_a_base_url_without_scheme_is_refused_at_once():
    with pytest.raises(ValueError, match="scheme"):
        SearchClient("127.0.0.1:8000")


def test_per_call_timeout_reaches_the_request():
    handler, seen = recorder([httpx.Response(200, json=JOB)])
    with client_with(handler, timeout=30) as client:
        client.job("j1", timeout=1.5)
        client.job("j1")
    assert seen[0].extensions["timeout"]["read"] == 1.5
    assert seen[1].extensions["timeout"]["read"] == 30


def test_health_reports_a_dependency_down_instead_of_raising():
    down = {"status": "degraded", "dependencies": {"elasticsearch": {"ok": False, "detail": "refused"},
                                                   "redis": {"ok": True, "detail": "PONG"}}}
    with client_with(lambda _: httpx.Response(503, json=down)) as client:
        health = client.health()
    assert not health.ok
    assert health.dependencies["elasticsearch"].detail == "refused"


def test_ingest_all_batches_any_iterable_and_reports_progress():
    handler, seen = recorder([httpx.Response(202, json={"job_id": "j", "documents": 2, "rejected": {},
                                                        "status_url": "/v1/jobs/j"})])
    progress = []
    documents = ({"doc_id": str(n), "content": "x"} for n in range(5))
    with client_with(handler) as client:
        jobs = client.ingest_all(documents, batch_size=2, idempotency_prefix="run", on_progress=progress.append)
    assert [len(json.loads(r.content)["documents"]) for r in seen] == [2, 2, 1]
    assert [r.headers["idempotency-key"] for r in seen] == ["run-1", "run-2", "run-3"]
    assert [p.documents_sent for p in progress] == [2, 4, 5]
    assert len(jobs) == 3


def test_iter_pages_walks_the_window_and_stops_at_its_end():
    handler, seen = recorder([httpx.Response(200, json=page(n, 2, total=5, window=6)) for n in (1, 2, 3)])
    with client_with(handler) as client:
        ranks = [hit.rank for hit in client.iter_hits("fox", page_size=2, window=6)]
    assert ranks == [1, 2, 3, 4, 5]
    assert [json.loads(r.content).get("page", 1) for r in seen] == [1, 2, 3]


def test_wait_for_job_reports_progress_and_times_out_naming_the_job():
    running = {**JOB, "state": "running", "documents_done": 0}
    handler, _ = recorder([httpx.Response(200, json=running)])
    seen: list[str] = []
    with client_with(handler) as client, pytest.raises(JobTimeoutError, match="j1") as caught:
        client.wait_for_job("j1", timeout_s=0.0, poll_s=0.0, on_progress=lambda job: seen.append(job.state))
    assert seen == ["running"]
    assert caught.value.job.state == "running"


async def test_the_async_face_sends_the_same_requests():
    sync_handler, sync_seen = recorder([httpx.Response(200, json=page(1, 2, total=2))])
    async_handler, async_seen = recorder([httpx.Response(200, json=page(1, 2, total=2))])
    with client_with(sync_handler) as client:
        client.search("fox", fusion="dbsf", weights={"bm25": 2.0})
    async with AsyncSearchClient("http://sp.test", transport=httpx.MockTransport(async_handler),
                                 retry=NO_WAIT) as client:
        response = await client.search("fox", fusion="dbsf", weights={"bm25": 2.0})
    assert response.hits[0].doc_id == "d1"
    assert async_seen[0].content == sync_seen[0].content
    assert async_seen[0].url == sync_seen[0].url


def test_the_two_faces_have_the_same_methods_and_signatures():
    def public(cls: type) -> dict[str, inspect.Signature]:
        skip = {"close", "aclose"}
        return {name: inspect.signature(member) for name, member in vars(cls).items()
                if callable(member) and not name.startswith("_") and name not in skip}

    sync_methods, async_methods = public(SearchClient), public(AsyncSearchClient)
    assert sync_methods.keys() == async_methods.keys()
    for name, signature in sync_methods.items():
        assert list(signature.parameters) == list(async_methods[name].parameters), name
    assert {"search", "iter_pages", "iter_hits", "ingest", "ingest_all", "job", "resume_job", "wait_for_job",
            "feedback", "health"} <= sync_methods.keys()


def test_the_lead_weight_is_sent_only_when_set():
    handler, seen = recorder([httpx.Response(200, json=page(1, 2, total=2)) for _ in range(2)])
    with client_with(handler) as client:
        client.search("fox", weights={"bm25": 2.0})
        client.search("fox", weights={"dense_lead": 0.5}, group_by="document")
    sent = [json.loads(request.content)["weights"] for request in seen]
    assert sent == [{"bm25": 2.0, "dense": 1.0}, {"bm25": 1.0, "dense": 1.0, "dense_lead": 0.5}]
