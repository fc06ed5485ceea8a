"""search-platform: one CLI whose commands call the same functions as the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from search_platform.cli.analytics import logs_app
from search_platform.cli.analytics import report as report_command
from search_platform.cli.cluster import app as cluster_app
from search_platform.cli.common import settings_or_exit
from search_platform.cli.jobs import app as jobs_app
from search_platform.cli.keys import app as keys_app
from search_platform.config import Settings

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
app.add_typer(keys_app, name="keys")
app.add_typer(cluster_app, name="cluster")
app.add_typer(jobs_app, name="jobs")
app.add_typer(logs_app, name="logs")
app.command("report")(report_command)
console = Console()
DEFAULT_API = "http://127.0.0.1:8000"
ApiKeyOption = Annotated[str | None, typer.Option("--api-key", envvar="SP_API_KEY", show_default=False,
                                                  help="API key for the service (or set SP_API_KEY).")]


def api_url(settings: Settings) -> str:
    """Where the CLI finds the API."""
    return f"http://{settings.service.host}:{settings.service.port}"


@app.command()
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


@app.command()
def down() -> None:
    """Stop the API and worker if running, then Elasticsearch and Redis (data is kept)."""
    from infra import app_processes, services

    settings = settings_or_exit()
    app_processes.stop_all(settings)
    services.down(settings)


@app.command()
def status() -> None:
    """Show each local service."""
    from infra import app_processes, services

    settings = settings_or_exit()
    table = Table("service", "running", "healthy", "pid", "detail")
    for name, state in {**services.status(settings), **app_processes.status(settings)}.items():
        table.add_row(name, str(state.running), str(state.healthy), str(state.pid or ""), state.detail)
    console.print(table)


@app.command()
def serve() -> None:
    """Run the HTTP API (FastAPI on uvicorn)."""
    import uvicorn

    from search_platform.logging_setup import configure_logging
    from search_platform.service.app import create_app

    settings = settings_or_exit()
    configure_logging(settings.service)  # uvicorn's loggers too: log_config=None leaves them to ours
    uvicorn.run(create_app(settings), host=settings.service.host, port=settings.service.port, log_config=None,
                log_level=settings.service.log_level.lower())


@app.command()
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


@app.command()
def ingest(
    path: Annotated[Path, typer.Argument(exists=True, help="A directory of .md/.txt/.html, or .json/.jsonl.")],
    index: Annotated[str | None, typer.Option(help="Target alias (default from settings).")] = None,
    batch: Annotated[int, typer.Option(help="Documents per API request.")] = 500,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the jobs.")] = 3600.0,
    api_key: ApiKeyOption = None,
) -> None:
    """Ingest documents through the API and Celery, with a progress bar fed by the job status."""
    from search_platform.cli.ingest import run_ingest

    settings = settings_or_exit()
    failed = run_ingest(api_url(settings), path, index=index, batch=batch, timeout_s=timeout, console=console,
                        api_key=api_key,
                        progress=Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                          TimeElapsedColumn(), console=console))
    raise typer.Exit(1 if failed else 0)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="The query.")],
    mode: Annotated[str, typer.Option(help="hybrid | bm25 | semantic")] = "hybrid",
    top_k: Annotated[int, typer.Option(help="Hits to show: the page size.")] = 10,
    index: Annotated[str | None, typer.Option(help="Alias to search.")] = None,
    page: Annotated[int, typer.Option(min=1, help="Page number, from 1.")] = 1,
    window: Annotated[int | None, typer.Option(min=1, help="Fused hits pages are cut from (page * top-k at most)."
                                               )] = None,
    group_by: Annotated[str, typer.Option(help="chunk | document")] = "chunk",
    highlight: Annotated[bool, typer.Option(help="Show highlighted fragments instead of the text's start.")] = True,
    explain: Annotated[bool, typer.Option(help="Also print each leg's contribution to each score.")] = False,
    fusion: Annotated[str | None, typer.Option(
        help="Hybrid fusion: rrf | weighted_rrf | convex | dbsf | routed (weights by query type).")] = None,
    alpha: Annotated[float | None, typer.Option(help="convex: weight of dense, in [0, 1].")] = None,
    weight_bm25: Annotated[float | None, typer.Option(help="weighted_rrf, dbsf: weight of bm25.")] = None,
    weight_dense: Annotated[float | None, typer.Option(help="weighted_rrf, dbsf: weight of dense.")] = None,
    normalization: Annotated[str | None, typer.Option(help="convex: minmax | zscore.")] = None,
    rerank: Annotated[bool | None, typer.Option("--rerank/--no-rerank", help="Rescore the fused top N with the "
                                                "service's cross-encoder (default: as configured).")] = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Search and print a table with each hit's rank in each leg."""
    from search_platform.cli.query import fusion_options, print_results, run_query, view_options

    settings = settings_or_exit()
    options = fusion_options(fusion=fusion, alpha=alpha, weight_bm25=weight_bm25, weight_dense=weight_dense,
                             normalization=normalization)
    view = view_options(page=page, window=window, group_by=group_by, highlight=highlight, explain=explain,
                        rerank=rerank)
    response = run_query(api_url(settings), text, mode=mode, top_k=top_k, index=index, fusion=options, view=view,
                         api_key=api_key)
    print_results(console, response)


