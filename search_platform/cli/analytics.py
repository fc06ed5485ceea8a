"""`search-platform report` (compare experiment arms from the search logs) and `search-platform logs rollover`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table

from search_platform.analytics.log_index import log_index_body, rollover_conditions, rollover_log_index
from search_platform.backends.elasticsearch.client import build_client
from search_platform.cli.common import settings_or_exit
from search_platform.domain.errors import SearchPlatformError
from search_platform.evaluation.experiment_report import (
    ArmReport,
    Estimate,
    build_report,
    report_as_dict,
    since_expression,
)

logs_app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                        help="Manage the search-log indices.")
console = Console()
err_console = Console(stderr=True)


AliasOption = Annotated[str | None, typer.Option(help="Log alias (default: settings.analytics.log_alias).")]


def _interval(estimate: Estimate, *, percent: bool = False, digits: int = 3) -> str:
    scale, unit = (100.0, "%") if percent else (1.0, "")
    return (f"{estimate.value * scale:.{digits}f}{unit} "
            f"[{estimate.low * scale:.{digits}f}, {estimate.high * scale:.{digits}f}]")


def report_table(reports: Sequence[ArmReport], *, since: str) -> Table:
    """One row per arm, each figure with its 95% interval in brackets."""
    table = Table("experiment", "arm", "searches", "clicks", "CTR", "MRR", "p50 ms", "p95 ms", "zero-result",
                  title=f"search logs, last {since} (95% intervals)")
    for arm in reports:
        table.add_row(arm.experiment, arm.arm, str(arm.searches), str(arm.clicks),
                      _interval(arm.ctr, percent=True, digits=1), _interval(arm.mrr),
                      _interval(arm.latency_p50_ms, digits=1), _interval(arm.latency_p95_ms, digits=1),
                      _interval(arm.zero_result_rate, percent=True, digits=1))
    return table


def report(
    since: Annotated[str, typer.Option(help="Window: the last 30m, 24h, 7d ...")] = "24h",
    experiment: Annotated[str | None, typer.Option(help="Only this experiment's searches.")] = None,
    output: Annotated[Literal["table", "json"], typer.Option("--format", help="table | json")] = "table",
    alias: AliasOption = None,
) -> None:
    """Compare experiment arms from the search logs: CTR, MRR of clicks, latency p50/p95, zero-result rate."""
    settings = settings_or_exit()
    try:
        since_expression(since)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--since") from error
    es = build_client(settings.elasticsearch)
    try:
        reports = build_report(es, alias=alias or settings.analytics.log_alias, since=since, experiment=experiment)
    except SearchPlatformError as error:
        err_console.print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error
    finally:
        es.close()
    if output == "json":
        typer.echo(json.dumps(report_as_dict(reports, since=since), indent=2))
    elif not reports:
        console.print(f"no searches logged in the last {since}")
    else:
        console.print(report_table(reports, since=since))


@logs_app.command()
def rollover(
    max_age: Annotated[str | None, typer.Option(help="Roll when the write index is older (e.g. 7d); default: "
                                                     "settings.analytics.rollover_max_age.")] = None,
    max_size: Annotated[str | None, typer.Option(help="Roll when its primary shard is bigger (e.g. 5gb); default: "
                                                      "settings.analytics.rollover_max_size.")] = None,
    max_docs: Annotated[int | None, typer.Option(min=1, help="Roll when it holds more documents.")] = None,
    force: Annotated[bool, typer.Option(help="Roll now, whatever the conditions.")] = False,
    dry_run: Annotated[bool, typer.Option(help="Only say whether the conditions are met.")] = False,
    alias: AliasOption = None,
) -> None:
    """Start a new search-log index behind the write alias when a condition is met (run it from cron)."""
    settings = settings_or_exit()
    analytics = settings.analytics
    given = max_age is not None or max_size is not None or max_docs is not None
    if force and given:
        raise typer.BadParameter("--force rolls unconditionally: give it no conditions")
    conditions = {} if force else rollover_conditions(
        max_age=max_age if given else analytics.rollover_max_age,
        max_size=max_size if given else analytics.rollover_max_size, max_docs=max_docs)
    if not conditions and not force:
        raise typer.BadParameter("no rollover condition: give --max-age, --max-size or --max-docs, or --force")
    es = build_client(settings.elasticsearch)
    try:
        result = rollover_log_index(es, alias=alias or analytics.log_alias, conditions=conditions, dry_run=dry_run,
                                    body=log_index_body(number_of_shards=settings.elasticsearch.number_of_shards,
                                                        number_of_replicas=settings.elasticsearch.number_of_replicas))
    except SearchPlatformError as error:
        err_console.print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error
    finally:
        es.close()
    verb = "would roll" if dry_run else "rolled"
    if result.get("rolled_over") or (dry_run and (force or any(result.get("conditions", {}).values()))):
        typer.echo(f"{verb} {result['old_index']} -> {result['new_index']}")
    else:
        typer.echo(f"kept {result['old_index']}: no condition met {result.get('conditions', {})}")
