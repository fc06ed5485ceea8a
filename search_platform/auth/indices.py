"""Sealed indices: which Elasticsearch indices (aliases) an API key may read and write.

A key carries grants: exact alias names (`sp-acme-docs`) or prefixes ending in `*` (`sp-tenant-acme.*`). A key bound
to a tenant whose grants are empty gets the defaults: the shared default alias (tenant-filtered on read, stamped on
write) and its own namespace `sp-tenant-<tenant>.*`. Tenant names use a safe alphabet without `.`, so no tenant's
namespace is a prefix of another's. Whatever its grants say, a tenant key never reaches another tenant's namespace
or the platform's indices (search logs, evaluation); and no key reaches an index outside `sp-*`, the only indices
the service's Elasticsearch user may touch (infra/es_security.py). Checked on every request, before anything is
searched or queued.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from search_platform.auth.errors import KeyPolicyError, PermissionDeniedError

PLATFORM_PREFIX = "sp-"  # infra/es_security.INDEX_PATTERNS: the service user's indices (a unit test keeps them equal)
TENANT_ROOT = "sp-tenant-"  # every tenant's own namespace lives under here
RESERVED_PREFIXES = ("sp-search-logs", "sp-eval-")  # every tenant's queries; evaluation corpora
TENANT_ALPHABET = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_GRANT = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}\*?$")


def tenant_namespace(tenant: str) -> str:
    """The prefix of a tenant's own indices: `sp-tenant-<tenant>.` (`.` is outside the tenant alphabet)."""
    return f"{TENANT_ROOT}{tenant}."


def matches(grant: str, index: str) -> bool:
    """True when the grant (an exact name, or a prefix ending in `*`) covers the index."""
    return index.startswith(grant[:-1]) if grant.endswith("*") else index == grant


def _overlaps(grant: str, prefix: str) -> bool:
    """True when some index could match both the grant and the prefix."""
    if grant.endswith("*"):
        stem = grant[:-1]
        return stem.startswith(prefix) or prefix.startswith(stem)
    return grant.startswith(prefix)


@dataclass(frozen=True, slots=True)
class IndexPolicy:
    """The platform's index rules: reserved prefixes and the shared default alias."""

    default_alias: str = "sp-chunks"
    reserved: tuple[str, ...] = RESERVED_PREFIXES

    @classmethod
    def build(cls, *, default_alias: str, log_alias: str) -> IndexPolicy:
        """The policy of one deployment: its default alias, and its search-log alias reserved."""
        return cls(default_alias=default_alias, reserved=tuple(dict.fromkeys((*RESERVED_PREFIXES, log_alias))))

    def grants_for(self, tenant: str | None, grants: Sequence[str]) -> tuple[str, ...]:
        """A key's effective grants: its own, or for a tenant key without any, the shared alias and its namespace;
        () for a key spanning every tenant without grants (any platform index)."""
        if grants or tenant is None:
            return tuple(grants)
        own = (f"{tenant_namespace(tenant)}*",) if TENANT_ALPHABET.match(tenant) else ()
        return (self.default_alias, *own)

    def check_grants(self, tenant: str | None, grants: Iterable[str]) -> tuple[str, ...]:
        """Grants a key may be created with; KeyPolicyError naming the first that is malformed or, for a tenant
        key, reaches the platform's indices or another tenant's namespace."""
        checked = []
        for grant in grants:
            if not _GRANT.match(grant) or not grant.startswith(PLATFORM_PREFIX):
                raise KeyPolicyError(f"index grant {grant!r} must be an index name or a prefix ending in '*', "
                                     f"under {PLATFORM_PREFIX}*")
            if tenant is not None:
                self._check_tenant_grant(tenant, grant)
            checked.append(grant)
        return tuple(dict.fromkeys(checked))

    def _check_tenant_grant(self, tenant: str, grant: str) -> None:
        for prefix in self.reserved:
            if _overlaps(grant, prefix):
                raise KeyPolicyError(f"index grant {grant!r} reaches the platform's indices ({prefix}*); "
                                     "tenant keys never may")
        own = tenant_namespace(tenant)
        if _overlaps(grant, TENANT_ROOT) and not grant.startswith(own):
            raise KeyPolicyError(f"index grant {grant!r} reaches other tenants' namespaces ({TENANT_ROOT}*); "
                                 f"tenant {tenant!r} may only have {own}*")

    def authorize(self, index: str, *, tenant: str | None, grants: Sequence[str]) -> None:
        """PermissionDeniedError with the reason unless a key of this tenant and grants may use the index."""
        if not index.startswith(PLATFORM_PREFIX):
            raise PermissionDeniedError(f"index {index!r} is outside the platform's indices ({PLATFORM_PREFIX}*)")
        if tenant is not None:
            for prefix in self.reserved:
                if index.startswith(prefix):
                    raise PermissionDeniedError(f"index {index!r} is reserved for the platform ({prefix}*); "
                                                "tenant-bound API keys never reach it")
            if index.startswith(TENANT_ROOT) and not index.startswith(tenant_namespace(tenant)):
                raise PermissionDeniedError(f"index {index!r} belongs to another tenant's namespace")
        effective = self.grants_for(tenant, grants)
        if effective and not any(matches(grant, index) for grant in effective):
            raise PermissionDeniedError(f"this API key may not use index {index!r}; it may use: "
                                        + ", ".join(effective))
