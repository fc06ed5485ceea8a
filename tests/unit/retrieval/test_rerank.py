import asyncio
import threading
from collections.abc import Sequence

import pytest

from search_platform.domain.models import FusedHit, Leg, LegScore
from search_platform.retrieval.rerank import BUDGET_EXCEEDED, RerankStage, rerank_hits


def hit(chunk_id: str, rank: int, text: str = "") -> FusedHit:
    return FusedHit(chunk_id=chunk_id, rank=rank, score=1 / (60 + rank), legs={Leg.BM25: LegScore(rank, 1.0)},
                    source={"text": text or chunk_id})


HITS = [hit(c, r) for r, c in enumerate("abcde", start=1)]


class ByLength:
    """A fake reranker: longer texts score higher; records what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append((query, list(texts)))
        return [float(len(text)) for text in texts]


class Slow:
    """A fake reranker that overruns any small budget."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.release.wait(5)
        return [1.0] * len(texts)


class Broken:
    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        raise RuntimeError("boom")


def test_top_hits_are_reordered_by_score_and_the_rest_keep_fused_order():
    result = rerank_hits(HITS, [0.1, 0.9, 0.5])
    assert [h.chunk_id for h in result] == ["b", "c", "a", "d", "e"]
    assert [h.rank for h in result] == [1, 2, 3, 4, 5]
    assert [h.rerank_score for h in result] == [0.9, 0.5, 0.1, None, None]


def test_fused_scores_and_legs_are_kept():
    result = rerank_hits(HITS, [0.0, 1.0])
    assert (result[0].chunk_id, result[0].score, result[0].legs) == ("b", 1 / 62, HITS[1].legs)


def test_ties_keep_fused_order():
    assert [h.chunk_id for h in rerank_hits(HITS, [0.5, 0.5, 0.7])] == ["c", "a", "b", "d", "e"]


def test_no_scores_change_only_nothing():
    assert rerank_hits(HITS, []) == HITS


def test_more_scores_than_hits_is_a_bug():
    with pytest.raises(ValueError, match="6 rerank scores for 5 hits"):
        rerank_hits(HITS, [0.0] * 6)


async def test_stage_reranks_only_top_n_with_the_hits_texts():
    hits = [hit("a", 1, "x"), hit("b", 2, "xxx"), hit("c", 3, "xx"), hit("d", 4, "xxxxxxxx")]
    reranker = ByLength()
    outcome = await RerankStage(reranker, top_n=3, budget_ms=5000).apply("q", hits)
    assert reranker.calls == [("q", ["x", "xxx", "xx"])]
    assert (outcome.reranked, outcome.reason) == (True, None)
    assert [h.chunk_id for h in outcome.hits] == ["b", "c", "a", "d"]


async def test_stage_over_budget_keeps_the_fused_order_and_says_why():
    slow = Slow()
    stage = RerankStage(slow, top_n=3, budget_ms=50)
    outcome = await asyncio.wait_for(stage.apply("q", HITS), timeout=2)
    slow.release.set()
    assert (outcome.reranked, outcome.reason) == (False, BUDGET_EXCEEDED)
    assert outcome.hits == HITS


async def test_stage_with_a_failing_reranker_keeps_the_fused_order():
    outcome = await RerankStage(Broken(), top_n=3, budget_ms=5000).apply("q", HITS)
    assert (outcome.reranked, outcome.reason, outcome.hits) == (False, "reranker failed: RuntimeError", HITS)


class Miscounting:
    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        return [1.0]


async def test_stage_with_a_wrong_number_of_scores_keeps_the_fused_order():
    outcome = await RerankStage(Miscounting(), top_n=3, budget_ms=5000).apply("q", HITS)
    assert (outcome.reranked, outcome.hits) == (False, HITS)
