"""A request-body size limit as plain ASGI middleware: 413 before the body is read or parsed."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAYLOAD_TOO_LARGE = 413


class BodyTooLargeError(Exception):
    """The body grew past the limit while it was being read (no or a false Content-Length)."""


class BodySizeLimit:
    """Answer 413 to a request whose body is over max_bytes, by its Content-Length or as it streams in."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self._app = app
        self._max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, counting its body."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self._max_bytes:
            await self._refuse(send)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self._max_bytes:
                raise BodyTooLargeError
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._app(scope, counting_receive, tracking_send)
        except BodyTooLargeError:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body: dict[str, Any] = {"error": "payload_too_large", "details": [],
                                "message": f"request body is over the {self._max_bytes}-byte limit"}
        payload = json.dumps(body).encode()
        await send({"type": "http.response.start", "status": PAYLOAD_TOO_LARGE,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
