"""The `query` command's work: call the SDK, print a readable table."""

from __future__ import annotations

from typing import Literal, cast

from rich.console import Console
from rich.table import Table

from search_platform.client import SearchClient, SearchPlatformClientError, SearchResponse


def run_query(base_url: str, text: str, *, mode: str, top_k: int, index: str | None) -> SearchResponse:
    """One search through the SDK; exits with the service's message on error."""
    import typer

    if mode not in ("hybrid", "bm25", "semantic"):
        raise typer.BadParameter(f"unknown mode {mode!r}: use hybrid, bm25 or semantic")
    try:
        with SearchClient(base_url) as client:
            return client.search(text, mode=cast(Literal["bm25", "semantic", "hybrid"], mode), top_k=top_k,
                                 index=index)
    except SearchPlatformClientError as error:
        Console(stderr=True).print(f"[red]{error}[/red]")
        raise typer.Exit(1) from error


def _leg_rank(response: SearchResponse, position: int, leg: str) -> str:
    score = response.hits[position].legs.get(leg)
    return str(score.rank) if score else "-"


def print_results(console: Console, response: SearchResponse) -> None:
    """A table: rank, score, document, section, rank in each leg, snippet."""
    table = Table(title=f"{response.mode} · {len(response.hits)} hits · {response.took_ms:.0f} ms", show_lines=False)
    for column in ("#", "score", "document", "section", "bm25", "dense", "text"):
        table.add_column(column, overflow="fold")
    for position, hit in enumerate(response.hits):
        snippet = " ".join(hit.text.split())[:120]
        table.add_row(str(hit.rank), f"{hit.score:.4f}", hit.doc_id, hit.section[:40],
                      _leg_rank(response, position, "bm25"), _leg_rank(response, position, "dense"), snippet)
    console.print(table)
