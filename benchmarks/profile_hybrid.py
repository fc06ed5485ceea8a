"""Where a hybrid query's time goes: the search service in-process against Elasticsearch, timed per mode and
profiled with pyinstrument (async-aware) over a hybrid loop.

Usage: .venv/bin/python benchmarks/profile_hybrid.py --index ALIAS [--rounds 2] [--highlight]
Writes benchmarks/reports/hybrid-profile.txt (the pyinstrument tree) and prints p50 per mode and the ratio of
hybrid p50 to the slower single leg's. Needs `pip install pyinstrument`. Queries are the golden set's, each made
distinct per mode so no mode reuses another's cached query embedding.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from pyinstrument import Profiler

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import get_settings
from search_platform.domain.models import SearchMode
from search_platform.embeddings.factory import build_embedder
from search_platform.service.resources import build_search_service
from search_platform.service.search_service import SearchParams, SearchService

MODES = (SearchMode.BM25, SearchMode.SEMANTIC, SearchMode.HYBRID)


async def timed(service: SearchService, params: SearchParams) -> float:
    """Milliseconds for one search."""
    started = time.perf_counter()
    await service.search(params)
    return (time.perf_counter() - started) * 1000


async def run(args: argparse.Namespace) -> None:
    """Time every mode, then profile a hybrid loop."""
    settings = get_settings()
    es = build_async_client(settings.elasticsearch)
    service = build_search_service(settings, es, build_embedder(settings.embedding))
    queries = [item["query"] for item in json.loads(args.golden.read_text())]
    try:
        for mode in MODES:
            await service.search(SearchParams(query="warm up", mode=mode, index=args.index))
        timings: dict[SearchMode, list[float]] = {mode: [] for mode in MODES}
        for round_number in range(args.rounds):
            for number, query in enumerate(queries):
                for mode in MODES:
                    text = f"{query} {mode.value} {round_number}-{number}"
                    params = SearchParams(query=text, mode=mode, top_k=10, index=args.index, highlight=args.highlight)
                    timings[mode].append(await timed(service, params))
        profiler = Profiler(async_mode="enabled", interval=0.0005)
        with profiler:
            for number, query in enumerate(queries):
                await service.search(SearchParams(query=f"{query} profiled {number}", mode=SearchMode.HYBRID,
                                                  top_k=10, index=args.index, highlight=args.highlight))
    finally:
        await es.close()
    p50 = {mode: statistics.median(values) for mode, values in timings.items()}
    lines = [f"{mode.value:<9} p50 {p50[mode]:7.1f} ms  mean {statistics.fmean(timings[mode]):7.1f} ms  "
             f"n {len(timings[mode])}" for mode in MODES]
    slower = max(p50[SearchMode.BM25], p50[SearchMode.SEMANTIC])
    lines.append(f"hybrid p50 / slower single leg p50 = {p50[SearchMode.HYBRID] / slower:.2f}")
    print("\n".join(lines))
    args.out.write_text("\n".join(lines) + "\n\n" + profiler.output_text(unicode=True, show_all=False))
    print(f"wrote {args.out}")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--highlight", action="store_true", help="as the HTTP API does by default")
    parser.add_argument("--golden", type=Path, default=Path("datasets/golden/python-docs.json"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/reports/hybrid-profile.txt"))
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
