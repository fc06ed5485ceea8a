import pytest

from search_platform.config import RetrievalSettings
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Filters, SearchMode
from search_platform.retrieval.hybrid import HybridSearcher, SearchRequest
from search_platform.service.search_service import SearchParams, SearchService


def service(**limits) -> SearchService:
    return SearchService(HybridSearcher({}), RetrievalSettings(**limits), default_index="sp-chunks")


def test_defaults_fill_every_k():
    request = service(top_k=7, candidate_k=50, rrf_k=30).resolve(SearchParams(query="  hello  "))
    assert request == SearchRequest(query="hello", mode=SearchMode.HYBRID, index="sp-chunks", top_k=7,
                                    candidate_k=50, rrf_k=30, filters=Filters())


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
