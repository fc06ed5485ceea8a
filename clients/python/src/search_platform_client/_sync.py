"""SearchClient: the blocking face of the client core."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from search_platform_client import _core
from search_platform_client._core import DEFAULT_URL, Operation, RetryPolicy, SearchFields, Send
from search_platform_client.models import (
    DeleteResult,
    Document,
    DocumentInfo,
    Health,
    Hit,
    IngestProgress,
    IngestResponse,
    Job,
    KeyDeleted,
    PurgeResult,
    SearchOptions,
    SearchResponse,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

T = TypeVar("T")


class SearchClient:
    """Talks to the search-platform HTTP API (blocking); use it as a context manager or call close()."""

    def __init__(self, base_url: str = DEFAULT_URL, *, api_key: str | None = None, timeout: float = 30.0,
                 headers: Mapping[str, str] | None = None, transport: httpx.BaseTransport | None = None,
                 retry: RetryPolicy | None = None) -> None:
        """api_key is sent as a bearer token; timeout (s) applies to each request unless a call sets its own;
        retry governs 429/503 retries (RetryPolicy(max_retries=0) turns them off)."""
        self.base_url = _core.check_base_url(base_url)
        self._retry = retry or RetryPolicy()
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport,
                                  headers=_core.client_headers(api_key, headers))

    def __enter__(self) -> SearchClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _drive(self, operation: Operation[T], timeout: float | None) -> T:
        reply: Any = None
        while True:
            try:
                step = operation.send(reply)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            if isinstance(step, Send):
                reply = self._send(step, timeout)
            else:
                time.sleep(step.seconds)
                reply = None

    def _send(self, step: Send, timeout: float | None) -> httpx.Response:
        try:
            return self._http.request(step.method, step.path, json=step.json, headers=dict(step.headers),
                                      timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout)
        except httpx.TransportError as error:
            raise _core.transport_error(error, self.base_url) from error

    def search(self, query: str, options: SearchOptions | None = None, *, timeout: float | None = None,
               **fields: Unpack[SearchFields]) -> SearchResponse:
        """One page of results: options (or the same fields as keywords, which win) say how to search."""
        return self._drive(_core.search(query, options, fields, self._retry), timeout)

    def iter_pages(self, query: str, options: SearchOptions | None = None, *, timeout: float | None = None,
                   **fields: Unpack[SearchFields]) -> Iterator[SearchResponse]:
        """Every page of the result window, in order (raise `window` to see more)."""
        following: SearchOptions | None = _core.merge_options(options, fields)
        while following is not None:
            response = self.search(query, following, timeout=timeout)
            yield response
            following = _core.next_page(following, {}, response)

    def iter_hits(self, query: str, options: SearchOptions | None = None, *, timeout: float | None = None,
                  **fields: Unpack[SearchFields]) -> Iterator[Hit]:
        """Every hit of the result window, page after page."""
        for page in self.iter_pages(query, options, timeout=timeout, **fields):
            yield from page.hits

    def ingest(self, documents: Iterable[Document | Mapping[str, Any]], *, index: str | None = None,
               idempotency_key: str | None = None, timeout: float | None = None) -> IngestResponse:
        """Queue documents as one job; the same idempotency_key sent again returns the same job."""
        return self._drive(_core.ingest(documents, index=index, idempotency_key=idempotency_key,
                                        retry=self._retry), timeout)

    def ingest_all(self, documents: Iterable[Document | Mapping[str, Any]], *, batch_size: int = 500,
                   index: str | None = None, idempotency_prefix: str | None = None,
                   on_progress: Callable[[IngestProgress], None] | None = None,
                   timeout: float | None = None) -> list[IngestResponse]:
        """Queue any iterable of documents in batches of batch_size (one job each); on_progress after each."""
        return self._drive(_core.ingest_all(documents, batch_size=batch_size, index=index,
                                            idempotency_prefix=idempotency_prefix, on_progress=on_progress,
                                            retry=self._retry), timeout)

    def job(self, job_id: str, *, timeout: float | None = None) -> Job:
        """Status of a job."""
        return self._drive(_core.job(job_id, self._retry), timeout)

    def resume_job(self, job_id: str, *, timeout: float | None = None) -> Job:
        """Queue a failed job's failed batches again (ConflictError when it has none)."""
        return self._drive(_core.resume_job(job_id, self._retry), timeout)

    def wait_for_job(self, job_id: str, *, timeout_s: float = 600.0, poll_s: float = 0.5,
                     on_progress: Callable[[Job], None] | None = None, timeout: float | None = None) -> Job:
        """Poll until the job is done or failed (on_progress gets each status); JobTimeoutError after
        timeout_s."""
        return self._drive(_core.wait_for_job(job_id, timeout_s=timeout_s, poll_s=poll_s, on_progress=on_progress,
                                              retry=self._retry), timeout)

    def feedback(self, request_id: str, *, doc_id: str, position: int, chunk_id: str | None = None,
                 user_id: str | None = None, session_id: str | None = None, timeout: float | None = None) -> bool:
        """Report a click on the hit at `position` (from 1) of the search `request_id`; True when logged."""
        return self._drive(_core.feedback(request_id, doc_id=doc_id, position=position, chunk_id=chunk_id,
                                          user_id=user_id, session_id=session_id, retry=self._retry), timeout)

    def get_document(self, doc_id: str, *, index: str | None = None, tenant: str | None = None,
                     timeout: float | None = None) -> DocumentInfo:
        """One document as indexed: chunk count, content hash, indexed_at (NotFoundError when absent)."""
        return self._drive(_core.get_document(doc_id, index=index, tenant=tenant, retry=self._retry), timeout)

    def delete_document(self, doc_id: str, *, index: str | None = None, tenant: str | None = None,
                        timeout: float | None = None) -> DeleteResult:
        """Delete a document, including any older ingest of it still in flight."""
        return self._drive(_core.delete_document(doc_id, index=index, tenant=tenant, retry=self._retry), timeout)

    def delete_documents(self, *, index: str | None = None, tenant: str | None = None,
                         doc_ids: Iterable[str] = (), sources: Iterable[str] = (), tags: Iterable[str] = (),
                         timeout: float | None = None) -> DeleteResult:
        """Delete every document matching all the given criteria (doc_ids, sources, tags; at least one)."""
        return self._drive(_core.delete_documents(index=index, tenant=tenant, doc_ids=doc_ids, sources=sources,
                                                  tags=tags, retry=self._retry), timeout)

    def purge_tenant(self, tenant: str, *, timeout: float | None = None) -> PurgeResult:
        """Admin: remove every record, own index and API key of a tenant."""
        return self._drive(_core.purge_tenant(tenant, self._retry), timeout)

    def delete_key(self, key_id: str, *, timeout: float | None = None) -> KeyDeleted:
        """Admin: delete an API key for good."""
        return self._drive(_core.delete_key(key_id, self._retry), timeout)

    def health(self, *, timeout: float | None = None) -> Health:
        """The service's dependencies (Health.ok is False when one is down)."""
        return self._drive(_core.health(), timeout)

