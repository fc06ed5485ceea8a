"""`search-platform cluster up|down|status`: the local 3-node Elasticsearch cluster for scale-out and failover."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from search_platform.cli.common import settings_or_exit

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="Run a local multi-node Elasticsearch cluster on loopback (beside the main node).")
console = Console()


@app.command()
def up() -> None:
    """Provision and start every node, wait for green, and print the URL list for SP_ELASTICSEARCH__URL."""
    from infra import cluster
    from infra.errors import InfraError

    settings = settings_or_exit()
    try:
        health = cluster.up(settings)
    except InfraError as error:
        console.print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error
    console.print(f"cluster {health['status']} with {health['number_of_nodes']} nodes")
    console.print(f"SP_ELASTICSEARCH__URL={cluster.urls(settings)}")


@app.command()
def down(
    wipe: Annotated[bool, typer.Option(help="Also delete the nodes' data, logs and config.")] = False,
) -> None:
    """Stop every node of the cluster (data is kept unless --wipe)."""
    from infra import cluster
    from infra.errors import InfraError

    try:
        cluster.down(settings_or_exit(), wipe=wipe)
    except InfraError as error:
        console.print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error


@app.command()
def status() -> None:
    """Show each node: running, healthy, pid and the cluster health it reports."""
    from infra import cluster

    table = Table("node", "running", "healthy", "pid", "detail")
    for name, state in cluster.status(settings_or_exit()).items():
        table.add_row(name, str(state.running), str(state.healthy), str(state.pid or ""), state.detail)
    console.print(table)
