"""AsyncSearchClient: the asyncio SDK over httpx."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from search_platform.client.errors import ServiceUnavailableError, raise_for_status
from search_platform.client.models import (
    Document,
    Fusion,
    GroupBy,
    IngestResponse,
    Job,
    Mode,
    Normalization,
    SearchResponse,
    feedback_payload,
    ingest_payload,
    search_payload,
)


class AsyncSearchClient:
    """Talks to the search-platform HTTP API without blocking the event loop."""

    def __init__(self, base_url: str = "http://127.0.0.1:8000", *, timeout_s: float = 30.0,
                 headers: dict[str, str] | None = None, api_key: str | None = None) -> None:
        """api_key: sent as `Authorization: Bearer <key>` on every request."""
        if api_key:
            headers = {**(headers or {}), "Authorization": f"Bearer {api_key}"}
        self._http = httpx.AsyncClient(base_url=base_url, timeout=timeout_s, headers=headers)

    async def __aenter__(self) -> AsyncSearchClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = await self._http.request(method, path, **kwargs)
        except httpx.TransportError as error:
            raise ServiceUnavailableError(f"cannot reach the service: {error}") from error
        raise_for_status(response)
        return response.json()

    async def search(self, query: str, *, mode: Mode = "hybrid", top_k: int | None = None,
                     candidate_k: int | None = None, rrf_k: int | None = None,
                     filters: dict[str, Any] | None = None, index: str | None = None,
                     fusion: Fusion | None = None, weights: dict[str, float] | None = None,
                     alpha: float | None = None, normalization: Normalization | None = None,
                     page: int | None = None, page_size: int | None = None, window: int | None = None,
                     group_by: GroupBy | None = None, highlight: bool | None = None,
                     explain: bool | None = None, rerank: bool | None = None, user_id: str | None = None,
                     session_id: str | None = None) -> SearchResponse:
        """Search in one mode; hybrid mode fuses by `fusion` (weights, alpha, normalization tune it). Pages of
        page_size (alias top_k) are cut from the first `window` fused hits; unset options take the service's
        defaults (highlight on, explain off, group_by chunk, rerank as configured). user_id (or session_id) puts
        the caller in the service's experiments: the response names the arm."""
        body = search_payload(query, mode=mode, top_k=top_k, candidate_k=candidate_k, rrf_k=rrf_k,
                              filters=filters, index=index, fusion=fusion, weights=weights, alpha=alpha,
                              normalization=normalization, page=page, page_size=page_size, window=window,
                              group_by=group_by, highlight=highlight, explain=explain, rerank=rerank,
                              user_id=user_id, session_id=session_id)
        return SearchResponse.model_validate(await self._request("POST", "/v1/search", json=body))

    async def feedback(self, request_id: str, *, doc_id: str, position: int, chunk_id: str | None = None,
                       user_id: str | None = None, session_id: str | None = None) -> bool:
        """Report a click on the hit at `position` (from 1) of the search `request_id`; True when it was logged."""
        body = feedback_payload(request_id, doc_id=doc_id, position=position, chunk_id=chunk_id, user_id=user_id,
                                session_id=session_id)
        return bool((await self._request("POST", "/v1/feedback", json=body))["accepted"])

    async def ingest(self, documents: list[Document] | list[dict[str, Any]], *,
                     index: str | None = None) -> IngestResponse:
        """Queue documents; returns the job."""
        payload = ingest_payload(documents, index=index)
        return IngestResponse.model_validate(await self._request("POST", "/v1/ingest", json=payload))

    async def job(self, job_id: str) -> Job:
        """Status of a job."""
        return Job.model_validate(await self._request("GET", f"/v1/jobs/{job_id}"))

    async def wait_for_job(self, job_id: str, *, timeout_s: float = 600.0, poll_s: float = 0.5) -> Job:
        """Poll until the job is done or failed; TimeoutError if it takes longer than timeout_s."""
        deadline = time.monotonic() + timeout_s
        while True:
            status = await self.job(job_id)
            if status.finished:
                return status
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {status.state} after {timeout_s}s")
            await asyncio.sleep(poll_s)
