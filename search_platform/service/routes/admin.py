"""Admin routes: DELETE /v1/tenants/{tenant} (purge a tenant) and DELETE /v1/keys/{key_id}."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from search_platform.auth.errors import KeyNotFoundError, PermissionDeniedError
from search_platform.auth.indices import PLATFORM_PREFIX, TENANT_ALPHABET, tenant_namespace
from search_platform.ingestion.lifecycle import Tombstones, purge_tenant
from search_platform.service.auth import AdminPrincipal
from search_platform.service.deps import ResourcesDep
from search_platform.service.openapi import KEYED, error_responses
from search_platform.service.schemas import KeyDeletedBody, PurgeResponseBody

router = APIRouter()
RESPONSES = error_responses(*KEYED, 404, 502)  # 404: a path that names no tenant or key


@router.delete("/v1/tenants/{tenant}", response_model=PurgeResponseBody, responses=RESPONSES)
async def purge(tenant: Annotated[str, Path(min_length=1, max_length=128)], resources: ResourcesDep,
                principal: AdminPrincipal) -> PurgeResponseBody:
    """Remove everything of a tenant: its records in every platform index, its own indices, any ingest of it still
    queued or running, and its API keys. Only a key spanning every tenant may."""
    if principal.tenant is not None:
        raise PermissionDeniedError("only an admin key spanning every tenant may purge a tenant")
    tombstones = Tombstones(resources.redis, ttl_s=resources.settings.redis.job_ttl_s)
    namespace = tenant_namespace(tenant) if TENANT_ALPHABET.match(tenant) else None
    report = await purge_tenant(resources.es, tombstones, resources.jobs.next_sequence(), tenant=tenant,
                                indices=f"{PLATFORM_PREFIX}*", namespace=namespace)
    keys = resources.keys.delete_where(tenant=tenant)
    return PurgeResponseBody(tenant=tenant, records_deleted=report.records_deleted,
                             indices_deleted=list(report.indices_deleted), keys_deleted=list(keys))


@router.delete("/v1/keys/{key_id}", response_model=KeyDeletedBody, responses=RESPONSES)
def delete_key(key_id: Annotated[str, Path(pattern=r"^[0-9a-f]{16}$")], resources: ResourcesDep,
               principal: AdminPrincipal) -> KeyDeletedBody:
    """Delete an API key for good (a tenant-bound admin key only its own tenant's); 404 when there is none."""
    key = resources.keys.get(key_id)
    if key is None or (principal.tenant is not None and key.tenant != principal.tenant):
        raise KeyNotFoundError(f"no API key with id {key_id}")
    return KeyDeletedBody(key_id=key_id, deleted=resources.keys.delete(key_id))
