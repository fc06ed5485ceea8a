import asyncio
from dataclasses import dataclass

import pytest

from search_platform.domain.errors import BackendError, BackendUnavailableError, IndexMissingError
from search_platform.domain.models import GroupBy, Leg, RankedHit, RankedList, SearchMode, SnippetSource
from search_platform.retrieval.base import LegRequest
from search_platform.retrieval.fusion import FUSERS, FusionParams, Normalization
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest
from search_platform.retrieval.passages import PagePassages, Passage
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
    return SearchRequest(query="q", index="i", top_k=10, candidate_k=10, rrf_k=7,
                         **{"mode": SearchMode.HYBRID, **fusion})


async def test_the_requested_fusion_gets_the_requested_params():
    seen: list[FusionParams] = []

    def spy(lists, params, *, limit=None):
        seen.append(params)
        return FUSERS["rrf"](lists, params, limit=limit)

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


class FakeRecords:
    """A record fetcher over stored records, highlighting the ids in `highlights`; it records each request."""

    def __init__(self, stored, highlights=None):
        self.stored = stored
        self.highlights = highlights or {}
        self.asked: list[tuple[list[str], bool]] = []

    async def records(self, query, *, index, chunk_ids, highlight):
        self.asked.append((chunk_ids, highlight))
        return {c: Passage(c, self.stored[c], self.highlights.get(c, ()) if highlight else ())
                for c in chunk_ids if c in self.stored}


async def test_the_page_alone_is_fetched_with_its_highlights_in_one_request():
    records = FakeRecords({"a": {"doc_id": "a", "text": "x"}, "b": {"doc_id": "b", "text": "No match. The q is here."},
                           "z": {"text": "z"}}, highlights={"a": ("<em>q</em> a",)})
    bm25 = RankedList(Leg.BM25, (RankedHit("a", 1, 2.0), RankedHit("z", 2, 1.0)))
    dense = RankedList(Leg.DENSE, (RankedHit("b", 1, 0.5),))
    legs = {Leg.BM25: FixedLeg(Leg.BM25, bm25), Leg.DENSE: FixedLeg(Leg.DENSE, dense)}
    result = await HybridSearcher(legs, record_fetcher=records).search(paged(highlight=True))
    assert records.asked == [(["a", "b"], True)]
    assert [(h.chunk_id, h.source["doc_id"], h.highlights, h.snippet_source) for h in result.hits] == [
        ("a", "a", ("<em>q</em> a",), SnippetSource.BM25),
        ("b", "b", ("The <em>q</em> is here.",), SnippetSource.DENSE)]


async def test_without_highlight_the_page_is_fetched_and_hits_have_no_snippet():
    records = FakeRecords({c: {"doc_id": c} for c in "abce"})
    result = await HybridSearcher(LEGS, record_fetcher=records).search(paged())
    assert records.asked == [(["b", "a"], False)]
    assert [h.source for h in result.hits] == [{"doc_id": "b"}, {"doc_id": "a"}]
    assert all(h.highlights == () and h.snippet_source is None for h in result.hits)


async def test_hits_are_built_for_the_window_only():
    built: list[int | None] = []

    def spy(lists, params, *, limit=None):
        built.append(limit)
        return FUSERS["rrf"](lists, params, limit=limit)

    result = await HybridSearcher(LEGS, fusers={"spy": spy}).search(paged(fusion="spy", page=2, top_k=1))
    assert built == [2] and [h.chunk_id for h in result.hits] == ["a"] and result.total_in_window == 2
    single = await HybridSearcher(LEGS).search(paged(mode=SearchMode.BM25, top_k=1, window=2))
    assert single.total_in_window == 2


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
    paged_in = await searcher.search(paged(mode=SearchMode.SEMANTIC, top_k=1, window=1, rerank=True))
    assert [h.chunk_id for h in paged_in.hits] == ["c"]  # top_n reaches past the window: all 3 are rescored


async def test_rerank_reads_text_fetched_for_the_top_n_and_the_page_is_not_fetched_again():
    from search_platform.retrieval.rerank import RerankStage

    records = FakeRecords({c: {"text": c} for c in "abcd"})
    lean = {Leg.DENSE: FixedLeg(Leg.DENSE, RankedList(Leg.DENSE, tuple(
        RankedHit(c, r, 1.0 / r) for r, c in enumerate("abcd", start=1))))}
    searcher = HybridSearcher(lean, rerank_stage=RerankStage(ReversedText(), top_n=3, budget_ms=5000),
                              record_fetcher=records)
    result = await searcher.search(paged(mode=SearchMode.SEMANTIC, top_k=2, rerank=True))
    assert [(h.chunk_id, h.source) for h in result.hits] == [("c", {"text": "c"}), ("b", {"text": "b"})]
    assert records.asked == [(["a", "b", "c"], False)]
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
    """A passage finder that knows the best lexical chunk of some documents and the stored records."""

    def __init__(self, passages, stored=None):
        self.passages_by_doc = passages
        self.stored = stored or {}
        self.asked: list[tuple[list[str], list[str]]] = []

    async def passages(self, query, *, index, doc_ids, shown_ids, filters):
        self.asked.append((doc_ids, shown_ids))
        matched = {doc: p for doc, p in self.passages_by_doc.items() if doc in doc_ids}
        return PagePassages(matched, {c: Passage(c, self.stored[c], matched=False) for c in shown_ids
                                      if c in self.stored and self.stored[c]["doc_id"] not in matched})


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
    assert finder.asked == [(["a", "b"], [record_a, "b#0"])]


async def test_a_document_without_a_passage_shows_the_fetched_record_of_its_best_chunk():
    from search_platform.retrieval.passages import Passage

    dense = RankedList(Leg.DENSE, (RankedHit("b#0", 1, 0.9, {"kind": "chunk", "doc_id": "b", "tenant": "t"}),
                                   RankedHit("a#2", 2, 0.8, {"kind": "chunk", "doc_id": "a", "tenant": "t"})))
    finder = FoundPassages({"a": Passage("a#5", {"doc_id": "a", "chunk_index": 5, "text": "ant"}, ("<em>ant</em>",))},
                           stored={"b#0": {"doc_id": "b", "chunk_index": 0, "text": "A bee. The q."}})
    searcher = HybridSearcher({Leg.DENSE: FixedLeg(Leg.DENSE, dense)}, passage_finder=finder)
    result = await searcher.search(request(mode=SearchMode.SEMANTIC, group_by=GroupBy.DOCUMENT))
    assert [(h.chunk_id, h.source, h.highlights) for h in result.hits] == [
        ("b#0", {"doc_id": "b", "chunk_index": 0, "text": "A bee. The q."}, ("The <em>q</em>.",)),
        ("a#5", {"doc_id": "a", "chunk_index": 5, "text": "ant"}, ("<em>ant</em>",))]
    assert [c.chunk_id for h in result.hits for c in h.chunks] == ["b#0", "a#5"]
