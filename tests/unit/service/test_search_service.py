import math
import re

import pytest

from search_platform.config import RetrievalSettings
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Filters, GroupBy, Leg, SearchMode
from search_platform.retrieval.fusion import FUSERS, FusionParams, Normalization
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest
from search_platform.retrieval.routing import Route
from search_platform.service.search_service import SearchParams, SearchService


def service(**limits) -> SearchService:
    return SearchService(HybridSearcher({}), RetrievalSettings(**limits), default_index="sp-chunks")


def test_defaults_fill_every_k():
    request = service(top_k=7, candidate_k=50, rrf_k=30).resolve(SearchParams(query="  hello  "))
    assert request == SearchRequest(query="hello", mode=SearchMode.HYBRID, index="sp-chunks", top_k=7,
                                    candidate_k=50, rrf_k=30, filters=Filters(), window=100, fusion="routed",
                                    route=Route.LEXICAL,
                                    weights={Leg.BM25: 1.0, Leg.DENSE: 0.25, Leg.DENSE_LEAD: 0.0,
                                             Leg.DEFINITIONS: 0.5},
                                    legs=(Leg.BM25, Leg.DENSE))


def test_documents_in_hybrid_run_document_and_passage_bm25_beside_dense():
    request = service().resolve(SearchParams(query="q", group_by=GroupBy.DOCUMENT))
    assert request.legs == (Leg.BM25, Leg.BM25_PASSAGE, Leg.DENSE)
    assert service(lexical_unit="document").resolve(
        SearchParams(query="q", group_by=GroupBy.DOCUMENT)).legs == (Leg.BM25, Leg.DENSE)
    assert service().resolve(SearchParams(query="q", mode=SearchMode.BM25, group_by=GroupBy.DOCUMENT)).legs == (
        Leg.BM25,)


def test_the_lead_passage_list_runs_for_documents_when_it_weighs_more_than_zero():
    sentence = "how do I copy a directory tree"  # the semantic route, whose lead weight is 0.5 by default
    documents = service().resolve(SearchParams(query=sentence, group_by=GroupBy.DOCUMENT))
    assert documents.legs == (Leg.BM25, Leg.BM25_PASSAGE, Leg.DENSE, Leg.DENSE_LEAD)
    assert documents.fusion_params().weight(Leg.DENSE_LEAD) == 0.5
    # chunks as results: no lead list (it would add each document's first chunk as a hit of its own)
    assert service().resolve(SearchParams(query=sentence)).legs == (Leg.BM25, Leg.DENSE)
    # an identifier lookup's route gives it no weight, so it does not run
    assert service().resolve(SearchParams(query="json.loads", group_by=GroupBy.DOCUMENT)).legs == (
        Leg.BM25, Leg.BM25_PASSAGE, Leg.DENSE, Leg.DEFINITIONS)
    # weights sent without it leave it off; sent with it, it runs
    assert Leg.DENSE_LEAD not in service().resolve(SearchParams(
        query=sentence, group_by=GroupBy.DOCUMENT, weights={Leg.BM25: 1.0, Leg.DENSE: 1.0})).legs
    assert service().resolve(SearchParams(query="q", group_by=GroupBy.DOCUMENT, weights={
        Leg.DENSE_LEAD: 2.0})).legs[-1] is Leg.DENSE_LEAD


def test_the_definitions_list_runs_for_documents_when_the_query_writes_a_name_on_any_route():
    for query, weight in (("--squeeze-blank", 0.5), ("how do I make a LOCATE_PATH database", 0.25),
                          ("what does Rc::downgrade return", 0.25)):
        request = service().resolve(SearchParams(query=query, group_by=GroupBy.DOCUMENT))
        assert request.legs[-1] is Leg.DEFINITIONS
        assert request.fusion_params().weight(Leg.DEFINITIONS) == weight
    assert Leg.DEFINITIONS not in service().resolve(SearchParams(query="how do I copy a directory tree",
                                                                 group_by=GroupBy.DOCUMENT)).legs
    assert Leg.DEFINITIONS not in service().resolve(SearchParams(query="--squeeze-blank")).legs  # chunk results
    assert Leg.DEFINITIONS not in service().resolve(SearchParams(
        query="--squeeze-blank", group_by=GroupBy.DOCUMENT, weights={Leg.BM25: 1.0, Leg.DENSE: 1.0})).legs
    assert Leg.DEFINITIONS not in service().resolve(SearchParams(
        query="--squeeze-blank", group_by=GroupBy.DOCUMENT, fusion="rrf")).legs


