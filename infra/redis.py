"""Run Debian's redis-server locally on 127.0.0.1 with its own config, data and AOF under infra.home/redis."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import redis as redis_client

from infra.health import ServiceStatus
from infra.process import await_healthy, live_pid, run, terminate
from infra.system import ensure_debian_package, ensure_system_user, loopback_port, make_dir, write_file
from search_platform.config import Settings

log = logging.getLogger(__name__)

NAME = "redis"
REDIS_USER = "redis"  # the user Debian's redis-server package creates
PROCESS_MARKER = "redis-server"
PING_TIMEOUT_S = 2.0
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class RedisPaths:
    """Every file and directory of the local Redis."""

    root: Path

    @property
    def config(self) -> Path:
        """Our redis.conf (the Debian one in /etc is not used)."""
        return self.root / "redis.conf"

    @property
    def data(self) -> Path:
        """RDB snapshots and the append-only directory."""
        return self.root / "data"

    @property
    def pid_file(self) -> Path:
        """Written by the daemonized server."""
        return self.root / "redis.pid"

    @property
    def log_file(self) -> Path:
        """The server log."""
        return self.root / "redis.log"


def redis_paths(settings: Settings) -> RedisPaths:
    """Redis's layout under settings.infra.home."""
    return RedisPaths(root=settings.infra.home / "redis")


def _quote(path: Path) -> str:
    """A path as a double-quoted redis.conf argument."""
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_config(settings: Settings, paths: RedisPaths) -> str:
    """redis.conf: loopback only, daemonized, AOF with fsync every second."""
    lines = [
        "# Written by infra/redis.py on every start; edit the settings, not this file.",
        "bind 127.0.0.1",
        f"port {loopback_port(settings.redis.url, default=6379)}",
        "protected-mode yes",
        "daemonize yes",
        "supervised no",
        f"pidfile {_quote(paths.pid_file)}",
        f"logfile {_quote(paths.log_file)}",
        f"dir {_quote(paths.data)}",
        "appendonly yes",
        "appendfsync everysec",
    ]
    return "\n".join(lines) + "\n"


def running_pid(settings: Settings) -> int | None:
    """The pid of our redis-server if it is running."""
    return live_pid(redis_paths(settings).pid_file, marker=PROCESS_MARKER)


def is_healthy(settings: Settings) -> bool:
    """True if Redis answers PING at settings.redis.url."""
    client = redis_client.Redis.from_url(
        settings.redis.url, socket_timeout=PING_TIMEOUT_S, socket_connect_timeout=PING_TIMEOUT_S
    )
    try:
        return bool(client.ping())
    except redis_client.RedisError:
        return False
    finally:
        client.close()


def status(settings: Settings) -> ServiceStatus:
    """Running, healthy, pid and a one-line reason."""
    pid = running_pid(settings)
    if pid is None:
        return ServiceStatus(NAME, running=False, healthy=False, pid=None, detail="not running")
    healthy = is_healthy(settings)
    detail = "PONG" if healthy else f"no PONG from {settings.redis.url}"
    return ServiceStatus(NAME, running=True, healthy=healthy, pid=pid, detail=detail)


def prepare(settings: Settings) -> RedisPaths:
    """Install redis-server if missing, create its directories and write redis.conf."""
    ensure_debian_package(settings.infra.redis_server, "redis-server")
    ensure_system_user(REDIS_USER)
    make_dir(settings.infra.home)
    paths = redis_paths(settings)
    make_dir(paths.root, owner=REDIS_USER, mode=0o750)
    make_dir(paths.data, owner=REDIS_USER, mode=0o750)
    write_file(paths.config, render_config(settings, paths), owner=REDIS_USER, mode=0o640)
    return paths


def start(settings: Settings) -> None:
    """Start Redis unless it runs; return once it answers PING."""
    paths = redis_paths(settings)
    if running_pid(settings) is None:
        paths = prepare(settings)
        log.info("starting Redis on %s", settings.redis.url)
        paths.pid_file.unlink(missing_ok=True)
        run(["runuser", "-u", REDIS_USER, "--", settings.infra.redis_server, paths.config], timeout_s=60.0)
    await_healthy(
        NAME,
        healthy=lambda: is_healthy(settings),
        alive=lambda: running_pid(settings) is not None,
        timeout_s=min(settings.infra.start_timeout_s, START_TIMEOUT_S),
        log_file=paths.log_file,
    )


def stop(settings: Settings, *, timeout_s: float = STOP_TIMEOUT_S) -> None:
    """Stop Redis gracefully (SIGTERM flushes the AOF), SIGKILL after timeout_s; data stays."""
    pid = running_pid(settings)
    if pid is None:
        return
    log.info("stopping Redis (pid %d)", pid)
    terminate(pid, marker=PROCESS_MARKER, timeout_s=timeout_s)
