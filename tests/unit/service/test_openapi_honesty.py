"""The OpenAPI document states what the service really answers: every status a route gives with the body it gives,
the limits of the settings it runs with, links that lead somewhere, and request patterns that accept exactly what
the server accepts (checked with the validator schemathesis uses)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pydantic import ValidationError

from search_platform.config import Settings
from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import Document
from search_platform.ingestion.pipeline import validate_document
from search_platform.retrieval.fusion import FUSERS
from search_platform.service.app import create_app
from search_platform.service.openapi import KEYED, WITH_BODY
from search_platform.service.schemas import WHITESPACE, DocumentBody, ErrorBody, SearchBody
from search_platform.service.search_service import SearchService

PASSWORDS = {"password": "unit-test-password-1", "service_password": "unit-test-password-2"}
ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}
# characters around every boundary the patterns draw: controls, whitespace of each kind, DEL, C1, BOM
EDGE = "".join(map(chr, [*range(0x00, 0x21), 0x7E, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0x1680, 0x2000, 0x200B, 0x2028,
                         0x202F, 0x3000, 0xFEFF, 0xE9, 0x4E2D]))
TEXT = st.text(alphabet=st.sampled_from(EDGE + "ab"), max_size=6)
# these properties check what is accepted, not how fast: a first example that compiles a schema while the
# integration services load both cores can pass Hypothesis's 200 ms deadline and fail as flaky
NO_DEADLINE = hypothesis_settings(deadline=None)


def _settings(**overrides: Any) -> Settings:
    return Settings(_env_file=None, elasticsearch=PASSWORDS, **overrides)  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return create_app(_settings()).openapi()


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, operation) for path, item in spec["paths"].items() for method, operation in item.items()]


def _schema_of(response: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = response["content"]["application/json"]["schema"]
    return schema


def test_every_error_a_v1_route_can_give_is_documented_with_the_error_body(spec):
    for path, method, operation in _operations(spec):
        if not path.startswith("/v1/"):
            continue
        responses = operation["responses"]
        expected = set(KEYED) | ({404} if "{" in path else set()) | (set(WITH_BODY) if "requestBody" in operation
                                                                      else set())
        assert {str(status) for status in expected} <= set(responses), (method, path)
        for status, response in responses.items():
            if int(status) >= 400:
                assert _schema_of(response) == ERROR_REF, (method, path, status)


def test_framework_validation_errors_are_not_documented_in_a_shape_the_api_never_sends(spec):
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_auth_and_rate_limit_headers_are_documented(spec):
    responses = spec["paths"]["/v1/search"]["post"]["responses"]
    assert responses["401"]["headers"]["WWW-Authenticate"]["required"] is True
    assert responses["429"]["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 0}


def test_health_documents_both_answers_with_its_body(spec):
    responses = spec["paths"]["/healthz"]["get"]["responses"]
    assert _schema_of(responses["200"]) == _schema_of(responses["503"]) == {"$ref": "#/components/schemas/HealthBody"}


def test_links_name_real_operations_and_parameters(spec):
    by_id = {operation["operationId"]: operation for _, _, operation in _operations(spec)}
    links = spec["paths"]["/v1/ingest"]["post"]["responses"]["202"]["links"]
    assert set(links) == {"GetJob", "ResumeJob"}
    for _, _, operation in _operations(spec):
        for response in operation["responses"].values():
            for link in response.get("links", {}).values():
                target = by_id[link["operationId"]]
                assert set(link.get("parameters", {})) <= {p["name"] for p in target.get("parameters", [])}
                body = target.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
                if "requestBody" in link:
                    name = body["$ref"].rsplit("/", 1)[1]
                    assert set(link["requestBody"]) <= set(spec["components"]["schemas"][name]["properties"])


def test_limits_follow_the_settings():
    settings = _settings(retrieval={"max_top_k": 50, "max_candidate_k": 300, "max_query_chars": 64,
                                    "max_window": 500, "window": 100},
                         service={"max_ingest_documents": 7})
    schemas = create_app(settings).openapi()["components"]["schemas"]
    search = schemas["SearchBody"]["properties"]
    assert search["query"]["maxLength"] == 64
    assert search["page_size"]["anyOf"][0]["maximum"] == search["top_k"]["anyOf"][0]["maximum"] == 50
    assert search["candidate_k"]["anyOf"][0]["maximum"] == 300
    assert search["window"]["anyOf"][0]["maximum"] == 500
    documents = schemas["IngestBody"]["properties"]["documents"]
    assert documents["maxItems"] == 7
    assert documents["contains"] == {"$ref": "#/components/schemas/DocumentBody"}


def test_rerank_true_is_outside_the_schema_only_without_a_reranker(spec, tmp_path: Path):
    assert spec["components"]["schemas"]["SearchBody"]["properties"]["rerank"]["anyOf"][0] == {
        "type": "boolean", "enum": [False]}
    with_reranker = create_app(_settings(rerank={"model_path": tmp_path})).openapi()
    assert with_reranker["components"]["schemas"]["SearchBody"]["properties"]["rerank"]["anyOf"][0] == {
        "type": "boolean"}


class _NoRerankSearcher:
    fusion_methods = tuple(FUSERS)
    can_rerank = False

    async def search(self, request: object) -> object:
        raise AssertionError("refused before any search")


def test_rerank_true_without_a_reranker_is_a_documented_422_with_the_error_body(spec):
    settings = _settings(auth={"enabled": False})
    app = create_app(settings)
    search = SearchService(_NoRerankSearcher(), settings.retrieval,  # type: ignore[arg-type]
                           default_index=settings.elasticsearch.index_alias)
    app.state.resources = SimpleNamespace(settings=settings, search=search,
                                          analytics=SimpleNamespace(assign=lambda *_, **__: None))
    response = TestClient(app).post("/v1/search", json={"query": "shard allocation", "rerank": True})
    assert response.status_code == 422
    body = ErrorBody.model_validate(response.json())
    assert body.error == "invalid_request" and body.details[0]["field"] == "rerank"
    assert "422" in spec["paths"]["/v1/search"]["post"]["responses"]


def test_405_names_every_method_of_the_path():
    client = TestClient(create_app(_settings()))
    response = client.request("PUT", "/v1/documents/some-doc")
    assert response.status_code == 405 and response.headers["allow"] == "DELETE, GET"
    assert client.request("OPTIONS", "/v1/search").headers["allow"] == "POST"


def test_whitespace_is_what_str_strip_removes():
    import re

    spelled = re.compile(f"[{WHITESPACE}]")
    every = (chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert {c for c in every if spelled.match(c)} == {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}


def _validator(spec: dict[str, Any], model: str, field: str) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(spec["components"]["schemas"][model]["properties"][field])


def _query_accepted(query: str) -> bool:
    try:
        SearchBody(query=query)
    except ValidationError:
        return False
    return True


@NO_DEADLINE
@given(TEXT)
def test_the_query_pattern_accepts_what_the_search_body_accepts(spec, query):
    assert _validator(spec, "SearchBody", "query").is_valid(query) == _query_accepted(query)


def _document_accepted(**fields: str) -> bool:
    try:
        body = DocumentBody(**{"doc_id": "d", "content": "c", **fields})  # type: ignore[arg-type]
        validate_document(Document(**{**body.model_dump(), "tags": tuple(body.tags)}), max_bytes=1_000_000)
    except (ValidationError, InvalidDocumentError):
        return False
    return True


@pytest.mark.parametrize("field", ["doc_id", "content", "title", "source", "lang", "tenant"])
@NO_DEADLINE
@given(value=TEXT)
def test_document_patterns_accept_what_ingest_accepts(spec, field, value):
    schema = {"$ref": "#/components/schemas/DocumentBody", "components": spec["components"]}
    document = {"doc_id": "d", "content": "c", field: value}
    assert jsonschema_rs.validator_for(schema).is_valid(document) == _document_accepted(**{field: value})


@pytest.mark.parametrize("fields", [
    {"highlight": 1}, {"explain": "true"}, {"rerank": 0}, {"top_k": "5"}, {"page": 2.5}, {"page": True},
    {"alpha": True},
    {"alpha": "0.5"}, {"weights": {"bm25": "1"}}, {"filters": {"indexed_after": 1700000000}},
    {"filters": {"indexed_after": "2026-01-31"}}, {"filters": {"indexed_before": "2026-01-31T12:00:00"}},
])
def test_values_of_another_json_type_are_refused_not_coerced(fields):
    """What the schema calls invalid pydantic must not quietly accept (schemathesis's negative_data_rejection)."""
    with pytest.raises(ValidationError):
        SearchBody(query="q", **fields)


def test_rfc3339_timestamps_and_whole_numbers_for_floats_are_accepted():
    body = SearchBody(query="q", alpha=1, filters={"indexed_after": "2026-01-31T12:00:00.5+01:00"})  # type: ignore[arg-type]
    assert body.alpha == 1.0 and body.filters.indexed_after is not None
    assert body.filters.indexed_after.utcoffset() is not None


def test_the_delete_by_filter_path_is_never_taken_for_a_document_id(spec):
    client = TestClient(create_app(_settings()))
    for method in ("GET", "DELETE"):
        response = client.request(method, "/v1/documents/delete")
        assert response.status_code == 405 and response.headers["allow"] == "POST", method
    parameter = spec["paths"]["/v1/documents/{doc_id}"]["get"]["parameters"][0]
    assert parameter["name"] == "doc_id" and parameter["schema"]["not"] == {"const": "delete"}
    for method in ("get", "delete"):
        assert spec["paths"]["/v1/documents/{doc_id}"][method]["responses"]["405"]["content"]


def test_integers_are_read_as_json_schema_reads_them(spec):
    body = SearchBody(query="q", page=2.0, page_size=50.0, window=100.0)  # type: ignore[arg-type]
    assert (body.page, body.page_size, body.window) == (2, 50, 100) and isinstance(body.page, int)
    assert "'ge'" not in str(spec) and "'le'" not in str(spec)  # bounds are minimum/maximum, not pydantic's names
