"""The one error type that infra raises: a service could not be installed, started or stopped."""

from __future__ import annotations


class InfraError(RuntimeError):
    """Provisioning or running a local service failed; the message says what and shows the log tail."""
