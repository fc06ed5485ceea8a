"""`search-platform reindex --alias A [--delete-old] [--if-needed]`: rebuild the index behind an alias with the
current model and mapping through the Celery workers, verify it and swap the alias
(search_platform/ingestion/reindex.py)."""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated

import typer
from rich.console import Console

from search_platform.cli.common import ExitCode, fail, redis_client, settings_or_exit
from search_platform.domain.errors import BackendUnavailableError, IndexMissingError, SearchPlatformError
from search_platform.ingestion.jobs import JobStore
from search_platform.ingestion.queue import create_celery, enqueue_batch
from search_platform.ingestion.reindex import Reindexer, ReindexReport, ReindexTimeoutError, reindex_reasons


def reindex(
    alias: Annotated[str, typer.Option("--alias", help="The alias to rebuild, e.g. sp-chunks.")],
    delete_old: Annotated[bool, typer.Option(
        "--delete-old", help="Delete the old index after the swap (default: keep it).")] = False,
    timeout_s: Annotated[float, typer.Option(
        "--timeout", min=1.0, help="Seconds to wait for the ingestion jobs.")] = 7200.0,
    if_needed: Annotated[bool, typer.Option(
        "--if-needed", help="Only if the alias needs it (an older mapping version, or vectors of another "
                            "embedding model); a current or missing alias is left alone (exit 0).")] = False,
) -> None:
    """Rebuild an index with the current model and mapping, verify it, then swap its alias atomically."""
    from search_platform.backends.elasticsearch.client import build_client
    from search_platform.embeddings.factory import build_embedder

    settings = settings_or_exit()
    console = Console(highlight=False, soft_wrap=True)
    model_dims = cache(lambda: build_embedder(settings.embedding).dims)  # loads the model: only when asked
    client = build_client(settings.elasticsearch)
    try:
        if if_needed:
            reasons = reindex_reasons(client, alias, dims=model_dims)
            if not reasons:
                console.print(f"{alias}: nothing to re-index (current, or no such alias)", markup=False)
                return
            console.print(f"{alias} needs a re-index: {'; '.join(reasons)}", markup=False)
        celery = create_celery(settings)
        if not celery.control.ping(timeout=2.0):
            fail("no Celery worker answers: start one with `search-platform up --app` or `search-platform worker`",
                 ExitCode.UNAVAILABLE)
        with redis_client(settings) as redis:
            reindexer = Reindexer(settings=settings, client=client, store=JobStore.from_settings(redis, settings),
                                  enqueue=partial(enqueue_batch, celery), timeout_s=timeout_s,
                                  dims=model_dims)
            report = reindexer.run(alias=alias, delete_old=delete_old)
    except ReindexTimeoutError as error:
        fail(str(error), ExitCode.TIMEOUT)
    except IndexMissingError as error:
        fail(str(error), ExitCode.USAGE)
    except BackendUnavailableError as error:
        fail(str(error), ExitCode.UNAVAILABLE)
    except SearchPlatformError as error:
        fail(str(error))
    finally:
        client.close()
    print_report(report, console)


def print_report(report: ReindexReport, console: Console) -> None:
    """Counts before and after, where the documents came from, and the time of each step."""
    old = ", ".join(report.old_indices)
    console.print(f"{report.alias}: {old} -> {report.new_index}", markup=False)
    for label, counts in (("before:", report.before), ("after: ", report.after)):
        console.print(f"{label} {counts.documents} documents, {counts.chunks} chunks, "
                      f"{counts.records} document records", markup=False)
    console.print(f"read from records: {report.from_records}, rebuilt from chunks: {report.rebuilt}, "
                  f"caught up: {report.caught_up}, removed: {report.removed}", markup=False)
    console.print("time: " + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in report.seconds.items()),
                  markup=False)
    console.print(f"old index {'deleted' if report.old_deleted else 'kept'}: {old}", markup=False)
