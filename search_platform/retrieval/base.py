"""What every retriever leg takes and returns."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from search_platform.domain.models import Filters, GroupBy, Leg, RankedHit, RankedList


@dataclass(frozen=True, slots=True)
class LegRequest:
    """One leg's share of a search."""

    text: str
    index: str
    candidate_k: int
    filters: Filters = Filters()
    tech_boost: float | None = None  # BM25 only: the `tech` clause boost; None: the leg's configured one
    unit: GroupBy = GroupBy.CHUNK  # what the results will be: a leg may score whole documents for GroupBy.DOCUMENT


class Retriever(Protocol):
    """A leg: turns a request into a list ranked from 1."""

    leg: Leg

    async def retrieve(self, request: LegRequest) -> RankedList:
        """Run the leg."""
        ...


def ranked_list_from_response(leg: Leg, response: Any, *, started: float) -> RankedList:
    """Convert an Elasticsearch search response into a RankedList with explicit 1-based ranks; a hit's source is its
    _source if the search returned one, else its doc-value fields (one value each)."""
    hits = tuple(
        RankedHit(chunk_id=hit["_id"], rank=rank, score=float(hit["_score"] or 0.0), source=hit_fields(hit))
        for rank, hit in enumerate(response["hits"]["hits"], start=1)
    )
    return RankedList(leg=leg, hits=hits, took_ms=(time.perf_counter() - started) * 1000)


def hit_fields(hit: Mapping[str, Any]) -> dict[str, Any]:
    """A hit's stored fields: its _source, or its single-valued doc-value fields when it came back lean."""
    source = hit.get("_source")
    if source is not None:
        return dict(source)
    return {name: values[0] for name, values in hit.get("fields", {}).items() if values}