def test_candidate_k_default_grows_to_top_k():
    request = service(candidate_k=20).resolve(SearchParams(query="q", top_k=40))
    assert (request.top_k, request.candidate_k) == (40, 40)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (SearchParams(query="   "), "empty"),
        (SearchParams(query="x" * 2001), "2001 characters"),
        (SearchParams(query="q", top_k=101), "top_k"),
        (SearchParams(query="q", candidate_k=1001), "candidate_k"),
        (SearchParams(query="q", mode=SearchMode.BM25, top_k=10, candidate_k=5), "at least top_k"),
    ],
)
def test_limits(params, message):
    with pytest.raises(InvalidQueryError, match=message):
        service().resolve(params)


def test_hybrid_may_return_more_than_candidate_k_since_legs_add_up():
    request = service().resolve(SearchParams(query="q", top_k=10, candidate_k=5))
    assert (request.top_k, request.candidate_k) == (10, 5)


def test_fusion_defaults_to_routed_rrf_with_the_route_weights():
    request = service().resolve(SearchParams(query="how do I copy a directory tree"))
    assert (request.fusion, request.route, request.weights, request.alpha, request.normalization) == (
        "routed", Route.SEMANTIC, {Leg.BM25: 0.3, Leg.DENSE: 1.0, Leg.DENSE_LEAD: 0.5, Leg.DEFINITIONS: 0.25}, 0.5,
        Normalization.MINMAX)


def test_weights_sent_without_a_fusion_ask_for_weighted_rrf_when_the_default_is_routed():
    request = service().resolve(SearchParams(query="q", weights={Leg.BM25: 2.0, Leg.DENSE: 1.0}))
    assert (request.fusion, request.weights, request.route) == ("weighted_rrf", {Leg.BM25: 2.0, Leg.DENSE: 1.0},
                                                                None)
    assert service(fusion="rrf").resolve(SearchParams(query="q", weights={Leg.BM25: 2.0})).fusion == "rrf"


def test_fusion_and_weights_default_to_the_settings():
    settings = RetrievalSettings(fusion="weighted_rrf", bm25_weight=2.0, dense_weight=0.5)
    searcher = HybridSearcher({})
    request = SearchService(searcher, settings, default_index="sp-chunks").resolve(SearchParams(query="q"))
    assert (request.fusion, request.weights) == ("weighted_rrf", {Leg.BM25: 2.0, Leg.DENSE: 0.5})


def test_fusion_params_pass_through():
    request = service(rrf_k=30).resolve(SearchParams(
        query="q", fusion="convex", weights={Leg.BM25: 0.0, Leg.DENSE: 2.5}, alpha=0.25,
        normalization=Normalization.ZSCORE))
    assert request.fusion_params() == FusionParams(rrf_k=30, weights={Leg.BM25: 0.0, Leg.DENSE: 2.5}, alpha=0.25,
                                                   normalization=Normalization.ZSCORE)
    assert request.fusion == "convex"


@pytest.mark.parametrize("fusion", list(FUSERS))
def test_every_registered_fusion_is_accepted(fusion):
    assert service().resolve(SearchParams(query="q", fusion=fusion)).fusion == fusion


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (SearchParams(query="q", fusion="borda"),
         "unknown fusion 'borda': choose one of rrf, weighted_rrf, convex, dbsf"),
        (SearchParams(query="q", alpha=1.5), "alpha must be between 0 and 1"),
        (SearchParams(query="q", alpha=-0.1), "alpha must be between 0 and 1"),
        (SearchParams(query="q", alpha=math.nan), "alpha must be between 0 and 1"),
        (SearchParams(query="q", weights={Leg.BM25: -1.0}), "at least 0"),
        (SearchParams(query="q", weights={Leg.BM25: math.inf}), "finite"),
        (SearchParams(query="q", weights={Leg.BM25: 0.0, Leg.DENSE: 0.0}), "not all be 0"),  # passage follows bm25
        (SearchParams(query="q", weights={"sparse": 1.0}), "legs are bm25, bm25_passage, dense"),  # type: ignore[dict-item]
        (SearchParams(query="q", normalization="l2"), "choose one of minmax, zscore"),  # type: ignore[arg-type]
    ],
)
def test_fusion_params_are_checked(params, message):
    with pytest.raises(InvalidQueryError, match=re.escape(message)):
        service().resolve(params)


