"""search-platform: one CLI whose commands call the same functions as the library.

Client commands (query, ingest, jobs, feedback) need only the API's URL and key; the others run or inspect the
platform on this machine. Exit codes: 0 ok, 1 failed, 2 bad usage or settings, 3 service down or unreachable,
4 gave up waiting, 130 interrupted."""

from __future__ import annotations

import sys

from search_platform.cli import (
    analytics,
    cluster,
    documents,
    evaluate,
    feedback,
    ingest,
    jobs,
    keys,
    query,
    services,
    snapshots,
    tune,
)
from search_platform.cli.common import ExitCode, new_app
from search_platform.cli.reindex import reindex

app = new_app(__doc__ or "")
services.register(app)
app.command()(ingest.ingest)
app.command()(query.query)
app.command()(feedback.feedback)
app.add_typer(jobs.app, name="jobs")
app.add_typer(documents.app, name="documents")
app.command("eval")(evaluate.evaluate)
app.command()(tune.tune)
app.add_typer(keys.app, name="keys")
app.add_typer(cluster.app, name="cluster")
app.add_typer(analytics.logs_app, name="logs")
app.command("report")(analytics.report)
app.command()(reindex)
app.add_typer(snapshots.app, name="snapshots")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(int(ExitCode.INTERRUPTED))
