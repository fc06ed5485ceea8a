"""Routed fusion: weighted RRF whose per-leg weights were chosen for the query by retrieval/routing.py.

The service resolves fusion="routed" by classifying the query and putting the route's weights in the request,
so fusing is plain weighted RRF; the route itself is reported in the explanation.
"""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.domain.models import FusedHit, RankedList
from search_platform.retrieval.fusion.base import FusionParams
from search_platform.retrieval.fusion.weighted_rrf import fuse_weighted_rrf

READS = ("rrf_k", "weights")


def fuse_routed(lists: Sequence[RankedList], params: FusionParams, *, limit: int | None = None) -> list[FusedHit]:
    """Weighted RRF with the route's weights (already in params). Reads rrf_k and weights."""
    return fuse_weighted_rrf(lists, params, limit=limit)
