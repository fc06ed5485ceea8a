"""`search-platform jobs status|resume JOB_ID`: inspect an ingestion job and re-queue its failed batches.

Like `keys`, these talk to Redis (the job store and the queue) directly, not to the API."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Annotated

import typer
from rich.console import Console

from search_platform.cli.common import redis_client, settings_or_exit
from search_platform.config import Settings
from search_platform.domain.errors import ConflictError, JobNotFoundError
from search_platform.ingestion.jobs import JobStatus, JobStore, resume

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Inspect ingestion jobs and resume failed ones.")
console = Console()
err_console = Console(stderr=True)
JobId = Annotated[str, typer.Argument(help="The job id POST /v1/ingest returned.")]


@contextmanager
def job_store(settings: Settings) -> Iterator[JobStore]:
    """A JobStore on the configured Redis, closed afterwards."""
    with redis_client(settings) as redis:
        yield JobStore(redis, ttl_s=settings.redis.job_ttl_s)


def describe(status: JobStatus) -> str:
    """One line of a job's state and counts, then one per failed document."""
    head = (f"{status.job_id}: {status.state.value}; documents {status.documents_done} done, "
            f"{status.documents_failed} failed of {status.documents_total}; {status.chunks_done} chunks; "
            f"batches {status.batches_done} done, {status.batches_failed} failed of {status.batches_total}")
    return "\n".join([head, *(f"  {doc_id}: {reason}" for doc_id, reason in sorted(status.errors.items()))])


@app.command()
def status(job_id: JobId) -> None:
    """Show a job's state, counts and per-document errors."""
    with job_store(settings_or_exit()) as store:
        try:
            console.print(describe(store.get(job_id)), markup=False)
        except JobNotFoundError as error:
            err_console.print(str(error), style="red", markup=False)
            raise typer.Exit(1) from error


@app.command("resume")
def resume_command(job_id: JobId) -> None:
    """Queue a failed job's failed batches again (a worker must run to do them)."""
    from search_platform.ingestion.queue import create_celery, enqueue_batch

    settings = settings_or_exit()
    with job_store(settings) as store:
        try:
            numbers = resume(store, partial(enqueue_batch, create_celery(settings)), job_id)
        except (JobNotFoundError, ConflictError) as error:
            err_console.print(str(error), style="red", markup=False)
            raise typer.Exit(1) from error
        console.print(f"re-queued batches {', '.join(map(str, numbers))} of job {job_id}", markup=False)
