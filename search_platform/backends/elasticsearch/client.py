"""Build Elasticsearch clients from settings: auth, timeouts and transport retries in one place."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch, Elasticsearch

from search_platform.config import ElasticsearchSettings


def _client_options(settings: ElasticsearchSettings) -> dict[str, Any]:
    return {
        "hosts": [settings.url],
        "basic_auth": (settings.username, settings.password.get_secret_value()),
        "request_timeout": settings.request_timeout_s,
        "max_retries": settings.max_retries,
        "retry_on_timeout": settings.retry_on_timeout,
    }


def build_client(settings: ElasticsearchSettings) -> Elasticsearch:
    """A sync client (ingestion, admin); connection errors are retried by the transport only."""
    return Elasticsearch(**_client_options(settings))


def build_async_client(settings: ElasticsearchSettings) -> AsyncElasticsearch:
    """An async client for the query path."""
    return AsyncElasticsearch(**_client_options(settings))
