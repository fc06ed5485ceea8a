"""Convex combination of normalised scores: alpha * norm(dense) + (1 - alpha) * norm(bm25)."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, Leg, RankedList
from search_platform.retrieval.fusion.base import FusionParams, normalized_parts, rank_by_parts
from search_platform.retrieval.fusion.normalize import NORMALIZERS

READS = ("alpha", "normalization")


def fuse_convex(lists: Sequence[RankedList], params: FusionParams, *, limit: int | None = None) -> list[FusedHit]:
    """Blend normalised leg scores by alpha (dense) and 1 - alpha (bm25): each side shared equally by its lists when
    it has two. Reads alpha and normalization only."""
    dense = sum(1 for ranked in lists if ranked.leg.dense) or 1
    lexical = sum(1 for ranked in lists if not ranked.leg.dense) or 1

    def coefficient(leg: Leg) -> float:
        return params.alpha / dense if leg.dense else (1.0 - params.alpha) / lexical

    parts = normalized_parts(lists, NORMALIZERS[params.normalization], coefficient)
    return rank_by_parts(lists, parts, limit=limit)
