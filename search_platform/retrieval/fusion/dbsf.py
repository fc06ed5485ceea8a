"""Distribution-Based Score Fusion (as in Qdrant): each leg scaled by mean +/- 3 std to [0, 1], then summed."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, RankedList
from search_platform.retrieval.fusion.base import FusionParams, collect_legs, normalized_parts, rank_fused
from search_platform.retrieval.fusion.normalize import three_sigma

READS = ("weights",)


def fuse_dbsf(lists: Sequence[RankedList], params: FusionParams) -> list[FusedHit]:
    """Sum over legs of w_leg * three_sigma(score); absent hits get 0 from a leg. Reads weights only."""
    contributions, normalized = normalized_parts(lists, three_sigma, params.weight)
    return rank_fused(contributions, collect_legs(lists), normalized)
