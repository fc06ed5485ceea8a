"""POST /v1/ingest, GET /v1/jobs/{job_id} and POST /v1/jobs/{job_id}/resume."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Header
from pydantic import ValidationError

from search_platform.auth.tenancy import stamp_tenant, tenant_violation
from search_platform.domain.errors import (
    InvalidDocumentError,
    InvalidQueryError,
    JobNotFoundError,
    PayloadTooLargeError,
)
from search_platform.domain.models import Document
from search_platform.ingestion.jobs import resume, submit
from search_platform.ingestion.pipeline import OversizeDocumentError, validate_document
from search_platform.ingestion.queue import enqueue_batch
from search_platform.service.auth import IngestPrincipal, Principal, authorize_index
from search_platform.service.deps import ResourcesDep
from search_platform.service.openapi import KEYED, WITH_BODY, error_responses
from search_platform.service.resources import Resources
from search_platform.service.schemas import DocumentBody, IngestBody, IngestResponseBody, JobBody

router = APIRouter()
IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=128, pattern=r"^[\x21-\x7e]+$",
    description="Repeat a request safely: the same key with the same documents returns the first job and queues "
                "nothing more; with different documents it is a 409. Keys are scoped by tenant: another tenant's "
                "identical key is a different key.")]
RawDocument = DocumentBody | dict[str, Any]


def _raw(document: RawDocument) -> dict[str, Any]:
    return document.model_dump(exclude_unset=True) if isinstance(document, DocumentBody) else document


def _document_key(raw: dict[str, Any], position: int) -> str:
    doc_id = raw.get("doc_id") if isinstance(raw, dict) else None
    return doc_id if isinstance(doc_id, str) and doc_id.strip() else f"#{position}"


def _reason(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'document'}: {e['msg']}" for e in error.errors())


def split_documents(
    raw_documents: list[RawDocument], *, tenant: str | None = None
) -> tuple[list[Document], dict[str, str]]:
    """Validate each document alone: the good ones, and a reason per rejected one (keyed by doc_id or #position).
    With a tenant (the API key's), each document is stamped with it and one naming another tenant is rejected."""
    accepted: dict[str, Document] = {}
    rejected: dict[str, str] = {}
    for position, item in enumerate(raw_documents):
        raw = _raw(item)
        key = _document_key(raw, position)
        if (violation := tenant_violation(raw, tenant)) is not None:
            rejected[key] = violation
            continue
        try:
            body = DocumentBody.model_validate(stamp_tenant(raw, tenant))
        except ValidationError as error:
            rejected[key] = _reason(error)
            continue
        if body.doc_id in accepted:
            rejected[f"#{position}"] = f"duplicate doc_id {body.doc_id!r} in this request"
            continue
        accepted[body.doc_id] = Document(**{**body.model_dump(), "tags": tuple(body.tags)})
    return list(accepted.values()), rejected


def screen_documents(
    documents: list[Document], rejected: dict[str, str], *, max_bytes: int
) -> tuple[list[Document], dict[str, str]]:
    """Check each document as the worker would; 413 naming the documents over the size limit, 422 when no
    document is left to ingest, else the good ones and every rejected one with its reason."""
    good: list[Document] = []
    refused = dict(rejected)
    oversize: list[str] = []
    for document in documents:
        try:
            validate_document(document, max_bytes=max_bytes)
        except OversizeDocumentError as error:
            oversize.append(f"{document.doc_id}: {error}")
        except InvalidDocumentError as error:
            refused[document.doc_id] = str(error)
        else:
            good.append(document)
    if oversize:
        raise PayloadTooLargeError("documents over the size limit, nothing was queued: " + "; ".join(oversize))
    if not good:
        reasons = "; ".join(f"{key}: {reason}" for key, reason in refused.items())
        raise InvalidQueryError(f"no document can be ingested, nothing was queued: {reasons}", ("documents",))
    return good, refused


@router.post("/v1/ingest", status_code=202, response_model=IngestResponseBody,
             responses=error_responses(*KEYED, *WITH_BODY, 409))
def ingest(body: IngestBody, resources: ResourcesDep, principal: IngestPrincipal,
           idempotency_key: IdempotencyKey = None) -> IngestResponseBody:
    """Queue documents for ingestion; bad documents are reported in `rejected` and in the job's errors
    (422 if none is left, 413 if one is over the size limit, 403 if the key may not write the index)."""
    settings = resources.settings
    index = authorize_index(settings, principal, body.index)
    if len(body.documents) > settings.service.max_ingest_documents:
        raise InvalidQueryError(f"at most {settings.service.max_ingest_documents} documents per request")
    documents, rejected = split_documents(body.documents, tenant=principal.tenant)
    documents, rejected = screen_documents(documents, rejected, max_bytes=settings.ingestion.max_document_bytes)
    job_id = submit(
        resources.jobs,
        partial(enqueue_batch, resources.celery),
        documents,
        index=index,
        per_batch=settings.ingestion.documents_per_task,
        max_batch_bytes=settings.ingestion.max_batch_bytes,
        rejected=rejected,
        tenant=principal.tenant,
        idempotency_key=idempotency_key,
    )
    return IngestResponseBody(
        job_id=job_id, documents=len(documents), rejected=rejected, status_url=f"/v1/jobs/{job_id}"
    )


@router.get("/v1/jobs/{job_id}", response_model=JobBody,
            responses=error_responses(*KEYED, 404))
def job(job_id: str, resources: ResourcesDep, principal: IngestPrincipal) -> JobBody:
    """Status of an ingestion job (a tenant-bound key sees only its tenant's jobs; others are 404)."""
    _check_visible(job_id, resources, principal)
    return _job_body(resources, job_id)


@router.post("/v1/jobs/{job_id}/resume", status_code=202, response_model=JobBody,
             responses=error_responses(*KEYED, 404, 409))
def resume_job(job_id: str, resources: ResourcesDep, principal: IngestPrincipal) -> JobBody:
    """Queue a failed job's failed batches again (409 if it has none); chunk ids are deterministic, so nothing
    is duplicated."""
    _check_visible(job_id, resources, principal)
    resume(resources.jobs, partial(enqueue_batch, resources.celery), job_id)
    return _job_body(resources, job_id)


def _check_visible(job_id: str, resources: Resources, principal: Principal) -> None:
    if principal.tenant is not None and resources.jobs.tenant_of(job_id) != principal.tenant:
        raise JobNotFoundError(f"no job with id {job_id}")


def _job_body(resources: Resources, job_id: str) -> JobBody:
    status = resources.jobs.get(job_id)
    return JobBody(**{**asdict(status), "state": status.state.value})
