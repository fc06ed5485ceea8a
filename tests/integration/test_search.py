"""Search in all three modes against real Elasticsearch, through the API and the SDK."""

from __future__ import annotations

import httpx
import pytest
from search_platform_client import InvalidRequestError, NotFoundError, SearchClient

from tests.integration.conftest import ingested_alias
from tests.integration.corpus import DOCUMENTS

pytestmark = pytest.mark.integration

IDENTIFIER_QUERY = "KX9ZQ4471"
PARAPHRASE_QUERY = "how should I hydrate vegetable plants when it is very warm outside"


@pytest.fixture(scope="module")
def corpus_index(api: str, admin_key: str, settings):
    with ingested_alias(api, admin_key, settings, DOCUMENTS, prefix="sp-test-search-corpus") as alias:
        yield alias


def doc_ids(response) -> list[str]:
    return [hit.doc_id for hit in response.hits]


def test_identifier_found_only_by_bm25_comes_back_from_hybrid(client, corpus_index):
    bm25 = client.search(IDENTIFIER_QUERY, mode="bm25", index=corpus_index, top_k=2, candidate_k=2)
    semantic = client.search(IDENTIFIER_QUERY, mode="semantic", index=corpus_index, top_k=2, candidate_k=2)
    assert doc_ids(bm25)[0] == "cabinet-parts"
    assert "cabinet-parts" not in doc_ids(semantic)
    hybrid = client.search(IDENTIFIER_QUERY, mode="hybrid", index=corpus_index, top_k=4, candidate_k=2)
    hit = next(h for h in hybrid.hits if h.doc_id == "cabinet-parts")
    assert set(hit.legs) == {"bm25"}
    assert hit.legs["bm25"].rank == 1


def test_paraphrase_found_only_by_dense_comes_back_from_hybrid(client, corpus_index):
    bm25 = client.search(PARAPHRASE_QUERY, mode="bm25", index=corpus_index, top_k=2, candidate_k=2)
    semantic = client.search(PARAPHRASE_QUERY, mode="semantic", index=corpus_index, top_k=2, candidate_k=2)
    assert "tomatoes" not in doc_ids(bm25)
    assert doc_ids(semantic)[0] == "tomatoes"
    hybrid = client.search(PARAPHRASE_QUERY, mode="hybrid", index=corpus_index, top_k=4, candidate_k=2)
    hit = next(h for h in hybrid.hits if h.doc_id == "tomatoes")
    assert set(hit.legs) == {"dense"}


def test_hybrid_score_is_rrf_of_leg_ranks(client, corpus_index):
    response = client.search("file paths os.path.join", mode="hybrid", index=corpus_index, rrf_k=60, fusion="rrf")
    assert response.rrf_k == 60
    for hit in response.hits:
        expected = sum(1 / (60 + leg.rank) for leg in hit.legs.values())
        assert hit.score == pytest.approx(expected)
    assert [h.rank for h in response.hits] == list(range(1, len(response.hits) + 1))
    assert doc_ids(response)[0] == "python-paths"


@pytest.mark.parametrize("mode", ["bm25", "semantic", "hybrid"])
def test_filters_restrict_every_leg(client, corpus_index, mode):
    response = client.search("error timeout retry paths", mode=mode, index=corpus_index,
                             filters={"tags": ["python"]}, top_k=10)
    assert response.hits
    assert set(doc_ids(response)) <= {"python-paths", "network-errors"}
    tenant = client.search("error timeout", mode=mode, index=corpus_index, filters={"tenants": ["nobody"]})
    assert tenant.hits == []


@pytest.mark.parametrize("mode", ["bm25", "semantic", "hybrid"])
def test_date_filters_take_any_rfc3339_offset(api, admin_key, corpus_index, mode):
    """Offsets up to ±23:59 are RFC 3339; Elasticsearch's own date parser stops at ±18:00 (once a 502)."""
    def search(filters: dict[str, str]) -> list[str]:
        response = httpx.post(f"{api}/v1/search", headers={"Authorization": f"Bearer {admin_key}"}, timeout=60,
                              json={"query": "error timeout retry paths", "mode": mode, "index": corpus_index,
                                    "group_by": "chunk", "filters": filters})
        assert response.status_code == 200, response.text
        return [hit["chunk_id"] for hit in response.json()["hits"]]

    everything = search({})
    assert everything
    assert search({"indexed_after": "0214-03-04T21:44:08+19:31", "indexed_before": "9999-12-31T23:59:59-23:59"}) \
        == everything
    assert search({"indexed_after": "9999-12-31T00:00:00+19:31"}) == []


