"""The SDK's wire models: what the client sends and what the service answers (a parity test keeps them in step
with the service's OpenAPI schema)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

Mode = Literal["bm25", "semantic", "hybrid"]
Fusion = Literal["rrf", "weighted_rrf", "convex", "dbsf", "routed"]
Normalization = Literal["minmax", "zscore"]
GroupBy = Literal["chunk", "document"]
ContentType = Literal["text", "markdown", "html"]
JobState = Literal["queued", "running", "done", "failed"]


class _Request(BaseModel):
    """A request body: unknown fields are refused here rather than by the service."""

    model_config = ConfigDict(extra="forbid")


class Filters(_Request):
    """Metadata filters; every listed value is an exact match, applied to both legs."""

    doc_ids: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    langs: list[str] = Field(default_factory=list)
    tenants: list[str] = Field(default_factory=list)
    # with a UTC offset, as the service requires: a naive datetime would mean a different instant on each side
    indexed_after: AwareDatetime | None = None
    indexed_before: AwareDatetime | None = None


class Weights(_Request):
    """Per-leg weights for weighted_rrf and dbsf; an unset leg weighs 1.0, except dense_lead (documents ranked by
    their lead passage, beside dense, when results are grouped by document) and definitions (the documents that
    define a name the query writes, likewise), which are off (0) unless set."""

    bm25: float = 1.0
    dense: float = 1.0
    dense_lead: float | None = None  # None: not sent (the service's 0), so older services still accept the weights
    definitions: float | None = None  # likewise


class SearchOptions(_Request):
    """Every option of POST /v1/search besides the query; unset (None) options take the service's defaults."""

    mode: Mode | None = None
    # paging: pages of page_size (older name: top_k) are cut from the first `window` fused hits
    page: int | None = None
    page_size: int | None = None
    top_k: int | None = None
    window: int | None = None
    # what each hit carries
    group_by: GroupBy | None = None
    highlight: bool | None = None
    explain: bool | None = None
    # where and how to look
    index: str | None = None
    filters: Filters | None = None
    candidate_k: int | None = None
    # hybrid fusion
    fusion: Fusion | None = None
    rrf_k: int | None = None
    weights: Weights | None = None
    alpha: float | None = None
    normalization: Normalization | None = None
    rerank: bool | None = None
    # experiments: the unit an arm is assigned to
    user_id: str | None = None
    session_id: str | None = None


class Document(_Request):
    """A document to ingest; `tenant` is left to the API key's tenant unless set (an unbound admin key may set
    any tenant; the service then defaults it)."""

    doc_id: str
    content: str
    title: str = ""
    content_type: ContentType = "text"
    source: str = ""
    tags: list[str] = Field(default_factory=list)
    lang: str = "en"
    tenant: str | None = None


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
    route: str | None = None
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
    """Results of one search (one page)."""

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
    timings_ms: dict[str, float] | None = None  # explain=True: milliseconds per stage (Server-Timing's stages)
    reranked: bool = False
    rerank_reason: str | None = None
    degraded: bool = False
    degraded_reason: str | None = None
    request_id: str = ""
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
    state: JobState
    index: str
    documents_total: int
    documents_done: int
    documents_failed: int
    chunks_done: int
    errors: dict[str, str]
    created_at: float
    updated_at: float
    batches_total: int = 0
    batches_done: int = 0
    batches_failed: int = 0
    deliveries: int = 0
    workers: list[str] = Field(default_factory=list)

    @property
    def finished(self) -> bool:
        """True when the job will not change any more (until resumed)."""
        return self.state in ("done", "failed")


class DocumentInfo(BaseModel):
    """What the index holds of one document."""

    doc_id: str
    tenant: str
    index: str
    chunk_count: int
    content_hash: str
    indexed_at: str | None = None
    title: str = ""
    source: str = ""
    tags: list[str] = Field(default_factory=list)


class DeleteResult(BaseModel):
    """What a delete removed: the (tenant, doc_id) pairs and the records (chunks and document records)."""

    index: str
    documents: list[dict[str, str]] = Field(default_factory=list)
    records_deleted: int


class PurgeResult(BaseModel):
    """What purging a tenant removed."""

    tenant: str
    records_deleted: int
    indices_deleted: list[str] = Field(default_factory=list)
    keys_deleted: list[str] = Field(default_factory=list)


class KeyDeleted(BaseModel):
    """Answer to deleting an API key."""

    key_id: str
    deleted: bool


class FeedbackResponse(BaseModel):
    """Answer to a click report."""

    accepted: bool


class DependencyHealth(BaseModel):
    """One dependency of the service."""

    ok: bool
    detail: str = ""


class Health(BaseModel):
    """GET /healthz: the service's dependencies."""

    status: str
    dependencies: dict[str, DependencyHealth] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every dependency is up."""
        return self.status == "ok"


class IngestProgress(BaseModel):
    """Where a bulk ingestion stands: sent after each batch is queued."""

    batches_sent: int
    documents_sent: int
    documents_rejected: int
    job_ids: list[str]
