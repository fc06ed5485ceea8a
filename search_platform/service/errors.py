"""Domain errors and validation failures -> clear JSON bodies with the right status, never a stack trace."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from search_platform.auth.errors import KeyNotFoundError
from search_platform.auth.request_ids import RequestIdNotFoundError
from search_platform.domain.errors import (
    BackendError,
    BackendUnavailableError,
    ConflictError,
    IndexForbiddenError,
    IndexMissingError,
    IndexOutdatedError,
    InvalidQueryError,
    JobNotFoundError,
    PayloadTooLargeError,
    SearchPlatformError,
)
from search_platform.ingestion.lifecycle import DocumentNotFoundError

logger = logging.getLogger(__name__)

QUEUE_ERRORS: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError, OperationalError)

STATUS_BY_ERROR: dict[type[SearchPlatformError], tuple[int, str]] = {
    InvalidQueryError: (422, "invalid_request"),
    JobNotFoundError: (404, "job_not_found"),
    DocumentNotFoundError: (404, "document_not_found"),
    RequestIdNotFoundError: (404, "request_not_found"),
    KeyNotFoundError: (404, "key_not_found"),
    ConflictError: (409, "conflict"),
    PayloadTooLargeError: (413, "payload_too_large"),
    IndexMissingError: (404, "index_not_found"),
    IndexOutdatedError: (409, "index_outdated"),
    IndexForbiddenError: (403, "index_forbidden"),
    BackendUnavailableError: (503, "backend_unavailable"),
    BackendError: (502, "backend_error"),
}


def error_response(status: int, error: str, message: str, details: list[dict[str, Any]] | None = None) -> JSONResponse:
    """The one error body shape."""
    return JSONResponse(status_code=status, content={"error": error, "message": message, "details": details or []})


def _status_for(error: SearchPlatformError) -> tuple[int, str]:
    for kind in type(error).__mro__:
        if kind in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[kind]
    return 500, "internal_error"


async def _domain_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, SearchPlatformError)
    status, code = _status_for(error)
    if status >= 500:
        logger.warning("request failed: %s", error)
    fields = error.fields if isinstance(error, InvalidQueryError) else ()
    return error_response(status, code, error.message, [{"field": f, "message": error.message} for f in fields])


def _field(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc if part != "body") or "body"


async def _validation_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    details = [{"field": _field(tuple(e["loc"])), "message": e["msg"]} for e in error.errors()]
    message = "; ".join(f"{d['field']}: {d['message']}" for d in details)
    return error_response(422, "invalid_request", message, details)


HTTP_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def allowed_methods(request: Request) -> str:
    """Every method the request's path answers to, across all routes of that path (Starlette names only the first
    route's)."""
    routes = request.app.router.routes
    return ", ".join(method for method in HTTP_METHODS
                     if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes))


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    """Framework-level refusals (a body that is not UTF-8, an unknown route or method) in the one error shape."""
    assert isinstance(error, StarletteHTTPException)
    code = "invalid_request" if error.status_code in (400, 422) else f"http_{error.status_code}"
    response = error_response(error.status_code, code, str(error.detail))
    response.headers.update(error.headers or {})
    if error.status_code == 405:
        response.headers["Allow"] = allowed_methods(request)
    return response


async def _queue_unavailable(_: Request, error: Exception) -> JSONResponse:
    logger.warning("Redis unreachable: %s", error)
    return error_response(503, "queue_unavailable", f"Redis (job store and queue) unreachable: {error}")


async def _unexpected(_: Request, error: Exception) -> JSONResponse:
    logger.exception("unhandled error", exc_info=error)
    return error_response(500, "internal_error", "internal error; see the service log")


def install_error_handlers(app: FastAPI) -> None:
    """Register every handler on app."""
    app.add_exception_handler(SearchPlatformError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    for redis_error in QUEUE_ERRORS:
        app.add_exception_handler(redis_error, _queue_unavailable)
    app.add_exception_handler(Exception, _unexpected)
