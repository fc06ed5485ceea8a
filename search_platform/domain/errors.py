"""Domain errors. Each keeps its constructor arguments in `args` so pickle (and so Celery) can move it."""

from __future__ import annotations


class SearchPlatformError(Exception):
    """Base of every error the platform raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidDocumentError(SearchPlatformError):
    """A document cannot be ingested as it is; the reason says why."""


class InvalidQueryError(SearchPlatformError):
    """A query or its parameters are not acceptable; fields names the request fields at fault, if known."""

    def __init__(self, message: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.fields = fields
        self.args = (message, fields)


class BackendError(SearchPlatformError):
    """Elasticsearch answered with an error that retrying will not fix."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.args = (message, status)


class BackendUnavailableError(BackendError):
    """Elasticsearch could not be reached, or said it is overloaded: worth retrying later."""


class IndexMissingError(BackendError):
    """The index or alias does not exist."""


class IndexOutdatedError(BackendError):
    """The alias points at an index of an older mapping version: it needs `search-platform reindex` first."""


class IndexForbiddenError(BackendError):
    """Elasticsearch refuses the platform's credentials access to the index (outside its role)."""


class JobNotFoundError(SearchPlatformError):
    """No ingestion job has that id."""


class ConflictError(SearchPlatformError):
    """The request conflicts with the current state (an idempotency key reused for another request, a job
    with nothing to resume)."""


class PayloadTooLargeError(SearchPlatformError):
    """A request or one of its documents is over the size limit."""
