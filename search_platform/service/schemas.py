"""Wire models of the HTTP API (validation and OpenAPI docs); the core never sees these."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from search_platform.domain.models import ContentType, GroupBy, SearchMode, SnippetSource
from search_platform.ingestion.pipeline import CONTROL_IN_LABEL, CONTROL_IN_TEXT
from search_platform.retrieval.fusion import Normalization

INDEX_NAME = r"^[a-z0-9][a-z0-9._-]{0,127}$"
QUERY_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")  # tab, newline and CR are whitespace
# what str.strip() removes (a unit test checks it against str.isspace), spelled out: JSON Schema's \s differs
WHITESPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"


def _forbidden(control: re.Pattern[str]) -> str:
    """The character class of a control-character regex, without lone surrogates (JSON text carries none)."""
    return control.pattern.removeprefix("[").removesuffix("]").replace(r"\ud800-\udfff", "")


def free_of(control: re.Pattern[str]) -> str:
    """JSON Schema pattern: no character of `control`."""
    return f"^[^{_forbidden(control)}]*$"


def not_blank_free_of(control: re.Pattern[str]) -> str:
    """JSON Schema pattern: no character of `control`, and something besides whitespace."""
    chars = _forbidden(control)
    return f"^[^{chars}]*[^{chars}{WHITESPACE}][^{chars}]*$"


Keyword = Annotated[str, Field(min_length=1, max_length=256)]
# RFC 3339, as OpenAPI's date-time format says (pydantic alone would also take numbers and other spellings)
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
UnitId = Annotated[str, Field(min_length=1, max_length=256)]
# the keys of FUSERS (a unit test keeps them in step)
Fusion = Literal["rrf", "weighted_rrf", "convex", "dbsf", "routed"]
Weight = Annotated[float, Field(ge=0, allow_inf_nan=False, strict=True)]


def _rfc3339(value: object) -> object:
    if not isinstance(value, str) or not RFC3339.match(value):
        raise ValueError("expected an RFC 3339 date-time string, e.g. 2026-01-31T12:00:00Z")
    return value


Timestamp = Annotated[datetime, BeforeValidator(_rfc3339)]


def _json_integer(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema's integer: 68.0 is 68
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("expected an integer")  # never a string or a boolean read as a number
    return value


# integers as JSON Schema reads them (68.0 is 68; "68" and true are not), bounds before the check so the schema has them
Upto1k = Annotated[int, Field(ge=1, le=1000), BeforeValidator(_json_integer)]
Upto10k = Annotated[int, Field(ge=1, le=10_000), BeforeValidator(_json_integer)]
Upto100k = Annotated[int, Field(ge=1, le=100_000), BeforeValidator(_json_integer)]


class FiltersBody(BaseModel):
    """Metadata filters; every listed value is an exact match, applied to both legs."""

    model_config = ConfigDict(extra="forbid")

    doc_ids: list[Keyword] = Field(default_factory=list, max_length=1000)
    sources: list[Keyword] = Field(default_factory=list, max_length=100)
    tags: list[Keyword] = Field(default_factory=list, max_length=100)
    langs: list[Keyword] = Field(default_factory=list, max_length=100)
    tenants: list[Keyword] = Field(default_factory=list, max_length=100)
    indexed_after: Timestamp | None = None
    indexed_before: Timestamp | None = None


class WeightsBody(BaseModel):
    """Per-leg weights for weighted_rrf and dbsf; an unset leg weighs 1.0, except dense_lead (the lead-passage
    kNN list, run beside dense when results are grouped by document) and definitions (the documents that define a
    name the query writes, likewise), which are off (0) unless set; bm25 and dense not both 0."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"not": {
        "required": ["bm25", "dense"], "properties": {"bm25": {"const": 0}, "dense": {"const": 0}}}})

    bm25: Weight = 1.0
    dense: Weight = 1.0
    dense_lead: Weight = 0.0
    definitions: Weight = 0.0


