from search_platform.client.models import search_payload

BASE = {"mode": "hybrid", "top_k": None, "candidate_k": None, "rrf_k": None, "filters": None, "index": None}


def test_unset_fusion_options_are_left_out():
    assert search_payload("q", **BASE) == {"query": "q", "mode": "hybrid"}


def test_fusion_options_are_sent():
    payload = search_payload("q", **BASE, fusion="convex", weights={"dense": 2.0}, alpha=0.3, normalization="zscore")
    assert payload == {"query": "q", "mode": "hybrid", "fusion": "convex", "weights": {"dense": 2.0}, "alpha": 0.3,
                       "normalization": "zscore"}
