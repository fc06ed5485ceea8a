"""Schemathesis hooks for test_schemathesis.py: the search rules JSON Schema cannot state.

Everything a request may hold is in the OpenAPI document except four rules between fields of POST /v1/search, which
the service answers with 422 (tests/unit/service/test_search_service.py covers each): page * page_size within the
window, page_size and top_k equal when both are sent, candidate_k at least the page size in a one-leg mode, and no
weights with fusion=routed. A generated *positive* search is brought within them, so positive_data_acceptance
still holds every other 422 against the schema; negative cases are left alone. The settings are the API's own: the
test runs schemathesis with the API's environment.

A positive ingest naming an index outside `sp-*` (403: no key may write there, tests/integration/test_lifecycle.py)
writes to the default alias instead, so ingests reach the queue and the worker, and the stateful phase follows
their links (job, resume) from real 202s.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from search_platform.config import RetrievalSettings, load_settings

RETRIEVAL = load_settings().retrieval
ONE_LEG = ("bm25", "semantic")


def within_cross_field_rules(body: dict[str, Any], retrieval: RetrievalSettings) -> dict[str, Any]:
    """The body changed as little as possible to keep the four rules (it stays valid against the schema)."""
    body = dict(body)
    if body.get("page_size") and body.get("top_k") and body["page_size"] != body["top_k"]:
        del body["top_k"]
    page_size = body.get("page_size") or body.get("top_k") or retrieval.top_k
    window = body.get("window") or max(retrieval.window, page_size)
    if window < page_size:
        body["window"] = window = page_size
    if body.get("page", 1) * page_size > window:
        body["page"] = window // page_size
    if body.get("mode") in ONE_LEG and body.get("candidate_k") and body["candidate_k"] < page_size:
        body["candidate_k"] = page_size
    if (body.get("fusion") or retrieval.fusion) == "routed" and body.get("weights") is not None:
        del body["weights"]
    return body


@schemathesis.hook
def map_case(context: schemathesis.HookContext, case: schemathesis.Case) -> schemathesis.Case:
    """Positive searches within the cross-field rules; positive ingests into a writable index."""
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    if not positive or not isinstance(case.body, dict):
        return case
    if case.operation.path == "/v1/search":
        case.body = within_cross_field_rules(case.body, RETRIEVAL)
    elif case.operation.path == "/v1/ingest" and not str(case.body.get("index") or "sp-").startswith("sp-"):
        case.body = {key: value for key, value in case.body.items() if key != "index"}
    return case
