"""API keys: `sp_<key_id>_<secret>`, stored in Redis as a hash of the secret, never the secret itself.

A key carries scopes (search, ingest, admin), an optional tenant and an optional per-key rate limit. A key bound to
a tenant only ever reads and writes that tenant's chunks; a key with no tenant spans every tenant and must hold the
admin scope, so no ordinary key is cross-tenant by accident.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from redis import Redis

from search_platform.auth.errors import AuthenticationError, KeyPolicyError
from search_platform.config import AuthSettings

KEY_PREFIX = "sp"
KEY_ID_BYTES = 8  # 16 hex characters
SECRET_BYTES = 32
DEFAULT_STORE_PREFIX = "sp:apikey"
_PRESENTED = re.compile(r"^sp_(?P<key_id>[0-9a-f]{16})_(?P<secret>[A-Za-z0-9_-]{20,128})$")
_TENANT = re.compile(r"^\S{1,128}$")


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


def check_policy(*, name: str, scopes: frozenset[Scope], tenant: str | None, rate_limit_per_minute: int | None) -> None:
    """Refuse keys that would be unsafe or unusable: empty names, odd tenants, unbound non-admin keys."""
    if not name.strip() or len(name) > 200:
        raise KeyPolicyError("a key needs a name of 1 to 200 characters")
    if tenant is not None and not _TENANT.match(tenant):
        raise KeyPolicyError("tenant must be 1 to 128 characters without whitespace")
    if tenant is None and Scope.ADMIN not in scopes:
        raise KeyPolicyError("a key without a tenant spans every tenant and needs the admin scope; "
                             "bind it to a tenant (--tenant) instead")
    if rate_limit_per_minute is not None and rate_limit_per_minute < 1:
        raise KeyPolicyError("rate limit must be at least 1 request per minute")


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
    )


class KeyStore:
    """Create, read, list, revoke and verify API keys kept in Redis under `<prefix>:<key_id>`."""

    def __init__(self, redis: Redis[bytes], *, pepper: str = "", prefix: str = DEFAULT_STORE_PREFIX) -> None:
        self._redis = redis
        self._pepper = pepper
        self._prefix = prefix

    @classmethod
    def from_settings(cls, redis: Redis[bytes], settings: AuthSettings) -> KeyStore:
        """The store with the configured pepper and key prefix."""
        return cls(redis, pepper=settings.pepper.get_secret_value(), prefix=settings.key_prefix)

    def _key(self, key_id: str) -> str:
        return f"{self._prefix}:{key_id}"

    def _fields(self, key_id: str) -> dict[str, str]:
        raw = self._redis.hgetall(self._key(key_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def create(self, *, name: str, scopes: frozenset[Scope], tenant: str | None = None,
               rate_limit_per_minute: int | None = None) -> tuple[ApiKey, str]:
        """Store a new key; returns it and the plaintext key, which is shown once and never stored."""
        check_policy(name=name, scopes=scopes, tenant=tenant, rate_limit_per_minute=rate_limit_per_minute)
        key_id, secret = new_key_material()
        key = ApiKey(key_id=key_id, name=name.strip(), scopes=scopes, tenant=tenant,
                     rate_limit_per_minute=rate_limit_per_minute, created_at=time.time())
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
