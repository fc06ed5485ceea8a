"""Where a search's time goes, per stage, from the Server-Timing header of real requests to a running API.

Usage: .venv/bin/python benchmarks/stage_timings.py [--api URL] [--index ALIAS] [--rounds N] [--golden FILE]
       [--modes bm25,semantic,hybrid]

Every request has a query text no run sent before (a random salt per run: no query-vector cache hits). Prints,
per mode, the p50 and p95 of each stage (auth, encode, each leg, fusion, rerank, page, log, search) and of the
client's wall time, and of what the stages do not cover: wall - (auth + search + log), the HTTP framework and
the network.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from collections import defaultdict
from pathlib import Path

import httpx

from search_platform.cli.keys import run_api_key
from search_platform.config import load_settings
from search_platform.evaluation.metrics import percentile
from search_platform.service.server_timing import HEADER, parse_server_timing

WALL = "wall (client)"
OUTSIDE = "outside stages"


def measure(http: httpx.Client, queries: list[str], *, modes: list[str], rounds: int, index: str | None,
            salt: str) -> dict[str, dict[str, list[float]]]:
    """mode -> stage -> milliseconds of each request (stages a request did not run are absent for it)."""
    seen: dict[str, dict[str, list[float]]] = {mode: defaultdict(list) for mode in modes}
    for round_number in range(rounds):
        for query in queries:
            for mode_number, mode in enumerate(modes):
                # a text no run and no mode sent before: never a cached query vector
                text = f"{query} {salt}{round_number * len(modes) + mode_number}"
                started = time.perf_counter()
                response = http.post("/v1/search", json={"query": text, "mode": mode, "top_k": 10,
                                                         **({"index": index} if index else {})})
                wall = (time.perf_counter() - started) * 1000
                response.raise_for_status()
                stages = parse_server_timing(response.headers[HEADER])
                for name, ms in stages.items():
                    seen[mode][name].append(ms)
                seen[mode][WALL].append(wall)
                seen[mode][OUTSIDE].append(wall - sum(stages.get(name, 0.0) for name in ("auth", "search", "log")))
    return seen


def main() -> None:
    """Run the loop and print one table per mode."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--index", default=None, help="alias to search (default: the service's)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    parser.add_argument("--modes", default="bm25,semantic,hybrid")
    args = parser.parse_args()
    queries = [item["query"] for item in json.loads(args.golden.read_text())]
    modes = args.modes.split(",")
    with run_api_key(load_settings(), name="bench-stage-timings", scopes="search") as api_key, \
            httpx.Client(base_url=args.api, headers={"Authorization": f"Bearer {api_key}"}, timeout=60) as http:
        salt = uuid.uuid4().hex[:8]
        measure(http, queries[:1], modes=modes, rounds=1, index=args.index, salt=f"w{salt}")  # warm-up
        seen = measure(http, queries, modes=modes, rounds=args.rounds, index=args.index, salt=salt)
    for mode in modes:
        print(f"\n{mode}: {len(seen[mode][WALL])} requests")
        print(f"  {'stage':<16}{'p50 ms':>9}{'p95 ms':>9}")
        for name, values in seen[mode].items():
            print(f"  {name:<16}{percentile(values, 50):>9.2f}{percentile(values, 95):>9.2f}")


if __name__ == "__main__":
    main()