class SearchBody(BaseModel):
    """POST /v1/search."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, description="What to look for; plain text, never query DSL.",
                       json_schema_extra={"pattern": not_blank_free_of(QUERY_CONTROL)})
    mode: SearchMode = SearchMode.HYBRID
    top_k: Upto1k | None = Field(default=None,
                              description="Older name of page_size, kept for compatibility: send either (or both, "
                                          "equal); default: settings.retrieval.top_k.")
    page: Upto10k = Field(default=1, description="Page number, from 1.")
    page_size: Upto1k | None = Field(default=None,
                                  description="Hits per page; defaults to top_k, then to settings.retrieval.top_k.")
    window: Upto10k | None = Field(
        default=None,
        description="The fused list is computed once to `window` hits (each leg fetches candidate_k) and pages are "
                    "slices of it, so page 2 never repeats or skips page 1. page * page_size must be at most window "
                    "(else 422). Default: settings.retrieval.window, raised to page_size.")
    group_by: GroupBy = Field(default=GroupBy.CHUNK,
                              description="chunk, or document: one hit per document at the rank of its best chunk, "
                                          "listing its matching chunks; paging counts documents.")
    highlight: bool = Field(default=True, strict=True, description="Add highlights: Elasticsearch's for BM25 "
                                                                   "matches, else the chunk's passage sharing most "
                                                                   "query terms.")
    explain: bool = Field(default=False, strict=True, description="Add each hit's explanation: leg ranks, raw and "
                                                                  "normalised scores, fusion params and each leg's "
                                                                  "contribution.")
    candidate_k: Upto10k | None = Field(default=None, description="Hits fetched per leg.")
    rrf_k: Upto100k | None = Field(default=None,
                              description="RRF constant: 1/(rrf_k + rank).")
    filters: FiltersBody = Field(default_factory=FiltersBody)
    index: str | None = Field(default=None, pattern=INDEX_NAME, description="Alias to search (default: settings).")
    fusion: Fusion | None = Field(default=None, description="How hybrid mode fuses the legs (ignored by one-leg "
                                                            "modes; default: settings.retrieval.fusion); "
                                                      "routed: weighted RRF with weights picked by the query's type "
                                                      "(lexical, semantic or mixed), weights not sent.")
    weights: WeightsBody | None = Field(default=None, description="weighted_rrf, dbsf: w_leg per leg.")
    alpha: float | None = Field(default=None, ge=0, le=1, strict=True,
                                description="convex: alpha * norm(dense) + (1 - alpha) * norm(bm25); default 0.5.")
    normalization: Normalization | None = Field(default=None, description="convex: minmax (default) or zscore.")
    rerank: bool | None = Field(
        default=None, strict=True,
        description="Rescore the fused top settings.rerank.top_n with the configured cross-encoder "
                    "(null: settings.rerank.enabled); true without a configured reranker is a 422.")
    user_id: UnitId | None = Field(default=None, description="The caller's user: experiments assign arms by it "
                                                             "(sticky); logged only as a keyed hash.")
    session_id: UnitId | None = Field(default=None, description="Used for the arm when user_id is not sent.")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is empty")
        if (found := QUERY_CONTROL.search(value)) is not None:
            raise ValueError(f"query contains the control or surrogate character U+{ord(found[0]):04X}")
        return value


class LegScoreBody(BaseModel):
    """A hit's place in one leg."""

    rank: int
    score: float


class LegExplanationBody(BaseModel):
    """One leg's part in a fused score; rank and score are null when the leg did not find the hit."""

    rank: int | None
    score: float | None
    normalized: float | None = Field(description="The leg's normalised score (convex, dbsf); null otherwise.")
    contribution: float = Field(description="What the leg added to the fused score.")


class ExplanationBody(BaseModel):
    """How a hit's score was made: the contributions sum to score."""

    fusion: str = Field(description="The fusion method, or 'none' for a one-leg mode (the leg's raw score).")
    params: dict[str, Any] = Field(description="The parameters the method reads (rrf_k, weights, alpha, ...).")
    score: float
    legs: dict[str, LegExplanationBody]
    route: str | None = Field(default=None, description="fusion=routed: the query's route (lexical, semantic or "
                                                        "mixed), which picked the weights; null otherwise.")
    rerank_score: float | None = Field(default=None, description="The reranker's score, which set the hit's rank; "
                                                                 "null when the hit was not reranked.")


