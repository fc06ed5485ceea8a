"""API keys: `sp_<key_id>_<secret>`, stored in Redis as a hash of the secret, never the secret itself.

A key carries scopes (search, ingest, admin), an optional tenant, the indices it may use (search_platform/auth/
indices.py) and an optional per-key rate limit. A key bound to a tenant only ever reads and writes that tenant's
chunks, in the indices it is granted; a key with no tenant spans every tenant and must hold the admin scope, so no
ordinary key is cross-tenant by accident. Tenant names use a safe alphabet (lowercase letters, digits, `_`, `-`),
checked when a key is created, so they can name indices and never contain a separator.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from redis import Redis

from search_platform.auth.errors import AuthenticationError, KeyPolicyError
from search_platform.auth.indices import TENANT_ALPHABET, IndexPolicy
from search_platform.config import AuthSettings

KEY_PREFIX = "sp"
KEY_ID_BYTES = 8  # 16 hex characters
SECRET_BYTES = 32
DEFAULT_STORE_PREFIX = "sp:apikey"
_PRESENTED = re.compile(r"^sp_(?P<key_id>[0-9a-f]{16})_(?P<secret>[A-Za-z0-9_-]{20,128})$")


class Scope(enum.StrEnum):
    """What a key may do: search (POST /v1/search), ingest (POST /v1/ingest, GET /v1/jobs), admin."""

    SEARCH = "search"
    INGEST = "ingest"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key's metadata (the secret's hash stays in Redis)."""

    key_id: str
    name: str
    scopes: frozenset[Scope]
    tenant: str | None
    rate_limit_per_minute: int | None
    created_at: float
    revoked: bool = False
    revoked_at: float | None = None
    indices: tuple[str, ...] = ()  # index grants (names or `prefix*`); () : the defaults of IndexPolicy.grants_for

    def allows(self, scope: Scope) -> bool:
        """True when the key holds the scope."""
        return scope in self.scopes


def parse_scopes(raw: str | Iterable[str]) -> frozenset[Scope]:
    """`search,ingest` (or an iterable of names) -> scopes; KeyPolicyError naming an unknown or missing scope."""
    names = [part.strip() for part in (raw.split(",") if isinstance(raw, str) else raw) if part.strip()]
    if not names:
        raise KeyPolicyError("a key needs at least one scope: " + ", ".join(s.value for s in Scope))
    unknown = sorted(set(names) - {s.value for s in Scope})
    if unknown:
        raise KeyPolicyError(f"unknown scope(s) {', '.join(unknown)}; known: {', '.join(s.value for s in Scope)}")
    return frozenset(Scope(name) for name in names)


def check_policy(*, name: str, scopes: frozenset[Scope], tenant: str | None, rate_limit_per_minute: int | None,
                 indices: Sequence[str] = (), policy: IndexPolicy | None = None) -> tuple[str, ...]:
    """Refuse keys that would be unsafe or unusable: empty names, odd tenants, unbound non-admin keys, grants that
    reach other tenants or the platform's indices; returns the checked grants."""
    if not name.strip() or len(name) > 200:
        raise KeyPolicyError("a key needs a name of 1 to 200 characters")
    if tenant is not None and not TENANT_ALPHABET.match(tenant):
        raise KeyPolicyError("tenant must be 1 to 63 characters of a-z, 0-9, '_' and '-', starting with a letter "
                             "or digit")
    if tenant is None and Scope.ADMIN not in scopes:
        raise KeyPolicyError("a key without a tenant spans every tenant and needs the admin scope; "
                             "bind it to a tenant (--tenant) instead")
    if rate_limit_per_minute is not None and rate_limit_per_minute < 1:
        raise KeyPolicyError("rate limit must be at least 1 request per minute")
    return (policy or IndexPolicy()).check_grants(tenant, indices)


def hash_secret(secret: str, pepper: str = "") -> str:
    """HMAC-SHA256 of the secret keyed by the pepper (plain SHA-256 semantics when the pepper is empty)."""
    return hmac.new(pepper.encode(), secret.encode(), hashlib.sha256).hexdigest()


def format_key(key_id: str, secret: str) -> str:
    """The string a client sends."""
    return f"{KEY_PREFIX}_{key_id}_{secret}"


def split_key(presented: str) -> tuple[str, str]:
    """`sp_<key_id>_<secret>` -> (key_id, secret); AuthenticationError when it is not shaped like a key."""
    match = _PRESENTED.match(presented.strip())
    if match is None:
        raise AuthenticationError("malformed API key: expected sp_<key_id>_<secret>")
    return match["key_id"], match["secret"]


def new_key_material() -> tuple[str, str]:
    """A fresh (key_id, secret) pair from the OS's CSPRNG."""
    return secrets.token_hex(KEY_ID_BYTES), secrets.token_urlsafe(SECRET_BYTES)


def to_fields(key: ApiKey, secret_hash: str) -> dict[str, str]:
    """A key as the fields of its Redis hash."""
    return {
        "key_id": key.key_id,
        "name": key.name,
        "scopes": ",".join(sorted(s.value for s in key.scopes)),
        "tenant": key.tenant or "",
        "rate_limit_per_minute": str(key.rate_limit_per_minute or ""),
        "created_at": repr(key.created_at),
        "revoked": "1" if key.revoked else "0",
        "revoked_at": repr(key.revoked_at) if key.revoked_at is not None else "",
        "secret_hash": secret_hash,
        "indices": ",".join(key.indices),
    }


