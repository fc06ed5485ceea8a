"""Distribution-Based Score Fusion (as in Qdrant): each leg scaled by mean +/- 3 std to [0, 1], then summed."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, RankedList
from search_platform.retrieval.fusion.base import FusionParams, normalized_parts, rank_by_parts
from search_platform.retrieval.fusion.normalize import three_sigma

READS = ("weights",)


def fuse_dbsf(lists: Sequence[RankedList], params: FusionParams, *, limit: int | None = None) -> list[FusedHit]:
    """Sum over legs of w_leg * three_sigma(score); absent hits get 0 from a leg. Reads weights only."""
    return rank_by_parts(lists, normalized_parts(lists, three_sigma, params.weight), limit=limit)