class ChunkRefBody(BaseModel):
    """One matching chunk of a document-level hit, at its rank in the fused chunk list."""

    chunk_id: str
    chunk_index: int
    rank: int
    score: float


class HitBody(BaseModel):
    """One result chunk (or, grouped by document, the document's best chunk)."""

    rank: int
    score: float
    chunk_id: str
    doc_id: str
    chunk_index: int
    title: str
    section: str
    text: str
    source: str
    tags: list[str]
    tenant: str
    legs: dict[str, LegScoreBody]
    highlights: list[str] = Field(default_factory=list, description="Fragments with matches in <em>...</em>.")
    snippet_source: SnippetSource | None = Field(
        default=None, description="bm25: Elasticsearch's highlighter; dense: computed from the chunk's text "
                                  "(hits only the dense leg found, or BM25 matches outside text).")
    explanation: ExplanationBody | None = None
    chunks: list[ChunkRefBody] = Field(default_factory=list, description="group_by=document: matching chunks.")
    rerank_score: float | None = Field(default=None, description="The reranker's score (hits ordered by it); score "
                                                                 "stays the fused score. Null when not reranked.")


class SearchResponseBody(BaseModel):
    """Answer to POST /v1/search."""

    mode: SearchMode
    index: str
    top_k: int
    candidate_k: int
    rrf_k: int
    fusion: str
    page: int
    page_size: int
    window: int
    total_in_window: int = Field(description="Hits (documents when grouped) in the window: pages up to "
                                             "ceil(total_in_window / page_size) have hits.")
    group_by: GroupBy
    took_ms: float
    leg_took_ms: dict[str, float]
    timings_ms: dict[str, float] | None = Field(
        default=None, description="explain=true: milliseconds per stage (auth, encode, each leg, fusion, rerank, "
                                  "page, log), the stages of the Server-Timing header; null otherwise.")
    reranked: bool = Field(default=False, description="True when the fused top_n were reordered by the reranker.")
    rerank_reason: str | None = Field(default=None, description="Why a requested rerank did not happen (e.g. "
                                                                "'budget exceeded': the fused order is kept).")
    degraded: bool = Field(default=False, description="True when a leg failed or timed out and the other "
                                                      "leg's results were returned alone.")
    degraded_reason: str | None = Field(default=None, description="Which leg failed, and why.")
    request_id: str = Field(default="", description="Send it back with POST /v1/feedback when a hit is clicked.")
    experiment: str | None = Field(default=None, description="The experiment this search ran in, if any.")
    arm: str | None = Field(default=None, description="The experiment arm whose retrieval settings were used.")
    hits: list[HitBody]


# what ingest checks of labels, stated in the document's schema
LABEL: dict[str, Any] = {"pattern": free_of(CONTROL_IN_LABEL)}
NOT_BLANK_LABEL: dict[str, Any] = {"pattern": not_blank_free_of(CONTROL_IN_LABEL)}
Label = Annotated[str, Field(min_length=1, max_length=256, json_schema_extra=LABEL)]


class DocumentBody(BaseModel):
    """One document to ingest; the patterns state what ingest checks (no control characters, doc_id, content and
    tenant not blank), which pydantic leaves to it so each rejected document gets a readable reason."""

    model_config = ConfigDict(extra="forbid")

    doc_id: str = Field(min_length=1, max_length=256, json_schema_extra=NOT_BLANK_LABEL)
    content: str = Field(min_length=1, json_schema_extra={"pattern": not_blank_free_of(CONTROL_IN_TEXT)})
    title: str = Field(default="", max_length=1000, json_schema_extra=LABEL)
    content_type: ContentType = ContentType.TEXT
    source: str = Field(default="", max_length=256, json_schema_extra=LABEL)
    tags: list[Label] = Field(default_factory=list, max_length=100)
    lang: str = Field(default="en", min_length=1, max_length=16, json_schema_extra=LABEL)
    tenant: str = Field(default="default", min_length=1, max_length=128, json_schema_extra=NOT_BLANK_LABEL)


