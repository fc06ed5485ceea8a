"""Elasticsearch client errors become domain errors in one place (backends/elasticsearch/errors.py)."""

from __future__ import annotations

from typing import Any

from elastic_transport import ApiResponseMeta, HttpHeaders, NodeConfig
from elasticsearch import ApiError, BadRequestError

from search_platform.backends.elasticsearch.errors import translate
from search_platform.domain.errors import BackendError, IndexMissingError, IndexOutdatedError


def api_error(status: int, body: dict[str, Any]) -> ApiError:
    meta = ApiResponseMeta(status=status, http_version="1.1", headers=HttpHeaders(), duration=0.0,
                           node=NodeConfig("http", "localhost", 9200))
    return BadRequestError("error", meta, body)


OTHER_DIMS_REASON = ("failed to create query: The query vector has a different number of dimensions [768] than the "
                     "document vectors [384].")


def test_a_knn_of_another_dimension_is_an_outdated_index_with_the_reindex_path():
    body = {"error": {"root_cause": [{"type": "query_shard_exception", "reason": OTHER_DIMS_REASON}],
                      "type": "search_phase_execution_exception", "reason": "all shards failed"}, "status": 400}
    error = translate(api_error(400, body))
    assert isinstance(error, IndexOutdatedError)
    assert error.status == 409
    assert error.message == ("the index holds 384-dimension vectors of another embedding model; the current model "
                             "makes 768: re-embed it with `search-platform reindex --alias <alias>`")


def test_other_bad_requests_stay_backend_errors():
    body = {"error": {"root_cause": [{"type": "parsing_exception", "reason": "unknown query [knnn]"}],
                      "type": "parsing_exception", "reason": "unknown query [knnn]"}, "status": 400}
    error = translate(api_error(400, body))
    assert type(error) is BackendError
    assert error.message == "Elasticsearch error (400): parsing_exception: unknown query [knnn]"


def test_missing_index():
    body = {"error": {"type": "index_not_found_exception", "reason": "no such index [x]"}, "status": 404}
    assert isinstance(translate(api_error(404, body)), IndexMissingError)
