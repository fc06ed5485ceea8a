"""Online experiments: sticky assignment of a user or session to an arm, and the arm's retrieval overrides."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from search_platform.config import ArmSettings, ExperimentSettings
from search_platform.domain.errors import SearchPlatformError
from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import Normalization

# the SearchParams fields an arm may set
ARM_PARAMETERS = ("fusion", "rrf_k", "candidate_k", "weights", "alpha", "normalization")
_BUCKET_SPACE = 2**64


@dataclass(frozen=True, slots=True)
class Assignment:
    """The experiment and arm a search runs in, and the SearchParams fields the arm sets."""

    experiment: str
    arm: str
    overrides: Mapping[str, Any] = field(default_factory=dict)


def bucket(experiment: str, unit_id: str) -> float:
    """A uniform, sticky point in [0, 1) for this unit in this experiment (independent across experiments)."""
    digest = hashlib.sha256(f"{experiment}\x00{unit_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / _BUCKET_SPACE


def choose_arm(experiment: ExperimentSettings, unit_id: str) -> ArmSettings | None:
    """The arm whose cumulative share range holds the unit's bucket; None past the last arm (held out)."""
    point = bucket(experiment.name, unit_id)
    upper = 0.0
    for arm in experiment.arms:
        upper += arm.share
        if point < upper:
            return arm
    return None


def arm_overrides(arm: ArmSettings) -> dict[str, Any]:
    """The SearchParams fields the arm sets, as the search service takes them."""
    overrides: dict[str, Any] = {
        "fusion": arm.fusion,
        "rrf_k": arm.rrf_k,
        "candidate_k": arm.candidate_k,
        "alpha": arm.alpha,
        "weights": ({Leg(name): weight for name, weight in arm.weights.model_dump().items()} if arm.weights else None),
        "normalization": Normalization(arm.normalization) if arm.normalization else None,
    }
    return {name: value for name, value in overrides.items() if value is not None}


def varied_parameters(experiment: ExperimentSettings) -> frozenset[str]:
    """The parameters any arm of the experiment sets."""
    return frozenset(name for arm in experiment.arms for name in arm_overrides(arm))


def assign(
    experiments: Sequence[ExperimentSettings], unit_id: str | None, *, pinned: Collection[str] = ()
) -> Assignment | None:
    """The first enabled experiment whose arms cover the unit's bucket, skipping experiments that vary a
    parameter the caller pinned (explicit request parameters win and such a search is left out)."""
    if not unit_id:
        return None
    for experiment in experiments:
        if not experiment.enabled or varied_parameters(experiment) & set(pinned):
            continue
        arm = choose_arm(experiment, unit_id)
        if arm is not None:
            return Assignment(experiment=experiment.name, arm=arm.name, overrides=arm_overrides(arm))
    return None


def pseudonymize(unit_id: str | None, *, key: bytes = b"") -> str | None:
    """The id as logged: HMAC-SHA256 (keyed by analytics.user_id_key), 32 hex digits; never the raw id."""
    if not unit_id:
        return None
    return hmac.new(key, unit_id.encode(), hashlib.sha256).hexdigest()[:32]


def validate_arms(experiments: Sequence[ExperimentSettings], check: Callable[[Mapping[str, Any]], object]) -> None:
    """Run every arm's overrides through `check` (the request validator); ValueError names the bad arm."""
    for experiment in experiments:
        for arm in experiment.arms:
            try:
                check(arm_overrides(arm))
            except (ValueError, SearchPlatformError) as error:
                raise ValueError(f"experiment {experiment.name!r} arm {arm.name!r}: {error}") from error
