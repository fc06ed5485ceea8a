"""API keys, scopes, tenant binding and per-key rate limits."""

from search_platform.auth.errors import AuthenticationError, KeyPolicyError, PermissionDeniedError, RateLimitedError
from search_platform.auth.keys import ApiKey, KeyStore, Scope, parse_scopes
from search_platform.auth.rate_limit import RateLimiter, RateLimitResult

__all__ = [
    "ApiKey",
    "AuthenticationError",
    "KeyPolicyError",
    "KeyStore",
    "PermissionDeniedError",
    "RateLimitResult",
    "RateLimitedError",
    "RateLimiter",
    "Scope",
    "parse_scopes",
]
