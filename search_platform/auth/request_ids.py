"""Each search's request id tied to the tenant that made it, so feedback is accepted only from that tenant and one
id never names two tenants' searches in the search log."""

from __future__ import annotations

import json
import uuid

from redis import Redis

from search_platform.domain.errors import SearchPlatformError
from search_platform.domain.ids import scoped


class RequestIdNotFoundError(SearchPlatformError):
    """No search with this request id was made by this key's tenant (HTTP 404)."""


class RequestIds:
    """Each search's request id, claimed for the tenant that made it (first claim wins)."""

    def __init__(self, redis: Redis[bytes], *, ttl_s: int, prefix: str = "sp:request") -> None:
        self._redis = redis
        self._ttl_s = ttl_s
        self._prefix = prefix

    def _name(self, request_id: str) -> str:
        return f"{self._prefix}:{scoped(None, request_id)}"

    def claim(self, request_id: str, tenant: str | None) -> bool:
        """Bind request_id to tenant; False when any search already used that id."""
        return bool(self._redis.set(self._name(request_id), json.dumps(tenant), nx=True, ex=self._ttl_s))

    def claim_or_new(self, requested: str | None, tenant: str | None) -> str:
        """The caller's X-Request-ID when no search used it yet, else a fresh id: ids in the search log are unique,
        so a request id never joins one tenant's clicks to another tenant's search."""
        if requested is not None and self.claim(requested, tenant):
            return requested
        while not self.claim(fresh := uuid.uuid4().hex, tenant):
            pass  # 128 random bits: never in practice
        return fresh

    def tenant_of(self, request_id: str, *, caller: str | None) -> str | None:
        """The tenant whose search request_id was; RequestIdNotFoundError when there was none, or (for a tenant key)
        it was another tenant's, which is not told apart from unknown."""
        raw = self._redis.get(self._name(request_id))
        if raw is None:
            raise RequestIdNotFoundError(f"no search with request_id {request_id!r} for this API key")
        owner: str | None = json.loads(raw)
        if caller is not None and owner != caller:
            raise RequestIdNotFoundError(f"no search with request_id {request_id!r} for this API key")
        return owner