def test_technical_terms_match_split_and_whole(client, corpus_index):
    for query in ("ERR_NETWORK_TIMEOUT_504", "network timeout 504", "CVE-2024-12345", "TypeScript 5.7"):
        response = client.search(query, mode="bm25", index=corpus_index, top_k=1)
        assert doc_ids(response)[0] in {"network-errors", "release-notes"}, query


def test_search_on_missing_index_is_404(client):
    with pytest.raises(NotFoundError):
        client.search("anything", index="sp-test-does-not-exist")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "top_k": 5000}, "top_k"),
        ({"query": "x", "filters": {"colour": ["red"]}}, "filters.colour"),
        ({"query": "x", "index": "../etc"}, "index"),
        ({"query": 42}, "query"),
    ],
)
def test_bad_requests_get_422_naming_the_field(api, auth_headers, body, field):
    response = httpx.post(f"{api}/v1/search", json=body, timeout=10, headers=auth_headers)
    assert response.status_code == 422
    payload = response.json()
    assert payload["error"] == "invalid_request"
    assert any(detail["field"] == field for detail in payload["details"]), payload


def test_limits_from_settings_get_422(client, corpus_index):
    with pytest.raises(InvalidRequestError, match="characters"):
        client.search("word " * 1000, index=corpus_index)
    with pytest.raises(InvalidRequestError, match="top_k"):
        client.search("x", top_k=500, index=corpus_index)
    with pytest.raises(InvalidRequestError, match="candidate_k"):
        client.search("x", mode="bm25", top_k=20, candidate_k=5, index=corpus_index)


def test_malformed_json_is_422(api, auth_headers):
    response = httpx.post(f"{api}/v1/search", content=b"{not json",
                          headers={"content-type": "application/json", **auth_headers})
    assert response.status_code == 422


def test_healthz_reports_each_dependency(client):
    health = client.health()
    assert health.ok and health.status == "ok"
    assert health.dependencies["elasticsearch"].ok is True
    assert health.dependencies["redis"].ok is True


async def test_async_sdk_round_trip(api, admin_key, corpus_index):
    from search_platform_client import AsyncSearchClient

    async with AsyncSearchClient(api, api_key=admin_key) as sdk:
        response = await sdk.search("sourdough starter", mode="hybrid", index=corpus_index)
    assert response.hits[0].doc_id == "bread"


@pytest.mark.parametrize(
    ("fusion", "options"),
    [
        ("rrf", {}),
        ("weighted_rrf", {"weights": {"bm25": 1.0, "dense": 2.0}}),
        ("convex", {"alpha": 0.7, "normalization": "minmax"}),
        ("convex", {"alpha": 0.3, "normalization": "zscore"}),
        ("dbsf", {"weights": {"bm25": 1.0, "dense": 1.0}}),
    ],
)
def test_each_fusion_method_returns_hits(client, corpus_index, fusion, options):
    response = client.search("sourdough starter", mode="hybrid", index=corpus_index, fusion=fusion, **options)
    assert response.fusion == fusion
    assert [h.rank for h in response.hits] == list(range(1, len(response.hits) + 1))
    assert doc_ids(response)[0] == "bread"


def test_weighted_rrf_score_is_weighted_reciprocal_ranks(client, corpus_index):
    weights = {"bm25": 2.0, "dense": 0.5}
    response = client.search("file paths os.path.join", index=corpus_index, rrf_k=60, fusion="weighted_rrf",
                             weights=weights)
    for hit in response.hits:
        assert hit.score == pytest.approx(sum(weights[leg] / (60 + s.rank) for leg, s in hit.legs.items()))


