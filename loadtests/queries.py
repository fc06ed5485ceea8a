"""The queries Locust users send: the golden set's, optionally made unique per search (no query-vector cache
hits). Kept apart from locustfile.py so it imports without Locust (and its gevent patching)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

GOLDEN = Path(os.environ.get("SP_LOADTEST_QUERIES", Path(__file__).parents[1] / "datasets/golden/python-docs.json"))
QUERIES: list[str] = [item["query"] for item in json.loads(GOLDEN.read_text(encoding="utf-8"))]
# "1": every search gets a random number appended, so no search is answered from the query-vector cache
FRESH_QUERIES = os.environ.get("SP_LOADTEST_FRESH_QUERIES") == "1"


def query_text() -> str:
    """A golden-set query, made unique per search when FRESH_QUERIES is on."""
    query = random.choice(QUERIES)
    return f"{query} {random.randrange(10**9)}" if FRESH_QUERIES else query
