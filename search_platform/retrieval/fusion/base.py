"""The signature every fusion method shares, and the deterministic ordering they all use."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

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


class Collected(NamedTuple):
    """Per chunk, from every leg that found it: rank and raw score, and stored fields."""

    legs: dict[str, dict[Leg, LegScore]]
    sources: dict[str, dict[str, Any]]


Parts = Mapping[str, Mapping[Leg, float]]


def rank_fused(contributions: Parts, collected: Collected, normalized: Parts | None = None) -> list[FusedHit]:
    """Score each chunk as the sum of its legs' contributions and order by it; ties go to the better best-leg
    rank, then to the chunk id (stable across runs)."""
    scores = {chunk_id: sum(parts.values()) for chunk_id, parts in contributions.items()}
    legs = collected.legs
    order = sorted(
        scores,
        key=lambda chunk_id: (-scores[chunk_id], min(s.rank for s in legs[chunk_id].values()), chunk_id),
    )
    return [
        FusedHit(chunk_id=chunk_id, rank=position, score=scores[chunk_id], legs=legs[chunk_id],
                 source=collected.sources[chunk_id], contributions=dict(contributions[chunk_id]),
                 normalized=dict((normalized or {}).get(chunk_id, {})))
        for position, chunk_id in enumerate(order, start=1)
    ]


def collect_legs(lists: Sequence[RankedList]) -> Collected:
    """Per chunk: its rank and raw score in each leg that found it, and its stored fields."""
    collected = Collected({}, {})
    for ranked in lists:
        for hit in ranked.hits:
            collected.legs.setdefault(hit.chunk_id, {})[ranked.leg] = LegScore(rank=hit.rank, score=hit.score)
            collected.sources.setdefault(hit.chunk_id, hit.source)
    return collected


def normalized_parts(
    lists: Sequence[RankedList], normalizer: Normalizer, coefficient: Callable[[Leg], float]
) -> tuple[dict[str, dict[Leg, float]], dict[str, dict[Leg, float]]]:
    """Per chunk and leg: coefficient(leg) times its normalised score there (or the leg's absent value), and
    that normalised score. Returns (contributions, normalized)."""
    chunk_ids = dict.fromkeys(hit.chunk_id for ranked in lists for hit in ranked.hits)
    contributions: dict[str, dict[Leg, float]] = {chunk_id: {} for chunk_id in chunk_ids}
    normalized: dict[str, dict[Leg, float]] = {chunk_id: {} for chunk_id in chunk_ids}
    for ranked in lists:
        result = normalizer([hit.score for hit in ranked.hits])
        present = {hit.chunk_id: score for hit, score in zip(ranked.hits, result.scores, strict=True)}
        for chunk_id in chunk_ids:
            value = present.get(chunk_id, result.absent)
            normalized[chunk_id][ranked.leg] = value
            contributions[chunk_id][ranked.leg] = coefficient(ranked.leg) * value
    return contributions, normalized


def explain_params(params: FusionParams, names: Sequence[str]) -> dict[str, Any]:
    """The named parameters as plain values (weights as a full per-leg map) for an explanation."""
    values: dict[str, Any] = {
        "rrf_k": params.rrf_k,
        "weights": {leg.value: params.weight(leg) for leg in Leg},
        "alpha": params.alpha,
        "normalization": params.normalization.value,
    }
    return {name: values[name] for name in names}
