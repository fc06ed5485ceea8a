"""The option clause of the BM25 body (retrieval.option_boost) on the platform's real index mapping: the page that
writes an option outranks pages whose English stems match it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import RecordKind, index_body
from search_platform.backends.elasticsearch.queries import bm25_body
from search_platform.config import Settings
from search_platform.text.tokenizer import query_options

pytestmark = pytest.mark.integration

DOCUMENTS = {
    # "execution", "executes" and "executing" share the English stem of "-executable"
    "execution-cycle": "Execution cycle. The execution of a script executes each command in turn; executing stops "
                       "at the end of the input, and execution resumes with the next file.",
    "mode-bits": "Mode bits. -executable matches files the current user may run, checked with access(2).",
}


@pytest.fixture(scope="module")
def option_index(services: Settings) -> Iterator[tuple[Elasticsearch, str]]:
    es = build_client(services.elasticsearch)
    name = f"sp-test-options-{uuid.uuid4().hex[:12]}"
    body = index_body(services.elasticsearch, dims=4)
    es.indices.create(index=name, settings=body["settings"], mappings=body["mappings"])
    for doc_id, text in DOCUMENTS.items():
        es.index(index=name, id=doc_id, document={"kind": RecordKind.DOCUMENT.value, "doc_id": doc_id, "body": text})
    es.indices.refresh(index=name)
    yield es, name
    es.indices.delete(index=name, ignore_unavailable=True)
    es.close()


@pytest.mark.parametrize(("option_boost", "ranked"), [(0.0, ["execution-cycle", "mode-bits"]),
                                                    (1.0, ["mode-bits", "execution-cycle"])])
def test_the_option_clause_finds_the_page_that_writes_the_option(
    option_index: tuple[Elasticsearch, str], option_boost: float, ranked: list[str]
) -> None:
    es, index = option_index
    query = "-executable"
    body = bm25_body(query, fields={"body": 1.0}, kind=RecordKind.DOCUMENT, tech_query="", candidate_k=10,
                     filters=[], tech_boost=0.0, options=query_options(query), option_field="body.ident",
                     option_boost=option_boost)
    hits = es.search(index=index, body=body)["hits"]["hits"]
    assert [hit["_id"] for hit in hits] == ranked
