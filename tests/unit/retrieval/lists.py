"""Ranked lists for fusion tests."""

from search_platform.domain.models import Leg, RankedHit, RankedList


def ranked(leg: Leg, *chunk_ids: str) -> RankedList:
    """A leg whose hits score 10 / rank."""
    return RankedList(leg=leg, hits=tuple(
        RankedHit(chunk_id=c, rank=r, score=10.0 / r) for r, c in enumerate(chunk_ids, start=1)))


def scored(leg: Leg, *hits: tuple[str, float]) -> RankedList:
    """A leg with the given (chunk_id, score) pairs, ranked in the order given."""
    return RankedList(leg=leg, hits=tuple(
        RankedHit(chunk_id=c, rank=r, score=s) for r, (c, s) in enumerate(hits, start=1)))
