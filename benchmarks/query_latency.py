"""Query latency per mode against the running API: a simple timing loop over the golden-set queries.

Usage: .venv/bin/python benchmarks/query_latency.py [--api URL] [--rounds N] [--golden FILE]
Prints p50/p95/p99 per mode and the ratio of hybrid p50 to the slower single leg's p50.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from search_platform_client import SearchClient
from search_platform_client.models import Mode

from search_platform.cli.keys import run_api_key
from search_platform.config import load_settings

MODES: tuple[Mode, ...] = ("bm25", "semantic", "hybrid")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def main() -> None:
    """Run the loop and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    args = parser.parse_args()
    queries = [item["query"] for item in json.loads(args.golden.read_text())]
    timings: dict[str, list[float]] = {mode: [] for mode in MODES}
    with (run_api_key(load_settings(), name="bench-query-latency", scopes="search") as api_key,
          SearchClient(args.api, api_key=api_key) as client):
        for mode in MODES:
            client.search(queries[0], mode=mode)  # warm-up
        for round_number in range(args.rounds):
            for query in queries:
                for mode_number, mode in enumerate(MODES):
                    # a distinct text per (round, mode) so no mode reuses another's cached query embedding
                    text = f"{query} {round_number * len(MODES) + mode_number}"
                    started = time.perf_counter()
                    client.search(text, mode=mode, top_k=10)
                    timings[mode].append((time.perf_counter() - started) * 1000)
    print(f"{'mode':<10}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'mean ms':>10}")
    for name, values in timings.items():
        print(f"{name:<10}{len(values):>6}{percentile(values, 50):>10.1f}{percentile(values, 95):>10.1f}"
              f"{percentile(values, 99):>10.1f}{statistics.fmean(values):>10.1f}")
    slower_leg = max(percentile(timings["bm25"], 50), percentile(timings["semantic"], 50))
    print(f"hybrid p50 / slower single leg p50 = {percentile(timings['hybrid'], 50) / slower_leg:.2f}")


if __name__ == "__main__":
    main()
