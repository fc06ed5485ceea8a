"""Tenant-scoped identifiers: one unambiguous encoding of (tenant, value) for Redis keys."""

from __future__ import annotations

import hashlib
import json


def scoped(tenant: str | None, value: str = "") -> str:
    """A fixed-length name for value within tenant: SHA-256 of the JSON pair, so no tenant name or value (with `:`,
    `*` or anything else in it) can ever produce another pair's name; None (every tenant) differs from any name."""
    return hashlib.sha256(json.dumps([tenant, value]).encode("utf-8", "surrogatepass")).hexdigest()
