"""Score normalisers for score-based fusion: one leg's raw scores in, comparable scores out.

Each normaliser returns the normalised scores (same order as given) and the value a hit absent from the leg
gets from it, chosen so that an absent hit never outranks a present one: minmax's floor 0.0; for zscore the
leg's lowest z-score observed (0.0 would be the leg's mean and lift a missing hit above the leg's below-average
hits); for three_sigma 0.0. An empty leg gives every hit 0.0.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple


class Normalization(enum.StrEnum):
    """How convex fusion puts each leg's scores on one scale."""

    MINMAX = "minmax"
    ZSCORE = "zscore"


class Normalized(NamedTuple):
    """One leg's normalised scores, in input order, and what a hit missing from the leg counts as."""

    scores: list[float]
    absent: float


Normalizer = Callable[[Sequence[float]], Normalized]


def mean_std(scores: Sequence[float], *, ddof: int) -> tuple[float, float]:
    """Mean and standard deviation (divisor n - ddof); std is exactly 0.0 for equal scores or too few of them."""
    if not scores:
        return 0.0, 0.0
    mean = math.fsum(scores) / len(scores)
    if len(scores) <= ddof or min(scores) == max(scores):
        return mean, 0.0
    variance = math.fsum((score - mean) ** 2 for score in scores) / (len(scores) - ddof)
    return mean, math.sqrt(variance)


def minmax(scores: Sequence[float]) -> Normalized:
    """(s - min) / (max - min) in [0, 1]; all-equal scores (and a single one) are 1.0; an absent hit counts 0.0."""
    if not scores:
        return Normalized([], 0.0)
    low, high = min(scores), max(scores)
    if low == high:
        return Normalized([1.0] * len(scores), 0.0)
    return Normalized([(score - low) / (high - low) for score in scores], 0.0)


def zscore(scores: Sequence[float]) -> Normalized:
    """(s - mean) / std (population std); std 0 gives 0.0 each; an absent hit counts the leg's lowest z-score."""
    if not scores:
        return Normalized([], 0.0)
    mean, std = mean_std(scores, ddof=0)
    if std == 0.0:
        return Normalized([0.0] * len(scores), 0.0)
    normalized = [(score - mean) / std for score in scores]
    return Normalized(normalized, min(normalized))


def three_sigma(scores: Sequence[float]) -> Normalized:
    """DBSF's scaling: [mean - 3 std, mean + 3 std] -> [0, 1], clipped (sample std); std 0 gives 0.5; absent 0.0."""
    mean, std = mean_std(scores, ddof=1)
    if std == 0.0:
        return Normalized([0.5] * len(scores), 0.0)
    low, high = mean - 3 * std, mean + 3 * std
    return Normalized([min(1.0, max(0.0, (score - low) / (high - low))) for score in scores], 0.0)


NORMALIZERS: dict[Normalization, Normalizer] = {
    Normalization.MINMAX: minmax,
    Normalization.ZSCORE: zscore,
}
