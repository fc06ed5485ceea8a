from search_platform.client.models import search_payload

BASE = {"mode": "hybrid", "top_k": None, "candidate_k": None, "rrf_k": None, "filters": None, "index": None}


def test_unset_fusion_options_are_left_out():
    assert search_payload("q", **BASE) == {"query": "q", "mode": "hybrid"}


def test_fusion_options_are_sent():
    payload = search_payload("q", **BASE, fusion="convex", weights={"dense": 2.0}, alpha=0.3, normalization="zscore")
    assert payload == {"query": "q", "mode": "hybrid", "fusion": "convex", "weights": {"dense": 2.0}, "alpha": 0.3,
                       "normalization": "zscore"}


def test_paging_and_view_options_are_sent_false_included():
    payload = search_payload("q", **BASE, page=2, page_size=5, window=50, group_by="document", highlight=False,
                             explain=True)
    assert payload == {"query": "q", "mode": "hybrid", "page": 2, "page_size": 5, "window": 50,
                       "group_by": "document", "highlight": False, "explain": True}


def test_responses_from_an_older_service_still_parse():
    from search_platform.client import SearchResponse

    old = {"mode": "hybrid", "index": "i", "top_k": 1, "candidate_k": 1, "rrf_k": 60, "fusion": "rrf",
           "took_ms": 1.0, "leg_took_ms": {}, "hits": [{"rank": 1, "score": 1.0, "chunk_id": "c", "doc_id": "d",
                                                         "chunk_index": 0}]}
    response = SearchResponse.model_validate(old)
    assert (response.page, response.group_by, response.hits[0].highlights, response.hits[0].explanation) == (
        1, "chunk", [], None)


def test_rerank_is_sent_when_set_false_included():
    assert search_payload("q", **BASE, rerank=False) == {"query": "q", "mode": "hybrid", "rerank": False}
    assert "rerank" not in search_payload("q", **BASE)
