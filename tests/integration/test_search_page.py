"""The legs return ids and scores only; what a page shows is fetched for the page: every hit's fields must be its
stored record's, in every mode, for chunk and document results, with and without highlights."""

from __future__ import annotations

import uuid

import pytest
from search_platform_client import SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import delete_index
from search_platform.config import load_settings
from tests.integration.corpus import DOCUMENTS

pytestmark = pytest.mark.integration

QUERY = "watering tomatoes in hot weather"
NO_LEXICAL_MATCH = "qzxv wpqj"  # no chunk contains these words: every document hit shows a leg's best chunk
SHOWN_FIELDS = ("doc_id", "chunk_index", "title", "section", "text", "source", "tags", "tenant")


@pytest.fixture(scope="module")
def page_index(api: str, admin_key: str):
    alias = f"sp-test-page-{uuid.uuid4().hex[:12]}"  # unique: concurrent runs never delete each other's index
    with SearchClient(api, timeout=60, api_key=admin_key) as sdk:
        job = sdk.ingest(DOCUMENTS, index=alias)
        assert sdk.wait_for_job(job.job_id, timeout_s=300).state == "done"
    es = build_client(load_settings().elasticsearch)
    yield alias, es
    delete_index(es, alias=alias)
    es.close()


def stored(es, alias: str, chunk_id: str) -> dict[str, object]:
    """The record as Elasticsearch stores it, in the hit's field names and defaults."""
    source = es.get(index=alias, id=chunk_id)["_source"]
    return {"doc_id": source["doc_id"], "chunk_index": source.get("chunk_index", 0), "title": source.get("title", ""),
            "section": source.get("section", ""), "text": source.get("text", ""), "source": source.get("source", ""),
            "tags": source.get("tags", []), "tenant": source.get("tenant", "")}


@pytest.mark.parametrize("mode", ["bm25", "semantic", "hybrid"])
@pytest.mark.parametrize("group_by", ["chunk", "document"])
@pytest.mark.parametrize("highlight", [True, False])
def test_every_hit_shows_its_stored_record(client, page_index, mode, group_by, highlight):
    alias, es = page_index
    response = client.search(QUERY, mode=mode, group_by=group_by, highlight=highlight, index=alias, top_k=5)
    assert response.hits
    for hit in response.hits:
        assert {field: getattr(hit, field) for field in SHOWN_FIELDS} == stored(es, alias, hit.chunk_id)
        assert hit.legs
        if hit.text:  # a document's own record (document-level BM25, no chunk matched) has no text to mark
            assert bool(hit.highlights) == (highlight or group_by == "document")


def test_a_document_without_a_matching_chunk_shows_the_best_chunk_a_leg_found(client, page_index):
    alias, es = page_index
    chunks = client.search(NO_LEXICAL_MATCH, mode="semantic", index=alias, top_k=50, window=50)
    best_chunk: dict[str, str] = {}
    for hit in chunks.hits:
        best_chunk.setdefault(hit.doc_id, hit.chunk_id)
    documents = client.search(NO_LEXICAL_MATCH, mode="semantic", group_by="document", index=alias, top_k=5)
    assert documents.hits
    for hit in documents.hits:
        assert hit.chunk_id == best_chunk[hit.doc_id]
        assert {field: getattr(hit, field) for field in SHOWN_FIELDS} == stored(es, alias, hit.chunk_id)
        assert hit.snippet_source == "dense" and [c.chunk_id for c in hit.chunks] == [hit.chunk_id]
