"""Reciprocal Rank Fusion (Cormack et al., 2009): score = sum over legs of 1 / (rrf_k + rank)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from search_platform.domain.models import FusedHit, RankedList
from search_platform.retrieval.fusion.base import FusionParams
from search_platform.retrieval.fusion.weighted_rrf import fuse_weighted_rrf

READS = ("rrf_k",)


def fuse_rrf(lists: Sequence[RankedList], params: FusionParams, *, limit: int | None = None) -> list[FusedHit]:
    """Plain RRF with 1-based ranks: weighted RRF with every weight 1. Reads rrf_k only; ignores weights."""
    return fuse_weighted_rrf(lists, replace(params, weights={}), limit=limit)
