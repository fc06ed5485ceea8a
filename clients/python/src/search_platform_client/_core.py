"""The one client core: builds every request, parses every answer, decides retries and paging. It does no I/O:
each operation is a generator that yields Send (an HTTP request to make) or Sleep steps, and the sync and async
faces only drive it, so the two cannot drift."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from itertools import islice
from typing import Any, TypedDict, TypeVar
from urllib.parse import quote, urlencode, urlsplit

import httpx

from search_platform_client._version import __version__
from search_platform_client.errors import (
    ERRORS_BY_STATUS,
    APIError,
    ConnectError,
    JobTimeoutError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    ServiceUnavailableError,
    TransportError,
)
from search_platform_client.models import (
    DeleteResult,
    Document,
    DocumentInfo,
    FeedbackResponse,
    Filters,
    Fusion,
    GroupBy,
    Health,
    IngestProgress,
    IngestResponse,
    Job,
    KeyDeleted,
    Mode,
    Normalization,
    PurgeResult,
    SearchOptions,
    SearchResponse,
    Weights,
)

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"
RETRY_STATUSES = frozenset({429, 503})
USER_AGENT = f"search-platform-client/{__version__}"


class SearchFields(TypedDict, total=False):
    """The keyword arguments of search(): the fields of SearchOptions (dicts accepted for filters and weights)."""

    mode: Mode
    page: int
    page_size: int
    top_k: int
    window: int
    group_by: GroupBy
    highlight: bool
    explain: bool
    index: str
    filters: Filters | dict[str, Any]
    candidate_k: int
    fusion: Fusion
    rrf_k: int
    weights: Weights | dict[str, float]
    alpha: float
    normalization: Normalization
    rerank: bool
    user_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class Send:
    """Step: make this HTTP request and send back the httpx.Response."""

    method: str
    path: str
    json: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Sleep:
    """Step: wait this long, then send back None."""

    seconds: float


Step = Send | Sleep
Operation = Generator[Step, Any, T]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of 429 and 503 answers: at most max_retries, Retry-After when sent, else jittered exponential
    backoff from backoff_s; every wait is capped at max_backoff_s (0 makes tests instant)."""

    max_retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0

    def delay(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying this answer, or None when it is final."""
        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
            return None
        hinted = retry_after_s(response.headers.get("retry-after"))
        if hinted is None:
            hinted = self.backoff_s * (2**attempt) * (0.5 + random.random() / 2)
        return min(max(hinted, 0.0), self.max_backoff_s)


def check_base_url(base_url: str) -> str:
    """The base URL, or ValueError when it has no http(s) scheme or host."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url {base_url!r} needs a scheme and host, e.g. http://127.0.0.1:8000")
    return base_url.rstrip("/")


def client_headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    """Headers sent on every request: the user agent, extra headers, and the API key as a bearer token."""
    merged = {"User-Agent": USER_AGENT, **(headers or {})}
    if api_key:
        merged["Authorization"] = f"Bearer {api_key}"
    return merged


