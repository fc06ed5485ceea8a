import asyncio
from dataclasses import dataclass

import pytest

from search_platform.domain.errors import BackendError, BackendUnavailableError, IndexMissingError
from search_platform.domain.models import GroupBy, Leg, RankedHit, RankedList, SearchMode, SnippetSource
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


def paged(**fields) -> SearchRequest:
    return SearchRequest(query="q", index="i", candidate_k=10, rrf_k=7,
                         **{"mode": SearchMode.HYBRID, "top_k": 2, **fields})


async def test_pages_are_disjoint_consecutive_slices_of_the_window():
    searcher = HybridSearcher(LEGS)
    whole = await searcher.search(paged(top_k=4, window=4))
    first = await searcher.search(paged(page=1, window=4))
    second = await searcher.search(paged(page=2, window=4))
    assert [h.chunk_id for h in first.hits + second.hits] == [h.chunk_id for h in whole.hits]
    assert [h.rank for h in second.hits] == [3, 4]
    assert first.total_in_window == second.total_in_window == 4


async def test_the_window_caps_what_pages_can_reach():
    result = await HybridSearcher(LEGS).search(paged(page=2, window=3))
    assert ([h.rank for h in result.hits], result.total_in_window) == ([3], 3)


async def test_single_leg_hits_contribute_their_raw_score():
    result = await HybridSearcher(LEGS).search(paged(mode=SearchMode.BM25, top_k=3))
    assert [h.contributions for h in result.hits] == [{Leg.BM25: 9.0}, {Leg.BM25: 8.0}, {Leg.BM25: 1.0}]


async def test_only_the_page_is_highlighted_and_unmatched_hits_get_a_client_side_snippet():
    asked: list[list[str]] = []

    class FakeHighlighter:
        async def highlight(self, query, *, index, chunk_ids):
            asked.append(chunk_ids)
            return {"a": ("<em>q</em> a",)}

    bm25 = RankedList(Leg.BM25, (RankedHit("a", 1, 2.0, {"text": "x"}), RankedHit("z", 2, 1.0, {"text": "z"})))
    dense = RankedList(Leg.DENSE, (RankedHit("b", 1, 0.5, {"text": "No match. The q is here."}),))
    legs = {Leg.BM25: FixedLeg(Leg.BM25, bm25), Leg.DENSE: FixedLeg(Leg.DENSE, dense)}
    result = await HybridSearcher(legs, highlighter=FakeHighlighter()).search(paged(highlight=True))
    assert asked == [["a", "b"]]
    assert [(h.chunk_id, h.highlights, h.snippet_source) for h in result.hits] == [
        ("a", ("<em>q</em> a",), SnippetSource.BM25), ("b", ("The <em>q</em> is here.",), SnippetSource.DENSE)]


async def test_without_highlight_hits_have_no_snippet():
    result = await HybridSearcher(LEGS).search(paged())
    assert all(h.highlights == () and h.snippet_source is None for h in result.hits)


async def test_group_by_document_pages_documents():
    dense = RankedList(Leg.DENSE, (RankedHit("a#1", 1, 0.9, {"doc_id": "a", "chunk_index": 1}),
                                   RankedHit("b#0", 2, 0.8, {"doc_id": "b"}),
                                   RankedHit("a#0", 3, 0.7, {"doc_id": "a"}),
                                   RankedHit("c#0", 4, 0.6, {"doc_id": "c"})))
    searcher = HybridSearcher({Leg.DENSE: FixedLeg(Leg.DENSE, dense)})
    result = await searcher.search(paged(mode=SearchMode.SEMANTIC, page=2, window=4, group_by=GroupBy.DOCUMENT))
    assert [(h.chunk_id, h.rank) for h in result.hits] == [("c#0", 3)]
    assert result.total_in_window == 3
    first = await searcher.search(paged(mode=SearchMode.SEMANTIC, window=4, group_by=GroupBy.DOCUMENT))
    assert [c.chunk_id for c in first.hits[0].chunks] == ["a#1"]


class ReversedText:
    """A fake reranker scoring texts in reverse alphabetical order."""

    def rerank(self, query, texts):
        return [float(ord(text[0])) for text in texts]


TEXT_LEGS = {Leg.DENSE: FixedLeg(Leg.DENSE, RankedList(Leg.DENSE, tuple(
    RankedHit(c, r, 1.0 / r, {"text": c}) for r, c in enumerate("abcd", start=1))))}


