"""`search-platform ingest PATH`: read files, queue them through the API (only its URL and key are needed) and
follow the jobs: each job id first, then progress (a bar on a terminal, a line every few seconds otherwise)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from search_platform_client import IngestProgress, Job, SearchClient

from search_platform.cli.common import DEFAULT_API_URL, ApiKeyOption, ApiUrlOption, ExitCode, api_client, fail
from search_platform.cli.output import FormatOption, OutputFormat, print_json, print_jsonl
from search_platform.domain.errors import SearchPlatformError
from search_platform.ingestion.sources import read_documents

POLL_S = 0.5
LINE_EVERY_S = 5.0
QUIET_LINE_EVERY_S = 30.0  # nothing changed: a line now and then, so a pipe shows it is alive
QUEUED_NOTICE_S = 5.0


@dataclass
class Reporter:
    """Where progress goes: a bar (terminal, table format), text lines (piped) or JSON lines (--format jsonl)."""

    output: OutputFormat
    tty: bool
    console: Console = field(default_factory=lambda: Console(highlight=False))
    last_line: float = -LINE_EVERY_S - QUIET_LINE_EVERY_S
    last_seen: tuple[int, int, int, str] | None = None

    def event(self, kind: str, text: str, **data: Any) -> None:
        """One event: a text line, or a JSON line with --format jsonl (silent with --format json)."""
        if self.output is OutputFormat.JSONL:
            print_jsonl([{"event": kind, **data}])
            sys.stdout.flush()
        elif self.output is OutputFormat.TABLE:
            self.console.print(text, markup=False, highlight=False)

    def queued(self, progress: IngestProgress) -> None:
        """A batch became a job: its id, first."""
        job_id = progress.job_ids[-1]
        self.event("queued", f"job {job_id} queued ({progress.documents_sent} documents sent, "
                   f"{progress.documents_rejected} rejected)", job_id=job_id,
                   documents_sent=progress.documents_sent, documents_rejected=progress.documents_rejected)

    def progress(self, jobs: list[Job]) -> None:
        """Counts so far: a line when they change (at most every LINE_EVERY_S), else every QUIET_LINE_EVERY_S."""
        done = sum(job.documents_done for job in jobs)
        failed = sum(job.documents_failed for job in jobs)
        total = sum(job.documents_total for job in jobs)
        states = ",".join(sorted({job.state for job in jobs}))
        now, seen = time.monotonic(), (done, failed, total, states)
        wait = LINE_EVERY_S if seen != self.last_seen else QUIET_LINE_EVERY_S
        if now - self.last_line < wait:
            return
        self.last_line, self.last_seen = now, seen
        self.event("progress", f"{done + failed}/{total} documents ({failed} failed) · {states}",
                   documents_done=done, documents_failed=failed, documents_total=total, states=states)


def follow(client: SearchClient, job_ids: list[str], *, timeout_s: float, reporter: Reporter) -> list[Job]:
    """Poll the jobs until all are finished; exits 4 naming them after timeout_s."""
    deadline = time.monotonic() + timeout_s
    started, told_queued = time.monotonic(), False
    bar = _bar(reporter)
    task = bar.add_task("ingesting", total=None) if bar else None
    try:
        while True:
            jobs = [client.job(job_id) for job_id in job_ids]
            if bar is not None and task is not None:
                bar.update(task, completed=sum(j.documents_done + j.documents_failed for j in jobs),
                           total=sum(j.documents_total for j in jobs))
            else:
                reporter.progress(jobs)
            if all(job.finished for job in jobs):
                return jobs
            if not told_queued and time.monotonic() - started > QUEUED_NOTICE_S and all(
                    job.state == "queued" for job in jobs):
                told_queued = True
                reporter.event("waiting", "still queued: is a worker running? (`search-platform worker`)")
            if time.monotonic() > deadline:
                pending = [job.job_id for job in jobs if not job.finished]
                fail(f"gave up waiting after {timeout_s:g}s; job {', '.join(pending)} goes on: follow it with "
                     f"`search-platform jobs wait {pending[0]}`", ExitCode.TIMEOUT)
            time.sleep(POLL_S)
    finally:
        if bar is not None:
            bar.stop()


def _bar(reporter: Reporter) -> Progress | None:
    if not (reporter.tty and reporter.output is OutputFormat.TABLE):
        return None
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=reporter.console, transient=True)
    bar.start()
    return bar


def report(summary: dict[str, Any], reporter: Reporter) -> None:
    """The final record: a line and the failed documents, or JSON."""
    if reporter.output is OutputFormat.JSON:
        print_json(summary)
        return
    reporter.event("done", f"{summary['documents_done']} documents, {summary['chunks']} chunks indexed in "
                   f"{summary['elapsed_s']:.1f}s ({summary['chunks_per_s']} chunks/s); "
                   f"{summary['documents_failed']} failed", **summary)
    if reporter.output is OutputFormat.TABLE:
        for doc_id, reason in summary["errors"].items():
            reporter.console.print(f"  {doc_id}: {reason}", style="red", markup=False)


def summarise(jobs: list[Job], *, skipped: dict[str, str], elapsed_s: float) -> dict[str, Any]:
    """What the ingestion did, as one record."""
    chunks = sum(job.chunks_done for job in jobs)
    errors = {**skipped, **{doc_id: reason for job in jobs for doc_id, reason in job.errors.items()}}
    return {"job_ids": [job.job_id for job in jobs], "documents_done": sum(job.documents_done for job in jobs),
            "documents_failed": sum(job.documents_failed for job in jobs) + len(skipped), "chunks": chunks,
            "elapsed_s": round(elapsed_s, 2), "chunks_per_s": round(chunks / elapsed_s, 1) if elapsed_s else 0.0,
            "errors": errors}


def ingest(
    path: Annotated[Path, typer.Argument(exists=True, help="A directory of .md/.txt/.html, or .json/.jsonl.")],
    index: Annotated[str | None, typer.Option(help="Target alias (default: the service's).")] = None,
    batch: Annotated[int, typer.Option(min=1, help="Documents per API request (one job each).")] = 500,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the jobs (they go on afterwards).")] = 3600.0,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="Follow the jobs, or only queue them.")] = True,
    output: FormatOption = OutputFormat.TABLE,
    url: ApiUrlOption = DEFAULT_API_URL,
    api_key: ApiKeyOption = None,
) -> None:
    """Ingest files through the API and Celery: prints each job id as it is queued, then progress; exits 1 if a
    document failed, 4 on --timeout."""
    try:
        read = read_documents(path)
    except SearchPlatformError as error:
        fail(str(error), ExitCode.USAGE)
    reporter = Reporter(output, tty=sys.stdout.isatty())
    for doc_id, reason in read.errors.items():
        reporter.event("skipped", f"{doc_id}: {reason} (skipped)", doc_id=doc_id, reason=reason)
    started = time.perf_counter()
    with api_client(url, api_key, timeout=120) as client:
        responses = client.ingest_all(read.documents, batch_size=batch, index=index, on_progress=reporter.queued)
        for doc_id, reason in (item for r in responses for item in r.rejected.items()):
            reporter.event("rejected", f"{doc_id}: {reason} (rejected)", doc_id=doc_id, reason=reason)
        if not wait:
            if output is OutputFormat.JSON:
                print_json({"job_ids": [r.job_id for r in responses]})
            return
        jobs = follow(client, [r.job_id for r in responses], timeout_s=timeout, reporter=reporter)
    summary = summarise(jobs, skipped=read.errors, elapsed_s=time.perf_counter() - started)
    report(summary, reporter)
    raise typer.Exit(int(ExitCode.FAILED if summary["documents_failed"] else ExitCode.OK))
