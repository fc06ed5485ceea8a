"""Build Elasticsearch clients from settings: auth, timeouts and transport retries in one place."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch, Elasticsearch

from search_platform.config import ElasticsearchSettings


def _client_options(settings: ElasticsearchSettings, *, admin: bool = False) -> dict[str, Any]:
    credentials = (settings.username, settings.password.get_secret_value()) if admin else settings.data_credentials
    return {
        "hosts": settings.hosts,  # a request that gets no answer is retried on the next live node
        "basic_auth": credentials,
        "request_timeout": settings.request_timeout_s,
        "max_retries": settings.max_retries,
        "retry_on_timeout": settings.retry_on_timeout,
    }


def build_client(settings: ElasticsearchSettings) -> Elasticsearch:
    """A sync client as the least-privilege service user (ingestion, index management of sp-* indices);
    connection errors are retried by the transport only."""
    return Elasticsearch(**_client_options(settings))


def build_async_client(settings: ElasticsearchSettings) -> AsyncElasticsearch:
    """An async client for the query path, as the service user."""
    return AsyncElasticsearch(**_client_options(settings))


def build_admin_client(settings: ElasticsearchSettings) -> Elasticsearch:
    """A sync client as the superuser, for infra and tests that must reach beyond the sp-* indices."""
    return Elasticsearch(**_client_options(settings, admin=True))
