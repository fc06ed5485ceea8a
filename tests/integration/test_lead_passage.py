"""The lead-passage dense leg against real Elasticsearch: it ranks only each document's first chunk, and a
sentence query over documents runs it beside the best-chunk dense leg."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import Settings
from search_platform.domain.models import GroupBy, Leg
from search_platform.embeddings.factory import build_embedder
from search_platform.retrieval.base import LegRequest
from search_platform.retrieval.dense import DenseRetriever
from search_platform.retrieval.query_encoder import QueryEncoder
from tests.integration.conftest import ingested_alias

pytestmark = pytest.mark.integration

SENTENCE = "how do I keep a sourdough starter alive between bakes"
# several chunks each (chunking.max_tokens is 200): the first says what the page is about, the rest go on
PARAGRAPHS = {
    "starter-care": [
        "Keeping a sourdough starter alive. A starter is a culture of wild yeast and bacteria in flour and water; "
        "it lives as long as it is fed, and this page says how to feed it between bakes.",
        *(f"Step {n}: discard most of the culture, add equal weights of flour and water, stir and leave it at "
          f"room temperature for {n + 3} hours before it goes back to the refrigerator for the week." for n in
          range(1, 40)),
    ],
    "oven-manual": [
        "Oven manual. This page describes the controls of the deck oven, its steam injection and cleaning.",
        *(f"Control {n}: the dial sets the deck temperature in steps of {n * 5} degrees; the steam button "
          "injects water for the first minutes of a bake; clean the stone with a dry brush." for n in range(1, 40)),
    ],
}


@pytest.fixture(scope="module")
def lead_index(api: str, admin_key: str, settings: Settings) -> Iterator[str]:
    documents = [{"doc_id": doc_id, "title": doc_id.replace("-", " "), "content": "\n\n".join(paragraphs)}
                 for doc_id, paragraphs in PARAGRAPHS.items()]
    with ingested_alias(api, admin_key, settings, documents, prefix="sp-test-lead") as alias:
        yield alias


def chunk_indices(settings: Settings, index: str, leg: Leg) -> list[tuple[str, int]]:
    """(doc_id, chunk_index) of every chunk the leg returns for SENTENCE, best first."""

    async def run() -> list[tuple[str, int]]:
        es = build_async_client(settings.elasticsearch)
        try:
            encoder = QueryEncoder(build_embedder(settings.embedding), cache_size=0)
            retriever = DenseRetriever(es, encoder, settings.retrieval, leg=leg)
            ranked = await retriever.retrieve(LegRequest(text=SENTENCE, index=index, candidate_k=50,
                                                         unit=GroupBy.CHUNK))
            found = await es.search(index=index, size=len(ranked.hits), source=["doc_id", "chunk_index"],
                                    query={"ids": {"values": [hit.chunk_id for hit in ranked.hits]}})
        finally:
            await es.close()
        stored = {hit["_id"]: hit["_source"] for hit in found["hits"]["hits"]}
        return [(stored[hit.chunk_id]["doc_id"], stored[hit.chunk_id]["chunk_index"]) for hit in ranked.hits]

    return asyncio.run(run())


def test_the_lead_leg_ranks_each_documents_first_chunk_only(settings: Settings, lead_index: str) -> None:
    every_chunk = chunk_indices(settings, lead_index, Leg.DENSE)
    assert any(position > 0 for _, position in every_chunk), "the documents have several chunks"
    lead = chunk_indices(settings, lead_index, Leg.DENSE_LEAD)
    assert sorted(lead) == [("oven-manual", 0), ("starter-care", 0)]
    assert lead[0] == ("starter-care", 0)


def test_a_sentence_over_documents_runs_the_lead_leg_and_its_contribution_is_explained(
        api: str, lead_index: str, auth_headers: dict[str, str]) -> None:
    response = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                          json={"query": SENTENCE, "index": lead_index, "group_by": "document", "explain": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body["leg_took_ms"]) == {"bm25", "bm25_passage", "dense", "dense_lead"}
    top = body["hits"][0]
    assert top["doc_id"] == "starter-care"
    explanation = top["explanation"]
    assert explanation["route"] == "semantic"
    assert explanation["params"]["weights"]["dense_lead"] == 0.5
    assert explanation["legs"]["dense_lead"]["rank"] == 1
    assert sum(leg["contribution"] for leg in explanation["legs"].values()) == pytest.approx(explanation["score"])
    chunks = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                        json={"query": SENTENCE, "index": lead_index})
    assert "dense_lead" not in chunks.json()["leg_took_ms"], "chunk results never run the lead leg"
