"""Fusion methods, one per module, all with the FuseFn signature, registered in FUSERS."""

from __future__ import annotations

from search_platform.retrieval.fusion import convex, dbsf, routed, rrf, weighted_rrf
from search_platform.retrieval.fusion.base import (
    DEFAULT_ALPHA,
    DEFAULT_NORMALIZATION,
    DEFAULT_WEIGHT,
    OPT_IN_LEGS,
    FuseFn,
    FusionParams,
    explain_params,
)
from search_platform.retrieval.fusion.convex import fuse_convex
from search_platform.retrieval.fusion.dbsf import fuse_dbsf
from search_platform.retrieval.fusion.normalize import NORMALIZERS, Normalization
from search_platform.retrieval.fusion.routed import fuse_routed
from search_platform.retrieval.fusion.rrf import fuse_rrf
from search_platform.retrieval.fusion.weighted_rrf import fuse_weighted_rrf

FUSERS: dict[str, FuseFn] = {
    "rrf": fuse_rrf,
    "weighted_rrf": fuse_weighted_rrf,
    "convex": fuse_convex,
    "dbsf": fuse_dbsf,
    "routed": fuse_routed,
}

FUSION_READS: dict[str, tuple[str, ...]] = {
    "rrf": rrf.READS,
    "weighted_rrf": weighted_rrf.READS,
    "convex": convex.READS,
    "dbsf": dbsf.READS,
    "routed": routed.READS,
}

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_NORMALIZATION",
    "DEFAULT_WEIGHT",
    "FUSERS",
    "FUSION_READS",
    "NORMALIZERS",
    "OPT_IN_LEGS",
    "FuseFn",
    "FusionParams",
    "Normalization",
    "explain_params",
    "fuse_convex",
    "fuse_dbsf",
    "fuse_routed",
    "fuse_rrf",
    "fuse_weighted_rrf",
]
