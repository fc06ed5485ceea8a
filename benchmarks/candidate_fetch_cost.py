"""What a 100-candidate BM25 leg costs with each way of returning fields: Elasticsearch's `took`, the client's wall
time (response parsing included) and the response size, over the golden-set queries.

Usage: .venv/bin/python benchmarks/candidate_fetch_cost.py --index ALIAS [--rounds 3]
The legs return `_source: false` plus `docvalue_fields` for document results (benchmarks/reports/lean-candidates.md):
`fields` and `_source` includes load and parse each hit's _source, doc values do not. The request cache is off.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import RecordKind
from search_platform.backends.elasticsearch.queries import GROUPING_FIELDS, SOURCE_FIELDS, bm25_body
from search_platform.config import load_settings

VARIANTS: dict[str, dict[str, Any]] = {
    "_source SOURCE_FIELDS (before)": {"_source": list(SOURCE_FIELDS)},
    "_source false": {"_source": False},
    "_source false + docvalue_fields x3": {"_source": False, "docvalue_fields": list(GROUPING_FIELDS)},
    "_source false + fields x3": {"_source": False, "fields": list(GROUPING_FIELDS)},
    "_source includes x3": {"_source": {"includes": list(GROUPING_FIELDS)}},
}


def main() -> None:
    """Time every variant (a warm-up pass first) and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    args = parser.parse_args()
    settings = load_settings()
    es = build_client(settings.elasticsearch)
    queries = [item["query"] for item in json.loads(args.golden.read_text())]
    rows: dict[str, tuple[float, float, float, float]] = {}
    for _ in range(2):  # the first pass warms caches up; the second is reported
        for name, fetch in VARIANTS.items():
            took, wall, size = [], [], []
            for _ in range(args.rounds):
                for query in queries:
                    body = bm25_body(query, fields=settings.retrieval.chunk_fields, kind=RecordKind.CHUNK,
                                     tech_query="", candidate_k=100, filters=[], tech_boost=0.0) | fetch
                    started = time.perf_counter()
                    response = es.search(index=args.index, body=body, request_cache=False)
                    wall.append((time.perf_counter() - started) * 1000)
                    took.append(float(response["took"]))
                    size.append(float(len(json.dumps(response.body))))
            rows[name] = (statistics.median(took), statistics.fmean(took), statistics.median(wall),
                          statistics.median(size))
    es.close()
    print(f"{len(queries)} queries x {args.rounds} rounds per variant, size 100")
    print(f"{'variant':<38}{'took p50':>9}{'took mean':>10}{'wall p50 ms':>12}{'bytes p50':>10}")
    for name, (took_p50, took_mean, wall_p50, bytes_p50) in rows.items():
        print(f"{name:<38}{took_p50:>9.1f}{took_mean:>10.2f}{wall_p50:>12.2f}{bytes_p50:>10.0f}")


if __name__ == "__main__":
    main()
