"""`search-platform snapshots create|list|restore`: back up the indices behind an alias with Elasticsearch's snapshot
API to the fs repository under the node's path.repo, and restore them into fresh indices
(search_platform/backends/elasticsearch/snapshots.py). Runs as the Elasticsearch superuser of the settings: snapshot
management is a cluster privilege the service user does not hold."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, TypeVar

import typer
from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch import snapshots as core
from search_platform.cli.common import ExitCode, fail, new_app, settings_or_exit
from search_platform.cli.output import FormatOption, OutputFormat, console, print_json, print_jsonl, table
from search_platform.config import Settings
from search_platform.domain.errors import BackendError, BackendUnavailableError, IndexMissingError

app = new_app("Back up indices with Elasticsearch snapshots and restore them into fresh indices.")
T = TypeVar("T")


@contextmanager
def admin_client(settings: Settings) -> Iterator[Elasticsearch]:
    """A superuser client, closed afterwards."""
    from search_platform.backends.elasticsearch.client import build_admin_client

    client = build_admin_client(settings.elasticsearch)
    try:
        yield client
    finally:
        client.close()


def run(settings: Settings, call: Callable[[Elasticsearch], T]) -> T:
    """call(client) with the core's errors as one line and an exit code."""
    try:
        with admin_client(settings) as client:
            return call(client)
    except (core.InvalidNameError, IndexMissingError) as error:
        fail(str(error), ExitCode.USAGE)
    except BackendUnavailableError as error:
        fail(f"{error}; check `search-platform status`", ExitCode.UNAVAILABLE)
    except BackendError as error:
        fail(str(error))


def _now() -> datetime:
    return datetime.now(UTC)


@app.command()
def create(
    alias: Annotated[str | None, typer.Option(
        "--alias", help="The alias (or index) to back up; default SP_ELASTICSEARCH__INDEX_ALIAS.")] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="The snapshot's name; default <alias>-<UTC time>.")] = None,
    output: FormatOption = OutputFormat.TABLE,
) -> None:
    """Snapshot the indices behind an alias and wait until the snapshot is complete."""
    settings = settings_or_exit()
    target = alias or settings.elasticsearch.index_alias
    snapshot = name or core.default_snapshot_name(target, _now())
    info = run(settings, lambda client: core.create_snapshot(client, settings.elasticsearch, alias=target,
                                                             name=snapshot))
    show([info], output)


@app.command("list")
def list_snapshots(output: FormatOption = OutputFormat.TABLE) -> None:
    """List the repository's snapshots, oldest first."""
    settings = settings_or_exit()
    show(run(settings, lambda client: core.list_snapshots(client, settings.elasticsearch)), output)


@app.command()
def restore(
    name: Annotated[str, typer.Argument(help="The snapshot to restore (see `snapshots list`).")],
    swap_alias: Annotated[bool, typer.Option(
        "--swap-alias", help="Then point the alias the snapshot was taken of at the restored index.")] = False,
    alias: Annotated[str | None, typer.Option(
        "--alias", help="With --swap-alias: point this alias instead of the snapshot's own.")] = None,
    output: FormatOption = OutputFormat.TABLE,
) -> None:
    """Restore a snapshot's indices under fresh names (<index>-restored-<UTC time>); existing indices stay."""
    settings = settings_or_exit()
    if alias is not None and not swap_alias:
        fail("--alias only applies with --swap-alias", ExitCode.USAGE)
    suffix = core.restore_suffix(_now())

    def call(client: Elasticsearch) -> core.RestoreReport:
        target = None
        if swap_alias:
            target = alias or core.get_snapshot(client, settings.elasticsearch, name).alias
            if target is None:
                raise core.InvalidNameError(f"snapshot {name} records no alias: name one with --alias")
        return core.restore_snapshot(client, settings.elasticsearch, name=name, suffix=suffix, alias=target)

    report = run(settings, call)
    if output is OutputFormat.TABLE:
        moved = f"; {report.alias} -> {report.indices[0]}" if report.alias else ""
        console().print(f"restored {report.snapshot} as {', '.join(report.indices)} "
                        f"({report.shards_total} shards){moved}", markup=False, soft_wrap=True)
    else:
        result = {"snapshot": report.snapshot, "indices": list(report.indices), "alias": report.alias,
                  "shards_total": report.shards_total, "shards_failed": report.shards_failed}
        if output is OutputFormat.JSON:
            print_json(result)
        else:
            print_jsonl([result])


def show(snapshots: list[core.SnapshotInfo], output: OutputFormat) -> None:
    """Snapshots as a table, JSON or JSON lines."""
    if output is OutputFormat.JSON:
        print_json([info.as_dict() for info in snapshots])
        return
    if output is OutputFormat.JSONL:
        print_jsonl(info.as_dict() for info in snapshots)
        return
    # at 80 columns a default name (<alias>-<time>) stays whole; the indices give way (all of them: --format json)
    rows = [(info.name, info.state, info.alias or "", (info.start_time or "")[:16].replace("T", " "),
             ",".join(info.indices)) for info in snapshots]
    console().print(table(None, [("snapshot", 27), ("state", 7), ("alias", 12), ("started (UTC)", 16),
                                 ("indices", None)], rows))
