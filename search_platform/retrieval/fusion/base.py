"""The signature every fusion method shares, and the deterministic ordering they all use."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from search_platform.domain.models import FusedHit, Leg, LegScore, RankedList
from search_platform.retrieval.fusion.normalize import Normalization, Normalizer

DEFAULT_WEIGHT = 1.0
DEFAULT_ALPHA = 0.5
DEFAULT_NORMALIZATION = Normalization.MINMAX


@dataclass(frozen=True, slots=True)
class FusionParams:
    """Parameters a fusion method may read; each method documents which."""

    rrf_k: int = 60
    weights: Mapping[Leg, float] = field(default_factory=dict)
    alpha: float = DEFAULT_ALPHA
    normalization: Normalization = DEFAULT_NORMALIZATION

    def weight(self, leg: Leg) -> float:
        """Weight of one leg (1.0 when not set)."""
        return self.weights.get(leg, DEFAULT_WEIGHT)


class FuseFn(Protocol):
    """Fuse ranked lists into one list ranked from 1, best first."""

    def __call__(self, lists: Sequence[RankedList], params: FusionParams) -> list[FusedHit]: ...


def rank_fused(
    scores: Mapping[str, float],
    legs: Mapping[str, dict[Leg, LegScore]],
    sources: Mapping[str, dict[str, Any]],
) -> list[FusedHit]:
    """Order by fused score; ties go to the better best-leg rank, then to the chunk id (stable across runs)."""
    order = sorted(
        scores,
        key=lambda chunk_id: (-scores[chunk_id], min(s.rank for s in legs[chunk_id].values()), chunk_id),
    )
    return [
        FusedHit(chunk_id=chunk_id, rank=position, score=scores[chunk_id], legs=legs[chunk_id],
                 source=sources[chunk_id])
        for position, chunk_id in enumerate(order, start=1)
    ]


def collect_legs(
    lists: Sequence[RankedList],
) -> tuple[dict[str, dict[Leg, LegScore]], dict[str, dict[str, Any]]]:
    """Per chunk: its rank and raw score in each leg that found it, and its stored fields."""
    legs: dict[str, dict[Leg, LegScore]] = {}
    sources: dict[str, dict[str, Any]] = {}
    for ranked in lists:
        for hit in ranked.hits:
            legs.setdefault(hit.chunk_id, {})[ranked.leg] = LegScore(rank=hit.rank, score=hit.score)
            sources.setdefault(hit.chunk_id, hit.source)
    return legs, sources


def normalized_sum(
    lists: Sequence[RankedList], normalizer: Normalizer, coefficient: Callable[[Leg], float]
) -> dict[str, float]:
    """Per chunk: the sum over legs of coefficient(leg) times its normalised score there (or the leg's absent value)."""
    totals = {hit.chunk_id: 0.0 for ranked in lists for hit in ranked.hits}
    for ranked in lists:
        normalized = normalizer([hit.score for hit in ranked.hits])
        present = {hit.chunk_id: score for hit, score in zip(ranked.hits, normalized.scores, strict=True)}
        for chunk_id in totals:
            totals[chunk_id] += coefficient(ranked.leg) * present.get(chunk_id, normalized.absent)
    return totals
