"""Domain Filters -> Elasticsearch filter clauses, the same list for every leg."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from search_platform.domain.models import Filters

TERM_FIELDS: dict[str, str] = {
    "doc_ids": "doc_id",
    "sources": "source",
    "tags": "tags",
    "langs": "lang",
    "tenants": "tenant",
}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
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
    ranges: dict[str, dict[str, int | str]] = {}
    for attribute, (field, operator) in RANGE_BOUNDS.items():
        bound = getattr(filters, attribute)
        if bound is not None:
            ranges.setdefault(field, {"format": "epoch_millis"})[operator] = epoch_millis(bound)
    clauses.extend({"range": {field: bounds}} for field, bounds in ranges.items())
    return clauses


def epoch_millis(moment: datetime) -> int:
    """Milliseconds since the epoch, rounded up (a date field stores whole milliseconds, so `gte` and `lt` keep
    their meaning). Any UTC offset RFC 3339 allows is taken, also past the ±18:00 an ISO string may carry to
    Elasticsearch, and a year-1 date stays representable."""
    micros = (moment - EPOCH) // timedelta(microseconds=1)
    return -(-micros // 1000)
