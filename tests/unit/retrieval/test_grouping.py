from search_platform.domain.models import ChunkRef, FusedHit, Leg, LegScore
from search_platform.retrieval.grouping import group_by_document


def hit(chunk_id: str, doc_id: str, rank: int, chunk_index: int = 0) -> FusedHit:
    return FusedHit(chunk_id=chunk_id, rank=rank, score=1.0 / rank, legs={Leg.BM25: LegScore(rank, 1.0 / rank)},
                    source={"doc_id": doc_id, "chunk_index": chunk_index})


def test_documents_sit_at_their_best_chunks_rank_order_with_every_chunk_listed():
    hits = [hit("a#2", "a", 1, 2), hit("b#0", "b", 2), hit("a#0", "a", 3, 0), hit("c#1", "c", 4, 1),
            hit("b#5", "b", 5, 5)]
    grouped = group_by_document(hits)
    assert [(h.chunk_id, h.rank) for h in grouped] == [("a#2", 1), ("b#0", 2), ("c#1", 3)]
    assert grouped[0].chunks == (ChunkRef("a#2", 2, 1, 1.0 / 1), ChunkRef("a#0", 0, 3, 1.0 / 3))
    assert grouped[1].chunks == (ChunkRef("b#0", 0, 2, 1.0 / 2), ChunkRef("b#5", 5, 5, 1.0 / 5))
    assert grouped[2].chunks == (ChunkRef("c#1", 1, 4, 1.0 / 4),)
    assert grouped[0].score == 1.0 / 1


def test_input_order_does_not_matter_rank_does():
    hits = [hit("b#0", "b", 2), hit("a#0", "a", 1)]
    assert [h.chunk_id for h in group_by_document(hits)] == ["a#0", "b#0"]


def test_a_hit_without_doc_id_is_its_own_document():
    lone = FusedHit(chunk_id="x", rank=1, score=1.0, legs={}, source={})
    assert [h.chunks for h in group_by_document([lone])] == [(ChunkRef("x", 0, 1, 1.0),)]


def test_no_hits():
    assert group_by_document([]) == []


def test_documents_of_keeps_each_documents_best_chunk_keyed_by_its_record():
    from search_platform.backends.elasticsearch.mappings import document_record_id
    from search_platform.domain.models import RankedHit, RankedList
    from search_platform.retrieval.grouping import documents_of

    dense = RankedList(Leg.DENSE, (
        RankedHit("a#3", 1, 0.9, {"doc_id": "a", "tenant": "t"}),
        RankedHit("b#0", 2, 0.8, {"doc_id": "b", "tenant": "t"}),
        RankedHit("a#0", 3, 0.7, {"doc_id": "a", "tenant": "t"}),
        RankedHit("a#0u", 4, 0.6, {"doc_id": "a", "tenant": "u"}),
    ))
    documents = documents_of(dense)
    key = document_record_id
    assert [(h.chunk_id, h.rank, h.score) for h in documents.hits] == [
        (key(tenant="t", doc_id="a"), 1, 0.9), (key(tenant="t", doc_id="b"), 2, 0.8),
        (key(tenant="u", doc_id="a"), 3, 0.6)]
    assert documents.hits[0].source["chunk_id"] == "a#3"


def test_documents_of_leaves_document_records_as_they_are():
    from search_platform.domain.models import RankedHit, RankedList
    from search_platform.retrieval.grouping import documents_of

    record = RankedHit("rec-a", 1, 7.0, {"kind": "document", "doc_id": "a", "tenant": "t"})
    assert documents_of(RankedList(Leg.BM25, (record,))).hits == (record,)
