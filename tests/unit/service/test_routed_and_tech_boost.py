import pytest

from search_platform.config import RetrievalSettings
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import FusedHit, GroupBy, Leg, LegScore, SearchMode
from search_platform.retrieval.hybrid import HybridSearcher
from search_platform.retrieval.routing import Route
from search_platform.service.routes.search import to_explanation
from search_platform.service.search_service import SearchParams, SearchService


def service() -> SearchService:
    return SearchService(HybridSearcher({}), RetrievalSettings(), default_index="sp-chunks")


@pytest.mark.parametrize(
    ("query", "route", "weights"),
    [
        ("json.JSONDecodeError", Route.LEXICAL, {Leg.BM25: 1.0, Leg.DENSE: 0.25, Leg.DENSE_LEAD: 0.0,
                                                         Leg.DEFINITIONS: 0.5}),
        ("create a folder with any missing parents", Route.SEMANTIC,
         {Leg.BM25: 0.3, Leg.DENSE: 1.0, Leg.DENSE_LEAD: 0.5, Leg.DEFINITIONS: 0.25}),
        ("flatten a list of lists with itertools.chain", Route.MIXED,
         {Leg.BM25: 1.0, Leg.DENSE: 1.0, Leg.DENSE_LEAD: 0.0, Leg.DEFINITIONS: 0.25}),
    ],
)
def test_routed_fusion_takes_the_weights_of_the_query_route(query, route, weights):
    request = service().resolve(SearchParams(query=query, fusion="routed"))
    assert (request.fusion, request.route, request.weights) == ("routed", route, weights)
    assert request.fusion_params().weights == weights


def test_other_fusions_have_no_route():
    request = service().resolve(SearchParams(query="json.loads", fusion="weighted_rrf", weights={Leg.BM25: 2.0}))
    assert (request.route, request.weights) == (None, {Leg.BM25: 2.0})


def test_routed_fusion_refuses_weights_sent_with_it():
    with pytest.raises(InvalidQueryError, match="routed"):
        service().resolve(SearchParams(query="q", fusion="routed", weights={Leg.BM25: 1.0}))


def test_tech_boost_defaults_to_the_setting_and_may_be_overridden():
    assert service().resolve(SearchParams(query="q")).tech_boost is None
    assert service().resolve(SearchParams(query="q", tech_boost=0.0)).tech_boost == 0.0


@pytest.mark.parametrize("tech_boost", [-1.0, float("nan"), float("inf")])
def test_tech_boost_is_checked(tech_boost):
    with pytest.raises(InvalidQueryError, match="tech_boost"):
        service().resolve(SearchParams(query="q", tech_boost=tech_boost))


def hit() -> FusedHit:
    legs = {Leg.BM25: LegScore(rank=1, score=3.0)}
    return FusedHit(chunk_id="c", rank=1, score=1 / 61, legs=legs, source={}, contributions={Leg.BM25: 1 / 61})


def test_the_explanation_names_the_route_of_a_routed_search():
    request = service().resolve(SearchParams(query="json.JSONDecodeError", fusion="routed", explain=True))
    explanation = to_explanation(hit(), request)
    assert (explanation.fusion, explanation.route) == ("routed", "lexical")
    assert explanation.params == {"rrf_k": 5, "weights": {"bm25": 1.0, "dense": 0.25}}


def test_the_explanation_weighs_the_passage_list_like_bm25_when_it_ran():
    request = service().resolve(SearchParams(query="json.JSONDecodeError", explain=True, group_by=GroupBy.DOCUMENT))
    assert to_explanation(hit(), request).params["weights"] == {"bm25": 1.0, "bm25_passage": 1.0, "dense": 0.25,
                                                                "definitions": 0.5}


def test_the_explanation_has_no_route_otherwise():
    for params in (SearchParams(query="json.loads", fusion="rrf"),
                   SearchParams(query="json.loads", mode=SearchMode.BM25)):
        assert to_explanation(hit(), service().resolve(params)).route is None
