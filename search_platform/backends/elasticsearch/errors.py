"""The one place where Elasticsearch client errors become domain errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

from elasticsearch import ApiError, ConnectionError, ConnectionTimeout, TransportError

from search_platform.domain.errors import BackendError, BackendUnavailableError, IndexForbiddenError, IndexMissingError

TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})


def translate(error: Exception) -> BackendError:
    """Map a client exception to the domain: no response -> unavailable; a status -> by status."""
    if isinstance(error, ConnectionError | ConnectionTimeout):
        return BackendUnavailableError(f"Elasticsearch unreachable: {error.message}")
    if isinstance(error, ApiError):
        return _by_status(error.meta.status, _api_reason(error))
    if isinstance(error, TransportError):
        return BackendUnavailableError(f"Elasticsearch transport error: {error.message}")
    return BackendError(f"unexpected Elasticsearch error: {error!r}")


def _by_status(status: int, reason: str) -> BackendError:
    if status in TRANSIENT_STATUSES:
        return BackendUnavailableError(f"Elasticsearch overloaded ({status}): {reason}", status)
    if status == 403 and "security_exception" in reason:  # reason names users and roles: not for clients
        return IndexForbiddenError("Elasticsearch refuses this service access to that index", status)
    if status == 404 and "index_not_found" in reason:
        return IndexMissingError(f"index missing: {reason}", status)
    return BackendError(f"Elasticsearch error ({status}): {reason}", status)


def _api_reason(error: ApiError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    root = body.get("error", {})
    if isinstance(root, dict):
        return f"{root.get('type', 'error')}: {root.get('reason', error.message)}"
    return str(root or error.message)


@contextmanager
def translated_errors() -> Iterator[None]:
    """Run a block, re-raising client errors as domain errors."""
    try:
        yield
    except (ApiError, TransportError) as error:
        raise translate(error) from error


@asynccontextmanager
async def async_translated_errors() -> AsyncIterator[None]:
    """Async twin of translated_errors for the query path."""
    try:
        yield
    except (ApiError, TransportError) as error:
        raise translate(error) from error
