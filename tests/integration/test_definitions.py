"""The definitions leg against real Elasticsearch: document records hold the names they define, and a query that
writes a name ranks the documents defining it (only those), beside the other legs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from search_platform.backends.elasticsearch.client import build_async_client, build_client
from search_platform.config import Settings
from search_platform.domain.models import Filters, GroupBy, Leg
from search_platform.retrieval.base import LegRequest
from search_platform.retrieval.bm25 import BM25Retriever
from tests.integration.conftest import ingested_alias

pytestmark = pytest.mark.integration

DOCUMENTS = {
    # the page that defines the option: an option list, each name starting its line
    "cat-invocation": "cat: concatenate and write files\n\n"
                      "-n\n--number\n     Number all output lines, starting with 1.\n\n"
                      "-s\n--squeeze-blank\n     Suppress repeated adjacent blank lines; output just one empty line.",
    # pages that only use it, inside sentences, and more often
    "blank-lines": "Blank lines\n\nTo squeeze blank lines, run cat with --squeeze-blank. The --squeeze-blank option "
                   "keeps one blank line of each run; --squeeze-blank is what most people want for logs.",
    "tr-squeezing": "Squeezing repeats\n\nUnlike cat --squeeze-blank, tr squeezes repeated characters of a set; "
                    "see also --squeeze-blank in cat.",
}


@pytest.fixture(scope="module")
def definitions_index(api: str, admin_key: str, settings: Settings) -> Iterator[str]:
    documents = [{"doc_id": doc_id, "content": content} for doc_id, content in DOCUMENTS.items()]
    with ingested_alias(api, admin_key, settings, documents, prefix="sp-test-defines") as alias:
        yield alias


def test_a_document_record_holds_the_names_its_lines_start_with(settings: Settings, definitions_index: str) -> None:
    es = build_client(settings.elasticsearch)
    try:
        found = es.search(index=definitions_index, source=["doc_id", "defines"], size=10,
                          query={"term": {"kind": "document"}})
    finally:
        es.close()
    defines = {hit["_source"]["doc_id"]: hit["_source"]["defines"] for hit in found["hits"]["hits"]}
    assert {"--squeeze-blank", "-s", "--number", "-n"} <= set(defines["cat-invocation"])
    assert "--squeeze-blank" not in defines["blank-lines"]
    assert "--squeeze-blank" not in defines["tr-squeezing"]


def definitions_leg(settings: Settings, index: str, query: str, filters: Filters | None = None) -> list[str]:
    """doc_id of every record the definitions leg returns, best first."""

    async def run() -> list[str]:
        es = build_async_client(settings.elasticsearch)
        try:
            ranked = await BM25Retriever(es, settings.retrieval, leg=Leg.DEFINITIONS).retrieve(
                LegRequest(text=query, index=index, candidate_k=10, filters=filters or Filters(),
                           unit=GroupBy.DOCUMENT))
        finally:
            await es.close()
        return [str(hit.source["doc_id"]) for hit in ranked.hits]

    return asyncio.run(run())


def test_the_definitions_leg_returns_only_the_documents_that_define_a_name_of_the_query(
        settings: Settings, definitions_index: str) -> None:
    assert definitions_leg(settings, definitions_index, "--squeeze-blank") == ["cat-invocation"]
    assert definitions_leg(settings, definitions_index, "squeeze blank lines") == []  # no name: no request
    assert definitions_leg(settings, definitions_index, "--squeeze-blank", Filters(tenants=("elsewhere",))) == []


def search(api: str, headers: dict[str, str], index: str, query: str, **extra: object) -> dict[str, object]:
    response = httpx.post(f"{api}/v1/search", headers=headers, timeout=60,
                          json={"query": query, "index": index, "group_by": "document", **extra})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_name_query_over_documents_fuses_the_definitions_list_and_explains_it(
        api: str, definitions_index: str, auth_headers: dict[str, str]) -> None:
    body = search(api, auth_headers, definitions_index, "--squeeze-blank", explain=True)
    assert "definitions" in body["leg_took_ms"]
    hits = {hit["doc_id"]: hit for hit in body["hits"]}  # type: ignore[attr-defined]
    explanation = hits["cat-invocation"]["explanation"]
    assert explanation["params"]["weights"]["definitions"] == 0.5  # the lexical route: a bare name
    assert explanation["legs"]["definitions"]["rank"] == 1
    assert "definitions" not in hits["blank-lines"]["explanation"]["legs"]
    assert sum(leg["contribution"] for leg in explanation["legs"].values()) == pytest.approx(explanation["score"])
    sentence = search(api, auth_headers, definitions_index, "how do I squeeze blank lines")
    assert "definitions" not in sentence["leg_took_ms"], "a query that writes no name does not run it"


def test_the_definitions_weight_lifts_the_defining_page_over_pages_that_repeat_the_name(
        api: str, definitions_index: str, auth_headers: dict[str, str]) -> None:
    legs = {"bm25": 1.0, "dense": 0.25}
    without = search(api, auth_headers, definitions_index, "--squeeze-blank", weights=legs)
    with_it = search(api, auth_headers, definitions_index, "--squeeze-blank", weights={**legs, "definitions": 2.0})
    assert "definitions" not in without["leg_took_ms"]
    assert without["hits"][0]["doc_id"] == "blank-lines"  # type: ignore[index]
    assert with_it["hits"][0]["doc_id"] == "cat-invocation"  # type: ignore[index]
