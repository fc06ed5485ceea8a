"""GET /v1/documents/{doc_id}, DELETE /v1/documents/{doc_id} and POST /v1/documents/delete (by filter)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.convertors import StringConvertor, register_url_convertor

from search_platform.auth.errors import PermissionDeniedError
from search_platform.domain.errors import InvalidQueryError
from search_platform.domain.models import Filters
from search_platform.ingestion.lifecycle import DeleteReport, Tombstones, delete_documents, get_document
from search_platform.service.auth import IngestPrincipal, Principal, authorize_index
from search_platform.service.deps import ResourcesDep
from search_platform.service.openapi import KEYED, WITH_BODY, error_responses
from search_platform.service.resources import Resources
from search_platform.service.schemas import (
    INDEX_NAME,
    DeleteFilterBody,
    DeleteResponseBody,
    DocumentInfoBody,
)


class DocIdConvertor(StringConvertor):
    """A document id in a path: never `delete`, which is POST /v1/documents/delete's path (so GET or DELETE of it
    is a 405 naming POST, not a lookup of a document called 'delete': delete that one by filter)."""

    regex = r"(?!delete$)[^/]+"


register_url_convertor("doc_id", DocIdConvertor())
router = APIRouter()
DEFAULT_TENANT = "default"  # the tenant of a document that names none (DocumentBody.tenant)
MAX_RESULT_WINDOW = 10_000
DocId = Annotated[str, Path(min_length=1, max_length=256, json_schema_extra={"not": {"const": "delete"}})]
IndexParam = Annotated[str | None, Query(pattern=INDEX_NAME, description="Alias (default: settings).")]
TenantParam = Annotated[str | None, Query(min_length=1, max_length=128, description=(
    "The document's tenant: a key spanning every tenant may name one (default: 'default'); a tenant-bound key "
    "always means its own."))]
RESPONSES = error_responses(*KEYED, 404, 405, 502)  # 405: the id `delete` (DocIdConvertor)


def effective_tenant(principal: Principal, asked: str | None) -> str | None:
    """The tenant an operation acts on: the key's own, or what a key spanning every tenant asked (None: all)."""
    if principal.tenant is None:
        return asked
    if asked is not None and asked != principal.tenant:
        raise PermissionDeniedError(f"this API key is bound to tenant {principal.tenant!r}; it cannot act on "
                                    f"tenant {asked!r}")
    return principal.tenant


def _tombstones(resources: Resources) -> Tombstones:
    return Tombstones(resources.redis, ttl_s=resources.settings.redis.job_ttl_s)


def _response(index: str, report: DeleteReport) -> DeleteResponseBody:
    return DeleteResponseBody(index=index, records_deleted=report.records_deleted,
                              documents=[{"tenant": tenant, "doc_id": doc_id} for tenant, doc_id in report.documents])


@router.get("/v1/documents/{doc_id:doc_id}", response_model=DocumentInfoBody, responses=RESPONSES)
async def document(doc_id: DocId, resources: ResourcesDep, principal: IngestPrincipal, index: IndexParam = None,
                   tenant: TenantParam = None) -> DocumentInfoBody:
    """One document as indexed: its chunk count, content hash and when it was indexed (404 when absent)."""
    name = authorize_index(resources.settings, principal, index)
    owner = effective_tenant(principal, tenant) or DEFAULT_TENANT
    limit = min(resources.settings.ingestion.max_chunks_per_document + 1, MAX_RESULT_WINDOW - 1)
    info = await get_document(resources.es, index=name, tenant=owner, doc_id=doc_id, max_records=limit)
    return DocumentInfoBody(doc_id=info.doc_id, tenant=info.tenant, index=info.index, chunk_count=info.chunk_count,
                            content_hash=info.content_hash, indexed_at=info.indexed_at, title=info.title,
                            source=info.source, tags=list(info.tags))


@router.delete("/v1/documents/{doc_id:doc_id}", response_model=DeleteResponseBody, responses=RESPONSES)
async def delete_document(doc_id: DocId, resources: ResourcesDep, principal: IngestPrincipal,
                          index: IndexParam = None, tenant: TenantParam = None) -> DeleteResponseBody:
    """Delete a document: its chunks now, and any ingest of it still queued or running (a later ingest brings it
    back)."""
    name = authorize_index(resources.settings, principal, index)
    owner = effective_tenant(principal, tenant) or DEFAULT_TENANT
    report = await delete_documents(resources.es, _tombstones(resources), resources.jobs.next_sequence(), index=name,
                                    filters=Filters(doc_ids=(doc_id,), tenants=(owner,)), by_id=[(owner, doc_id)])
    return _response(name, report)


@router.post("/v1/documents/delete", response_model=DeleteResponseBody,
             responses=error_responses(*KEYED, *WITH_BODY, 404, 502))
async def delete_by_filter(body: DeleteFilterBody, resources: ResourcesDep,
                           principal: IngestPrincipal) -> DeleteResponseBody:
    """Delete every document (of the key's tenant) matching all the given criteria: doc_ids, sources, tags."""
    if not (body.doc_ids or body.sources or body.tags):
        raise InvalidQueryError("name at least one of doc_ids, sources or tags (to delete a whole tenant, an admin "
                                "uses DELETE /v1/tenants/{tenant})", ("doc_ids", "sources", "tags"))
    name = authorize_index(resources.settings, principal, body.index)
    owner = effective_tenant(principal, body.tenant)
    filters = Filters(doc_ids=tuple(body.doc_ids), sources=tuple(body.sources), tags=tuple(body.tags),
                      tenants=(owner,) if owner is not None else ())
    by_id = [(owner or DEFAULT_TENANT, doc_id) for doc_id in body.doc_ids] if not (body.sources or body.tags) else []
    report = await delete_documents(resources.es, _tombstones(resources), resources.jobs.next_sequence(), index=name,
                                    filters=filters, by_id=by_id)
    return _response(name, report)