def from_fields(fields: Mapping[str, str]) -> ApiKey:
    """The inverse of to_fields (the hash is left out)."""
    return ApiKey(
        key_id=fields["key_id"],
        name=fields["name"],
        scopes=parse_scopes(fields["scopes"]),
        tenant=fields.get("tenant") or None,
        rate_limit_per_minute=int(fields["rate_limit_per_minute"]) if fields.get("rate_limit_per_minute") else None,
        created_at=float(fields["created_at"]),
        revoked=fields.get("revoked") == "1",
        revoked_at=float(fields["revoked_at"]) if fields.get("revoked_at") else None,
        indices=tuple(part for part in fields.get("indices", "").split(",") if part),
    )


class KeyStore:
    """Create, read, list, revoke and verify API keys kept in Redis under `<prefix>:<key_id>`."""

    def __init__(self, redis: Redis[bytes], *, pepper: str = "", prefix: str = DEFAULT_STORE_PREFIX,
                 policy: IndexPolicy | None = None) -> None:
        self._redis = redis
        self._pepper = pepper
        self._prefix = prefix
        self._policy = policy or IndexPolicy()

    @classmethod
    def from_settings(cls, redis: Redis[bytes], settings: AuthSettings, policy: IndexPolicy | None = None) -> KeyStore:
        """The store with the configured pepper and key prefix."""
        return cls(redis, pepper=settings.pepper.get_secret_value(), prefix=settings.key_prefix, policy=policy)

    def _key(self, key_id: str) -> str:
        return f"{self._prefix}:{key_id}"

    def _fields(self, key_id: str) -> dict[str, str]:
        raw = self._redis.hgetall(self._key(key_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def create(self, *, name: str, scopes: frozenset[Scope], tenant: str | None = None,
               rate_limit_per_minute: int | None = None, indices: Sequence[str] = ()) -> tuple[ApiKey, str]:
        """Store a new key; returns it and the plaintext key, which is shown once and never stored."""
        grants = check_policy(name=name, scopes=scopes, tenant=tenant, rate_limit_per_minute=rate_limit_per_minute,
                              indices=indices, policy=self._policy)
        key_id, secret = new_key_material()
        key = ApiKey(key_id=key_id, name=name.strip(), scopes=scopes, tenant=tenant,
                     rate_limit_per_minute=rate_limit_per_minute, created_at=time.time(), indices=grants)
        created = self._redis.hsetnx(self._key(key_id), "key_id", key_id)
        if not created:  # 64 random bits colliding: refuse rather than overwrite
            raise KeyPolicyError("key id collision; try again")
        self._redis.hset(self._key(key_id), mapping=to_fields(key, hash_secret(secret, self._pepper)))  # type: ignore[arg-type]
        return key, format_key(key_id, secret)

    def get(self, key_id: str) -> ApiKey | None:
        """The key's metadata, or None when no key has that id."""
        fields = self._fields(key_id)
        return from_fields(fields) if fields else None

    def list(self) -> list[ApiKey]:
        """Every key (revoked ones included), oldest first; never secrets."""
        keys = [key for key_id in self._ids() if (key := self.get(key_id)) is not None]
        return sorted(keys, key=lambda k: k.created_at)

    def _ids(self) -> Iterator[str]:
        for name in self._redis.scan_iter(match=f"{self._prefix}:*", count=500):
            yield name.decode().rsplit(":", 1)[1]

    def revoke(self, key_id: str) -> bool:
        """Revoke a key for good; False when no key has that id."""
        if not self._redis.exists(self._key(key_id)):
            return False
        self._redis.hset(self._key(key_id), mapping={"revoked": "1", "revoked_at": repr(time.time())})
        return True

    def delete(self, key_id: str) -> bool:
        """Delete a key for good (it stops authenticating and leaves `keys list`); False when no key has that id."""
        return bool(self._redis.delete(self._key(key_id)))

    def delete_where(self, *, tenant: str | None = None, revoked: bool | None = None) -> tuple[str, ...]:
        """Delete every key of a tenant and/or every revoked key (at least one criterion); returns the deleted ids."""
        if tenant is None and revoked is None:
            raise ValueError("delete_where needs a tenant or revoked=...; it never deletes every key")
        doomed = tuple(key.key_id for key in self.list()
                       if (tenant is None or key.tenant == tenant) and (revoked is None or key.revoked == revoked))
        for key_id in doomed:
            self.delete(key_id)
        return doomed

    def authenticate(self, presented: str) -> ApiKey:
        """The live key matching the presented string; AuthenticationError when unknown, wrong or revoked."""
        key_id, secret = split_key(presented)
        fields = self._fields(key_id)
        expected = fields.get("secret_hash", "")
        # compare even when the key is unknown, so timing does not tell unknown ids from wrong secrets
        matches = hmac.compare_digest(hash_secret(secret, self._pepper), expected or "0" * 64)
        if not fields or not expected or not matches:
            raise AuthenticationError("invalid API key")
        key = from_fields(fields)
        if key.revoked:
            raise AuthenticationError("API key revoked")
        return key
