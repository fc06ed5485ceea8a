import pytest

from search_platform.domain.models import Leg, LegScore
from search_platform.retrieval.fusion import FUSERS, FusionParams, fuse_rrf
from tests.unit.retrieval.lists import ranked


def test_rrf_scores_are_sums_of_reciprocal_ranks():
    fused = fuse_rrf([ranked(Leg.BM25, "a", "b", "c"), ranked(Leg.DENSE, "c", "a")], FusionParams(rrf_k=60))
    scores = {hit.chunk_id: hit.score for hit in fused}
    assert scores["a"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 2))
    assert scores["c"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert scores["b"] == pytest.approx(1 / (60 + 2))
    assert [hit.chunk_id for hit in fused] == ["a", "c", "b"]
    assert [hit.rank for hit in fused] == [1, 2, 3]


def test_rrf_keeps_each_legs_rank_and_raw_score():
    fused = fuse_rrf([ranked(Leg.BM25, "a", "b"), ranked(Leg.DENSE, "b")], FusionParams(rrf_k=60))
    by_id = {hit.chunk_id: hit for hit in fused}
    assert by_id["b"].legs == {Leg.BM25: LegScore(rank=2, score=5.0), Leg.DENSE: LegScore(rank=1, score=10.0)}
    assert by_id["a"].legs == {Leg.BM25: LegScore(rank=1, score=10.0)}


def test_rrf_with_an_empty_leg_is_the_other_leg():
    fused = fuse_rrf([ranked(Leg.BM25), ranked(Leg.DENSE, "x", "y")], FusionParams(rrf_k=10))
    assert [(h.chunk_id, h.score) for h in fused] == [("x", pytest.approx(1 / 11)), ("y", pytest.approx(1 / 12))]


def test_rrf_ties_break_by_best_rank_then_chunk_id():
    # "b" is rank 1 in dense, "a" rank 1 in bm25: equal scores 1/(k+1) and equal best ranks; the id decides.
    fused = fuse_rrf([ranked(Leg.BM25, "b"), ranked(Leg.DENSE, "a")], FusionParams(rrf_k=60))
    assert [h.chunk_id for h in fused] == ["a", "b"]


def test_rrf_k_changes_the_scores():
    fused = fuse_rrf([ranked(Leg.BM25, "a")], FusionParams(rrf_k=1))
    assert fused[0].score == pytest.approx(1 / (1 + 1))


def test_plain_rrf_ignores_weights():
    lists = [ranked(Leg.BM25, "a"), ranked(Leg.DENSE, "b")]
    fused = fuse_rrf(lists, FusionParams(rrf_k=60, weights={Leg.BM25: 0.5, Leg.DENSE: 2.0}))
    assert fused == fuse_rrf(lists, FusionParams(rrf_k=60))
    assert [(h.chunk_id, h.score) for h in fused] == [("a", pytest.approx(1 / 61)), ("b", pytest.approx(1 / 61))]


def test_registry_names_rrf():
    assert FUSERS["rrf"] is fuse_rrf
