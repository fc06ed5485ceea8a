"""CPU cost of each fusion method on two ranked lists of 100 hits (half of them shared), in microseconds.

Usage: .venv/bin/python benchmarks/fusion_cost.py [--size 100] [--overlap 0.5] [--rounds 2000] [--window 10]
Prints mean, p50 and p99 of the process's CPU time (what the method costs, unaffected by other processes taking
the CPU), and the wall-clock p50, per method in FUSERS, twice: building a hit for every candidate ("all"), and as
the searcher runs it ("window"): hits built for the first `window` only, then given the stored fields a page fetch
returned. Candidates are lean (id, rank, score), as the legs return them. Target: window p50 <= 300 us.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable

from search_platform.domain.models import FusedHit, Leg, RankedHit, RankedList
from search_platform.retrieval.fusion import FUSERS, FuseFn, FusionParams
from search_platform.retrieval.page import hydrated
from search_platform.retrieval.passages import Passage


def ranked_lists(size: int, overlap: float, seed: int = 13) -> tuple[RankedList, RankedList]:
    """A BM25-like and a cosine-like list of `size` hits sharing about overlap * size chunk ids."""
    rng = random.Random(seed)
    shared = [f"chunk-{i}" for i in range(int(size * overlap))]
    bm25_ids = shared + [f"bm25-{i}" for i in range(size - len(shared))]
    dense_ids = shared + [f"dense-{i}" for i in range(size - len(shared))]
    rng.shuffle(bm25_ids)
    rng.shuffle(dense_ids)
    source: dict[str, str] = {}
    bm25_scores = sorted((rng.uniform(2, 25) for _ in bm25_ids), reverse=True)
    dense_scores = sorted((rng.uniform(0.5, 0.95) for _ in dense_ids), reverse=True)
    return (
        RankedList(Leg.BM25, tuple(RankedHit(c, r, s, source) for r, (c, s) in
                                   enumerate(zip(bm25_ids, bm25_scores, strict=True), start=1))),
        RankedList(Leg.DENSE, tuple(RankedHit(c, r, s, source) for r, (c, s) in
                                    enumerate(zip(dense_ids, dense_scores, strict=True), start=1))),
    )


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def timed(run: Callable[[], object], rounds: int) -> tuple[list[float], list[float]]:
    """CPU and wall microseconds of each of `rounds` runs, after a warm-up."""
    for _ in range(50):
        run()
    cpu, wall = [], []
    for _ in range(rounds):
        started, wall_started = time.process_time_ns(), time.perf_counter_ns()
        run()
        cpu.append((time.process_time_ns() - started) / 1000)
        wall.append((time.perf_counter_ns() - wall_started) / 1000)
    return cpu, wall


def windowed(fuse: FuseFn, lists: tuple[RankedList, RankedList], params: FusionParams, window: int,
             records: dict[str, Passage]) -> Callable[[], list[FusedHit]]:
    """Fusion as the searcher runs it: hits built for the window, then given the page's fetched stored fields."""
    return lambda: [hydrated(hit, records.get(hit.chunk_id)) for hit in fuse(lists, params, limit=window)]


def main() -> None:
    """Time every fusion method and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--overlap", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--window", type=int, default=10)
    args = parser.parse_args()
    lists = ranked_lists(args.size, args.overlap)
    params = FusionParams(weights={Leg.BM25: 1.0, Leg.DENSE: 1.5})
    records = {hit.chunk_id: Passage(hit.chunk_id, {"doc_id": "d", "text": "t"}) for ranked in lists
               for hit in ranked.hits}
    print(f"two lists of {args.size} hits, {args.overlap:.0%} shared, {args.rounds} rounds per method; "
          f"window: hits built for the first {args.window} and given their stored fields")
    print(f"{'method':<14}{'built':<8}{'cpu mean us':>12}{'cpu p50 us':>12}{'cpu p99 us':>12}{'wall p50 us':>12}")
    for name, fuse in FUSERS.items():
        runs: dict[str, Callable[[], object]] = {
            "all": functools.partial(fuse, lists, params),
            "window": windowed(fuse, lists, params, args.window, records),
        }
        for built, run in runs.items():
            cpu, wall = timed(run, args.rounds)
            print(f"{name:<14}{built:<8}{statistics.fmean(cpu):>12.1f}{percentile(cpu, 50):>12.1f}"
                  f"{percentile(cpu, 99):>12.1f}{percentile(wall, 50):>12.1f}")


if __name__ == "__main__":
    main()
