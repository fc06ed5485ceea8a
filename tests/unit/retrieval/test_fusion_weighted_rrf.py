import pytest

from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import FUSERS, FusionParams, fuse_rrf, fuse_weighted_rrf
from tests.unit.retrieval.lists import ranked


def test_weights_scale_each_legs_reciprocal_rank():
    fused = fuse_weighted_rrf([ranked(Leg.BM25, "a", "b"), ranked(Leg.DENSE, "b", "c")],
                              FusionParams(rrf_k=60, weights={Leg.BM25: 0.5, Leg.DENSE: 2.0}))
    scores = {h.chunk_id: h.score for h in fused}
    assert scores["a"] == pytest.approx(0.5 / (60 + 1))
    assert scores["b"] == pytest.approx(0.5 / (60 + 2) + 2.0 / (60 + 1))
    assert scores["c"] == pytest.approx(2.0 / (60 + 2))
    assert [h.chunk_id for h in fused] == ["b", "c", "a"]


def test_weights_can_reverse_the_order():
    lists = [ranked(Leg.BM25, "a"), ranked(Leg.DENSE, "b")]
    fused = fuse_weighted_rrf(lists, FusionParams(rrf_k=60, weights={Leg.BM25: 0.5, Leg.DENSE: 2.0}))
    assert [(h.chunk_id, h.score) for h in fused] == [("b", pytest.approx(2 / 61)), ("a", pytest.approx(0.5 / 61))]


def test_an_unset_leg_weighs_one():
    fused = fuse_weighted_rrf([ranked(Leg.BM25, "a"), ranked(Leg.DENSE, "a")],
                              FusionParams(rrf_k=10, weights={Leg.DENSE: 3.0}))
    assert fused[0].score == pytest.approx(1.0 / (10 + 1) + 3.0 / (10 + 1))


def test_without_weights_it_is_plain_rrf():
    lists = [ranked(Leg.BM25, "a", "b", "c"), ranked(Leg.DENSE, "c", "d")]
    assert fuse_weighted_rrf(lists, FusionParams(rrf_k=60)) == fuse_rrf(lists, FusionParams(rrf_k=60))


def test_a_zero_weight_leg_still_lists_its_hits_last_in_rank_order():
    fused = fuse_weighted_rrf([ranked(Leg.BM25, "p", "q"), ranked(Leg.DENSE, "r")],
                              FusionParams(rrf_k=60, weights={Leg.BM25: 0.0}))
    assert [(h.chunk_id, h.score) for h in fused] == [("r", pytest.approx(1 / 61)), ("p", 0.0), ("q", 0.0)]


def test_registry_names_weighted_rrf():
    assert FUSERS["weighted_rrf"] is fuse_weighted_rrf
