"""Simulated traffic for an online experiment: users search golden-set queries and click by a cascade model.

Usage: .venv/bin/python benchmarks/experiment_demo.py --api URL --index ALIAS [--users 400] [--api-key KEY]
Each simulated user (demo-user-<i>) sends one golden-set query with its user_id, so the service assigns the arm;
the user scans the hits top-down, clicks the first relevant one (a doc in expected_doc_ids) with probability
CLICK_P, and otherwise moves on with probability CONTINUE_P, so a better ranking earns more and higher clicks.
Then run `search-platform report --since 1h` on the service's log alias.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

from search_platform_client import SearchClient, SearchResponse

from search_platform.evaluation.datasets import EvalQuery, load_golden_set

CLICK_P = 0.9
CONTINUE_P = 0.8


def clicked_position(response: SearchResponse, query: EvalQuery, rng: random.Random) -> tuple[int, str] | None:
    """The cascade model: the rank and doc id the simulated user clicks, or None if they leave."""
    for hit in response.hits:
        if query.relevance.get(hit.doc_id, 0) >= 1 and rng.random() < CLICK_P:
            return hit.rank, hit.doc_id
        if rng.random() >= CONTINUE_P:
            return None
    return None


def main() -> None:
    """Send the traffic and print how many searches and clicks each arm got."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--index", required=True)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    parser.add_argument("--users", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    queries = load_golden_set(args.golden).queries
    rng = random.Random(args.seed)
    searches: Counter[str] = Counter()
    clicks: Counter[str] = Counter()
    with SearchClient(args.api, api_key=args.api_key, timeout=60) as client:
        for user in range(args.users):
            query = rng.choice(queries)
            user_id = f"demo-user-{user}"
            response = client.search(query.text, index=args.index, top_k=10, user_id=user_id, highlight=False)
            arm = response.arm or "(none)"
            searches[arm] += 1
            click = clicked_position(response, query, rng)
            if click is not None:
                client.feedback(response.request_id, doc_id=click[1], position=click[0], user_id=user_id)
                clicks[arm] += 1
    for arm in sorted(searches):
        print(f"{arm}: {searches[arm]} searches, {clicks[arm]} clicks")


if __name__ == "__main__":
    main()
