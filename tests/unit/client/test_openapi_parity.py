"""The SDK's models against the service's OpenAPI schema: a field or endpoint added to the API and missing from
the SDK (or the reverse) fails here."""

from __future__ import annotations

from typing import Any, get_args

import pytest
import search_platform_client as sdk
from pydantic import BaseModel, create_model

from search_platform.config import Settings
from search_platform.service.app import create_app
from search_platform.service.schemas import DocumentBody

# SDK model -> OpenAPI schema, and the request fields the SDK takes as arguments instead of model fields
PAIRS: list[tuple[type[BaseModel], str, frozenset[str]]] = [
    (sdk.SearchOptions, "SearchBody", frozenset({"query"})),
    (sdk.Filters, "FiltersBody", frozenset()),
    (sdk.Weights, "WeightsBody", frozenset()),
    (sdk.Document, "DocumentBody", frozenset()),
    (sdk.SearchResponse, "SearchResponseBody", frozenset()),
    (sdk.Hit, "HitBody", frozenset()),
    (sdk.LegScore, "LegScoreBody", frozenset()),
    (sdk.LegExplanation, "LegExplanationBody", frozenset()),
    (sdk.Explanation, "ExplanationBody", frozenset()),
    (sdk.ChunkRef, "ChunkRefBody", frozenset()),
    (sdk.IngestResponse, "IngestResponseBody", frozenset()),
    (sdk.Job, "JobBody", frozenset()),
    (sdk.models.FeedbackResponse, "FeedbackResponseBody", frozenset()),
    (sdk.DocumentInfo, "DocumentInfoBody", frozenset()),
    (sdk.DeleteResult, "DeleteResponseBody", frozenset()),
    (sdk.PurgeResult, "PurgeResponseBody", frozenset()),
    (sdk.KeyDeleted, "KeyDeletedBody", frozenset()),
]
# every operation of the API -> the client method that calls it (on both faces)
ENDPOINTS = {
    ("post", "/v1/search"): "search",
    ("post", "/v1/feedback"): "feedback",
    ("post", "/v1/ingest"): "ingest",
    ("get", "/v1/jobs/{job_id}"): "job",
    ("post", "/v1/jobs/{job_id}/resume"): "resume_job",
    ("get", "/healthz"): "health",
    ("get", "/v1/documents/{doc_id}"): "get_document",
    ("delete", "/v1/documents/{doc_id}"): "delete_document",
    ("post", "/v1/documents/delete"): "delete_documents",
    ("delete", "/v1/tenants/{tenant}"): "purge_tenant",
    ("delete", "/v1/keys/{key_id}"): "delete_key",
}
# enumerated request fields: (schema, property) -> the SDK's Literal
ENUMS: dict[tuple[str, str], Any] = {
    ("SearchBody", "mode"): sdk.Mode,
    ("SearchBody", "fusion"): sdk.Fusion,
    ("SearchBody", "normalization"): sdk.Normalization,
    ("SearchBody", "group_by"): sdk.GroupBy,
    ("DocumentBody", "content_type"): sdk.models.ContentType,
}


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    settings = Settings(_env_file=None, elasticsearch={"password": "unit-test-password-1",  # type: ignore[call-arg]
                                                       "service_password": "unit-test-password-2"})
    spec = create_app(settings).openapi()
    # IngestBody carries documents as free-form objects (checked one by one), so DocumentBody is not in the
    # OpenAPI components: its own JSON schema stands in for it
    document = DocumentBody.model_json_schema(ref_template="#/components/schemas/{model}")
    spec["components"]["schemas"].update({"DocumentBody": document, **document.pop("$defs", {})})
    return spec


def field_differences(model: type[BaseModel], schema: dict[str, Any], sent_apart: frozenset[str]) -> dict[str, Any]:
    """Fields only the API has and fields only the SDK has."""
    api = set(schema.get("properties", {})) - sent_apart
    ours = set(model.model_fields)
    return {key: value for key, value in (("only in API", api - ours), ("only in SDK", ours - api)) if value}


@pytest.mark.parametrize(("model", "name", "sent_apart"), PAIRS, ids=[name for _, name, _ in PAIRS])
def test_sdk_models_have_the_fields_of_the_api(openapi, model, name, sent_apart):
    assert field_differences(model, openapi["components"]["schemas"][name], sent_apart) == {}


def test_a_field_removed_from_an_sdk_model_is_caught(openapi):
    fields = {n: (f.annotation, f) for n, f in sdk.Job.model_fields.items() if n != "workers"}
    trimmed = create_model("TrimmedJob", **fields)
    assert field_differences(trimmed, openapi["components"]["schemas"]["JobBody"], frozenset()) == {
        "only in API": {"workers"}}


def test_every_api_operation_has_a_method_on_both_clients(openapi):
    operations = {(method, path) for path, item in openapi["paths"].items() for method in item}
    assert operations == set(ENDPOINTS), "add the endpoint to the SDK (and to ENDPOINTS here)"
    for method_name in ENDPOINTS.values():
        assert callable(getattr(sdk.SearchClient, method_name))
        assert callable(getattr(sdk.AsyncSearchClient, method_name))


def _enum(schema: dict[str, Any], components: dict[str, Any]) -> set[str]:
    if "$ref" in schema:
        return _enum(components[schema["$ref"].rsplit("/", 1)[1]], components)
    if "enum" in schema:
        return set(schema["enum"])
    if "const" in schema:
        return {schema["const"]}
    return set().union(*(_enum(part, components) for part in schema.get("anyOf", [])))


@pytest.mark.parametrize(("where", "literal"), list(ENUMS.items()), ids=[f"{s}.{p}" for s, p in ENUMS])
def test_sdk_enumerations_match_the_api(openapi, where, literal):
    components = openapi["components"]["schemas"]
    schema_name, prop = where
    assert _enum(components[schema_name]["properties"][prop], components) == set(get_args(literal))


def test_job_states_match_the_domain():
    from search_platform.ingestion.jobs import JobState

    assert {state.value for state in JobState} == set(get_args(sdk.models.JobState))
