"""The request-body size limit: 413 by Content-Length and for bodies streamed without one."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from search_platform.service.limits import BodySizeLimit

LIMIT = 1024


def _client() -> TestClient:
    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, int]:
        return {"bytes": len(await request.body())}

    app.add_middleware(BodySizeLimit, max_bytes=LIMIT)
    return TestClient(app)


def test_a_body_within_the_limit_passes():
    response = _client().post("/echo", content=b"x" * LIMIT)
    assert response.status_code == 200 and response.json() == {"bytes": LIMIT}


def test_a_declared_length_over_the_limit_is_413():
    response = _client().post("/echo", content=b"x" * (LIMIT + 1))
    assert response.status_code == 413
    assert response.json()["error"] == "payload_too_large" and str(LIMIT) in response.json()["message"]


def test_a_streamed_body_over_the_limit_is_413():
    def chunks() -> Iterator[bytes]:
        for _ in range(4):
            yield b"x" * (LIMIT // 2)

    response = _client().post("/echo", content=chunks())  # chunked: no Content-Length
    assert response.status_code == 413
