"""Every fusion method reports what each leg added to a hit's score; the parts sum to the score."""

import math

import pytest

from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import (
    FUSERS,
    FUSION_READS,
    FusionParams,
    Normalization,
    explain_params,
    fuse_convex,
    fuse_dbsf,
    fuse_rrf,
    fuse_weighted_rrf,
)
from tests.unit.retrieval.lists import scored

BM25 = scored(Leg.BM25, ("a", 9.0), ("b", 5.0), ("c", 1.0))
DENSE = scored(Leg.DENSE, ("b", 0.8), ("d", 0.6), ("a", 0.2))
TUNED = FusionParams(rrf_k=10, weights={Leg.BM25: 0.5, Leg.DENSE: 2.0}, alpha=0.7, normalization=Normalization.ZSCORE)


@pytest.mark.parametrize("fuse", FUSERS.values(), ids=list(FUSERS))
@pytest.mark.parametrize("params", [FusionParams(), TUNED], ids=["defaults", "tuned"])
def test_contributions_sum_to_the_fused_score(fuse, params):
    for hit in fuse([BM25, DENSE], params):
        assert hit.contributions
        assert math.fsum(hit.contributions.values()) == pytest.approx(hit.score, abs=1e-12)


def by_id(fused):
    return {hit.chunk_id: hit for hit in fused}


def test_rrf_parts_are_reciprocal_ranks_and_nothing_is_normalised():
    hits = by_id(fuse_rrf([BM25, DENSE], FusionParams(rrf_k=60)))
    assert hits["a"].contributions == pytest.approx({Leg.BM25: 1 / (60 + 1), Leg.DENSE: 1 / (60 + 3)})
    assert hits["d"].contributions == pytest.approx({Leg.DENSE: 1 / (60 + 2)})
    assert hits["a"].normalized == {}


def test_weighted_rrf_parts_carry_the_weights():
    hits = by_id(fuse_weighted_rrf([BM25, DENSE], TUNED))
    assert hits["b"].contributions == pytest.approx({Leg.BM25: 0.5 / (10 + 2), Leg.DENSE: 2.0 / (10 + 1)})


def test_convex_parts_are_alpha_times_the_normalised_scores_absent_legs_included():
    hits = by_id(fuse_convex([BM25, DENSE], FusionParams(alpha=0.7, normalization=Normalization.MINMAX)))
    assert hits["b"].normalized == pytest.approx({Leg.BM25: (5 - 1) / (9 - 1), Leg.DENSE: 1.0})
    assert hits["b"].contributions == pytest.approx({Leg.BM25: 0.3 * (5 - 1) / (9 - 1), Leg.DENSE: 0.7 * 1.0})
    assert hits["c"].normalized == pytest.approx({Leg.BM25: 0.0, Leg.DENSE: 0.0})
    assert hits["d"].contributions == pytest.approx({Leg.BM25: 0.3 * 0.0, Leg.DENSE: 0.7 * (0.6 - 0.2) / (0.8 - 0.2)})


def test_dbsf_parts_are_weighted_three_sigma_scores():
    hits = by_id(fuse_dbsf([scored(Leg.BM25, ("a", 3.0), ("b", 2.0), ("c", 1.0))], FusionParams(
        weights={Leg.BM25: 2.0})))
    assert hits["a"].normalized == pytest.approx({Leg.BM25: (3 - (2 - 3)) / 6})
    assert hits["a"].contributions == pytest.approx({Leg.BM25: 2.0 * (3 - (2 - 3)) / 6})


def test_every_fusion_says_which_params_it_reads():
    assert list(FUSION_READS) == list(FUSERS)
    assert explain_params(TUNED, FUSION_READS["weighted_rrf"], (Leg.BM25, Leg.DENSE)) == {
        "rrf_k": 10, "weights": {"bm25": 0.5, "dense": 2.0}}
    assert explain_params(TUNED, ("weights",), (Leg.BM25, Leg.BM25_PASSAGE, Leg.DENSE)) == {
        "weights": {"bm25": 0.5, "bm25_passage": 0.5, "dense": 2.0}}
    assert explain_params(TUNED, FUSION_READS["convex"]) == {"alpha": 0.7, "normalization": "zscore"}
    assert explain_params(FusionParams(), FUSION_READS["dbsf"], (Leg.BM25, Leg.DENSE)) == {
        "weights": {"bm25": 1.0, "dense": 1.0}}
    assert explain_params(FusionParams(), FUSION_READS["rrf"]) == {"rrf_k": 60}
