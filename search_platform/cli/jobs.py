"""`search-platform jobs status|wait|resume JOB_ID`: follow an ingestion job through the API (only its URL and
key are needed) and re-queue its failed batches."""

from __future__ import annotations

from typing import Annotated

import typer
from search_platform_client import Job, JobTimeoutError

from search_platform.cli.common import (
    DEFAULT_API_URL,
    ApiKeyOption,
    ApiUrlOption,
    ExitCode,
    api_client,
    fail,
    new_app,
)
from search_platform.cli.output import FormatOption, OutputFormat, print_json, print_jsonl

app = new_app("Follow ingestion jobs and resume failed ones (through the API).")
JobId = Annotated[str, typer.Argument(help="The job id `ingest` printed (POST /v1/ingest returned).")]


def describe(job: Job) -> str:
    """One line of a job's state and counts, then one per failed document."""
    head = (f"{job.job_id}: {job.state}; documents {job.documents_done} done, {job.documents_failed} failed of "
            f"{job.documents_total}; {job.chunks_done} chunks; batches {job.batches_done} done, "
            f"{job.batches_failed} failed of {job.batches_total}")
    return "\n".join([head, *(f"  {doc_id}: {reason}" for doc_id, reason in sorted(job.errors.items()))])


def emit(job: Job, output: OutputFormat) -> None:
    """The job in the chosen format."""
    if output is OutputFormat.JSON:
        print_json(job.model_dump(mode="json"))
    elif output is OutputFormat.JSONL:
        print_jsonl([job.model_dump(mode="json")])
    else:
        typer.echo(describe(job))


def _exit_for(job: Job) -> None:
    if job.state == "failed" or job.documents_failed:
        raise typer.Exit(int(ExitCode.FAILED))


@app.command()
def status(job_id: JobId, output: FormatOption = OutputFormat.TABLE, url: ApiUrlOption = DEFAULT_API_URL,
           api_key: ApiKeyOption = None) -> None:
    """Show a job's state, counts and per-document errors (exit 1 when it failed)."""
    with api_client(url, api_key) as client:
        job = client.job(job_id)
    emit(job, output)
    _exit_for(job)


@app.command()
def wait(job_id: JobId,
         timeout: Annotated[float, typer.Option(help="Seconds to wait (the job goes on afterwards).")] = 3600.0,
         output: FormatOption = OutputFormat.TABLE, url: ApiUrlOption = DEFAULT_API_URL,
         api_key: ApiKeyOption = None) -> None:
    """Wait until a job is done or failed, then show it (exit 1 when it failed, 4 on timeout)."""
    with api_client(url, api_key) as client:
        try:
            job = client.wait_for_job(job_id, timeout_s=timeout, poll_s=1.0)
        except JobTimeoutError:
            fail(f"job {job_id} not finished after {timeout:g}s; it goes on: run this again to keep waiting",
                 ExitCode.TIMEOUT)
    emit(job, output)
    _exit_for(job)


@app.command("resume")
def resume_command(job_id: JobId, output: FormatOption = OutputFormat.TABLE, url: ApiUrlOption = DEFAULT_API_URL,
                   api_key: ApiKeyOption = None) -> None:
    """Queue a failed job's failed batches again (a worker must run to do them)."""
    with api_client(url, api_key) as client:
        job = client.resume_job(job_id)
    if output is OutputFormat.TABLE:
        typer.echo(f"re-queued {job.batches_failed or 'the failed'} batches of job {job_id}; follow it with "
                   f"`search-platform jobs wait {job_id}`")
    else:
        emit(job, output)