def retry_after_s(value: str | None) -> float | None:
    """Retry-After as seconds (delta-seconds or an HTTP date), None when absent or unreadable."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
    return seconds if math.isfinite(seconds) else None


def transport_error(error: httpx.TransportError, base_url: str) -> TransportError:
    """httpx's no-answer errors as the SDK's, naming the URL and the fix."""
    if isinstance(error, httpx.TimeoutException):
        return RequestTimeoutError(f"no answer from {base_url} in time ({type(error).__name__}); "
                                   "raise timeout= or check the service")
    return ConnectError(f"cannot reach {base_url}: {error}; is the service running at that URL?")


def raise_for_status(response: httpx.Response) -> None:
    """Raise the typed error for a non-2xx answer."""
    if response.is_success:
        return
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    message = body.get("message", response.text) if isinstance(body, dict) else response.text
    status = response.status_code
    kind = ERRORS_BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    text = f"{status}: {message}"
    if kind in (RateLimitedError, ServiceUnavailableError):
        hint = retry_after_s(response.headers.get("retry-after"))
        raise kind(text, status=status, body=body, retry_after_s=hint)
    raise kind(text, status=status, body=body)


def exchange(send: Send, parse: Callable[[Any], T], retry: RetryPolicy) -> Operation[T]:
    """One API call: send, retry 429/503 as the policy says, raise for an error status, parse the JSON body."""
    attempt = 0
    while True:
        response: httpx.Response = yield send
        delay = retry.delay(response, attempt)
        if delay is None:
            raise_for_status(response)
            return parse(response.json())
        attempt += 1
        yield Sleep(delay)


def merge_options(options: SearchOptions | None, fields: SearchFields) -> SearchOptions:
    """options with the keyword fields laid over them, validated."""
    base = options.model_dump(exclude_unset=True) if options is not None else {}
    return SearchOptions.model_validate({**base, **fields})


def search_body(query: str, options: SearchOptions | None, fields: SearchFields) -> dict[str, Any]:
    """The JSON body of POST /v1/search: options, overridden by keyword fields; unset values left out."""
    return {"query": query, **merge_options(options, fields).model_dump(mode="json", exclude_none=True)}


def search(query: str, options: SearchOptions | None, fields: SearchFields, retry: RetryPolicy
           ) -> Operation[SearchResponse]:
    """POST /v1/search."""
    body = search_body(query, options, fields)
    return exchange(Send("POST", "/v1/search", body), SearchResponse.model_validate, retry)


def document_json(document: Document | Mapping[str, Any]) -> dict[str, Any]:
    """A document as JSON; an unset tenant is left out so the API key's tenant applies."""
    if isinstance(document, Document):
        return document.model_dump(mode="json", exclude_none=True)
    return dict(document)


def ingest(documents: Iterable[Document | Mapping[str, Any]], *, index: str | None, idempotency_key: str | None,
           retry: RetryPolicy) -> Operation[IngestResponse]:
    """POST /v1/ingest: queue one batch of documents as a job."""
    body: dict[str, Any] = {"documents": [document_json(d) for d in documents]}
    if index is not None:
        body["index"] = index
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    return exchange(Send("POST", "/v1/ingest", body, headers), IngestResponse.model_validate, retry)


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of at most size items, in order."""
    if size < 1:
        raise ValueError("batch_size must be at least 1")
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def ingest_all(documents: Iterable[Document | Mapping[str, Any]], *, batch_size: int, index: str | None,
               idempotency_prefix: str | None, on_progress: Callable[[IngestProgress], None] | None,
               retry: RetryPolicy) -> Operation[list[IngestResponse]]:
    """Queue an iterable of documents in batches (one job each), reporting progress after each batch."""
    responses: list[IngestResponse] = []
    sent = rejected = 0
    for number, batch in enumerate(batched(documents, batch_size), start=1):
        key = f"{idempotency_prefix}-{number}" if idempotency_prefix else None
        response = yield from ingest(batch, index=index, idempotency_key=key, retry=retry)
        responses.append(response)
        sent, rejected = sent + len(batch), rejected + len(response.rejected)
        if on_progress is not None:
            on_progress(IngestProgress(batches_sent=number, documents_sent=sent, documents_rejected=rejected,
                                       job_ids=[r.job_id for r in responses]))
    return responses


def job(job_id: str, retry: RetryPolicy) -> Operation[Job]:
    """GET /v1/jobs/{job_id}."""
    return exchange(Send("GET", f"/v1/jobs/{quote(job_id, safe='')}"), Job.model_validate, retry)


def resume_job(job_id: str, retry: RetryPolicy) -> Operation[Job]:
    """POST /v1/jobs/{job_id}/resume: queue a failed job's failed batches again."""
    return exchange(Send("POST", f"/v1/jobs/{quote(job_id, safe='')}/resume"), Job.model_validate, retry)


def wait_for_job(job_id: str, *, timeout_s: float, poll_s: float, on_progress: Callable[[Job], None] | None,
                 retry: RetryPolicy) -> Operation[Job]:
    """Poll a job until it is done or failed, reporting each status; JobTimeoutError after timeout_s (of polls)."""
    waited = 0.0
    while True:
        status = yield from job(job_id, retry)
        if on_progress is not None:
            on_progress(status)
        if status.finished:
            return status
        if waited >= timeout_s:
            raise JobTimeoutError(f"job {job_id} still {status.state} after {timeout_s:g}s; follow it with "
                                  f"`search-platform jobs status {job_id}`", job=status)
        waited += poll_s
        yield Sleep(poll_s)


