"""A request's stage timings as an HTTP `Server-Timing` header (W3C Server Timing: `name;dur=ms;desc="..."`,
comma separated), the per-request recorder the auth dependency and the search route share, and the middleware
that writes the recorded stages on every response."""

from __future__ import annotations

import re
from collections.abc import Iterable

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from search_platform.domain.models import Leg
from search_platform.domain.timings import Stage, StageTiming, StageTimings

HEADER = "Server-Timing"
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 token: what a metric name must be
DESCRIPTIONS: dict[str, str] = {
    Stage.AUTH: "API key and rate limit",
    Stage.ENCODE: "query encoding",
    Leg.BM25: "BM25 leg",
    Leg.BM25_PASSAGE: "passage BM25 leg",
    Leg.DENSE: "kNN leg after encoding",
    Leg.DENSE_LEAD: "lead-passage kNN leg after encoding",
    Leg.DEFINITIONS: "definitions leg",
    Stage.FUSION: "fusion",
    Stage.RERANK: "rerank with its stored fields",
    Stage.PAGE: "stored fields + highlights + passages of the page",
    Stage.LOG: "request id and search log",
    Stage.SEARCH: "legs to page",
}


def timing_entry(stage: StageTiming, *, desc: str | None = None) -> str:
    """One Server-Timing metric: `name;dur=1.23` (milliseconds), with `;desc="..."` when a description is given."""
    if not TOKEN.fullmatch(stage.name):
        raise ValueError(f"{stage.name!r} is not an HTTP token, so not a Server-Timing metric name")
    entry = f"{stage.name};dur={stage.ms:.2f}"
    if desc:
        escaped = desc.replace("\\", "\\\\").replace('"', '\\"')
        entry += f';desc="{escaped}"'
    return entry


def server_timing(stages: Iterable[StageTiming], *, descriptions: dict[str, str] | None = None) -> str:
    """The Server-Timing header value of these stages, in order (DESCRIPTIONS by default)."""
    described = DESCRIPTIONS if descriptions is None else descriptions
    return ", ".join(timing_entry(stage, desc=described.get(stage.name)) for stage in stages)


def parse_server_timing(value: str) -> dict[str, float]:
    """name -> dur of a Server-Timing value written by server_timing (descriptions hold no commas)."""
    stages: dict[str, float] = {}
    for entry in value.split(","):
        name, *params = (part.strip() for part in entry.split(";"))
        durations = [float(param[4:]) for param in params if param.startswith("dur=")]
        stages[name] = durations[0] if durations else 0.0
    return stages


def request_timings(request: Request) -> StageTimings:
    """This request's stage recorder (created on first use and kept on request.state)."""
    timings = getattr(request.state, "timings", None)
    if not isinstance(timings, StageTimings):
        timings = StageTimings()
        request.state.timings = timings
    return timings


class ServerTimingMiddleware:
    """Writes the stages a request recorded as its response's Server-Timing header, whatever the response: a search
    with all its stages, or an error answered after some ran (a 401, 403 or 429 from the key check, a 404 or 502
    from the search). A response with no recorded stage gets no header."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request through, adding the header to the response start."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return

        async def send_with_timing(message: Message) -> None:
            timings = scope.get("state", {}).get("timings")
            if message["type"] == "http.response.start" and isinstance(timings, StageTimings) and timings.stages():
                MutableHeaders(scope=message)[HEADER] = server_timing(timings.stages())
            await send(message)

        await self._app(scope, receive, send_with_timing)