async def test_rerank_reorders_the_fused_top_n_before_paging():
    from search_platform.retrieval.rerank import RerankStage

    searcher = HybridSearcher(TEXT_LEGS, rerank_stage=RerankStage(ReversedText(), top_n=3, budget_ms=5000))
    result = await searcher.search(paged(mode=SearchMode.SEMANTIC, top_k=4, rerank=True))
    assert [(h.chunk_id, h.rank) for h in result.hits] == [("c", 1), ("b", 2), ("a", 3), ("d", 4)]
    assert (result.reranked, result.rerank_reason) == (True, None)
    unasked = await searcher.search(paged(mode=SearchMode.SEMANTIC, top_k=4))
    assert ([h.chunk_id for h in unasked.hits], unasked.reranked) == (["a", "b", "c", "d"], False)
    assert searcher.can_rerank and not HybridSearcher(TEXT_LEGS).can_rerank


class FailingLeg:
    def __init__(self, leg: Leg, error: Exception) -> None:
        self.leg = leg
        self.error = error

    async def retrieve(self, request: LegRequest) -> RankedList:
        raise self.error


class SlowLeg:
    leg = Leg.DENSE

    async def retrieve(self, request: LegRequest) -> RankedList:
        await asyncio.sleep(5)
        raise AssertionError("should have timed out")


async def test_a_failing_leg_degrades_to_the_other_leg():
    legs = {Leg.BM25: LEGS[Leg.BM25], Leg.DENSE: FailingLeg(Leg.DENSE, BackendError("knn refused", 400))}
    result = await HybridSearcher(legs).search(request())
    assert [h.chunk_id for h in result.hits] == ["a", "b", "e"]
    assert result.degraded_reason == "dense leg failed: knn refused"
    assert set(result.leg_took_ms) == {Leg.BM25}


async def test_a_slow_leg_times_out_and_degrades():
    legs = {Leg.BM25: LEGS[Leg.BM25], Leg.DENSE: SlowLeg()}
    result = await HybridSearcher(legs, leg_timeout_s=0.05).search(request())
    assert result.degraded_reason == "dense leg failed: timed out after 0.05 s"
    assert result.hits


async def test_healthy_legs_are_not_degraded():
    assert (await HybridSearcher(LEGS).search(request())).degraded_reason is None


@pytest.mark.parametrize(
    "legs",
    [
        {Leg.BM25: FailingLeg(Leg.BM25, BackendUnavailableError("down")),
         Leg.DENSE: FailingLeg(Leg.DENSE, BackendUnavailableError("down too"))},
        {Leg.BM25: LEGS[Leg.BM25], Leg.DENSE: FailingLeg(Leg.DENSE, IndexMissingError("no index", 404))},
        {Leg.BM25: LEGS[Leg.BM25], Leg.DENSE: FailingLeg(Leg.DENSE, RuntimeError("a bug"))},
    ],
)
async def test_errors_that_degrading_cannot_hide_are_raised(legs):
    with pytest.raises((BackendError, RuntimeError)):
        await HybridSearcher(legs).search(request())


class FoundPassages:
    """A passage finder that knows the best lexical chunk of some documents."""

    def __init__(self, passages):
        self.passages_by_doc = passages
        self.asked: list[list[str]] = []

    async def passages(self, query, *, index, doc_ids, filters):
        self.asked.append(doc_ids)
        return {doc: p for doc, p in self.passages_by_doc.items() if doc in doc_ids}


async def test_documents_are_fused_once_each_and_shown_as_their_passage():
    from search_platform.backends.elasticsearch.mappings import document_record_id
    from search_platform.retrieval.passages import Passage

    record_a = document_record_id(tenant="t", doc_id="a")
    bm25 = RankedList(Leg.BM25, (RankedHit(record_a, 1, 5.0, {"kind": "document", "doc_id": "a", "tenant": "t"}),))
    dense = RankedList(Leg.DENSE, (RankedHit("b#0", 1, 0.9, {"doc_id": "b", "tenant": "t", "text": "bee"}),
                                   RankedHit("a#2", 2, 0.8, {"doc_id": "a", "tenant": "t", "text": "ant"}),
                                   RankedHit("b#1", 3, 0.7, {"doc_id": "b", "tenant": "t", "text": "bee 2"})))
    finder = FoundPassages({"a": Passage("a#5", {"doc_id": "a", "chunk_index": 5, "text": "ant hill"},
                                         ("<em>ant</em> hill",))})
    searcher = HybridSearcher({Leg.BM25: FixedLeg(Leg.BM25, bm25), Leg.DENSE: FixedLeg(Leg.DENSE, dense)},
                              passage_finder=finder)
    result = await searcher.search(request(group_by=GroupBy.DOCUMENT))
    assert [(h.source["doc_id"], h.chunk_id) for h in result.hits] == [("a", "a#5"), ("b", "b#0")]
    assert result.hits[0].score == pytest.approx(1 / (7 + 1) + 1 / (7 + 2))
    assert result.hits[0].highlights == ("<em>ant</em> hill",)
    assert result.hits[1].snippet_source is SnippetSource.DENSE and "chunk_id" not in result.hits[1].source
    assert finder.asked == [["a", "b"]]