class IngestBody(BaseModel):
    """POST /v1/ingest: documents are checked one by one, so one bad document never sinks the rest: any JSON object
    is accepted as an item, and one that is not a valid Document is reported in `rejected` (422 if none is valid:
    the OpenAPI document says so with `contains`)."""

    model_config = ConfigDict(extra="forbid")

    documents: list[Annotated[DocumentBody | dict[str, Any], Field(union_mode="left_to_right")]] = Field(
        min_length=1)
    index: str | None = Field(default=None, pattern=INDEX_NAME,
                              description="Alias to write to (default: settings); it must be one the key is granted.")


class IngestResponseBody(BaseModel):
    """Answer to POST /v1/ingest."""

    job_id: str
    documents: int
    rejected: dict[str, str]
    status_url: str


class DocumentInfoBody(BaseModel):
    """GET /v1/documents/{doc_id}: what the index holds of one document."""

    doc_id: str
    tenant: str
    index: str
    chunk_count: int = Field(description="Chunks of the document in the index.")
    content_hash: str = Field(description="Hash of the document's content (of its chunks' hashes when the index "
                                          "keeps no document records).")
    indexed_at: str | None = Field(description="When its chunks were last written (ISO 8601).")
    title: str
    source: str
    tags: list[str]


class DeleteFilterBody(BaseModel):
    """POST /v1/documents/delete: delete every document matching all the given criteria (at least one)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [
        {"required": [name], "properties": {name: {"minItems": 1}}} for name in ("doc_ids", "sources", "tags")]})

    index: str | None = Field(default=None, pattern=INDEX_NAME, description="Alias (default: settings).")
    tenant: Keyword | None = Field(default=None, description="A key spanning every tenant may narrow to one; a "
                                                             "tenant-bound key always deletes only its own.")
    doc_ids: list[Keyword] = Field(default_factory=list, max_length=1000)
    sources: list[Keyword] = Field(default_factory=list, max_length=100)
    tags: list[Keyword] = Field(default_factory=list, max_length=100)


class DeleteResponseBody(BaseModel):
    """What a delete removed."""

    index: str
    documents: list[dict[str, str]] = Field(description="The (tenant, doc_id) pairs deleted; a later ingest job "
                                                        "brings a document back, an earlier one in flight never does.")
    records_deleted: int = Field(description="Chunks and document records removed from Elasticsearch.")


class PurgeResponseBody(BaseModel):
    """DELETE /v1/tenants/{tenant}: everything of a tenant removed."""

    tenant: str
    records_deleted: int
    indices_deleted: list[str]
    keys_deleted: list[str]


class KeyDeletedBody(BaseModel):
    """DELETE /v1/keys/{key_id}."""

    key_id: str
    deleted: bool


class JobBody(BaseModel):
    """GET /v1/jobs/{job_id}."""

    job_id: str
    state: str
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
    batches_failed: int = Field(default=0, description="Batches that gave up after their retries; "
                                                       "POST /v1/jobs/{job_id}/resume queues them again.")
    deliveries: int = Field(default=0, description="Batch deliveries to workers, counting retries and "
                                                   "redeliveries after a lost worker.")
    workers: list[str] = Field(default_factory=list, description="Workers that completed the job's batches.")


class DependencyBody(BaseModel):
    """One dependency's health."""

    ok: bool
    detail: str


class HealthBody(BaseModel):
    """GET /healthz: 200 when every dependency is ok, else 503 with the same body."""

    status: Literal["ok", "degraded"]
    dependencies: dict[str, DependencyBody]


class ErrorBody(BaseModel):
    """Every error response."""

    error: str
    message: str
    details: list[dict[str, Any]] = Field(default_factory=list)


class FeedbackBody(BaseModel):
    """POST /v1/feedback: a click on a search result."""

    model_config = ConfigDict(extra="forbid")

    request_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$",
                            description="The request_id of the search response the hit came from.")
    doc_id: str = Field(min_length=1, max_length=256)
    position: Upto10k = Field(description="The clicked hit's rank, from 1.")
    chunk_id: str | None = Field(default=None, min_length=1, max_length=512)
    user_id: UnitId | None = None
    session_id: UnitId | None = None


class FeedbackResponseBody(BaseModel):
    """Answer to POST /v1/feedback."""

    accepted: bool = Field(description="False when the event could not be queued (logging off or queue full).")