def feedback(request_id: str, *, doc_id: str, position: int, chunk_id: str | None, user_id: str | None,
             session_id: str | None, retry: RetryPolicy) -> Operation[bool]:
    """POST /v1/feedback: report a click; True when the service logged it."""
    body = {"request_id": request_id, "doc_id": doc_id, "position": position, "chunk_id": chunk_id,
            "user_id": user_id, "session_id": session_id}
    body = {key: value for key, value in body.items() if value is not None}
    return exchange(Send("POST", "/v1/feedback", body),
                    lambda data: FeedbackResponse.model_validate(data).accepted, retry)


def _document_path(doc_id: str, index: str | None, tenant: str | None) -> str:
    query = urlencode({k: v for k, v in (("index", index), ("tenant", tenant)) if v is not None})
    return f"/v1/documents/{quote(doc_id, safe='')}" + (f"?{query}" if query else "")


def get_document(doc_id: str, *, index: str | None, tenant: str | None, retry: RetryPolicy
                 ) -> Operation[DocumentInfo]:
    """GET /v1/documents/{doc_id}: chunk count, content hash and indexed_at of one document."""
    return exchange(Send("GET", _document_path(doc_id, index, tenant)), DocumentInfo.model_validate, retry)


def delete_document(doc_id: str, *, index: str | None, tenant: str | None, retry: RetryPolicy
                    ) -> Operation[DeleteResult]:
    """DELETE /v1/documents/{doc_id}: the document now, and any older ingest of it still in flight."""
    return exchange(Send("DELETE", _document_path(doc_id, index, tenant)), DeleteResult.model_validate, retry)


def delete_documents(*, index: str | None, tenant: str | None, doc_ids: Iterable[str], sources: Iterable[str],
                     tags: Iterable[str], retry: RetryPolicy) -> Operation[DeleteResult]:
    """POST /v1/documents/delete: every document matching all the given criteria (at least one)."""
    body: dict[str, Any] = {"doc_ids": list(doc_ids), "sources": list(sources), "tags": list(tags)}
    body.update({k: v for k, v in (("index", index), ("tenant", tenant)) if v is not None})
    return exchange(Send("POST", "/v1/documents/delete", body), DeleteResult.model_validate, retry)


def purge_tenant(tenant: str, retry: RetryPolicy) -> Operation[PurgeResult]:
    """DELETE /v1/tenants/{tenant} (admin): every record, own index and API key of the tenant."""
    return exchange(Send("DELETE", f"/v1/tenants/{quote(tenant, safe='')}"), PurgeResult.model_validate, retry)


def delete_key(key_id: str, retry: RetryPolicy) -> Operation[KeyDeleted]:
    """DELETE /v1/keys/{key_id} (admin): delete an API key for good."""
    return exchange(Send("DELETE", f"/v1/keys/{quote(key_id, safe='')}"), KeyDeleted.model_validate, retry)


def health() -> Operation[Health]:
    """GET /healthz: the dependencies' state; a 503 (something down) is an answer here, not an error."""
    response: httpx.Response = yield Send("GET", "/healthz")
    if response.status_code == 503:
        try:
            return Health.model_validate(response.json())
        except ValueError:
            pass  # not the health report: some proxy's 503
    raise_for_status(response)
    return Health.model_validate(response.json())


def next_page(options: SearchOptions | None, fields: SearchFields, response: SearchResponse) -> SearchOptions | None:
    """The options of the page after `response`, or None when it was the last page of the window."""
    size = response.page_size or len(response.hits)
    following = response.page + 1
    if not response.hits or response.page * size >= response.total_in_window or following * size > response.window:
        return None  # the window's last page (pages are cut from the first `window` hits only)
    merged = merge_options(options, fields).model_dump(exclude_unset=True)
    return SearchOptions.model_validate({**merged, "page": following, "page_size": size, "top_k": None})

