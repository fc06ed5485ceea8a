"""What every CLI command module shares: validated settings or a readable exit, and a short-lived Redis client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from redis import Redis
from rich.console import Console

from search_platform.config import Settings, SettingsError, load_settings

REDIS_TIMEOUT_S = 5

_err_console = Console(stderr=True)


def settings_or_exit() -> Settings:
    """Validated settings, or a readable message on stderr and exit code 2."""
    try:
        return load_settings()
    except SettingsError as error:
        _err_console.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from error


@contextmanager
def redis_client(settings: Settings) -> Iterator[Redis[bytes]]:
    """A Redis client on the configured URL, closed afterwards."""
    redis: Redis[bytes] = Redis.from_url(settings.redis.url, socket_timeout=REDIS_TIMEOUT_S,
                                         socket_connect_timeout=REDIS_TIMEOUT_S)
    try:
        yield redis
    finally:
        redis.close()
