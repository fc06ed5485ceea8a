"""Fusion methods, one per module, all with the FuseFn signature, registered in FUSERS."""

from __future__ import annotations

from search_platform.retrieval.fusion.base import FuseFn, FusionParams
from search_platform.retrieval.fusion.rrf import fuse_rrf

FUSERS: dict[str, FuseFn] = {"rrf": fuse_rrf}

__all__ = ["FUSERS", "FuseFn", "FusionParams", "fuse_rrf"]
