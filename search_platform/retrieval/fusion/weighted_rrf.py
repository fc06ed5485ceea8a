"""Weighted Reciprocal Rank Fusion: score = sum over legs of w_leg / (rrf_k + rank)."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, RankedList
from search_platform.retrieval.fusion.base import FusionParams, collect_legs, rank_fused

READS = ("rrf_k", "weights")


def fuse_weighted_rrf(lists: Sequence[RankedList], params: FusionParams) -> list[FusedHit]:
    """RRF with a weight per leg (1.0 when unset); an absent chunk gets nothing from a leg. Reads rrf_k, weights."""
    collected = collect_legs(lists)
    contributions = {
        chunk_id: {leg: params.weight(leg) / (params.rrf_k + score.rank) for leg, score in per_leg.items()}
        for chunk_id, per_leg in collected.legs.items()
    }
    return rank_fused(contributions, collected)
