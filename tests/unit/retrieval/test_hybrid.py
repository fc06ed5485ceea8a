from dataclasses import dataclass

import pytest

from search_platform.domain.models import Leg, RankedList, SearchMode
from search_platform.retrieval.base import LegRequest
from search_platform.retrieval.fusion import FUSERS, FusionParams, Normalization
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest
from tests.unit.retrieval.lists import scored


@dataclass
class FixedLeg:
    leg: Leg
    ranked: RankedList

    async def retrieve(self, request: LegRequest) -> RankedList:
        return self.ranked


LEGS = {
    Leg.BM25: FixedLeg(Leg.BM25, scored(Leg.BM25, ("a", 9.0), ("b", 8.0), ("e", 1.0))),
    Leg.DENSE: FixedLeg(Leg.DENSE, scored(Leg.DENSE, ("b", 0.8), ("c", 0.3))),
}


def request(**fusion) -> SearchRequest:
    return SearchRequest(query="q", mode=SearchMode.HYBRID, index="i", top_k=10, candidate_k=10, rrf_k=7, **fusion)


async def test_the_requested_fusion_gets_the_requested_params():
    seen: list[FusionParams] = []

    def spy(lists, params):
        seen.append(params)
        return FUSERS["rrf"](lists, params)

    searcher = HybridSearcher(LEGS, fusers={"spy": spy})
    await searcher.search(request(fusion="spy", weights={Leg.DENSE: 2.0}, alpha=0.9,
                                  normalization=Normalization.ZSCORE))
    assert seen == [FusionParams(rrf_k=7, weights={Leg.DENSE: 2.0}, alpha=0.9, normalization=Normalization.ZSCORE)]
    assert searcher.fusion_methods == ("spy",)


@pytest.mark.parametrize("fusion", list(FUSERS))
async def test_every_registered_fusion_runs(fusion):
    result = await HybridSearcher(LEGS).search(request(fusion=fusion))
    assert [h.rank for h in result.hits] == [1, 2, 3, 4]
    assert result.hits[0].chunk_id == "b"
