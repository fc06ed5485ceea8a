from typing import get_args

import pytest
from pydantic import ValidationError
from search_platform_client import models as sdk

from search_platform.domain.models import FusedHit, GroupBy, Leg, LegScore, SearchMode
from search_platform.retrieval.fusion import FUSERS, Normalization
from search_platform.retrieval.hybrid import SearchRequest
from search_platform.service.routes.search import to_explanation, to_hit, to_weights
from search_platform.service.schemas import Fusion, SearchBody


def test_wire_fusion_names_are_the_registry():
    assert get_args(Fusion) == tuple(FUSERS)
    assert get_args(sdk.Fusion) == tuple(FUSERS)
    assert get_args(sdk.Normalization) == tuple(Normalization)


def test_fusion_fields_default_to_unset():
    body = SearchBody(query="q")
    assert (body.fusion, body.weights, body.alpha, body.normalization) == (None, None, None, None)
    assert to_weights(body.weights) is None


def test_weights_map_to_legs_and_an_unsent_leg_weighs_one_but_the_opt_in_lists_zero():
    body = SearchBody.model_validate({"query": "q", "fusion": "dbsf", "weights": {"dense": 2}})
    assert to_weights(body.weights) == {Leg.BM25: 1.0, Leg.DENSE: 2.0, Leg.DENSE_LEAD: 0.0, Leg.DEFINITIONS: 0.0}
    body = SearchBody.model_validate({"query": "q", "weights": {"dense_lead": 0.5, "definitions": 0.25}})
    assert to_weights(body.weights) == {Leg.BM25: 1.0, Leg.DENSE: 1.0, Leg.DENSE_LEAD: 0.5, Leg.DEFINITIONS: 0.25}


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"fusion": "borda"}, ("fusion",)),
        ({"alpha": 1.01}, ("alpha",)),
        ({"normalization": "l2"}, ("normalization",)),
        ({"weights": {"bm25": -1}}, ("weights", "bm25")),
        ({"weights": {"sparse": 1}}, ("weights", "sparse")),
    ],
)
def test_bad_fusion_fields_are_rejected_by_name(fields, where):
    with pytest.raises(ValidationError) as caught:
        SearchBody.model_validate({"query": "q", **fields})
    assert [error["loc"] for error in caught.value.errors()] == [where]


def test_paging_and_view_fields_default_to_the_documented_values():
    body = SearchBody(query="q")
    assert (body.page, body.page_size, body.window, body.group_by, body.highlight, body.explain) == (
        1, None, None, GroupBy.CHUNK, True, False)


@pytest.mark.parametrize(("fields", "where"), [({"page": 0}, ("page",)), ({"page_size": 0}, ("page_size",)),
                                               ({"window": 0}, ("window",)), ({"group_by": "page"}, ("group_by",))])
def test_bad_paging_fields_are_rejected_by_name(fields, where):
    with pytest.raises(ValidationError) as caught:
        SearchBody.model_validate({"query": "q", **fields})
    assert [error["loc"] for error in caught.value.errors()] == [where]


HIT = FusedHit(chunk_id="c", rank=1, score=1 / 61 + 0.25 / 63, legs={Leg.BM25: LegScore(1, 7.5),
                                                                  Leg.DENSE: LegScore(3, 0.4)},
               source={"doc_id": "d"}, contributions={Leg.BM25: 1 / 61, Leg.DENSE: 0.25 / 63})


def hybrid(**fields) -> SearchRequest:
    return SearchRequest(query="q", mode=SearchMode.HYBRID, index="i", top_k=10, candidate_k=10, rrf_k=60,
                         **fields)


def test_explanation_lists_each_leg_and_the_params_the_fusion_reads():
    explanation = to_explanation(HIT, hybrid(fusion="weighted_rrf", weights={Leg.DENSE: 0.25}))
    assert explanation.model_dump() == {
        "fusion": "weighted_rrf",
        "params": {"rrf_k": 60, "weights": {"bm25": 1.0, "dense": 0.25}},
        "score": 1 / 61 + 0.25 / 63,
        "legs": {"bm25": {"rank": 1, "score": 7.5, "normalized": None, "contribution": 1 / 61},
                 "dense": {"rank": 3, "score": 0.4, "normalized": None, "contribution": 0.25 / 63}},
        "rerank_score": None,
        "route": None,
    }


def test_an_absent_leg_is_explained_with_its_contribution_only():
    hit = FusedHit(chunk_id="c", rank=1, score=0.3, legs={Leg.DENSE: LegScore(1, 0.9)}, source={},
                   contributions={Leg.BM25: 0.0, Leg.DENSE: 0.3}, normalized={Leg.BM25: 0.0, Leg.DENSE: 1.0})
    legs = to_explanation(hit, hybrid(fusion="convex", alpha=0.3)).legs
    assert legs["bm25"].model_dump() == {"rank": None, "score": None, "normalized": 0.0, "contribution": 0.0}


def test_one_leg_modes_explain_as_fusion_none_and_explain_off_leaves_it_out():
    request = SearchRequest(query="q", mode=SearchMode.BM25, index="i", top_k=1, candidate_k=1, rrf_k=60,
                            explain=True)
    hit = FusedHit(chunk_id="c", rank=1, score=7.5, legs={Leg.BM25: LegScore(1, 7.5)}, source={},
                   contributions={Leg.BM25: 7.5})
    explanation = to_hit(hit, request).explanation
    assert explanation is not None
    assert (explanation.fusion, explanation.params, explanation.legs["bm25"].contribution) == ("none", {}, 7.5)
    assert to_hit(HIT, hybrid()).explanation is None
