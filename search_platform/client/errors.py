"""Typed SDK exceptions, one per kind of HTTP answer."""

from __future__ import annotations

from typing import Any

import httpx


class SearchPlatformClientError(Exception):
    """Base of every SDK error."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class InvalidRequestError(SearchPlatformClientError):
    """422: the request was refused; `body['details']` names each bad field."""


class NotFoundError(SearchPlatformClientError):
    """404: no such job or index."""


class UnauthorizedError(SearchPlatformClientError):
    """401 or 403."""


class ForbiddenError(UnauthorizedError):
    """403: the API key lacks the scope, or asked for another tenant's data."""


class RateLimitedError(SearchPlatformClientError):
    """429: slow down; retry_after_s is the service's Retry-After (seconds), when it sent one."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message, status=status, body=body)
        self.retry_after_s = retry_after_s


class ServiceUnavailableError(SearchPlatformClientError):
    """503 or no connection: a dependency is down; retry later."""


class ServerError(SearchPlatformClientError):
    """Any other 5xx."""


ERRORS_BY_STATUS: dict[int, type[SearchPlatformClientError]] = {
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    413: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitedError,
    503: ServiceUnavailableError,
}


def raise_for_status(response: httpx.Response) -> None:
    """Raise the typed error for a non-2xx response."""
    if response.is_success:
        return
    try:
        body: Any = response.json()
        message = body.get("message", response.text) if isinstance(body, dict) else response.text
    except ValueError:
        body, message = response.text, response.text
    kind = ERRORS_BY_STATUS.get(response.status_code)
    if kind is None:
        kind = ServerError if response.status_code >= 500 else SearchPlatformClientError
    text = f"{response.status_code}: {message}"
    if kind is RateLimitedError:
        raise RateLimitedError(text, status=response.status_code, body=body,
                               retry_after_s=_retry_after(response.headers.get("retry-after")))
    raise kind(text, status=response.status_code, body=body)


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
