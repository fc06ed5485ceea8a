"""What every registered fusion method must do, whatever its formula."""

import math

import pytest

from search_platform.domain.models import Leg, LegScore
from search_platform.retrieval.fusion import FUSERS, FusionParams, Normalization
from tests.unit.retrieval.lists import ranked, scored

PARAMS = [
    FusionParams(),
    FusionParams(rrf_k=1, weights={Leg.BM25: 0.2, Leg.DENSE: 3.0}, alpha=0.8, normalization=Normalization.ZSCORE),
]
BM25 = scored(Leg.BM25, ("a", 12.5), ("b", 7.0), ("c", 3.25), ("e", 1.0))
DENSE = scored(Leg.DENSE, ("c", 0.91), ("d", 0.87), ("a", 0.5))

pytestmark = [pytest.mark.parametrize("fuse", FUSERS.values(), ids=list(FUSERS)),
              pytest.mark.parametrize("params", PARAMS, ids=["defaults", "tuned"])]


def test_ranks_run_from_one_and_every_chunk_appears_once(fuse, params):
    fused = fuse([BM25, DENSE], params)
    assert [h.rank for h in fused] == list(range(1, 6))
    assert sorted(h.chunk_id for h in fused) == ["a", "b", "c", "d", "e"]
    assert all(math.isfinite(h.score) for h in fused)
    assert [h.score for h in fused] == sorted((h.score for h in fused), reverse=True)


def test_each_legs_rank_and_raw_score_are_kept(fuse, params):
    by_id = {h.chunk_id: h for h in fuse([BM25, DENSE], params)}
    assert by_id["a"].legs == {Leg.BM25: LegScore(rank=1, score=12.5), Leg.DENSE: LegScore(rank=3, score=0.5)}
    assert by_id["d"].legs == {Leg.DENSE: LegScore(rank=2, score=0.87)}


@pytest.mark.parametrize("empty", list(Leg))
def test_a_leg_with_no_hits_leaves_the_other_legs_order(fuse, params, empty):
    other = BM25 if empty is Leg.DENSE else DENSE
    fused = fuse([scored(empty), other], params)
    assert [h.chunk_id for h in fused] == [hit.chunk_id for hit in other.hits]
    assert [h.rank for h in fused] == list(range(1, len(other.hits) + 1))


def test_no_hits_at_all(fuse, params):
    assert fuse([scored(Leg.BM25), scored(Leg.DENSE)], params) == []


def test_all_equal_scores_do_not_crash_and_tie_break_by_best_rank_then_id(fuse, params):
    bm25 = scored(Leg.BM25, ("q", 2.0), ("p", 2.0))
    dense = scored(Leg.DENSE, ("s", 0.5), ("r", 0.5))
    fused = fuse([bm25, dense], params)
    assert all(math.isfinite(h.score) for h in fused)
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    order = [h.chunk_id for h in fused]
    assert order.index("q") < order.index("p")
    assert order.index("s") < order.index("r")


def test_a_single_hit(fuse, params):
    fused = fuse([ranked(Leg.BM25, "only"), ranked(Leg.DENSE)], params)
    assert [(h.chunk_id, h.rank) for h in fused] == [("only", 1)]
    assert math.isfinite(fused[0].score)


def test_deterministic_and_independent_of_list_order(fuse, params):
    first = fuse([BM25, DENSE], params)
    assert fuse([BM25, DENSE], params) == first
    assert fuse([DENSE, BM25], params) == first


@pytest.mark.parametrize("limit", [0, 1, 3, 5, 50])
def test_a_limit_builds_the_first_hits_of_the_same_order(fuse, params, limit):
    assert fuse([BM25, DENSE], params, limit=limit) == fuse([BM25, DENSE], params)[:limit]
