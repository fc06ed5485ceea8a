"""Lifecycle pieces that need no services: batch bounds, the chunk cap, tenant-scoped ids, document summaries."""

from __future__ import annotations

import pytest

from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.ids import scoped
from search_platform.domain.models import Document
from search_platform.ingestion.batch import check_chunk_count
from search_platform.ingestion.jobs import split_batches
from search_platform.ingestion.lifecycle import DocumentNotFoundError, summarize


def _doc(doc_id: str, size: int) -> Document:
    return Document(doc_id=doc_id, content="x" * size)


def test_batches_end_at_the_count_or_the_byte_bound():
    docs = [_doc(str(n), 100) for n in range(7)]
    assert [len(b) for b in split_batches(docs, per_batch=3)] == [3, 3, 1]
    assert [len(b) for b in split_batches(docs, per_batch=16, max_bytes=250)] == [2, 2, 2, 1]
    big = [_doc("a", 10), _doc("huge", 1000), _doc("b", 10)]
    assert [[d.doc_id for d in b] for b in split_batches(big, per_batch=16, max_bytes=100)] == [["a"], ["huge"], ["b"]]


def test_a_document_over_the_chunk_cap_fails_with_the_reason():
    check_chunk_count(1000, limit=1000)
    with pytest.raises(InvalidDocumentError, match="makes 1001 chunks, over the limit of 1000"):
        check_chunk_count(1001, limit=1000)


@pytest.mark.parametrize(("one", "other"), [
    (("pa", "x:K"), ("pa:x", "K")),
    (("*", "K"), (None, "K")),
    (("a", "b:c"), ("a:b", "c")),
    (("", "K"), (None, "K")),
])
def test_scoped_ids_never_collide_across_tenants(one, other):
    assert scoped(*one) != scoped(*other)
    assert scoped(*one) == scoped(*one)


def test_a_summary_counts_chunks_and_prefers_the_document_record_s_hash():
    hits = [{"_source": {"doc_id": "d", "chunk_index": i, "content_hash": f"h{i}", "indexed_at": f"2026-01-0{i + 1}",
                         "title": "T", "source": "s", "tags": ["t"]}} for i in range(3)]
    info = summarize(hits, index="sp-x", tenant="a", doc_id="d")
    assert (info.chunk_count, info.indexed_at, info.title, info.tags) == (3, "2026-01-03", "T", ("t",))
    record = {"_source": {"doc_id": "d", "content_hash": "whole", "title": "T"}}
    assert summarize([*hits, record], index="sp-x", tenant="a", doc_id="d").content_hash == "whole"
    with pytest.raises(DocumentNotFoundError):
        summarize([record], index="sp-x", tenant="a", doc_id="d")
