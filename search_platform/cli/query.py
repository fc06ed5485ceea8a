"""The `query` command's work: call the SDK, print a readable table."""

from __future__ import annotations

from typing import Literal, TypedDict, cast, get_args

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from search_platform_client import Hit, SearchClient, SearchOptions, SearchPlatformClientError, SearchResponse
from search_platform_client.models import Fusion, GroupBy, Normalization


class FusionKwargs(TypedDict, total=False):
    """The fusion keyword arguments of SearchClient.search that the user set."""

    fusion: Fusion
    weights: dict[str, float]
    alpha: float
    normalization: Normalization


class ViewKwargs(TypedDict, total=False):
    """The paging, grouping, highlighting, explain and rerank keyword arguments of SearchClient.search."""

    page: int
    window: int
    group_by: GroupBy
    highlight: bool
    explain: bool
    rerank: bool


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


def view_options(*, page: int, window: int | None, group_by: str, highlight: bool, explain: bool,
                 rerank: bool | None = None) -> ViewKwargs:
    """The CLI's paging and display flags as SDK keyword arguments (window and rerank left to the service when
    unset)."""
    options = ViewKwargs(page=page, group_by=cast(GroupBy, _choice("group-by", group_by, get_args(GroupBy))),
                         highlight=highlight, explain=explain)
    if window is not None:
        options["window"] = window
    if rerank is not None:
        options["rerank"] = rerank
    return options


def run_query(base_url: str, text: str, *, mode: str, top_k: int, index: str | None,
              fusion: FusionKwargs | None = None, view: ViewKwargs | None = None,
              api_key: str | None = None) -> SearchResponse:
    """One search through the SDK; exits with the service's message on error."""
    import typer

    _choice("mode", mode, ("hybrid", "bm25", "semantic"))
    try:
        with SearchClient(base_url, api_key=api_key) as client:
            options = SearchOptions(mode=cast(Literal["bm25", "semantic", "hybrid"], mode), top_k=top_k, index=index)
            return client.search(text, options, **(fusion or FusionKwargs()), **(view or ViewKwargs()))
    except SearchPlatformClientError as error:
        Console(stderr=True).print(str(error), style="red", markup=False)
        raise typer.Exit(1) from error


def _leg_rank(hit: Hit, leg: str) -> str:
    score = hit.legs.get(leg)
    return str(score.rank) if score else "-"


def snippet_markup(hit: Hit, *, width: int = 160) -> str:
    """Rich markup for a hit's text column: its highlights (matches in bold) when present, else its text's start."""
    if not hit.highlights:
        return escape(" ".join(hit.text.split())[:width])
    joined = escape(" … ".join(" ".join(fragment.split()) for fragment in hit.highlights))
    return joined.replace("<em>", "[bold yellow]").replace("</em>", "[/bold yellow]")


def _document(hit: Hit) -> str:
    return f"{hit.doc_id} ({len(hit.chunks)} chunks)" if len(hit.chunks) > 1 else hit.doc_id


def _rerank_note(response: SearchResponse) -> str:
    if response.reranked:
        return " · reranked"
    return f" · not reranked: {response.rerank_reason}" if response.rerank_reason else ""


def print_results(console: Console, response: SearchResponse) -> None:
    """A table: rank, score, document, section, rank in each leg, highlights (or the text's start)."""
    mode = f"{response.mode} ({response.fusion})" if response.mode == "hybrid" else response.mode
    paging = f"page {response.page} · {response.total_in_window} in window {response.window}"
    table = Table(title=f"{mode} · {len(response.hits)} hits · {paging}{_rerank_note(response)} · "
                        f"{response.took_ms:.0f} ms", show_lines=False)
    for column in ("#", "score", "document", "section", "bm25", "dense", "text"):
        table.add_column(column, overflow="fold")
    for hit in response.hits:
        score = f"{hit.score:.4f}" if hit.rerank_score is None else f"{hit.rerank_score:.4f} (rerank)"
        table.add_row(str(hit.rank), score, escape(_document(hit)), escape(hit.section[:40]),
                      _leg_rank(hit, "bm25"), _leg_rank(hit, "dense"), snippet_markup(hit))
    console.print(table)
    if any(hit.explanation for hit in response.hits):
        print_explanations(console, response)


def print_explanations(console: Console, response: SearchResponse) -> None:
    """A table per leg of each hit: rank, raw score, normalised score, contribution to the fused score."""
    table = Table(title="explain · contributions sum to the score")
    for column in ("#", "fusion", "leg", "rank", "raw", "normalized", "contribution"):
        table.add_column(column)
    for hit in response.hits:
        if hit.explanation is None:
            continue
        route = {"route": hit.explanation.route} if hit.explanation.route else {}
        params = ", ".join(f"{k}={v}" for k, v in {**route, **hit.explanation.params}.items())
        for leg, part in hit.explanation.legs.items():
            table.add_row(str(hit.rank), escape(f"{hit.explanation.fusion} {params}".strip()), leg,
                          "-" if part.rank is None else str(part.rank),
                          "-" if part.score is None else f"{part.score:.4f}",
                          "-" if part.normalized is None else f"{part.normalized:.4f}", f"{part.contribution:.4f}")
    console.print(table)
