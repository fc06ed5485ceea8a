"""The OpenAPI document as this service answers: every error response a route gives, the limits of these settings,
and links from an ingest to its job. Routes declare their responses with error_responses(); install_openapi()
tightens the generated document to the settings the app was built with."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from search_platform.config import Settings
from search_platform.service.schemas import ErrorBody, HealthBody

Responses = dict[int | str, dict[str, Any]]

ERROR_DESCRIPTIONS: dict[int, str] = {
    400: "The body could not be read (e.g. not UTF-8).",
    401: "No API key, or an unknown or revoked one.",
    403: "The key lacks the route's scope, or may not use the named index or tenant.",
    404: "The index, document, job, search request or key does not exist (or belongs to another tenant).",
    409: "Conflicts with the current state (an Idempotency-Key reused with other documents, a job with nothing "
         "to resume, an index built by another embedding model that needs `search-platform reindex`).",
    405: "GET or DELETE of /v1/documents/delete: that path is POST's (delete a document called 'delete' by filter).",
    413: "The request body, or a document in it, is over the size limit.",
    422: "The request is invalid: every bad field is named in details.",
    429: "The key's rate limit is exhausted; retry after Retry-After seconds.",
    500: "An unexpected error; the service log has the details.",
    502: "Elasticsearch answered with an error.",
    503: "Elasticsearch or Redis (key store, job store, queue) is unreachable.",
}
HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "How to authenticate.", "required": True,
                               "schema": {"type": "string"}}},
    429: {"Retry-After": {"description": "Seconds until the key may call again.", "required": True,
                          "schema": {"type": "integer", "minimum": 0}}},
}
# behind an API key: no or a bad key, a missing scope, the rate limit, Redis down (the key store), a bug
KEYED = (401, 403, 422, 429, 500, 503)
# with a JSON body: unreadable, over the body-size limit
WITH_BODY = (400, 413)


def error_responses(*statuses: int) -> Responses:
    """`responses=` for a route: each status with the one error body, what it means and its headers."""
    responses: Responses = {}
    for status in sorted(set(statuses)):
        response: dict[str, Any] = {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[status]}
        if status in HEADERS:
            response["headers"] = HEADERS[status]
        responses[status] = response
    return responses


HEALTH_RESPONSES: Responses = {
    503: {"model": HealthBody, "description": "Elasticsearch or Redis is down (each dependency says which)."},
    500: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[500]},
}

# (path, method, status) of a response -> link name -> (target path, method, parameters and requestBody fields as
# runtime expressions; schemathesis merges the fields into the body it generates). No link starts at resume:
# schemathesis's stateful phase starts only from POSTs with outgoing links, and resume (which needs a job) would
# then be the only start instead of ingest.
LINKS: dict[tuple[str, str, str], dict[str, tuple[str, str, dict[str, str], dict[str, str]]]] = {
    ("/v1/ingest", "post", "202"): {
        "GetJob": ("/v1/jobs/{job_id}", "get", {"job_id": "$response.body#/job_id"}, {}),
        "ResumeJob": ("/v1/jobs/{job_id}/resume", "post", {"job_id": "$response.body#/job_id"}, {}),
    },
    ("/v1/jobs/{job_id}", "get", "200"): {
        "ResumeJob": ("/v1/jobs/{job_id}/resume", "post", {"job_id": "$response.body#/job_id"}, {}),
    },
    ("/v1/documents/{doc_id}", "get", "200"): {
        "DeleteDocument": ("/v1/documents/{doc_id}", "delete", {"doc_id": "$response.body#/doc_id",
                                                                "index": "$response.body#/index",
                                                                "tenant": "$response.body#/tenant"}, {}),
    },
    ("/v1/search", "post", "200"): {
        "Feedback": ("/v1/feedback", "post", {}, {"request_id": "$response.body#/request_id"}),
    },
}


def add_links(spec: dict[str, Any]) -> None:
    """Add LINKS to the responses they start from, naming each target by its operationId."""
    for (path, method, status), links in LINKS.items():
        response = spec["paths"][path][method]["responses"][status]
        response["links"] = {}
        for name, (target, target_method, parameters, body) in links.items():
            link: dict[str, Any] = {"operationId": spec["paths"][target][target_method]["operationId"]}
            if parameters:
                link["parameters"] = parameters
            if body:
                link["requestBody"] = body
            response["links"][name] = link


def _set_maximum(prop: dict[str, Any], maximum: int) -> None:
    """Lower the maximum of an integer property (plain or `integer | null`)."""
    for variant in prop.get("anyOf", [prop]):
        if variant.get("type") == "integer":
            variant["maximum"] = min(variant.get("maximum", maximum), maximum)


def apply_limits(spec: dict[str, Any], settings: Settings) -> None:
    """State the limits these settings put on requests, which the service enforces with 422."""
    schemas = spec["components"]["schemas"]
    search = schemas["SearchBody"]["properties"]
    retrieval = settings.retrieval
    search["query"]["maxLength"] = retrieval.max_query_chars
    for name in ("top_k", "page_size"):
        _set_maximum(search[name], retrieval.max_top_k)
    _set_maximum(search["candidate_k"], retrieval.max_candidate_k)
    _set_maximum(search["window"], retrieval.max_window)
    if settings.rerank.model_path is None:  # no reranker: asking for one is a 422
        search["rerank"]["anyOf"] = [{"type": "boolean", "enum": [False]}, {"type": "null"}]
        search["rerank"]["description"] += " This service has no reranker: only false or null."
    documents = schemas["IngestBody"]["properties"]["documents"]
    documents["maxItems"] = settings.service.max_ingest_documents
    # any object is taken as an item (a bad one is reported in `rejected`), but at least one must be a document
    documents["contains"] = {"$ref": "#/components/schemas/DocumentBody"}


def install_openapi(app: FastAPI, settings: Settings) -> None:
    """Serve the generated document with links and the limits of `settings` (built once, on first request)."""

    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = generate()
            add_links(spec)
            apply_limits(spec, settings)
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the document