@app.command("eval")
def evaluate(
    dataset: Annotated[Path, typer.Option(exists=True, help="Golden-set JSON file or BEIR-format directory.")],
    corpus: Annotated[Path | None, typer.Option(help="Corpus directory for a golden-set file.")] = None,
    modes: Annotated[str, typer.Option(help="Comma-separated: bm25,semantic,hybrid.")] = "bm25,semantic,hybrid",
    peer: Annotated[str | None, typer.Option(help="Also run a peer stack: seed.")] = None,
    json_out: Annotated[Path | None, typer.Option(help="Where to write the JSON report.")] = None,
    report_dir: Annotated[Path | None, typer.Option(help="Directory for Markdown and PNG reports.")] = None,
) -> None:
    """Evaluate retrieval quality and latency per mode (and the seed peer) on a dataset."""
    from search_platform.cli.evaluate import EvalOptions, parse_modes, print_report, run_eval
    from search_platform.domain.errors import SearchPlatformError

    settings = settings_or_exit()
    if peer not in (None, "seed"):
        raise typer.BadParameter(f"unknown peer {peer!r}: the only peer is 'seed'")
    try:
        options = EvalOptions(dataset, corpus, parse_modes(modes), peer, json_out, report_dir)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    try:
        report, paths = run_eval(settings, options)
    except SearchPlatformError as error:
        console.print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error
    print_report(report)
    for path in paths:
        console.print(f"wrote {path}")


@app.command()
def tune(
    dataset: Annotated[list[Path], typer.Option(exists=True, help="Golden-set JSON file or BEIR-format directory; "
                                                                  "repeat for every dev set.")],
    corpus: Annotated[Path | None, typer.Option(help="Corpus directory for a golden-set file.")] = None,
    out: Annotated[Path | None, typer.Option(help="Markdown report (JSON next to it); default "
                                                  "benchmarks/reports/tuning-dev-sets.md.")] = None,
) -> None:
    """Run the sweep of search configurations on every dataset and report macro nDCG@10; defaults are not changed."""
    from search_platform.cli.tune import run_tune
    from search_platform.domain.errors import SearchPlatformError

    settings = settings_or_exit()
    try:
        report, paths = run_tune(settings, dataset, corpus, out)
    except SearchPlatformError as error:
        console.print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error
    best = report.best()
    console.print(f"best: {best.config.label} macro nDCG@10 {best.macro:.3f} "
                  f"(default: {report.row(report.baseline).macro:.3f})")
    for path in paths:
        console.print(f"wrote {path}")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
