"""Typed SDK errors: no answer (connection, timeout) versus an answer with a status, one class per status."""

from __future__ import annotations

from typing import Any


class SearchPlatformClientError(Exception):
    """Base of every SDK error."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class TransportError(SearchPlatformClientError):
    """No answer from the service."""


class ConnectError(TransportError):
    """The service could not be reached (wrong URL, not running, network down)."""


class RequestTimeoutError(TransportError):
    """The service did not answer within the call's timeout."""


class APIError(SearchPlatformClientError):
    """The service answered with an error status; `status` and `body` (the JSON error) say which."""


class InvalidRequestError(APIError):
    """422: the request was refused; `body['details']` names each bad field."""


class PayloadTooLargeError(APIError):
    """413: a document is over the service's size limit; nothing was queued."""


class UnauthorizedError(APIError):
    """401: no API key, or an unknown, expired or revoked one."""


class ForbiddenError(APIError):
    """403: the API key lacks the scope, or asked for another tenant's data."""


class NotFoundError(APIError):
    """404: no such job or index."""


class ConflictError(APIError):
    """409: the request conflicts with the current state (e.g. resuming a job with no failed batch, or an
    Idempotency-Key reused with other documents)."""


class RateLimitedError(APIError):
    """429: slow down; retry_after_s is the service's Retry-After (seconds), when it sent one."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message, status=status, body=body)
        self.retry_after_s = retry_after_s


class ServiceUnavailableError(APIError):
    """503: a dependency of the service is down; retry later."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message, status=status, body=body)
        self.retry_after_s = retry_after_s


class ServerError(APIError):
    """Any other 5xx."""


ERRORS_BY_STATUS: dict[int, type[APIError]] = {
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: InvalidRequestError,
    429: RateLimitedError,
    503: ServiceUnavailableError,
}


class JobTimeoutError(SearchPlatformClientError, TimeoutError):
    """wait_for_job gave up: the job was still running; `job` is its last status (follow it with job_id)."""

    def __init__(self, message: str, *, job: Any = None) -> None:
        super().__init__(message)
        self.job = job
