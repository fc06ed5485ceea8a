"""Errors of authentication, authorisation and rate limiting; each keeps its arguments in `args` (picklable)."""

from __future__ import annotations

from search_platform.domain.errors import SearchPlatformError


class AuthenticationError(SearchPlatformError):
    """No API key, or one that is malformed, unknown, wrong or revoked (HTTP 401)."""


class PermissionDeniedError(SearchPlatformError):
    """The key is valid but may not do this: a missing scope, or another tenant's data (HTTP 403)."""


class KeyPolicyError(SearchPlatformError):
    """A key cannot be created as asked (bad scopes, tenant, name or limit)."""


class RateLimitedError(SearchPlatformError):
    """The key spent its request budget; retry_after_s says when the next request is allowed (HTTP 429)."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
        self.args = (message, retry_after_s)


class KeyNotFoundError(SearchPlatformError):
    """No API key with this id (or none this admin key may see) (HTTP 404)."""
