"""The signature every fusion method shares, and the deterministic ordering they all use."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from search_platform.domain.models import FusedHit, Leg, LegScore, RankedHit, RankedList
from search_platform.retrieval.fusion.normalize import Normalization, Normalizer

DEFAULT_WEIGHT = 1.0
OPT_IN_LEGS = frozenset({Leg.DENSE_LEAD, Leg.DEFINITIONS})  # lists that weigh 0 (and do not run) unless set
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
        """Weight of one leg (1.0 when not set); the passage BM25 list takes the BM25 weight unless set, and the
        lead-passage and definitions lists weigh 0 (they do not run) unless set."""
        if leg in self.weights:
            return self.weights[leg]
        if leg is Leg.BM25_PASSAGE:
            return self.weight(Leg.BM25)
        return 0.0 if leg in OPT_IN_LEGS else DEFAULT_WEIGHT

    def leg_weights(self, legs: Sequence[Leg]) -> dict[str, float]:
        """Each leg's weight by leg name, as explanations and search logs report them."""
        return {leg.value: float(self.weight(leg)) for leg in legs}


class FuseFn(Protocol):
    """Fuse ranked lists into one list ranked from 1, best first: every candidate is ranked, but hits are built
    for the first `limit` only (all when None), so a page window does not pay for every candidate's hit."""

    def __call__(self, lists: Sequence[RankedList], params: FusionParams, *,
                 limit: int | None = None) -> list[FusedHit]: ...


@dataclass(frozen=True, slots=True)
class Candidates:
    """Every chunk some leg found, in first-seen order: each finding leg's hit, and the chunk's best rank."""

    hits: dict[str, dict[Leg, RankedHit]]
    best_rank: dict[str, int]


Parts = Mapping[str, Mapping[Leg, float]]
PartsOf = Callable[[str], dict[Leg, float]]


def collect_legs(lists: Sequence[RankedList]) -> Candidates:
    """Per chunk: the hit of each leg that found it (rank, raw score, stored fields) and its best rank."""
    hits: dict[str, dict[Leg, RankedHit]] = {}
    best_rank: dict[str, int] = {}
    for ranked in lists:
        leg = ranked.leg
        for hit in ranked.hits:
            chunk_id = hit.chunk_id
            per_leg = hits.get(chunk_id)
            if per_leg is None:
                hits[chunk_id] = {leg: hit}
                best_rank[chunk_id] = hit.rank
            else:
                per_leg[leg] = hit
                best_rank[chunk_id] = min(best_rank[chunk_id], hit.rank)
    return Candidates(hits, best_rank)


def rank_fused(scores: Mapping[str, float], candidates: Candidates, *, limit: int | None, contributions: PartsOf,
               normalized: PartsOf | None = None) -> list[FusedHit]:
    """Order every chunk by score; ties go to the better best-leg rank, then to the chunk id (stable across runs).
    Hits (legs, stored fields of the first leg that found it, each leg's contribution) are built for the first
    `limit` only."""
    best_rank = candidates.best_rank
    order = sorted((-score, best_rank[chunk_id], chunk_id) for chunk_id, score in scores.items())
    return [
        fused_hit(chunk_id, position, scores[chunk_id], candidates.hits[chunk_id], contributions(chunk_id),
                  normalized(chunk_id) if normalized is not None else {})
        for position, (_, _, chunk_id) in enumerate(order[:limit], start=1)
    ]


def fused_hit(chunk_id: str, rank: int, score: float, found: dict[Leg, RankedHit], contributions: dict[Leg, float],
              normalized: dict[Leg, float]) -> FusedHit:
    """One fused hit: where each leg had it, the first finding leg's stored fields, the parts of its score."""
    return FusedHit(chunk_id=chunk_id, rank=rank, score=score,
                    legs={leg: LegScore(rank=hit.rank, score=hit.score) for leg, hit in found.items()},
                    source=next(iter(found.values())).source, contributions=contributions, normalized=normalized)


def rank_by_parts(lists: Sequence[RankedList], parts: tuple[Parts, Parts], *, limit: int | None) -> list[FusedHit]:
    """Rank by the sum of each chunk's contributions (parts[0]), keeping its normalised scores (parts[1])."""
    contributions, normalized = parts
    scores = {chunk_id: sum(per_leg.values()) for chunk_id, per_leg in contributions.items()}
    return rank_fused(scores, collect_legs(lists), limit=limit,
                      contributions=lambda chunk_id: dict(contributions[chunk_id]),
                      normalized=lambda chunk_id: dict(normalized.get(chunk_id, {})))


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


def explain_params(params: FusionParams, names: Sequence[str], legs: Sequence[Leg] = tuple(Leg)) -> dict[str, Any]:
    """The named parameters as plain values (weights as a map over the legs that ran) for an explanation."""
    values: dict[str, Any] = {
        "rrf_k": params.rrf_k,
        "weights": params.leg_weights(legs),
        "alpha": params.alpha,
        "normalization": params.normalization.value,
    }
    return {name: values[name] for name in names}
