"""The local platform's services as one unit: what `search-platform up|down|status` calls."""

from __future__ import annotations

import logging

from infra import elasticsearch, redis
from infra.errors import InfraError
from infra.health import ServiceStatus
from search_platform.config import Settings

__all__ = ["InfraError", "ServiceStatus", "down", "status", "up"]

log = logging.getLogger(__name__)


def up(settings: Settings) -> None:
    """Make sure Redis and Elasticsearch are installed, configured, running and healthy (idempotent)."""
    redis.start(settings)
    elasticsearch.start(settings)


def down(settings: Settings) -> None:
    """Stop Elasticsearch and Redis gracefully, keeping their data; report every failure at once."""
    failures = []
    for stop in (elasticsearch.stop, redis.stop):
        try:
            stop(settings)
        except InfraError as error:
            failures.append(str(error))
    if failures:
        raise InfraError("\n".join(failures))


def status(settings: Settings) -> dict[str, ServiceStatus]:
    """Each service's status by name."""
    found = (elasticsearch.status(settings), redis.status(settings))
    return {service.name: service for service in found}
