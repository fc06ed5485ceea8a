"""Convex combination of normalised scores: alpha * norm(dense) + (1 - alpha) * norm(bm25)."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, Leg, RankedList
from search_platform.retrieval.fusion.base import FusionParams, normalized_parts, rank_by_parts
from search_platform.retrieval.fusion.normalize import NORMALIZERS

READS = ("alpha", "normalization")


def fuse_convex(lists: Sequence[RankedList], params: FusionParams, *, limit: int | None = None) -> list[FusedHit]:
    """Blend normalised leg scores by alpha (dense) and 1 - alpha (bm25, shared equally by the lexical lists when
    there are two). Reads alpha and normalization only."""
    lexical = sum(1 for ranked in lists if ranked.leg is not Leg.DENSE) or 1
    parts = normalized_parts(lists, NORMALIZERS[params.normalization],
                             lambda leg: params.alpha if leg is Leg.DENSE else (1.0 - params.alpha) / lexical)
    return rank_by_parts(lists, parts, limit=limit)
