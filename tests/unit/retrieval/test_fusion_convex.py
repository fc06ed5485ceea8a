import math

import pytest

from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import FUSERS, FusionParams, Normalization, fuse_convex
from tests.unit.retrieval.lists import scored

BM25 = scored(Leg.BM25, ("a", 9.0), ("b", 5.0), ("c", 1.0))
DENSE = scored(Leg.DENSE, ("b", 0.8), ("d", 0.6), ("a", 0.2))


def scores_of(fused) -> dict[str, float]:
    return {hit.chunk_id: hit.score for hit in fused}


def test_minmax_blend_absent_counts_zero():
    fused = fuse_convex([BM25, DENSE], FusionParams(alpha=0.7, normalization=Normalization.MINMAX))
    assert scores_of(fused) == pytest.approx({
        "a": 0.3 * (9 - 1) / (9 - 1) + 0.7 * (0.2 - 0.2) / (0.8 - 0.2),
        "b": 0.3 * (5 - 1) / (9 - 1) + 0.7 * 1.0,
        "c": 0.3 * (1 - 1) / (9 - 1) + 0.7 * 0.0,
        "d": 0.3 * 0.0 + 0.7 * (0.6 - 0.2) / (0.8 - 0.2),
    })
    assert [h.chunk_id for h in fused] == ["b", "d", "a", "c"]
    assert [h.rank for h in fused] == [1, 2, 3, 4]


def test_zscore_blend_absent_counts_the_legs_lowest_z():
    bm25_std = math.sqrt(((9 - 5) ** 2 + 0 + (1 - 5) ** 2) / 3)
    mean = (0.8 + 0.6 + 0.2) / 3
    dense_std = math.sqrt(((0.8 - mean) ** 2 + (0.6 - mean) ** 2 + (0.2 - mean) ** 2) / 3)
    fused = fuse_convex([BM25, DENSE], FusionParams(alpha=0.4, normalization=Normalization.ZSCORE))
    assert scores_of(fused) == pytest.approx({
        "a": 0.6 * (9 - 5) / bm25_std + 0.4 * (0.2 - mean) / dense_std,
        "b": 0.6 * (5 - 5) / bm25_std + 0.4 * (0.8 - mean) / dense_std,
        "c": 0.6 * (1 - 5) / bm25_std + 0.4 * (0.2 - mean) / dense_std,  # absent from dense: dense's lowest z
        "d": 0.6 * (1 - 5) / bm25_std + 0.4 * (0.6 - mean) / dense_std,  # absent from bm25: bm25's lowest z
    })


# alpha 0: c (bm25's minimum, 0.0) ties with d (absent from bm25, 0.0); d's better best rank (2) breaks the tie.
@pytest.mark.parametrize(("alpha", "order"), [(0.0, ["a", "b", "d", "c"]), (1.0, ["b", "d", "a", "c"])])
def test_alpha_zero_is_bm25_alpha_one_is_dense(alpha, order):
    fused = fuse_convex([BM25, DENSE], FusionParams(alpha=alpha))
    assert [h.chunk_id for h in fused] == order


def test_default_is_an_even_minmax_blend():
    fused = fuse_convex([BM25, DENSE], FusionParams())
    assert scores_of(fused)["b"] == pytest.approx(0.5 * (5 - 1) / (9 - 1) + 0.5 * 1.0)


@pytest.mark.parametrize("normalization", list(Normalization))
def test_an_empty_leg_leaves_the_other_legs_order(normalization):
    fused = fuse_convex([scored(Leg.BM25), DENSE], FusionParams(alpha=0.5, normalization=normalization))
    assert [h.chunk_id for h in fused] == ["b", "d", "a"]


def test_minmax_all_equal_scores_are_one_and_beat_absent_hits():
    fused = fuse_convex([scored(Leg.BM25, ("a", 3.0), ("b", 3.0)), scored(Leg.DENSE, ("c", 0.5))],
                        FusionParams(alpha=0.3))
    assert [(h.chunk_id, h.score) for h in fused] == [
        ("a", pytest.approx(0.7 * 1.0)), ("b", pytest.approx(0.7 * 1.0)), ("c", pytest.approx(0.3 * 1.0))]


def test_zscore_all_equal_scores_are_zero():
    fused = fuse_convex([scored(Leg.BM25, ("a", 3.0), ("b", 3.0)), scored(Leg.DENSE, ("a", 0.5))],
                        FusionParams(alpha=0.3, normalization=Normalization.ZSCORE))
    assert [(h.chunk_id, h.score) for h in fused] == [("a", 0.0), ("b", 0.0)]


def test_a_single_hit():
    fused = fuse_convex([scored(Leg.BM25, ("a", 12.0)), scored(Leg.DENSE)], FusionParams(alpha=0.25))
    assert [(h.chunk_id, h.rank, h.score) for h in fused] == [("a", 1, pytest.approx(0.75 * 1.0))]


def test_weights_and_rrf_k_are_ignored():
    lists = [BM25, DENSE]
    assert fuse_convex(lists, FusionParams(rrf_k=1, weights={Leg.DENSE: 9.0})) == fuse_convex(lists, FusionParams())


def test_registry_names_convex():
    assert FUSERS["convex"] is fuse_convex


def test_two_dense_lists_share_alpha_as_two_lexical_lists_share_one_minus_alpha():
    lead = scored(Leg.DENSE_LEAD, ("d", 0.9), ("b", 0.1))
    fused = fuse_convex([BM25, DENSE, lead], FusionParams(alpha=0.6, normalization=Normalization.MINMAX))
    assert scores_of(fused)["d"] == pytest.approx(0.4 * 0.0 + 0.3 * (0.6 - 0.2) / (0.8 - 0.2) + 0.3 * 1.0)
    assert scores_of(fused)["a"] == pytest.approx(0.4 * 1.0 + 0.3 * 0.0 + 0.3 * 0.0)
