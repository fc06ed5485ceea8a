"""Weighted Reciprocal Rank Fusion: score = sum over legs of w_leg / (rrf_k + rank)."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, Leg, RankedList
from search_platform.retrieval.fusion.base import FusionParams, collect_legs, rank_fused

READS = ("rrf_k", "weights")


def fuse_weighted_rrf(lists: Sequence[RankedList], params: FusionParams, *,
                      limit: int | None = None) -> list[FusedHit]:
    """RRF with a weight per leg (1.0 when unset); an absent chunk gets nothing from a leg. Reads rrf_k, weights.
    Scores are summed for every candidate; each leg's part is kept only for the hits built."""
    candidates = collect_legs(lists)
    weights = {ranked.leg: params.weight(ranked.leg) for ranked in lists}
    rrf_k = params.rrf_k

    def contributions(chunk_id: str) -> dict[Leg, float]:
        return {leg: weights[leg] / (rrf_k + hit.rank) for leg, hit in candidates.hits[chunk_id].items()}

    scores = dict.fromkeys(candidates.hits, 0.0)
    for ranked in lists:  # leg by leg, in the order contributions() sums them: the same floats
        weight = weights[ranked.leg]
        for hit in ranked.hits:
            scores[hit.chunk_id] += weight / (rrf_k + hit.rank)
    return rank_fused(scores, candidates, limit=limit, contributions=contributions)
