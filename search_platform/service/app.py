"""create_app(settings): the HTTP adapter over the search and ingestion core."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from search_platform.config import Settings
from search_platform.embeddings.base import Embedder
from search_platform.service.auth import install_auth_handlers
from search_platform.service.errors import install_error_handlers
from search_platform.service.limits import BodySizeLimit
from search_platform.service.metrics import install_observability, watch_backlog
from search_platform.service.openapi import install_openapi
from search_platform.service.resources import build_resources
from search_platform.service.routes import admin, documents, feedback, health, ingest, search


def create_app(settings: Settings, *, embedder: Embedder | None = None) -> FastAPI:
    """The API; clients and the model are built when the app starts, from these settings."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.resources = build_resources(settings, embedder=embedder)
        await app.state.resources.analytics.start()
        unwatch = watch_backlog(app.state.metrics, app.state.resources)
        try:
            yield
        finally:
            unwatch()
            await app.state.resources.close()

    app = FastAPI(
        title="search-platform",
        version="0.1.0",
        summary="Hybrid BM25 + kNN search on Elasticsearch with client-side Reciprocal Rank Fusion",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    install_auth_handlers(app)
    for module in (search, feedback, ingest, documents, admin, health):
        app.include_router(module.router)
    app.add_middleware(BodySizeLimit, max_bytes=settings.service.max_request_bytes)
    install_openapi(app, settings)
    install_observability(app)  # last: it wraps every exception handler installed above
    return app
