"""The OpenAPI document tells the truth: both ways to send an API key are securitySchemes, every /v1 operation
requires one, ingest documents are typed, request bodies refuse unknown fields and errors are documented."""

from __future__ import annotations

from typing import Any

import pytest

from search_platform.config import Settings
from search_platform.service.app import create_app


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    settings = Settings(_env_file=None, elasticsearch={"password": "unit-test-password-1",  # type: ignore[call-arg]
                                                       "service_password": "unit-test-password-2"})
    return create_app(settings).openapi()


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, operation) for path, item in spec["paths"].items() for method, operation in item.items()]


def test_both_key_headers_are_security_schemes(spec):
    schemes = spec["components"]["securitySchemes"]
    assert schemes["bearer"] == {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <API key>"}
    assert schemes["apiKey"]["type"] == "apiKey" and schemes["apiKey"]["in"] == "header"
    assert schemes["apiKey"]["name"] == "X-API-Key"


def test_every_v1_operation_requires_a_key_and_documents_401_and_403(spec):
    for path, method, operation in _operations(spec):
        if not path.startswith("/v1/"):
            continue
        assert {"bearer": []} in operation.get("security", []), (method, path)
        assert {"401", "403", "422"} <= set(operation["responses"]), (method, path)


def test_ingest_documents_are_typed(spec):
    items = spec["components"]["schemas"]["IngestBody"]["properties"]["documents"]["items"]
    assert {"$ref": "#/components/schemas/DocumentBody"} in items["anyOf"]
    assert spec["components"]["schemas"]["DocumentBody"]["required"] == ["doc_id", "content"]


@pytest.mark.parametrize("name", ["SearchBody", "FiltersBody", "WeightsBody", "DocumentBody", "IngestBody",
                                  "FeedbackBody", "DeleteFilterBody"])
def test_request_bodies_refuse_unknown_fields(spec, name):
    assert spec["components"]["schemas"][name]["additionalProperties"] is False