def test_convex_alpha_slides_between_the_legs(client, corpus_index):
    bm25_side = client.search(IDENTIFIER_QUERY, index=corpus_index, fusion="convex", alpha=0.0)
    assert doc_ids(bm25_side)[0] == "cabinet-parts"
    dense_side = client.search(PARAPHRASE_QUERY, index=corpus_index, fusion="convex", alpha=1.0)
    assert doc_ids(dense_side)[0] == "tomatoes"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "fusion": "borda"}, "fusion"),
        ({"query": "x", "alpha": 2}, "alpha"),
        ({"query": "x", "normalization": "l2"}, "normalization"),
        ({"query": "x", "weights": {"bm25": -1}}, "weights.bm25"),
    ],
)
def test_bad_fusion_requests_get_422_naming_the_field(api, auth_headers, body, field):
    response = httpx.post(f"{api}/v1/search", json=body, timeout=10, headers=auth_headers)
    assert response.status_code == 422
    assert any(detail["field"] == field for detail in response.json()["details"]), response.json()


def test_all_zero_weights_get_422(client, corpus_index):
    with pytest.raises(InvalidRequestError, match="not all be 0"):
        client.search("x", index=corpus_index, fusion="dbsf", weights={"bm25": 0, "dense": 0})


def test_pages_are_consecutive_slices_of_one_window(client, corpus_index):
    query = "error timeout paths water bread"
    whole = client.search(query, index=corpus_index, page_size=6, window=20)
    first = client.search(query, index=corpus_index, page=1, page_size=3, window=20)
    second = client.search(query, index=corpus_index, page=2, page_size=3, window=20)
    assert (second.page, second.page_size, second.window) == (2, 3, 20)
    assert first.total_in_window == second.total_in_window == whole.total_in_window >= 6
    assert [h.chunk_id for h in first.hits + second.hits] == [h.chunk_id for h in whole.hits]
    assert [h.rank for h in second.hits] == [4, 5, 6]
    assert not {h.chunk_id for h in first.hits} & {h.chunk_id for h in second.hits}


def test_top_k_is_the_page_size_alias(client, corpus_index):
    response = client.search("sourdough starter", index=corpus_index, top_k=2, page=2, window=10)
    assert (response.top_k, response.page_size, response.page) == (2, 2, 2)
    assert [h.rank for h in response.hits] == [3, 4]


def test_a_page_beyond_the_window_gets_422_naming_the_fields(api, auth_headers, corpus_index):
    body = {"query": "x", "index": corpus_index, "page": 3, "page_size": 5, "window": 10}
    response = httpx.post(f"{api}/v1/search", json=body, timeout=10, headers=auth_headers)
    assert response.status_code == 422
    assert [d["field"] for d in response.json()["details"]] == ["page", "page_size", "window"]
    assert "must be at most window (10)" in response.json()["message"]


@pytest.mark.parametrize(("fusion", "options"), [("rrf", {}), ("weighted_rrf", {"weights": {"dense": 2.0}}),
                                                 ("convex", {"alpha": 0.3}), ("dbsf", {})])
def test_explain_contributions_sum_to_the_score(client, corpus_index, fusion, options):
    response = client.search("file paths os.path.join", index=corpus_index, fusion=fusion, explain=True,
                             rrf_k=60, **options)
    assert response.hits
    for hit in response.hits:
        assert hit.explanation is not None
        assert hit.explanation.fusion == fusion
        assert sum(leg.contribution for leg in hit.explanation.legs.values()) == pytest.approx(hit.score)
        for leg, found in hit.legs.items():
            assert (hit.explanation.legs[leg].rank, hit.explanation.legs[leg].score) == (found.rank, found.score)
    params = response.hits[0].explanation.params
    if fusion == "weighted_rrf":
        assert params == {"rrf_k": 60, "weights": {"bm25": 1.0, "dense": 2.0}}
    if fusion == "convex":
        assert params == {"alpha": 0.3, "normalization": "minmax"}
        assert all(leg.normalized is not None for leg in response.hits[0].explanation.legs.values())


def test_explain_is_off_by_default(client, corpus_index):
    response = client.search("sourdough starter", index=corpus_index)
    assert all(hit.explanation is None for hit in response.hits)


