"""Locust users issuing the golden set's queries across the three modes against the search API.

The mix is weighted toward hybrid (the default mode) and keeps the golden set's category balance.
Run headless through loadtests/run.py, which steps the user count and writes a report.
"""

from __future__ import annotations

import os

from locust import HttpUser, between, task
from queries import query_text  # loadtests/queries.py, beside this file (Locust puts its folder on sys.path)

INDEX = os.environ.get("SP_LOADTEST_INDEX") or None
# sent as a Bearer token (the API requires keys); loadtests/run.py sets SP_LOADTEST_API_KEY
API_KEY = os.environ.get("SP_LOADTEST_API_KEY") or os.environ.get("SP_API_KEY") or None


class SearchUser(HttpUser):
    """One client: think time 0.1-0.5 s between searches."""

    wait_time = between(0.1, 0.5)

    def _search(self, mode: str) -> None:
        body: dict[str, object] = {"query": query_text(), "mode": mode, "top_k": 10}
        if INDEX:
            body["index"] = INDEX
        headers = {"Authorization": f"Bearer {API_KEY}"} if API_KEY else {}
        with self.client.post("/v1/search", json=body, headers=headers, name=f"search:{mode}",
                              catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}: {response.text[:200]}")

    @task(2)
    def hybrid(self) -> None:
        """Hybrid search, the default mode."""
        self._search("hybrid")

    @task(1)
    def bm25(self) -> None:
        """BM25-only search."""
        self._search("bm25")

    @task(1)
    def semantic(self) -> None:
        """Semantic-only search."""
        self._search("semantic")
