"""What `status` reports about one local service."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServiceStatus:
    """One service: is its process running, does it answer its health check, and why not."""

    name: str
    running: bool
    healthy: bool
    pid: int | None
    detail: str
