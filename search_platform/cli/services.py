"""`search-platform up|down|status|serve|worker`: the local services (Elasticsearch, Redis) and our processes
(the API and the Celery worker)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

import typer

from search_platform.cli.common import ExitCode, settings_or_exit
from search_platform.cli.output import FormatOption, OutputFormat, console, print_json, print_jsonl, table

if TYPE_CHECKING:
    from infra.health import ServiceStatus

DEPENDENCIES = ("elasticsearch", "redis")  # down means nothing works; the API and worker are optional


def up(
    with_app: Annotated[bool, typer.Option("--app", help="Also start a worker and the API in the background.")] = False,
) -> None:
    """Install (first time), start and wait for Elasticsearch and Redis (and, with --app, worker and API)."""
    from infra import app_processes, services

    settings = settings_or_exit()
    services.up(settings)
    if with_app:
        app_processes.start_all(settings)
    status()


def down() -> None:
    """Stop the API and worker if running, then Elasticsearch and Redis (data is kept)."""
    from infra import app_processes, services

    settings = settings_or_exit()
    app_processes.stop_all(settings)
    services.down(settings)


def unhealthy(states: Mapping[str, ServiceStatus]) -> list[str]:
    """Services that are down: a dependency not healthy, or one of our processes running but not healthy."""
    return [name for name, state in states.items()
            if not state.healthy and (name in DEPENDENCIES or state.running)]


def status(output: FormatOption = OutputFormat.TABLE) -> None:
    """Show each local service; exits 3 when Elasticsearch or Redis (or a running API or worker) is unhealthy."""
    from infra import app_processes, services

    settings = settings_or_exit()
    states = {**services.status(settings), **app_processes.status(settings)}
    records = [{"service": name, "running": s.running, "healthy": s.healthy, "pid": s.pid, "detail": s.detail}
               for name, s in states.items()]
    if output is OutputFormat.JSON:
        print_json(records)
    elif output is OutputFormat.JSONL:
        print_jsonl(records)
    else:
        rows = [(name, "yes" if s.running else "no", "yes" if s.healthy else "no", str(s.pid or ""), s.detail)
                for name, s in states.items()]
        console().print(table(None, [("service", 13), ("running", 7), ("healthy", 7), ("pid", 7),
                                     ("detail", None)], rows))
    if down := unhealthy(states):
        typer.echo(f"down: {', '.join(down)} (see the detail column; `search-platform up` starts the services)",
                   err=True)
        raise typer.Exit(int(ExitCode.UNAVAILABLE))


def serve() -> None:
    """Run the HTTP API (FastAPI on uvicorn)."""
    import uvicorn

    from search_platform.logging_setup import configure_logging
    from search_platform.service.app import create_app

    settings = settings_or_exit()
    configure_logging(settings.service)  # uvicorn's loggers too: log_config=None leaves them to ours
    uvicorn.run(create_app(settings), host=settings.service.host, port=settings.service.port, log_config=None,
                log_level=settings.service.log_level.lower())


def worker(
    concurrency: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    name: Annotated[str | None, typer.Option(help="Node name, so several workers on one host stay apart "
                                                  "(default: celery).")] = None,
) -> None:
    """Run a Celery ingestion worker."""
    from search_platform.logging_setup import configure_worker_logging
    from workers.tasks import create_worker_app

    settings = settings_or_exit()
    configure_worker_logging(settings.service)
    processes = concurrency or settings.ingestion.worker_concurrency
    celery_app = create_worker_app(settings)
    node = ["-n", f"{name}@%h"] if name else []
    quiet = ["--quiet"] if settings.service.log_format == "json" else []  # no text banner among JSON lines
    celery_app.worker_main([*quiet, "worker", f"--loglevel={settings.service.log_level}", "-Q", "ingest",
                            f"--concurrency={processes}", *node])


def register(app: typer.Typer) -> None:
    """Add these commands to the top-level app."""
    for command in (up, down, status, serve, worker):
        app.command()(command)
