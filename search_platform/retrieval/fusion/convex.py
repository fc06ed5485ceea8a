"""Convex combination of normalised scores: alpha * norm(dense) + (1 - alpha) * norm(bm25)."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, Leg, RankedList
from search_platform.retrieval.fusion.base import FusionParams, collect_legs, normalized_sum, rank_fused
from search_platform.retrieval.fusion.normalize import NORMALIZERS


def fuse_convex(lists: Sequence[RankedList], params: FusionParams) -> list[FusedHit]:
    """Blend normalised leg scores by alpha (dense) and 1 - alpha (bm25). Reads alpha and normalization only."""
    coefficients = {Leg.DENSE: params.alpha, Leg.BM25: 1.0 - params.alpha}
    scores = normalized_sum(lists, NORMALIZERS[params.normalization], lambda leg: coefficients[leg])
    legs, sources = collect_legs(lists)
    return rank_fused(scores, legs, sources)
