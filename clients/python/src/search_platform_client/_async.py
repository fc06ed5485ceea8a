"""AsyncSearchClient: the asyncio face of the client core (the same operations as SearchClient, awaited)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
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


class AsyncSearchClient:
    """Talks to the search-platform HTTP API without blocking the loop; `async with` it or await aclose()."""

    def __init__(self, base_url: str = DEFAULT_URL, *, api_key: str | None = None, timeout: float = 30.0,
                 headers: Mapping[str, str] | None = None, transport: httpx.AsyncBaseTransport | None = None,
                 retry: RetryPolicy | None = None) -> None:
        """api_key is sent as a bearer token; timeout (s) applies to each request unless a call sets its own;
        retry governs 429/503 retries (RetryPolicy(max_retries=0) turns them off)."""
        self.base_url = _core.check_base_url(base_url)
        self._retry = retry or RetryPolicy()
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport,
                                  headers=_core.client_headers(api_key, headers))

    async def __aenter__(self) -> AsyncSearchClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _drive(self, operation: Operation[T], timeout: float | None) -> T:
        reply: Any = None
        while True:
            try:
                step = operation.send(reply)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            if isinstance(step, Send):
                reply = await self._send(step, timeout)
            else:
                await asyncio.sleep(step.seconds)
                reply = None

    async def _send(self, step: Send, timeout: float | None) -> httpx.Response:
        try:
            return await self._http.request(step.method, step.path, json=step.json, headers=dict(step.headers),
                                      timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout)
        except httpx.TransportError as error:
            raise _core.transport_error(error, self.base_url) from error

    async def search(self, query: str, options: SearchOptions | None = None, *, timeout: float | None = None,
               **fields: Unpack[SearchFields]) -> SearchResponse:
        """One page of results: options (or the same fields as keywords, which win) say how to search."""
        return await self._drive(_core.search(query, options, fields, self._retry), timeout)

    async def iter_pages(self, query: str, options: SearchOptions | None = None, *, timeout: float | None = None,
                         **fields: Unpack[SearchFields]) -> AsyncIterator[SearchResponse]:
        """Every page of the result window, in order (raise `window` to see more)."""
        following: SearchOptions | None = _core.merge_options(options, fields)
        while following is not None:
            response = await self.search(query, following, timeout=timeout)
            yield response
            following = _core.next_page(following, {}, response)

    async def iter_hits(self, query: str, options: SearchOptions | None = None, *, timeout: float | None = None,
                        **fields: Unpack[SearchFields]) -> AsyncIterator[Hit]:
        """Every hit of the result window, page after page."""
        async for page in self.iter_pages(query, options, timeout=timeout, **fields):
            for hit in page.hits:
                yield hit

    async def ingest(self, documents: Iterable[Document | Mapping[str, Any]], *, index: str | None = None,
               idempotency_key: str | None = None, timeout: float | None = None) -> IngestResponse:
        """Queue documents as one job; the same idempotency_key sent again returns the same job."""
        return await self._drive(_core.ingest(documents, index=index, idempotency_key=idempotency_key,
                                        retry=self._retry), timeout)

    async def ingest_all(self, documents: Iterable[Document | Mapping[str, Any]], *, batch_size: int = 500,
                   index: str | None = None, idempotency_prefix: str | None = None,
                   on_progress: Callable[[IngestProgress], None] | None = None,
                   timeout: float | None = None) -> list[IngestResponse]:
        """Queue any iterable of documents in batches of batch_size (one job each); on_progress after each."""
        return await self._drive(_core.ingest_all(documents, batch_size=batch_size, index=index,
                                            idempotency_prefix=idempotency_prefix, on_progress=on_progress,
                                            retry=self._retry), timeout)

    async def job(self, job_id: str, *, timeout: float | None = None) -> Job:
        """Status of a job."""
        return await self._drive(_core.job(job_id, self._retry), timeout)

    async def resume_job(self, job_id: str, *, timeout: float | None = None) -> Job:
        """Queue a failed job's failed batches again (ConflictError when it has none)."""
        return await self._drive(_core.resume_job(job_id, self._retry), timeout)

    async def wait_for_job(self, job_id: str, *, timeout_s: float = 600.0, poll_s: float = 0.5,
                     on_progress: Callable[[Job], None] | None = None, timeout: float | None = None) -> Job:
        """Poll until the job is done or failed (on_progress gets each status); JobTimeoutError after
        timeout_s."""
        return await self._drive(_core.wait_for_job(job_id, timeout_s=timeout_s, poll_s=poll_s, on_progress=on_progress,
                                              retry=self._retry), timeout)

    async def feedback(self, request_id: str, *, doc_id: str, position: int, chunk_id: str | None = None,
                 user_id: str | None = None, session_id: str | None = None, timeout: float | None = None) -> bool:
        """Report a click on the hit at `position` (from 1) of the search `request_id`; True when logged."""
        return await self._drive(_core.feedback(request_id, doc_id=doc_id, position=position, chunk_id=chunk_id,
                                          user_id=user_id, session_id=session_id, retry=self._retry), timeout)

    async def get_document(self, doc_id: str, *, index: str | None = None, tenant: str | None = None,
                     timeout: float | None = None) -> DocumentInfo:
        """One document as indexed: chunk count, content hash, indexed_at (NotFoundError when absent)."""
        return await self._drive(_core.get_document(doc_id, index=index, tenant=tenant, retry=self._retry), timeout)

    async def delete_document(self, doc_id: str, *, index: str | None = None, tenant: str | None = None,
                        timeout: float | None = None) -> DeleteResult:
        """Delete a document, including any older ingest of it still in flight."""
        return await self._drive(_core.delete_document(doc_id, index=index, tenant=tenant, retry=self._retry), timeout)

    async def delete_documents(self, *, index: str | None = None, tenant: str | None = None,
                         doc_ids: Iterable[str] = (), sources: Iterable[str] = (), tags: Iterable[str] = (),
                         timeout: float | None = None) -> DeleteResult:
        """Delete every document matching all the given criteria (doc_ids, sources, tags; at least one)."""
        return await self._drive(_core.delete_documents(index=index, tenant=tenant, doc_ids=doc_ids, sources=sources,
                                                  tags=tags, retry=self._retry), timeout)

    async def purge_tenant(self, tenant: str, *, timeout: float | None = None) -> PurgeResult:
        """Admin: remove every record, own index and API key of a tenant."""
        return await self._drive(_core.purge_tenant(tenant, self._retry), timeout)

    async def delete_key(self, key_id: str, *, timeout: float | None = None) -> KeyDeleted:
        """Admin: delete an API key for good."""
        return await self._drive(_core.delete_key(key_id, self._retry), timeout)

    async def health(self, *, timeout: float | None = None) -> Health:
        """The service's dependencies (Health.ok is False when one is down)."""
        return await self._drive(_core.health(), timeout)

