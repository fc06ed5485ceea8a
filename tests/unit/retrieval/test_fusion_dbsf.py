import math

import pytest

from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import FUSERS, FusionParams, fuse_dbsf
from tests.unit.retrieval.lists import scored

# bm25: mean 2, sample std 1 -> range [2 - 3, 2 + 3]. dense: mean 0.7, sample std sqrt(2 * 0.2 ** 2).
BM25 = scored(Leg.BM25, ("a", 3.0), ("b", 2.0), ("c", 1.0))
DENSE = scored(Leg.DENSE, ("b", 0.9), ("d", 0.5))
DENSE_STD = math.sqrt(2 * 0.2**2)
DENSE_LOW = 0.7 - 3 * DENSE_STD


def test_each_leg_scaled_by_three_sigma_then_summed():
    fused = fuse_dbsf([BM25, DENSE], FusionParams())
    assert {h.chunk_id: h.score for h in fused} == pytest.approx({
        "a": (3 - (2 - 3)) / 6,
        "b": (2 - (2 - 3)) / 6 + (0.9 - DENSE_LOW) / (6 * DENSE_STD),
        "c": (1 - (2 - 3)) / 6,
        "d": (0.5 - DENSE_LOW) / (6 * DENSE_STD),
    })
    assert [h.chunk_id for h in fused] == ["b", "a", "d", "c"]


def test_weights_scale_each_leg():
    fused = fuse_dbsf([BM25, DENSE], FusionParams(weights={Leg.BM25: 0.5, Leg.DENSE: 2.0}))
    scores = {h.chunk_id: h.score for h in fused}
    assert scores["b"] == pytest.approx(0.5 * (2 - (2 - 3)) / 6 + 2.0 * (0.9 - DENSE_LOW) / (6 * DENSE_STD))
    assert scores["d"] == pytest.approx(2.0 * (0.5 - DENSE_LOW) / (6 * DENSE_STD))


def test_outliers_are_clipped_to_one():
    bm25 = scored(Leg.BM25, ("top", 1.0), *((f"z{i}", 0.0) for i in range(10)))
    fused = fuse_dbsf([bm25, scored(Leg.DENSE)], FusionParams())
    assert fused[0].chunk_id == "top"
    assert fused[0].score == 1.0


def test_std_zero_gives_one_half_per_leg():
    fused = fuse_dbsf([scored(Leg.BM25, ("a", 4.0), ("b", 4.0)), scored(Leg.DENSE, ("a", 0.3))], FusionParams())
    assert [(h.chunk_id, h.score) for h in fused] == [("a", pytest.approx(0.5 + 0.5)), ("b", pytest.approx(0.5))]


def test_a_single_hit_is_one_half():
    fused = fuse_dbsf([scored(Leg.BM25), scored(Leg.DENSE, ("x", 0.42))], FusionParams())
    assert [(h.chunk_id, h.rank, h.score) for h in fused] == [("x", 1, 0.5)]


def test_registry_names_dbsf():
    assert FUSERS["dbsf"] is fuse_dbsf
