"""Document-level results: chunks collapsed to their documents.

Two ways: after fusion (group_by_document: a document at the rank of its best fused chunk), or before it
(documents_of: each leg's list becomes a list of documents, each at the rank and score of its best chunk, so fusion
weighs documents, not chunks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from search_platform.backends.elasticsearch.mappings import RecordKind, document_record_id
from search_platform.domain.models import ChunkRef, FusedHit, RankedHit, RankedList


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


def record_key(hit: RankedHit) -> str:
    """The id of the document a leg's hit belongs to: a document record's own id, else its chunk's document's."""
    if hit.source.get("kind") == RecordKind.DOCUMENT.value or "doc_id" not in hit.source:
        return hit.chunk_id
    return document_record_id(tenant=str(hit.source.get("tenant", "")), doc_id=str(hit.source["doc_id"]))


def documents_of(ranked: RankedList) -> RankedList:
    """The leg's list with one hit per document, keyed by the document record id, at the rank and score of the
    document's best chunk; the hit keeps that chunk's stored fields and id (as `chunk_id` in its source)."""
    best: dict[str, RankedHit] = {}
    for hit in sorted(ranked.hits, key=lambda h: h.rank):
        key = record_key(hit)
        if key not in best:
            source = hit.source if key == hit.chunk_id else {**hit.source, "chunk_id": hit.chunk_id}
            best[key] = RankedHit(chunk_id=key, rank=len(best) + 1, score=hit.score, source=source)
    return replace(ranked, hits=tuple(best.values()))