def test_bm25_matches_are_highlighted_by_elasticsearch(client, corpus_index):
    response = client.search(IDENTIFIER_QUERY, mode="bm25", index=corpus_index, top_k=1)
    hit = response.hits[0]
    assert hit.snippet_source == "bm25"
    assert any("<em>KX9ZQ4471</em>" in fragment for fragment in hit.highlights)
    assert all(len(fragment) <= 150 + 40 for fragment in hit.highlights)


def test_dense_only_hits_get_a_client_side_snippet(client, corpus_index):
    response = client.search(PARAPHRASE_QUERY, index=corpus_index, top_k=4, candidate_k=2)
    hit = next(h for h in response.hits if h.doc_id == "tomatoes")
    assert hit.snippet_source == "dense"
    assert hit.highlights == [" ".join(hit.text.split())[:150]]  # no query term in the text: its start


def test_highlighting_can_be_turned_off(client, corpus_index):
    response = client.search(IDENTIFIER_QUERY, index=corpus_index, highlight=False)
    assert all(h.highlights == [] and h.snippet_source is None for h in response.hits)


def test_group_by_document_fuses_documents_and_shows_each_ones_best_passage(client, corpus_index):
    query = "error timeout paths water bread"
    documents = client.search(query, index=corpus_index, page_size=20, window=20, group_by="document")
    assert documents.group_by == "document"
    ids = doc_ids(documents)
    assert ids and len(ids) == len(set(ids))
    assert documents.total_in_window == len(documents.hits)
    assert [h.rank for h in documents.hits] == list(range(1, len(documents.hits) + 1))
    chunk_ids = {hit.chunk_id for hit in client.search(query, index=corpus_index, page_size=100, window=100,
                                                         candidate_k=200).hits}
    for hit in documents.hits:
        assert hit.text, "a document hit shows one of its chunks"
        assert [c.chunk_id for c in hit.chunks] == [hit.chunk_id]
        if "bm25" in hit.legs and hit.highlights and hit.snippet_source == "bm25":
            assert any(word in hit.text.lower() for word in query.split())
    assert {hit.chunk_id for hit in documents.hits} & chunk_ids, "passages are real chunks of the index"


async def test_async_sdk_pages_and_explains(api, admin_key, corpus_index):
    from search_platform_client import AsyncSearchClient

    async with AsyncSearchClient(api, api_key=admin_key) as sdk:
        response = await sdk.search("sourdough starter", index=corpus_index, page=2, page_size=1, window=5,
                                    explain=True, group_by="document")
    assert (response.page, response.page_size, response.window) == (2, 1, 5)
    assert [h.rank for h in response.hits] == [2]
    assert response.hits[0].explanation is not None


def test_rerank_without_a_configured_reranker_is_422(api, auth_headers, client, corpus_index):
    response = httpx.post(f"{api}/v1/search", json={"query": "watering", "index": corpus_index, "rerank": True},
                          timeout=30, headers=auth_headers)
    assert response.status_code == 422
    payload = response.json()
    assert "SP_RERANK__MODEL_PATH" in payload["message"]
    assert [detail["field"] for detail in payload["details"]] == ["rerank"]
    with pytest.raises(InvalidRequestError, match="no reranker is configured"):
        client.search("watering", index=corpus_index, rerank=True)
    default = client.search("watering", index=corpus_index)
    assert default.reranked is False
    assert all(hit.rerank_score is None for hit in default.hits)


@pytest.fixture(scope="module")
def reranking_api(services, corpus_index, tmp_path_factory):
    """A second API whose reranker is a tiny UNTRAINED cross-encoder built here (mechanics only, not quality)."""
    from tests.integration.conftest import _stop, launch_api
    from tests.tiny_cross_encoder import build_tiny_cross_encoder

    model_dir = build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-cross-encoder"))
    process, url = launch_api(services, tmp_path_factory.mktemp("rerank-api") / "api.log",
                              SP_RERANK__ENABLED="true", SP_RERANK__MODEL_PATH=str(model_dir),
                              SP_RERANK__TOP_N="20", SP_RERANK__BUDGET_MS="30000")
    yield url
    _stop(process)


