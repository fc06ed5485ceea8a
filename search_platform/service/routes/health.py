"""GET /healthz: each dependency checked, 503 when any is down."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from search_platform.service.deps import ResourcesDep
from search_platform.service.openapi import HEALTH_RESPONSES
from search_platform.service.resources import Resources
from search_platform.service.schemas import HealthBody

router = APIRouter()


async def _elasticsearch(resources: Resources) -> dict[str, Any]:
    try:
        health = await resources.es.options(request_timeout=3, max_retries=0).cluster.health()
    except Exception as error:
        return {"ok": False, "detail": f"{type(error).__name__}: {error}"}
    return {"ok": health["status"] in ("green", "yellow"), "detail": f"cluster status {health['status']}"}


async def _redis(resources: Resources) -> dict[str, Any]:
    try:
        await asyncio.to_thread(resources.redis.ping)
    except Exception as error:
        return {"ok": False, "detail": f"{type(error).__name__}: {error}"}
    return {"ok": True, "detail": "PONG"}


@router.get("/healthz", response_model=HealthBody, responses=HEALTH_RESPONSES)
async def healthz(resources: ResourcesDep) -> JSONResponse:
    """Status of Elasticsearch and Redis."""
    es, redis = await asyncio.gather(_elasticsearch(resources), _redis(resources))
    ok = es["ok"] and redis["ok"]
    body = {"status": "ok" if ok else "degraded", "dependencies": {"elasticsearch": es, "redis": redis}}
    return JSONResponse(status_code=200 if ok else 503, content=body)
