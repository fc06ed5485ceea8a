"""The seed stack peer: tokenisation, RRF formulas, both legs on a tiny corpus, and one real-model run."""

from __future__ import annotations

import pytest

from search_platform.domain.models import Document
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.evaluation.seed_stack import (
    SeedChunk,
    SeedStack,
    chunk_documents,
    rrf_fuse,
    tokenize,
)

DOCS = [
    Document(doc_id="heap.md", content="Configure the Elasticsearch heap size.\n\nSet Xms and Xmx to the same value."),
    Document(
        doc_id="celery.md", content="Celery workers retry transient failures.\n\nUse acks_late for idempotent tasks."
    ),
    Document(doc_id="rrf.md", content="Reciprocal rank fusion combines ranked lists from BM25 and kNN."),
]


def paragraph_chunker(document: Document) -> list[tuple[str, str]]:
    """Split on blank lines; chunk ids are doc_id#n."""
    parts = [p for p in document.content.split("\n\n") if p.strip()]
    return [(f"{document.doc_id}#{i}", part) for i, part in enumerate(parts)]


@pytest.fixture(scope="module")
def stack():
    seed = SeedStack.from_documents(DOCS, chunker=paragraph_chunker, embedder=FakeEmbedder())
    yield seed
    seed.close()


def test_tokenize_lowercases_word_characters():
    assert tokenize("Path.mkdir(parents=True) ECONNREFUSED") == ["path", "mkdir", "parents", "true", "econnrefused"]


def test_rrf_fuse_formula_and_tie_breaks():
    fused = dict(rrf_fuse([["a", "b", "c"], ["c", "a"]], rrf_k=60))
    assert fused["a"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 2))
    assert fused["c"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert fused["b"] == pytest.approx(1 / (60 + 2))
    assert [item for item, _ in rrf_fuse([["x", "y"], ["y", "x"]])] == ["x", "y"]


def test_chunk_documents_refuses_duplicate_ids():
    assert chunk_documents(DOCS[:1], paragraph_chunker)[1] == SeedChunk("heap.md#1", "heap.md", DOCS[0].content[40:])
    with pytest.raises(ValueError, match="duplicate chunk id"):
        chunk_documents(DOCS[:1], lambda d: [("same", "a"), ("same", "b")])


def test_bm25_leg_only_returns_chunks_sharing_a_token(stack):
    assert stack.bm25_ranking("acks_late idempotent", candidate_k=10) == ["celery.md#1"]
    assert stack.bm25_ranking("zzz", candidate_k=10) == []


def test_dense_leg_ranks_every_chunk_by_cosine(stack):
    ranking = stack.dense_ranking("Xms Xmx same value", candidate_k=10)
    assert ranking[0] == "heap.md#1"
    assert len(ranking) == 5


def test_search_returns_chunk_hits_with_doc_ids_fused_by_rrf(stack):
    hits = stack.search("heap size", top_k=3)
    assert len(hits) == 3
    assert hits[0].doc_id == "heap.md"
    assert hits[0].score == pytest.approx(1 / (60 + 1) + 1 / (60 + 1))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_empty_corpus_returns_nothing():
    empty = SeedStack([], embedder=FakeEmbedder())
    assert empty.search("anything", top_k=5) == []


@pytest.mark.slow
def test_real_minilm_model_end_to_end():
    seed = SeedStack.from_documents(DOCS, chunker=paragraph_chunker)
    try:
        dense = seed.dense_ranking("how much memory should the search engine use", candidate_k=3)
        assert dense[0].startswith("heap.md")
        assert seed.search("background job retries", top_k=1)[0].doc_id == "celery.md"
    finally:
        seed.close()