def test_configured_reranker_reorders_the_top_n_with_scores(reranking_api, admin_key, corpus_index):
    with SearchClient(reranking_api, timeout=60, api_key=admin_key) as sdk:
        reranked = sdk.search("watering tomatoes", index=corpus_index, top_k=5, explain=True)
        fused = sdk.search("watering tomatoes", index=corpus_index, top_k=5, rerank=False)
    assert (reranked.reranked, reranked.rerank_reason) == (True, None)
    scores = [hit.rerank_score for hit in reranked.hits]
    assert None not in scores
    assert scores == sorted(scores, reverse=True)
    assert [hit.rank for hit in reranked.hits] == list(range(1, len(reranked.hits) + 1))
    assert all(hit.explanation and hit.explanation.rerank_score == hit.rerank_score for hit in reranked.hits)
    assert fused.reranked is False
    assert all(hit.rerank_score is None for hit in fused.hits)


def test_a_failing_dense_leg_degrades_to_bm25_with_200(client, auth_headers, services, index):
    """An index whose embedding has other dimensions makes Elasticsearch refuse the kNN leg: a real failure."""
    from search_platform.backends.elasticsearch.client import build_client

    es = build_client(services.elasticsearch)
    try:
        mappings = {"properties": {"kind": {"type": "keyword"}, "text": {"type": "text"},
                                   "embedding": {"type": "dense_vector", "dims": 8}}}
        es.indices.create(index=f"{index}-v2", mappings=mappings, aliases={index: {}})
        es.index(index=index, id="c1", document={"kind": "chunk", "text": "sourdough starter and wild yeast"},
                 refresh=True)
    finally:
        es.close()
    response = client.search("sourdough starter", mode="hybrid", index=index)
    assert response.degraded is True
    assert response.degraded_reason.startswith("dense leg failed")
    assert [hit.chunk_id for hit in response.hits] == ["c1"]
    semantic = httpx.post(f"{client._http.base_url}/v1/search",
                          json={"query": "sourdough", "mode": "semantic", "index": index}, timeout=30,
                          headers=auth_headers)
    assert semantic.status_code == 409 and "Traceback" not in semantic.text
    assert semantic.json()["error"] == "index_outdated"  # another model's vectors: the re-index path, not a 502


SMUGGLED_DSL = ['title:* OR 1=1 AND (foo', 'a"}}{"match_all":{}}', '{"script": {"source": "1"}}', '*', '"*"',
                '{"query": {"match_all": {}}}']


@pytest.mark.parametrize("query", SMUGGLED_DSL)
@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_query_dsl_smuggled_into_the_query_is_searched_as_text(api, auth_headers, corpus_index, query, mode):
    response = httpx.post(f"{api}/v1/search", headers=auth_headers, timeout=60,
                          json={"query": query, "index": corpus_index, "mode": mode, "top_k": 50})
    assert response.status_code == 200, response.text  # the index exists: a 404 must not pass for "no 5xx"
    body = response.json()
    assert body["index"] == corpus_index
    if mode == "bm25":  # DSL run as DSL (match_all, *, a script) would return every document
        assert len({hit["doc_id"] for hit in body["hits"]}) < len(DOCUMENTS), body["hits"]


@pytest.mark.parametrize(
    "payload",
    [
        b'{"query": "x", "top_k": 99999999999999999999}',
        b'{"query": "x", "page": 100000}',
        b'{"query": "\\ud800"}',
        b'[]',
        b'\xff\xfe',
        b'{"query": "x", "filters": {"tags": "a"}}',
    ],
)
def test_hostile_input_never_gets_a_5xx(api, auth_headers, corpus_index, payload):
    response = httpx.post(f"{api}/v1/search", content=payload.replace(b'"x"', b'"x", "index": "' +
                                                                       corpus_index.encode() + b'"'),
                          headers={"content-type": "application/json", **auth_headers}, timeout=30)
    assert response.status_code < 500, response.text
    if response.status_code != 200:  # a 200's hits may quote tracebacks from the documents themselves
        assert "Traceback" not in response.text


def test_query_dsl_in_a_query_string_is_searched_as_text(client, corpus_index):
    response = client.search('{"match_all": {}}', mode="bm25", index=corpus_index)
    assert response.hits == []  # a match_all would have returned every document
