"""The stages a search records: encoding split out of the dense leg, each leg, fusion, rerank when it ran, page."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from search_platform.domain.models import Leg, SearchMode
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest, leg_stages
from search_platform.retrieval.rerank import RerankStage
from tests.unit.retrieval.lists import scored
from tests.unit.retrieval.test_hybrid import FixedLeg

BM25 = replace(scored(Leg.BM25, ("a", 9.0), ("b", 8.0)), took_ms=4.0)
DENSE = replace(scored(Leg.DENSE, ("b", 0.8), ("c", 0.3)), took_ms=9.0, encode_ms=6.5)
LEGS = {Leg.BM25: FixedLeg(Leg.BM25, BM25), Leg.DENSE: FixedLeg(Leg.DENSE, DENSE)}


def request(mode: SearchMode, **fields: Any) -> SearchRequest:
    return SearchRequest(query="q", mode=mode, index="i", top_k=2, candidate_k=10, rrf_k=60, **fields)


def test_leg_stages_reuse_took_ms_and_split_the_encoding_out_of_the_dense_leg() -> None:
    assert [(s.name, s.ms) for s in leg_stages([BM25, DENSE])] == [("bm25", 4.0), ("encode", 6.5),
                                                                    ("dense", 9.0 - 6.5)]


async def test_a_hybrid_search_records_encode_each_leg_fusion_and_page() -> None:
    result = await HybridSearcher(LEGS).search(request(SearchMode.HYBRID))
    assert [s.name for s in result.stages] == ["bm25", "encode", "dense", "fusion", "page"]
    assert all(s.ms >= 0 for s in result.stages)
    assert sum(s.ms for s in result.stages if s.name in ("fusion", "page")) <= result.took_ms


async def test_a_bm25_search_records_its_one_leg() -> None:
    result = await HybridSearcher(LEGS).search(request(SearchMode.BM25))
    assert [s.name for s in result.stages] == ["bm25", "fusion", "page"]


class Reversing:
    def rerank(self, query: str, texts: list[str]) -> list[float]:
        return [float(i) for i in range(len(texts))]


async def test_rerank_is_a_stage_only_when_it_ran() -> None:
    searcher = HybridSearcher(LEGS, rerank_stage=RerankStage(Reversing(), top_n=3, budget_ms=5000))
    reranked = await searcher.search(request(SearchMode.HYBRID, rerank=True))
    plain = await searcher.search(request(SearchMode.HYBRID))
    assert reranked.reranked
    assert "rerank" in [s.name for s in reranked.stages]
    assert "rerank" not in [s.name for s in plain.stages]


def test_the_dense_legs_share_one_encoding_so_it_is_one_stage() -> None:
    lead = replace(scored(Leg.DENSE_LEAD, ("c", 0.7)), took_ms=8.0, encode_ms=6.0)
    assert [(s.name, s.ms) for s in leg_stages([BM25, DENSE, lead])] == [
        ("bm25", 4.0), ("encode", 6.5), ("dense", 9.0 - 6.5), ("dense_lead", 8.0 - 6.0)]
