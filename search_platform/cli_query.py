"""The `query` command's work: call the SDK, print a readable table."""

from __future__ import annotations

from typing import Literal, TypedDict, cast, get_args

from rich.console import Console
from rich.table import Table

from search_platform.client import SearchClient, SearchPlatformClientError, SearchResponse
from search_platform.client.models import Fusion, Normalization


class FusionKwargs(TypedDict, total=False):
    """The fusion keyword arguments of SearchClient.search that the user set."""

    fusion: Fusion
    weights: dict[str, float]
    alpha: float
    normalization: Normalization


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    import typer

    if value not in choices:
        raise typer.BadParameter(f"unknown {name} {value!r}: use {', '.join(choices)}")
    return value


def fusion_options(*, fusion: str | None, alpha: float | None, weight_bm25: float | None,
                   weight_dense: float | None, normalization: str | None) -> FusionKwargs:
    """The CLI's fusion flags as SDK keyword arguments; unset flags are left to the service's defaults."""
    options = FusionKwargs()
    if fusion is not None:
        options["fusion"] = cast(Fusion, _choice("fusion", fusion, get_args(Fusion)))
    if normalization is not None:
        options["normalization"] = cast(Normalization, _choice("normalization", normalization,
                                                               get_args(Normalization)))
    if alpha is not None:
        options["alpha"] = alpha
    weights = {leg: w for leg, w in (("bm25", weight_bm25), ("dense", weight_dense)) if w is not None}
    if weights:
        options["weights"] = weights
    return options


def run_query(base_url: str, text: str, *, mode: str, top_k: int, index: str | None,
              fusion: FusionKwargs | None = None) -> SearchResponse:
    """One search through the SDK; exits with the service's message on error."""
    import typer

    _choice("mode", mode, ("hybrid", "bm25", "semantic"))
    try:
        with SearchClient(base_url) as client:
            return client.search(text, mode=cast(Literal["bm25", "semantic", "hybrid"], mode), top_k=top_k,
                                 index=index, **(fusion or FusionKwargs()))
    except SearchPlatformClientError as error:
        Console(stderr=True).print(f"[red]{error}[/red]")
        raise typer.Exit(1) from error


def _leg_rank(response: SearchResponse, position: int, leg: str) -> str:
    score = response.hits[position].legs.get(leg)
    return str(score.rank) if score else "-"


def print_results(console: Console, response: SearchResponse) -> None:
    """A table: rank, score, document, section, rank in each leg, snippet."""
    mode = f"{response.mode} ({response.fusion})" if response.mode == "hybrid" else response.mode
    table = Table(title=f"{mode} · {len(response.hits)} hits · {response.took_ms:.0f} ms", show_lines=False)
    for column in ("#", "score", "document", "section", "bm25", "dense", "text"):
        table.add_column(column, overflow="fold")
    for position, hit in enumerate(response.hits):
        snippet = " ".join(hit.text.split())[:120]
        table.add_row(str(hit.rank), f"{hit.score:.4f}", hit.doc_id, hit.section[:40],
                      _leg_rank(response, position, "bm25"), _leg_rank(response, position, "dense"), snippet)
    console.print(table)