def test_one_zero_weight_is_fine_when_the_other_leg_weighs_something():
    assert service().resolve(SearchParams(query="q", weights={Leg.BM25: 0.0})).weights == {Leg.BM25: 0.0}


def test_page_size_defaults_to_top_k_and_window_to_settings():
    request = service(window=40).resolve(SearchParams(query="q", top_k=5, page=3))
    assert (request.top_k, request.page, request.window, request.fusion_window) == (5, 3, 40, 40)
    assert service().resolve(SearchParams(query="q", page_size=6)).top_k == 6
    assert service().resolve(SearchParams(query="q", page_size=6, top_k=6)).top_k == 6


def test_the_default_window_holds_at_least_one_page():
    assert service(window=10, max_top_k=50).resolve(SearchParams(query="q", page_size=30)).window == 30


def test_view_options_pass_through():
    request = service().resolve(SearchParams(query="q", highlight=True, explain=True, group_by=GroupBy.DOCUMENT))
    assert (request.highlight, request.explain, request.group_by) == (True, True, GroupBy.DOCUMENT)
    assert (service().resolve(SearchParams(query="q")).highlight, request.page) == (False, 1)


@pytest.mark.parametrize(
    ("params", "message", "fields"),
    [
        (SearchParams(query="q", page=3, page_size=5, window=10),
         "page * page_size (3 * 5 = 15) must be at most window (10)", ("page", "page_size", "window")),
        (SearchParams(query="q", window=1001), "window must be at most 1000", ("window",)),
        (SearchParams(query="q", page=0), "page starts at 1", ("page",)),
        (SearchParams(query="q", page_size=5, top_k=6), "page_size (5) and top_k (6) differ", ("page_size", "top_k")),
        (SearchParams(query="q", page_size=101), "top_k must be at most 100", ("page_size", "top_k")),
    ],
)
def test_paging_limits_name_the_fields(params, message, fields):
    with pytest.raises(InvalidQueryError, match=re.escape(message)) as caught:
        service().resolve(params)
    assert caught.value.fields == fields


def test_invalid_query_error_survives_pickling():
    import pickle

    error = pickle.loads(pickle.dumps(InvalidQueryError("bad", fields=("page",))))
    assert (error.message, error.fields) == ("bad", ("page",))


class AnyReranker:
    def rerank(self, query, texts):
        return [0.0] * len(texts)


def reranking_service(*, by_default: bool) -> SearchService:
    from search_platform.retrieval.rerank import RerankStage

    searcher = HybridSearcher({}, rerank_stage=RerankStage(AnyReranker(), top_n=5, budget_ms=100))
    return SearchService(searcher, RetrievalSettings(), default_index="sp-chunks", rerank_by_default=by_default)


@pytest.mark.parametrize(("by_default", "asked", "expected"), [(False, None, False), (True, None, True),
                                                               (True, False, False), (False, True, True)])
def test_rerank_is_the_request_choice_else_the_configured_default(by_default, asked, expected):
    request = reranking_service(by_default=by_default).resolve(SearchParams(query="q", rerank=asked))
    assert request.rerank is expected


def test_rerank_without_a_reranker_is_refused_naming_the_setting():
    with pytest.raises(InvalidQueryError, match="SP_RERANK__MODEL_PATH") as caught:
        service().resolve(SearchParams(query="q", rerank=True))
    assert caught.value.fields == ("rerank",)
    assert service().resolve(SearchParams(query="q", rerank=False)).rerank is False
