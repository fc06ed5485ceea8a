"""The SDK's own wire models (it imports nothing else of search_platform)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Mode = Literal["bm25", "semantic", "hybrid"]
Fusion = Literal["rrf", "weighted_rrf", "convex", "dbsf", "routed"]
Normalization = Literal["minmax", "zscore"]
GroupBy = Literal["chunk", "document"]


class LegScore(BaseModel):
    """A hit's rank and raw score in one leg."""

    rank: int
    score: float


class LegExplanation(BaseModel):
    """One leg's part in a fused score; rank and score are None when the leg did not find the hit."""

    rank: int | None = None
    score: float | None = None
    normalized: float | None = None
    contribution: float


class Explanation(BaseModel):
    """How a hit's score was made: the legs' contributions sum to score."""

    fusion: str
    params: dict[str, Any] = Field(default_factory=dict)
    score: float
    legs: dict[str, LegExplanation] = Field(default_factory=dict)
    route: str | None = None  # fusion=routed: lexical, semantic or mixed
    rerank_score: float | None = None


class ChunkRef(BaseModel):
    """One matching chunk of a document-level hit."""

    chunk_id: str
    chunk_index: int
    rank: int
    score: float


class Hit(BaseModel):
    """One result chunk (or, grouped by document, the document's best chunk)."""

    rank: int
    score: float
    chunk_id: str
    doc_id: str
    chunk_index: int
    title: str = ""
    section: str = ""
    text: str = ""
    source: str = ""
    tags: list[str] = Field(default_factory=list)
    tenant: str = ""
    legs: dict[str, LegScore] = Field(default_factory=dict)
    highlights: list[str] = Field(default_factory=list)
    snippet_source: Literal["bm25", "dense"] | None = None
    explanation: Explanation | None = None
    chunks: list[ChunkRef] = Field(default_factory=list)
    rerank_score: float | None = None


class SearchResponse(BaseModel):
    """Results of one search."""

    mode: Mode
    index: str
    top_k: int
    candidate_k: int
    rrf_k: int
    fusion: str
    page: int = 1
    page_size: int = 0
    window: int = 0
    total_in_window: int = 0
    group_by: GroupBy = "chunk"
    took_ms: float
    leg_took_ms: dict[str, float]
    reranked: bool = False
    rerank_reason: str | None = None
    degraded: bool = False
    degraded_reason: str | None = None
    request_id: str = ""  # send it back with feedback() when a hit is clicked
    experiment: str | None = None
    arm: str | None = None
    hits: list[Hit]


class IngestResponse(BaseModel):
    """A queued ingestion job."""

    job_id: str
    documents: int
    rejected: dict[str, str]
    status_url: str


class Job(BaseModel):
    """Status of an ingestion job."""

    job_id: str
    state: Literal["queued", "running", "done", "failed"]
    index: str
    documents_total: int
    documents_done: int
    documents_failed: int
    chunks_done: int
    errors: dict[str, str]
    created_at: float
    updated_at: float

    @property
    def finished(self) -> bool:
        """True when the job will not change any more."""
        return self.state in ("done", "failed")


class Document(BaseModel):
    """A document to ingest."""

    doc_id: str
    content: str
    title: str = ""
    content_type: Literal["text", "markdown", "html"] = "text"
    source: str = ""
    tags: list[str] = Field(default_factory=list)
    lang: str = "en"
    tenant: str = "default"


def search_payload(query: str, *, mode: Mode, top_k: int | None, candidate_k: int | None, rrf_k: int | None,
                   filters: dict[str, Any] | None, index: str | None, fusion: Fusion | None = None,
                   weights: dict[str, float] | None = None, alpha: float | None = None,
                   normalization: Normalization | None = None, page: int | None = None,
                   page_size: int | None = None, window: int | None = None, group_by: GroupBy | None = None,
                   highlight: bool | None = None, explain: bool | None = None,
                   rerank: bool | None = None, user_id: str | None = None,
                   session_id: str | None = None) -> dict[str, Any]:
    """The JSON body of POST /v1/search, without unset values."""
    payload: dict[str, Any] = {"query": query, "mode": mode, "top_k": top_k, "candidate_k": candidate_k,
                               "rrf_k": rrf_k, "filters": filters, "index": index, "fusion": fusion,
                               "weights": weights, "alpha": alpha, "normalization": normalization, "page": page,
                               "page_size": page_size, "window": window, "group_by": group_by,
                               "highlight": highlight, "explain": explain, "rerank": rerank,
                               "user_id": user_id, "session_id": session_id}
    return {key: value for key, value in payload.items() if value is not None}


def feedback_payload(request_id: str, *, doc_id: str, position: int, chunk_id: str | None = None,
                     user_id: str | None = None, session_id: str | None = None) -> dict[str, Any]:
    """The JSON body of POST /v1/feedback, without unset values."""
    payload: dict[str, Any] = {"request_id": request_id, "doc_id": doc_id, "position": position,
                               "chunk_id": chunk_id, "user_id": user_id, "session_id": session_id}
    return {key: value for key, value in payload.items() if value is not None}


def ingest_payload(documents: list[Document] | list[dict[str, Any]], *, index: str | None) -> dict[str, Any]:
    """The JSON body of POST /v1/ingest."""
    docs = [d.model_dump() if isinstance(d, Document) else d for d in documents]
    return {"documents": docs, **({"index": index} if index else {})}
