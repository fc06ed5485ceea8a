"""Request ids: accept the caller's X-Request-ID (if sane) or make one, expose it to the code and the logs, and
return it on the response."""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from search_platform.logging_setup import REQUEST_ID_HEADER, accepted_request_id, bind_request_id


class RequestIdMiddleware:
    """Sets request.state.request_id and the logging context, and answers with the X-Request-ID header.

    Installed outermost among the app's middleware, so every log line of the request carries the id. The id stays
    bound after an unhandled exception so the 500 handler (which runs outside this middleware) logs it too; each
    request runs in its own task, so it never leaks into another request.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Bind the id for the request, then pass it through."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        request_id = accepted_request_id(Headers(scope=scope).get(REQUEST_ID_HEADER))
        scope.setdefault("state", {})["request_id"] = request_id
        bind_request_id(request_id)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        await self._app(scope, receive, send_with_id)
        bind_request_id(None)


def request_id_of(request: Request) -> str | None:
    """The id the middleware gave this request (None in apps without it)."""
    request_id: str | None = getattr(request.state, "request_id", None)
    return request_id


def with_request_id(request: Request, response: Response) -> Response:
    """Add the request's X-Request-ID to a response built outside the middleware (the 500 handler's)."""
    request_id = request_id_of(request)
    if request_id is not None:
        response.headers[REQUEST_ID_HEADER] = request_id
    return response
