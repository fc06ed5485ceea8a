import time

from search_platform.domain.models import Filters, FusedHit, Leg
from search_platform.retrieval.base import ranked_list_from_response
from search_platform.retrieval.page import ElasticsearchRecordFetcher, hydrated, shown_id
from search_platform.retrieval.passages import ElasticsearchPassageFinder, Passage


class FakeClient:
    """Answers every search with one response and keeps the bodies it was sent."""

    def __init__(self, hits):
        self.hits = hits
        self.bodies: list[dict] = []

    async def search(self, *, index, body):
        self.bodies.append(body)
        return {"hits": {"hits": self.hits}}


def test_lean_candidates_carry_their_doc_value_fields_as_single_values():
    response = {"hits": {"hits": [
        {"_id": "a#1", "_score": 3.5, "fields": {"kind": ["chunk"], "doc_id": ["a"], "tenant": ["t"]}},
        {"_id": "b#0", "_score": 1.0},
        {"_id": "c#0", "_score": None, "_source": {"doc_id": "c", "text": "full"}},
    ]}}
    ranked = ranked_list_from_response(Leg.BM25, response, started=time.perf_counter())
    assert [(h.chunk_id, h.rank, h.score, h.source) for h in ranked.hits] == [
        ("a#1", 1, 3.5, {"kind": "chunk", "doc_id": "a", "tenant": "t"}),
        ("b#0", 2, 1.0, {}),
        ("c#0", 3, 0.0, {"doc_id": "c", "text": "full"}),
    ]


async def test_the_record_fetcher_returns_stored_fields_and_highlights_by_id_in_one_search():
    client = FakeClient([
        {"_id": "a#1", "_source": {"doc_id": "a", "text": "q here"}, "highlight": {"text": ["<em>q</em>"]}},
        {"_id": "b#0", "_source": {"doc_id": "b", "text": "other"}},
    ])
    found = await ElasticsearchRecordFetcher(client).records("q", index="i", chunk_ids=["a#1", "b#0"], highlight=True)
    assert found == {"a#1": Passage("a#1", {"doc_id": "a", "text": "q here"}, ("<em>q</em>",)),
                     "b#0": Passage("b#0", {"doc_id": "b", "text": "other"})}
    assert len(client.bodies) == 1 and "highlight" in client.bodies[0]
    assert await ElasticsearchRecordFetcher(client).records("q", index="i", chunk_ids=[], highlight=True) == {}
    assert len(client.bodies) == 1


async def test_the_passage_finder_tells_matched_passages_from_the_records_shown_for_lack_of_one():
    client = FakeClient([
        {"_id": "a#5", "_source": {"doc_id": "a", "chunk_index": 5}, "matched_queries": ["passage"],
         "highlight": {"text": ["<em>ant</em>"]}},
        {"_id": "b#0", "_source": {"doc_id": "b", "chunk_index": 0}, "matched_queries": [],
         "highlight": {"text": ["ignored"]}},
    ])
    found = await ElasticsearchPassageFinder(client).passages("ant", index="i", doc_ids=["a", "b"],
                                                              shown_ids=["a#2", "b#0"], filters=Filters())
    assert found.matched == {"a": Passage("a#5", {"doc_id": "a", "chunk_index": 5}, ("<em>ant</em>",))}
    assert found.shown == {"b#0": Passage("b#0", {"doc_id": "b", "chunk_index": 0}, (), matched=False)}
    assert client.bodies[0]["query"]["bool"]["should"][1] == {"ids": {"values": ["a#2", "b#0"], "boost": 0.0}}


def hit(chunk_id: str, source: dict) -> FusedHit:
    return FusedHit(chunk_id=chunk_id, rank=1, score=1.0, legs={}, source=source)


def test_a_document_hit_shows_the_chunk_a_leg_found_and_keeps_its_name_when_hydrated():
    document = hit("record-a", {"kind": "chunk", "doc_id": "a", "tenant": "t", "chunk_id": "a#2"})
    assert shown_id(document) == "a#2" and shown_id(hit("a#2", {})) == "a#2"
    assert hydrated(document, Passage("a#2", {"doc_id": "a", "text": "x"})).source == {
        "doc_id": "a", "text": "x", "chunk_id": "a#2"}
    assert hydrated(document, None) is document
