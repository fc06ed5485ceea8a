"""The one place where Elasticsearch client errors become domain errors."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from elasticsearch import ApiError, ConnectionError, ConnectionTimeout, TransportError

from search_platform.domain.errors import (
    BackendError,
    BackendUnavailableError,
    IndexForbiddenError,
    IndexMissingError,
    IndexOutdatedError,
)

TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})
# a kNN whose query vector is not the index's dimension: the index was built by another embedding model
_OTHER_DIMS = re.compile(r"query vector has a different number of dimensions \[(\d+)\] than the document vectors "
                         r"\[(\d+)\]")


def translate(error: Exception) -> BackendError:
    """Map a client exception to the domain: no response -> unavailable; a status -> by status."""
    if isinstance(error, ConnectionError | ConnectionTimeout):
        return BackendUnavailableError(f"Elasticsearch unreachable: {error.message}")
    if isinstance(error, ApiError):
        if (other := _OTHER_DIMS.search(_root_causes(error.body))) is not None:
            return IndexOutdatedError(
                f"the index holds {other[2]}-dimension vectors of another embedding model; the current model makes "
                f"{other[1]}: re-embed it with `search-platform reindex --alias <alias>`", 409)
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


def _root_causes(body: Any) -> str:
    """The reasons of an error body's root causes, one per line (a search that failed on every shard gives its
    own reason only as "all shards failed")."""
    root = body.get("error") if isinstance(body, dict) else None
    causes = root.get("root_cause", []) if isinstance(root, dict) else []
    return "\n".join(str(cause.get("reason", "")) for cause in causes if isinstance(cause, dict))


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
