import math
from typing import get_args

import pytest
from pydantic import ValidationError

from search_platform.analytics.experiments import (
    arm_overrides,
    assign,
    bucket,
    choose_arm,
    pseudonymize,
    validate_arms,
    varied_parameters,
)
from search_platform.config import ArmSettings, ExperimentSettings, FusionName, Settings
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import FUSERS, Normalization

IDS = [f"user-{i}" for i in range(10_000)]


def _experiment(name: str = "fusion-test", *shares: float, **first_arm: object) -> ExperimentSettings:
    arms = [{"name": f"arm{i}", "share": share} for i, share in enumerate(shares or (0.5, 0.5))]
    arms[0].update(first_arm)
    return ExperimentSettings.model_validate({"name": name, "arms": arms})


def test_assignment_is_sticky_and_depends_on_the_experiment():
    experiment = _experiment()
    first = [choose_arm(experiment, uid) for uid in IDS[:500]]
    assert first == [choose_arm(experiment, uid) for uid in IDS[:500]]
    assert bucket("a", "u1") == bucket("a", "u1")
    assert bucket("a", "u1") != bucket("b", "u1")
    assert all(0.0 <= bucket("a", uid) < 1.0 for uid in IDS[:500])


@pytest.mark.parametrize("shares", [(0.5, 0.5), (0.1, 0.3, 0.6), (0.2, 0.05)])
def test_arm_counts_on_10k_ids_follow_the_shares_within_4_sigma(shares):
    experiment = _experiment("shares", *shares)
    arms = [choose_arm(experiment, uid) for uid in IDS]
    n = len(IDS)
    for index, share in enumerate(shares):
        count = sum(1 for arm in arms if arm is not None and arm.name == f"arm{index}")
        assert abs(count - n * share) <= 4 * math.sqrt(n * share * (1 - share)), (index, count)
    held_out = 1 - sum(shares)
    none = arms.count(None)
    assert abs(none - n * held_out) <= 4 * math.sqrt(n * held_out * (1 - held_out)) + 1e-9


def test_assign_needs_an_id_skips_disabled_and_pinned_experiments():
    varied = _experiment("varied", 1.0, fusion="dbsf")
    fallback = _experiment("fallback", 1.0)
    assert assign([varied, fallback], None) is None
    assigned = assign([varied, fallback], "u1")
    assert (assigned.experiment, assigned.arm, dict(assigned.overrides)) == ("varied", "arm0", {"fusion": "dbsf"})
    assert assign([varied, fallback], "u1", pinned={"fusion"}).experiment == "fallback"
    disabled = varied.model_copy(update={"enabled": False})
    assert assign([disabled], "u1") is None


def test_arm_overrides_map_to_search_params_fields():
    arm = ArmSettings(name="a", share=0.5, fusion="convex", rrf_k=10, candidate_k=50, alpha=0.7,
                      normalization="zscore", weights={"bm25": 2.0, "dense": 0.5})
    assert arm_overrides(arm) == {"fusion": "convex", "rrf_k": 10, "candidate_k": 50, "alpha": 0.7,
                                  "weights": {Leg.BM25: 2.0, Leg.DENSE: 0.5, Leg.DENSE_LEAD: 0.0,
                                              Leg.DEFINITIONS: 0.0},
                                  "normalization": Normalization.ZSCORE}
    assert arm_overrides(ArmSettings(name="control", share=0.5)) == {}
    assert varied_parameters(_experiment("e", 0.5, 0.5, fusion="dbsf", rrf_k=5)) == {"fusion", "rrf_k"}


@pytest.mark.parametrize("raw, message", [
    ({"name": "e", "arms": [{"name": "a", "share": 0.6}, {"name": "b", "share": 0.5}]}, "over 1"),
    ({"name": "e", "arms": [{"name": "a", "share": 0.5}, {"name": "a", "share": 0.5}]}, "unique"),
    ({"name": "e", "arms": [{"name": "a", "share": 0}]}, "greater than 0"),
    ({"name": "e", "arms": [{"name": "a", "share": 1, "fusion": "nope"}]}, "fusion"),
    ({"name": "e", "arms": [{"name": "a", "share": 1, "weights": {"bm25": 0, "dense": 0}}]}, "not all be 0"),
    ({"name": "e", "arms": [{"name": "a", "share": 1, "alpha": 2}]}, "alpha"),
    ({"name": "e", "arms": [{"name": "a", "share": 1, "typo": 2}]}, "typo"),
    ({"name": "e", "arms": []}, "at least 1"),
])
def test_bad_experiments_are_refused(raw, message):
    with pytest.raises(ValidationError, match=message):
        ExperimentSettings.model_validate(raw)


def test_experiment_names_are_unique_and_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("SP_EXPERIMENTS", '[{"name":"fusion-test","arms":[{"name":"control","share":0.5},'
                                         '{"name":"dbsf","share":0.5,"fusion":"dbsf"}]}]')
    settings = Settings(elasticsearch={"password": "x"})
    assert [arm.fusion for arm in settings.experiments[0].arms] == [None, "dbsf"]
    one = {"name": "same", "arms": [{"name": "a", "share": 1}]}
    with pytest.raises(ValidationError, match="names must be unique"):
        Settings(elasticsearch={"password": "x"}, experiments=[one, one])


def test_config_fusion_names_match_the_registry():
    assert set(get_args(FusionName)) == set(FUSERS)
    assert set(get_args(ArmSettings.model_fields["normalization"].annotation.__args__[0])) == set(Normalization)


def test_validate_arms_names_the_arm_the_request_rules_refuse():
    experiment = _experiment("e", 0.5, 0.5, candidate_k=5000)

    def check(overrides):
        if overrides.get("candidate_k", 0) > 1000:
            raise InvalidQueryError("candidate_k must be at most 1000")

    with pytest.raises(ValueError, match="experiment 'e' arm 'arm0': candidate_k must be at most 1000"):
        validate_arms([experiment], check)
    validate_arms([_experiment()], check)


def test_pseudonymize_is_keyed_and_never_the_raw_id():
    assert pseudonymize(None) is None
    hashed = pseudonymize("alice@example.com", key=b"k1")
    assert hashed != "alice@example.com" and len(hashed) == 32
    assert hashed == pseudonymize("alice@example.com", key=b"k1") != pseudonymize("alice@example.com", key=b"k2")


def test_only_parameters_the_caller_sent_are_pinned():
    from search_platform.service.routes.search import pinned_parameters
    from search_platform.service.schemas import SearchBody

    assert pinned_parameters(SearchBody(query="q")) == frozenset()
    assert pinned_parameters(SearchBody(query="q", fusion="rrf", alpha=None, top_k=3)) == {"fusion"}
    body = SearchBody.model_validate({"query": "q", "rrf_k": 5, "weights": {"bm25": 2}, "user_id": "u"})
    assert pinned_parameters(body) == {"rrf_k", "weights"}
