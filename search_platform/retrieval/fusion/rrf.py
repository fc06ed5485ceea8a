"""Reciprocal Rank Fusion (Cormack et al., 2009): score = sum over legs of w / (rrf_k + rank)."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, RankedList
from search_platform.retrieval.fusion.base import FusionParams, collect_legs, rank_fused


def fuse_rrf(lists: Sequence[RankedList], params: FusionParams) -> list[FusedHit]:
    """RRF with 1-based ranks; a chunk absent from a leg gets nothing from it. Reads rrf_k and weights."""
    legs, sources = collect_legs(lists)
    scores = {
        chunk_id: sum(params.weight(leg) / (params.rrf_k + score.rank) for leg, score in per_leg.items())
        for chunk_id, per_leg in legs.items()
    }
    return rank_fused(scores, legs, sources)
