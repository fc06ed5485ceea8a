"""The platform's own processes (Celery worker, API) run in the background for `up --app` and the demo."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx

from infra.errors import InfraError
from infra.health import ServiceStatus
from infra.process import describe_log, live_pid, terminate, wait_until
from search_platform.config import Settings

STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class AppProcess:
    """One background process of ours: the CLI command that runs it and where its pid and log go."""

    name: str
    command: str

    def pid_file(self, settings: Settings) -> Path:
        """Where its pid is kept."""
        return settings.infra.home / "run" / f"{self.name}.pid"

    def log_file(self, settings: Settings) -> Path:
        """Where its output goes."""
        return settings.infra.home / "logs" / f"{self.name}.log"


WORKER = AppProcess("worker", "worker")
API = AppProcess("api", "serve")
MARKER = "search-platform"


def _cli() -> str:
    return str(Path(sys.executable).parent / "search-platform")


def _api_healthy(settings: Settings) -> bool:
    try:
        url = f"http://{settings.service.host}:{settings.service.port}/healthz"
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def start(settings: Settings, process: AppProcess) -> int:
    """Start process in the background unless it already runs; returns its pid."""
    running = live_pid(process.pid_file(settings), marker=MARKER)
    if running:
        return running
    for path in (process.pid_file(settings), process.log_file(settings)):
        path.parent.mkdir(parents=True, exist_ok=True)
    with process.log_file(settings).open("ab") as log:
        child = subprocess.Popen(
            [_cli(), process.command], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=Path.cwd(), env={**os.environ, "HF_HUB_OFFLINE": "1"}, start_new_session=True,
        )
    process.pid_file(settings).write_text(str(child.pid))
    return child.pid


def start_all(settings: Settings) -> None:
    """Worker and API running, the API answering /healthz."""
    start(settings, WORKER)
    pid = start(settings, API)
    if not wait_until(lambda: _api_healthy(settings), timeout_s=settings.infra.start_timeout_s):
        raise InfraError(f"API (pid {pid}) did not become healthy\n{describe_log(API.log_file(settings))}")


def stop_all(settings: Settings) -> None:
    """Stop the API and the worker if they run."""
    for process in (API, WORKER):
        pid = live_pid(process.pid_file(settings), marker=MARKER)
        if pid:
            terminate(pid, marker=MARKER, timeout_s=STOP_TIMEOUT_S)
        process.pid_file(settings).unlink(missing_ok=True)


def status(settings: Settings) -> dict[str, ServiceStatus]:
    """Each of our processes' status by name."""
    found = {}
    for process in (WORKER, API):
        pid = live_pid(process.pid_file(settings), marker=MARKER)
        healthy = bool(pid) and (process is WORKER or _api_healthy(settings))
        found[process.name] = ServiceStatus(process.name, running=bool(pid), healthy=healthy, pid=pid,
                                            detail=str(process.log_file(settings)))
    return found
