"""The rerank stage's contract and its pure reordering step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from search_platform.domain.models import FusedHit


class Reranker(Protocol):
    """Scores each text's relevance to a query; higher is more relevant."""

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in the order of texts."""
        ...


def rerank_text(hit: FusedHit) -> str:
    """What the reranker reads of a hit: its chunk's text."""
    return str(hit.source.get("text", ""))


def rerank_hits(hits: Sequence[FusedHit], scores: Sequence[float]) -> list[FusedHit]:
    """The first len(scores) hits ordered by score (ties keep fused order), then the rest in fused order; ranks
    renumbered from 1 and each rescored hit carrying its rerank_score."""
    if len(scores) > len(hits):
        raise ValueError(f"{len(scores)} rerank scores for {len(hits)} hits")
    head = sorted(zip(hits, scores, strict=False), key=lambda pair: -pair[1])
    rescored = [replace(hit, rerank_score=float(score)) for hit, score in head]
    ordered = rescored + list(hits[len(scores) :])
    return [replace(hit, rank=rank) for rank, hit in enumerate(ordered, start=1)]
