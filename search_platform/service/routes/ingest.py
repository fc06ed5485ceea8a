"""POST /v1/ingest and GET /v1/jobs/{job_id}."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from typing import Any

from fastapi import APIRouter
from pydantic import ValidationError

from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Document
from search_platform.ingestion.jobs import submit
from search_platform.service.deps import ResourcesDep
from search_platform.service.schemas import DocumentBody, ErrorBody, IngestBody, IngestResponseBody, JobBody
from workers.celery_app import enqueue_batch

router = APIRouter()


def _document_key(raw: dict[str, Any], position: int) -> str:
    doc_id = raw.get("doc_id") if isinstance(raw, dict) else None
    return doc_id if isinstance(doc_id, str) and doc_id.strip() else f"#{position}"


def _reason(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'document'}: {e['msg']}" for e in error.errors())


def split_documents(raw_documents: list[dict[str, Any]]) -> tuple[list[Document], dict[str, str]]:
    """Validate each document alone: the good ones, and a reason per rejected one (keyed by doc_id or #position)."""
    accepted: dict[str, Document] = {}
    rejected: dict[str, str] = {}
    for position, raw in enumerate(raw_documents):
        key = _document_key(raw, position)
        try:
            body = DocumentBody.model_validate(raw)
        except ValidationError as error:
            rejected[key] = _reason(error)
            continue
        if body.doc_id in accepted:
            rejected[f"#{position}"] = f"duplicate doc_id {body.doc_id!r} in this request"
            continue
        accepted[body.doc_id] = Document(**{**body.model_dump(), "tags": tuple(body.tags)})
    return list(accepted.values()), rejected


@router.post("/v1/ingest", status_code=202, response_model=IngestResponseBody,
             responses={413: {"model": ErrorBody}, 422: {"model": ErrorBody}, 503: {"model": ErrorBody}})
def ingest(body: IngestBody, resources: ResourcesDep) -> IngestResponseBody:
    """Queue documents for ingestion; bad documents are reported in `rejected` and in the job's errors."""
    settings = resources.settings
    if len(body.documents) > settings.service.max_ingest_documents:
        raise InvalidQueryError(f"at most {settings.service.max_ingest_documents} documents per request")
    documents, rejected = split_documents(body.documents)
    job_id = submit(
        resources.jobs,
        partial(enqueue_batch, resources.celery),
        documents,
        index=body.index or settings.elasticsearch.index_alias,
        per_batch=settings.ingestion.documents_per_task,
        rejected=rejected,
    )
    return IngestResponseBody(
        job_id=job_id, documents=len(documents), rejected=rejected, status_url=f"/v1/jobs/{job_id}"
    )


@router.get("/v1/jobs/{job_id}", response_model=JobBody, responses={404: {"model": ErrorBody}})
def job(job_id: str, resources: ResourcesDep) -> JobBody:
    """Status of an ingestion job."""
    status = resources.jobs.get(job_id)
    return JobBody(**{**asdict(status), "state": status.state.value})
