"""The `ingest` command's work: read files, post batches through the SDK, follow the jobs."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from search_platform_client import Job, SearchClient

from search_platform.ingestion.sources import read_documents


def run_ingest(base_url: str, path: Path, *, index: str | None, batch: int, timeout_s: float,
               console: Console, progress: Progress, api_key: str | None = None) -> int:
    """Ingest everything under path; returns the number of failed documents (0 = all indexed)."""
    read = read_documents(path)
    documents = read.documents
    for doc_id, reason in read.errors.items():
        console.print(f"[red]  {doc_id}: {reason} (skipped)[/red]")
    started = time.perf_counter()
    with SearchClient(base_url, timeout=120, api_key=api_key) as client:
        job_ids = [client.ingest(documents[i : i + batch], index=index).job_id
                   for i in range(0, len(documents), batch)]
        jobs = _follow(client, job_ids, total=len(documents), timeout_s=timeout_s, progress=progress)
    elapsed = time.perf_counter() - started
    chunks = sum(job.chunks_done for job in jobs)
    failed = sum(job.documents_failed for job in jobs) + len(read.errors)
    console.print(f"{len(documents) - failed} documents, {chunks} chunks indexed in {elapsed:.1f}s "
                  f"({chunks / elapsed:.1f} chunks/s); {failed} failed")
    for job in jobs:
        for doc_id, reason in job.errors.items():
            console.print(f"[red]  {doc_id}: {reason}[/red]")
    return failed


def _follow(client: SearchClient, job_ids: list[str], *, total: int, timeout_s: float,
            progress: Progress) -> list[Job]:
    deadline = time.monotonic() + timeout_s
    with progress:
        bar = progress.add_task("ingesting", total=total)
        while True:
            jobs = [client.job(job_id) for job_id in job_ids]
            progress.update(bar, completed=sum(j.documents_done + j.documents_failed for j in jobs))
            if all(job.finished for job in jobs):
                return jobs
            if time.monotonic() > deadline:
                raise TimeoutError(f"ingestion not finished after {timeout_s}s")
            time.sleep(0.5)
