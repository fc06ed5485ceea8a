"""CPU cost of each fusion method on two ranked lists of 100 hits (half of them shared), in microseconds.

Usage: .venv/bin/python benchmarks/fusion_cost.py [--size 100] [--overlap 0.5] [--rounds 2000]
Prints mean, p50 and p99 of the process's CPU time per fusion (what the method costs, unaffected by other processes
taking the CPU), and the wall-clock p50, per method in FUSERS; the target is well under 1 ms per fusion.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from search_platform.domain.models import Leg, RankedHit, RankedList
from search_platform.retrieval.fusion import FUSERS, FusionParams


def ranked_lists(size: int, overlap: float, seed: int = 13) -> tuple[RankedList, RankedList]:
    """A BM25-like and a cosine-like list of `size` hits sharing about overlap * size chunk ids."""
    rng = random.Random(seed)
    shared = [f"chunk-{i}" for i in range(int(size * overlap))]
    bm25_ids = shared + [f"bm25-{i}" for i in range(size - len(shared))]
    dense_ids = shared + [f"dense-{i}" for i in range(size - len(shared))]
    rng.shuffle(bm25_ids)
    rng.shuffle(dense_ids)
    source = {"doc_id": "d", "text": "t"}
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


def main() -> None:
    """Time every fusion method and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--overlap", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    lists = ranked_lists(args.size, args.overlap)
    params = FusionParams(weights={Leg.BM25: 1.0, Leg.DENSE: 1.5})
    print(f"two lists of {args.size} hits, {args.overlap:.0%} shared, {args.rounds} rounds per method")
    print(f"{'method':<14}{'cpu mean us':>12}{'cpu p50 us':>12}{'cpu p99 us':>12}{'wall p50 us':>12}")
    for name, fuse in FUSERS.items():
        for _ in range(50):  # warm-up
            fuse(lists, params)
        timings, walls = [], []
        for _ in range(args.rounds):
            started, wall = time.process_time_ns(), time.perf_counter_ns()
            fuse(lists, params)
            timings.append((time.process_time_ns() - started) / 1000)
            walls.append((time.perf_counter_ns() - wall) / 1000)
        print(f"{name:<14}{statistics.fmean(timings):>12.1f}{percentile(timings, 50):>12.1f}"
              f"{percentile(timings, 99):>12.1f}{percentile(walls, 50):>12.1f}")


if __name__ == "__main__":
    main()
