"""API-key authentication, scope checks and per-key rate limits as FastAPI dependencies, and their error bodies.

Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>` (both are securitySchemes in the OpenAPI
document). Missing, unknown or revoked keys get 401 with `WWW-Authenticate`; a key without the route's scope, or
naming an index it is not granted (search_platform/auth/indices.py), gets 403; a key over its rate limit gets 429
with `Retry-After`. If Redis is down the existing handler answers 503.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from search_platform.auth.errors import AuthenticationError, PermissionDeniedError, RateLimitedError
from search_platform.auth.indices import IndexPolicy
from search_platform.auth.keys import ApiKey, Scope
from search_platform.config import Settings
from search_platform.domain.timings import Stage
from search_platform.service.deps import ResourcesDep
from search_platform.service.errors import error_response
from search_platform.service.resources import Resources
from search_platform.service.server_timing import request_timings

BEARER = "bearer"
API_KEY_HEADER = "x-api-key"
WWW_AUTHENTICATE = 'Bearer realm="search-platform"'
# declared for the OpenAPI document (securitySchemes); authorize() reads the headers itself
BEARER_SCHEME = HTTPBearer(auto_error=False, scheme_name="bearer", description="Authorization: Bearer <API key>")
API_KEY_SCHEME = APIKeyHeader(name="X-API-Key", auto_error=False, scheme_name="apiKey", description="The API key.")


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the key's id, scopes, tenant (None: every tenant) and index grants."""

    key_id: str | None
    scopes: frozenset[Scope]
    tenant: str | None
    indices: tuple[str, ...] = ()

    @classmethod
    def of(cls, key: ApiKey) -> Principal:
        """The principal of a verified key."""
        return cls(key_id=key.key_id, scopes=key.scopes, tenant=key.tenant, indices=key.indices)


def index_policy(settings: Settings) -> IndexPolicy:
    """The deployment's index rules."""
    return IndexPolicy.build(default_alias=settings.elasticsearch.index_alias, log_alias=settings.analytics.log_alias)


def authorize_index(settings: Settings, principal: Principal, index: str | None) -> str:
    """The index a request uses (the default alias when it names none); PermissionDeniedError with the reason when
    the key may not use it. Called before anything is searched, queued or deleted."""
    name = index or settings.elasticsearch.index_alias
    index_policy(settings).authorize(name, tenant=principal.tenant, grants=principal.indices)
    return name


# with auth.enabled=false (development only; prod refuses it) every caller is an unbound admin
ANONYMOUS = Principal(key_id=None, scopes=frozenset(Scope), tenant=None)


def presented_key(request: Request) -> str | None:
    """The key from `Authorization: Bearer` or `X-API-Key`, or None when neither is sent."""
    authorization = request.headers.get("authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == BEARER and credentials.strip():
        return credentials.strip()
    return request.headers.get(API_KEY_HEADER, "").strip() or None


def authorize(request: Request, response: Response, resources: Resources, scope: Scope) -> Principal:
    """Verify the request's key, its scope and its rate limit; the principal, or an auth error."""
    settings = resources.settings.auth
    if not settings.enabled:
        return ANONYMOUS
    presented = presented_key(request)
    if presented is None:
        raise AuthenticationError("missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'")
    key = resources.keys.authenticate(presented)
    if not key.allows(scope):
        raise PermissionDeniedError(f"this API key lacks the {scope.value!r} scope")
    verdict = resources.rate_limiter.hit(key.key_id, limit=key.rate_limit_per_minute or settings.rate_limit_per_minute)
    response.headers["X-RateLimit-Limit"] = str(verdict.limit)
    response.headers["X-RateLimit-Remaining"] = str(verdict.remaining)
    if not verdict.allowed:
        raise RateLimitedError(f"rate limit of {verdict.limit} requests per minute exceeded; "
                               f"retry in {verdict.retry_after_s}s", verdict.retry_after_s)
    return Principal.of(key)


def require(scope: Scope) -> Callable[..., Principal]:
    """A dependency that admits keys holding `scope`, records the principal on request.state and times the check
    as the request's auth stage."""

    def dependency(request: Request, response: Response, resources: ResourcesDep,
                   _bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER_SCHEME)] = None,
                   _api_key: Annotated[str | None, Depends(API_KEY_SCHEME)] = None) -> Principal:
        with request_timings(request).measure(Stage.AUTH):
            principal = authorize(request, response, resources, scope)
        request.state.principal = principal
        return principal

    dependency.__name__ = f"require_{scope.value}"
    return dependency


SearchPrincipal = Annotated[Principal, Depends(require(Scope.SEARCH))]
IngestPrincipal = Annotated[Principal, Depends(require(Scope.INGEST))]
AdminPrincipal = Annotated[Principal, Depends(require(Scope.ADMIN))]


async def _unauthenticated(_: Request, error: Exception) -> JSONResponse:
    response = error_response(401, "unauthorized", str(error))
    response.headers["WWW-Authenticate"] = WWW_AUTHENTICATE
    return response


async def _forbidden(_: Request, error: Exception) -> JSONResponse:
    return error_response(403, "forbidden", str(error))


async def _rate_limited(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RateLimitedError)
    response = error_response(429, "rate_limited", error.message)
    response.headers["Retry-After"] = str(error.retry_after_s)
    return response


def install_auth_handlers(app: FastAPI) -> None:
    """Register the 401, 403 and 429 handlers (more specific than the domain-error handler)."""
    app.add_exception_handler(AuthenticationError, _unauthenticated)
    app.add_exception_handler(PermissionDeniedError, _forbidden)
    app.add_exception_handler(RateLimitedError, _rate_limited)
