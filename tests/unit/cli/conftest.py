"""CLI tests run the real commands against an httpx.MockTransport standing in for the API."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from search_platform_client import RetryPolicy, SearchClient

from search_platform.cli import common

Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Handler], list[httpx.Request]]]:
    """Route the CLI's SDK client to a handler; returns the requests it saw."""

    def install(handler: Handler) -> list[httpx.Request]:
        seen: list[httpx.Request] = []

        def recording(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return handler(request)

        def client(url: str, **kwargs: Any) -> SearchClient:
            return SearchClient(url, transport=httpx.MockTransport(recording),
                                retry=RetryPolicy(max_retries=0), **kwargs)

        monkeypatch.setattr(common, "SearchClient", client)
        return seen

    yield install


def search_answer(hits: int = 3, **fields: Any) -> dict[str, Any]:
    """A search response with long ids and texts, as a real corpus gives."""
    return {"mode": "hybrid", "index": "i", "top_k": hits, "candidate_k": 50, "rrf_k": 60, "fusion": "rrf",
            "page": 1, "page_size": hits, "window": 30, "total_in_window": 30, "took_ms": 12.0, "leg_took_ms": {},
            "request_id": "r1", **fields,
            "hits": [{"rank": n, "score": 0.03, "chunk_id": f"c{n}", "doc_id": f"a-rather-long-document-id-{n}.md",
                      "chunk_index": 0, "section": "Installation and configuration", "text": "word " * 200,
                      "highlights": ["the <em>quick</em> brown fox " * 10],
                      "legs": {"bm25": {"rank": n, "score": 3.0}}} for n in range(1, hits + 1)]}


JOB = {"job_id": "j1", "state": "done", "index": "i", "documents_total": 2, "documents_done": 2,
       "documents_failed": 0, "chunks_done": 4, "errors": {}, "created_at": 0.0, "updated_at": 1.0}
