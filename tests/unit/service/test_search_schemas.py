from typing import get_args

import pytest
from pydantic import ValidationError

from search_platform.client import models as sdk
from search_platform.domain.models import Leg
from search_platform.retrieval.fusion import FUSERS, Normalization
from search_platform.service.routes.search import to_weights
from search_platform.service.schemas import Fusion, SearchBody


def test_wire_fusion_names_are_the_registry():
    assert get_args(Fusion) == tuple(FUSERS)
    assert get_args(sdk.Fusion) == tuple(FUSERS)
    assert get_args(sdk.Normalization) == tuple(Normalization)


def test_fusion_fields_default_to_unset_and_rrf():
    body = SearchBody(query="q")
    assert (body.fusion, body.weights, body.alpha, body.normalization) == ("rrf", None, None, None)
    assert to_weights(body.weights) is None


def test_weights_map_to_legs_and_an_unsent_leg_weighs_one():
    body = SearchBody.model_validate({"query": "q", "fusion": "dbsf", "weights": {"dense": 2}})
    assert to_weights(body.weights) == {Leg.BM25: 1.0, Leg.DENSE: 2.0}


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
