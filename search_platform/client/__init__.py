"""Python SDK for the search-platform HTTP API; depends only on httpx and pydantic."""

from search_platform.client.async_client import AsyncSearchClient
from search_platform.client.errors import (
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    RateLimitedError,
    SearchPlatformClientError,
    ServerError,
    ServiceUnavailableError,
    UnauthorizedError,
)
from search_platform.client.models import (
    ChunkRef,
    Document,
    Explanation,
    Hit,
    IngestResponse,
    Job,
    LegExplanation,
    LegScore,
    SearchResponse,
)
from search_platform.client.sync import SearchClient

__all__ = [
    "AsyncSearchClient",
    "ChunkRef",
    "Document",
    "Explanation",
    "ForbiddenError",
    "Hit",
    "IngestResponse",
    "InvalidRequestError",
    "Job",
    "LegExplanation",
    "LegScore",
    "NotFoundError",
    "RateLimitedError",
    "SearchClient",
    "SearchPlatformClientError",
    "SearchResponse",
    "ServerError",
    "ServiceUnavailableError",
    "UnauthorizedError",
]
