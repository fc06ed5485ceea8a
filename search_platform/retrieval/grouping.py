"""Document-level results: chunks collapsed to their documents, each at the rank of its best chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from search_platform.domain.models import ChunkRef, FusedHit


def document_id(hit: FusedHit) -> str:
    """The hit's document (the chunk itself when the stored fields lack doc_id)."""
    return str(hit.source.get("doc_id") or hit.chunk_id)


def chunk_ref(hit: FusedHit) -> ChunkRef:
    """Where one chunk stood in the fused chunk list."""
    return ChunkRef(chunk_id=hit.chunk_id, chunk_index=int(hit.source.get("chunk_index", 0)), rank=hit.rank,
                    score=hit.score)


def group_by_document(hits: Sequence[FusedHit]) -> list[FusedHit]:
    """One hit per document: its best chunk, re-ranked from 1 in best-chunk order, listing every matching chunk
    (best first) in `chunks`."""
    groups: dict[str, list[FusedHit]] = {}
    for hit in sorted(hits, key=lambda h: h.rank):
        groups.setdefault(document_id(hit), []).append(hit)
    return [
        replace(group[0], rank=position, chunks=tuple(chunk_ref(hit) for hit in group))
        for position, group in enumerate(groups.values(), start=1)
    ]
