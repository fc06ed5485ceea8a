"""Domain Filters -> Elasticsearch filter clauses, the same list for every leg."""

from __future__ import annotations

from typing import Any

from search_platform.domain.models import Filters

TERM_FIELDS: dict[str, str] = {
    "doc_ids": "doc_id",
    "sources": "source",
    "tags": "tags",
    "langs": "lang",
    "tenants": "tenant",
}
RANGE_BOUNDS: dict[str, tuple[str, str]] = {
    "indexed_after": ("indexed_at", "gte"),
    "indexed_before": ("indexed_at", "lt"),
}


def filter_clauses(filters: Filters) -> list[dict[str, Any]]:
    """Clauses for a bool `filter` (BM25) and a knn `filter` (pre-filter), in a fixed order."""
    clauses: list[dict[str, Any]] = [
        {"terms": {field: list(values)}}
        for attribute, field in TERM_FIELDS.items()
        if (values := getattr(filters, attribute))
    ]
    ranges: dict[str, dict[str, str]] = {}
    for attribute, (field, operator) in RANGE_BOUNDS.items():
        bound = getattr(filters, attribute)
        if bound is not None:
            ranges.setdefault(field, {})[operator] = bound.isoformat()
    clauses.extend({"range": {field: bounds}} for field, bounds in ranges.items())
    return clauses
