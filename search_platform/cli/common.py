"""What every CLI command module shares: exit codes, the API options of the client commands, one-line errors,
validated settings (server commands only) and a short-lived Redis client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum
from typing import Annotated, NoReturn

import typer
from redis import Redis
from rich.console import Console
from search_platform_client import (
    DEFAULT_URL,
    APIError,
    ConnectError,
    RequestTimeoutError,
    SearchClient,
    SearchPlatformClientError,
    UnauthorizedError,
)

from search_platform.config import Settings, SettingsError, load_settings

REDIS_TIMEOUT_S = 5

_err_console = Console(stderr=True, highlight=False, soft_wrap=True)


class ExitCode(IntEnum):
    """What a command's exit status means (documented in docs/cli.md)."""

    OK = 0
    FAILED = 1  # the command ran and the answer is a failure: documents failed, the API refused the request
    USAGE = 2  # bad arguments or settings
    UNAVAILABLE = 3  # the service or a dependency is down or unreachable
    TIMEOUT = 4  # gave up waiting; the work goes on (the message says how to follow it)
    INTERRUPTED = 130


ApiUrlOption = Annotated[str, typer.Option(
    "--url", envvar="SP_API_URL", help="The API's base URL (or set SP_API_URL).")]
ApiKeyOption = Annotated[str | None, typer.Option(
    "--api-key", envvar="SP_API_KEY", show_default=False, help="API key for the service (or set SP_API_KEY).")]
DEFAULT_API_URL = DEFAULT_URL


def new_app(help_text: str) -> typer.Typer:
    """A command group with plain (80-column friendly) help screens."""
    return typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None, help=help_text)


def fail(message: str, code: ExitCode = ExitCode.FAILED) -> NoReturn:
    """Print one line on stderr and exit with code."""
    _err_console.print(f"error: {message}", style="red", markup=False)
    raise typer.Exit(int(code))


def settings_or_exit() -> Settings:
    """Validated settings, or a readable message on stderr and exit code 2."""
    try:
        return load_settings()
    except SettingsError as error:
        _err_console.print(str(error), style="red", markup=False)
        raise typer.Exit(int(ExitCode.USAGE)) from error


def exit_for(error: SearchPlatformClientError, url: str) -> NoReturn:
    """An SDK error as one line naming the fix, and the matching exit code."""
    if isinstance(error, ConnectError):
        fail(f"cannot reach the API at {url}: start it (`search-platform up --app`) or pass --url / SP_API_URL",
             ExitCode.UNAVAILABLE)
    if isinstance(error, RequestTimeoutError):
        fail(f"the API at {url} did not answer in time; retry, or check `search-platform status`",
             ExitCode.UNAVAILABLE)
    if isinstance(error, UnauthorizedError):
        fail(f"{error}: pass a valid key with --api-key or SP_API_KEY (`search-platform keys create`)")
    if isinstance(error, APIError) and error.status in (502, 503, 504):
        fail(f"{error}; check `search-platform status`", ExitCode.UNAVAILABLE)
    fail(str(error))


@contextmanager
def api_client(url: str, api_key: str | None, *, timeout: float = 60.0) -> Iterator[SearchClient]:
    """An SDK client on the API; SDK errors inside become one line on stderr and an exit code."""
    try:
        client = SearchClient(url, api_key=api_key, timeout=timeout)
    except ValueError as error:
        fail(f"{error} (--url / SP_API_URL)", ExitCode.USAGE)
    try:
        with client:
            yield client
    except SearchPlatformClientError as error:
        exit_for(error, url)


@contextmanager
def redis_client(settings: Settings) -> Iterator[Redis[bytes]]:
    """A Redis client on the configured URL, closed afterwards."""
    redis: Redis[bytes] = Redis.from_url(settings.redis.url, socket_timeout=REDIS_TIMEOUT_S,
                                         socket_connect_timeout=REDIS_TIMEOUT_S)
    try:
        yield redis
    finally:
        redis.close()
