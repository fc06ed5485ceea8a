"""Tenant isolation, enforced on the server whatever the client sends.

Search: a key bound to tenant A searches only A. Its tenant is forced into the filters both legs apply (the BM25
bool filter and the kNN pre-filter). Filters that also name other tenants are narrowed to A; filters that name
only other tenants are refused with 403, since the key may never see them.
Which indices a key may name at all is decided by its grants (search_platform/auth/indices.py).
Ingest: every document is stamped with A; a document that names another tenant is rejected on its own.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from search_platform.auth.errors import PermissionDeniedError
from search_platform.domain.models import Filters


def restrict_filters(filters: Filters, tenant: str | None) -> Filters:
    """The filters narrowed to the key's tenant (unchanged for a key that spans every tenant)."""
    if tenant is None:
        return filters
    if filters.tenants and tenant not in filters.tenants:
        asked = ", ".join(sorted(set(filters.tenants)))
        raise PermissionDeniedError(f"this API key is bound to tenant {tenant!r}; it cannot search tenant(s) {asked}")
    return dataclasses.replace(filters, tenants=(tenant,))


def tenant_violation(raw: object, tenant: str | None) -> str | None:
    """Why a raw document may not be ingested with this key's tenant, or None when it may."""
    if tenant is None or not isinstance(raw, dict) or "tenant" not in raw or raw["tenant"] == tenant:
        return None
    return f"tenant {raw['tenant']!r} is not this API key's tenant {tenant!r}"


def stamp_tenant(raw: Any, tenant: str | None) -> Any:
    """The raw document with the key's tenant set (as it is for a key that spans every tenant)."""
    if tenant is None or not isinstance(raw, dict):
        return raw
    return {**raw, "tenant": tenant}
