"""Documents, chunks, filters and ranked results: plain data, no I/O."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from search_platform.domain.timings import StageTiming


class ContentType(enum.StrEnum):
    """How a document's content is written."""

    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"


class SearchMode(enum.StrEnum):
    """Which legs answer a query."""

    BM25 = "bm25"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


class Leg(enum.StrEnum):
    """One retriever feeding the fusion. BM25 scores the configured lexical unit (whole documents when results are
    documents and retrieval.lexical_unit is "document" or "both"); BM25_PASSAGE scores chunks beside it (results
    grouped by document with lexical_unit "both"), so a document wins on its whole text or on one passage.
    DENSE_LEAD ranks documents by their lead passage (the first chunk: a page's name and purpose) beside DENSE's
    best chunk, when hybrid results are documents and the lead list weighs more than 0. DEFINITIONS ranks, by
    whole-document BM25, the documents that define one of the query's names (text/definitions.py), when hybrid
    results are documents and the definitions list weighs more than 0."""

    BM25 = "bm25"
    BM25_PASSAGE = "bm25_passage"
    DENSE = "dense"
    DENSE_LEAD = "dense_lead"
    DEFINITIONS = "definitions"

    @property
    def dense(self) -> bool:
        """Whether the leg ranks by the query's embedding."""
        return self in (Leg.DENSE, Leg.DENSE_LEAD)


class GroupBy(enum.StrEnum):
    """What one result is: a chunk, or a document at the rank of its best chunk."""

    CHUNK = "chunk"
    DOCUMENT = "document"


class SnippetSource(enum.StrEnum):
    """Where a hit's highlights came from: Elasticsearch's highlighter (bm25) or the client-side snippet (dense)."""

    BM25 = "bm25"
    DENSE = "dense"


@dataclass(frozen=True, slots=True)
class Document:
    """A document as submitted for ingestion."""

    doc_id: str
    content: str
    title: str = ""
    content_type: ContentType = ContentType.TEXT
    source: str = ""
    tags: tuple[str, ...] = ()
    lang: str = "en"
    tenant: str = "default"


@dataclass(frozen=True, slots=True)
class TextBlock:
    """A paragraph of plain text with the heading path it sits under."""

    text: str
    headings: tuple[str, ...] = ()
    is_heading: bool = False


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a document small enough to embed, with everything the index stores about it."""

    chunk_id: str
    doc_id: str
    chunk_index: int
    text: str
    title: str
    section: str
    tech: str
    content_hash: str
    source: str
    tags: tuple[str, ...]
    lang: str
    tenant: str


@dataclass(frozen=True, slots=True)
class Filters:
    """Metadata filters, applied identically to every leg. Empty tuples mean no constraint."""

    doc_ids: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()
    tenants: tuple[str, ...] = ()
    indexed_after: datetime | None = None
    indexed_before: datetime | None = None


@dataclass(frozen=True, slots=True)
class RankedHit:
    """One chunk in one ranked list; rank is 1-based and explicit, never implied by order."""

    chunk_id: str
    rank: int
    score: float
    source: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RankedList:
    """The output of one retriever leg."""

    leg: Leg
    hits: tuple[RankedHit, ...]
    took_ms: float = 0.0
    encode_ms: float = 0.0  # the part of took_ms spent encoding the query (the dense leg)


@dataclass(frozen=True, slots=True)
class LegScore:
    """Where a fused hit stood in one leg."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class ChunkRef:
    """One matching chunk of a document-level hit, at its rank in the fused chunk list."""

    chunk_id: str
    chunk_index: int
    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class FusedHit:
    """A hit after fusion, with each leg's part kept for explanation.

    contributions: what each leg added to score (they sum to it); normalized: each leg's normalised score, for
    methods that normalise; highlights and snippet_source: marked-up fragments of the text; chunks: for a
    document-level hit, every matching chunk of the document; rerank_score: the reranker's score, when the hit was
    among the reranked top_n.
    """

    chunk_id: str
    rank: int
    score: float
    legs: dict[Leg, LegScore]
    source: dict[str, Any]
    contributions: dict[Leg, float] = field(default_factory=dict)
    normalized: dict[Leg, float] = field(default_factory=dict)
    highlights: tuple[str, ...] = ()
    snippet_source: SnippetSource | None = None
    chunks: tuple[ChunkRef, ...] = ()
    rerank_score: float | None = None


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search returns, whatever the mode; rerank_reason says why a requested rerank did not happen."""

    mode: SearchMode
    hits: tuple[FusedHit, ...]
    took_ms: float
    leg_took_ms: dict[Leg, float]
    total_in_window: int = 0
    reranked: bool = False
    rerank_reason: str | None = None
    degraded_reason: str | None = None  # set when a leg failed and the others answered alone
    leg_hit_ids: dict[Leg, tuple[str, ...]] = field(default_factory=dict)  # each leg's candidates, in rank order
    stages: tuple[StageTiming, ...] = ()  # where took_ms went: encode, each leg, fusion, rerank, page
