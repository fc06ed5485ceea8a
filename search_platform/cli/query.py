"""`search-platform query TEXT`: search through the API (only its URL and key are needed) and print the hits as
an 80-column table, JSON or JSON lines."""

from __future__ import annotations

from typing import Annotated, TypedDict, cast, get_args

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text
from search_platform_client import Fusion, GroupBy, Hit, Mode, Normalization, SearchOptions, SearchResponse

from search_platform.cli.common import DEFAULT_API_URL, ApiKeyOption, ApiUrlOption, api_client
from search_platform.cli.output import FormatOption, OutputFormat, print_json, print_jsonl, table


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
    if value not in choices:
        raise typer.BadParameter(f"unknown {name} {value!r}: use {', '.join(choices)}")
    return value


def fusion_options(*, fusion: str | None, alpha: float | None, weight_bm25: float | None,
                   weight_dense: float | None, normalization: str | None,
                   weight_dense_lead: float | None = None, weight_definitions: float | None = None) -> FusionKwargs:
    """The CLI's fusion flags as SDK keyword arguments; unset flags are left to the service's defaults."""
    options = FusionKwargs()
    if fusion is not None:
        options["fusion"] = cast(Fusion, _choice("fusion", fusion, get_args(Fusion)))
    if normalization is not None:
        options["normalization"] = cast(Normalization, _choice("normalization", normalization,
                                                               get_args(Normalization)))
    if alpha is not None:
        options["alpha"] = alpha
    weights = {leg: w for leg, w in (("bm25", weight_bm25), ("dense", weight_dense),
                                     ("dense_lead", weight_dense_lead), ("definitions", weight_definitions))
               if w is not None}
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
    name = f"{hit.doc_id} ({len(hit.chunks)} chunks)" if len(hit.chunks) > 1 else hit.doc_id
    return f"{name} / {hit.section}" if hit.section else name


def _score(hit: Hit) -> str:
    return f"{hit.score:.4f}" if hit.rerank_score is None else f"{hit.rerank_score:.4f}*"


def _rerank_note(response: SearchResponse) -> str:
    if response.reranked:
        return " · reranked (* rerank score)"
    return f" · not reranked: {response.rerank_reason}" if response.rerank_reason else ""


def print_results(console: Console, response: SearchResponse) -> None:
    """One line per hit: rank, score, document / section, rank in each leg, highlights (or the text's start)."""
    mode = f"{response.mode} ({response.fusion})" if response.mode == "hybrid" else response.mode
    paging = f"page {response.page} · {response.total_in_window} in window {response.window}"
    degraded = f" · degraded: {response.degraded_reason}" if response.degraded else ""
    title = (f"{mode} · {len(response.hits)} hits · {paging}{_rerank_note(response)}{degraded} · "
             f"{response.took_ms:.0f} ms")
    rows = [(str(hit.rank), _score(hit), Text(_document(hit)), _leg_rank(hit, "bm25"), _leg_rank(hit, "dense"),
             Text.from_markup(snippet_markup(hit))) for hit in response.hits]
    console.print(Text(title, style="bold"), overflow="ellipsis", no_wrap=True, crop=True)
    console.print(table(None, [("#", 3), ("score", 7), ("document", 24), ("bm25", 4), ("dense", 5), ("text", None)],
                        rows))
    if any(hit.explanation for hit in response.hits):
        print_explanations(console, response)


def print_explanations(console: Console, response: SearchResponse) -> None:
    """A line per leg of each hit: fusion, rank, raw score, normalised score, contribution to the fused score."""
    rows = []
    for hit in response.hits:
        if hit.explanation is None:
            continue
        route = {"route": hit.explanation.route} if hit.explanation.route else {}
        params = ", ".join(f"{k}={v}" for k, v in {**route, **hit.explanation.params}.items())
        for leg, part in hit.explanation.legs.items():
            rows.append((str(hit.rank), f"{hit.explanation.fusion} {params}".strip(), leg,
                         "-" if part.rank is None else str(part.rank),
                         "-" if part.score is None else f"{part.score:.4f}",
                         "-" if part.normalized is None else f"{part.normalized:.4f}", f"{part.contribution:.4f}"))
    console.print("explain · contributions sum to the score", style="bold")
    console.print(table(None, [("#", 4), ("fusion", None), ("leg", 5), ("rank", 4), ("raw", 8), ("norm", 6),
                               ("contrib", 7)], rows))
    if response.timings_ms:
        stages = " · ".join(f"{name} {ms:.1f}" for name, ms in response.timings_ms.items())
        console.print(f"stages (ms) · {stages}", style="bold", overflow="fold")


def emit(response: SearchResponse, output: OutputFormat, console: Console) -> None:
    """The response in the chosen format: table, JSON (the whole response) or JSON lines (one hit a line)."""
    if output is OutputFormat.JSON:
        print_json(response.model_dump(mode="json"))
    elif output is OutputFormat.JSONL:
        print_jsonl(hit.model_dump(mode="json") for hit in response.hits)
    else:
        print_results(console, response)


def query(
    text: Annotated[str, typer.Argument(help="The query.")],
    mode: Annotated[str, typer.Option(help="hybrid | bm25 | semantic")] = "hybrid",
    top_k: Annotated[int, typer.Option(help="Hits to show: the page size.")] = 10,
    index: Annotated[str | None, typer.Option(help="Alias to search (default: the service's).")] = None,
    page: Annotated[int, typer.Option(min=1, help="Page number, from 1.")] = 1,
    window: Annotated[int | None, typer.Option(min=1, help="Fused hits pages are cut from (page * top-k at most)."
                                               )] = None,
    group_by: Annotated[str, typer.Option(help="chunk | document")] = "chunk",
    highlight: Annotated[bool, typer.Option(help="Show highlighted fragments instead of the text's start.")] = True,
    explain: Annotated[bool, typer.Option(help="Also print each leg's contribution to each score and the stage "
                                                   "timings.")] = False,
    fusion: Annotated[str | None, typer.Option(
        help=f"Hybrid fusion: {' | '.join(get_args(Fusion))} (routed: weights by query type).")] = None,
    alpha: Annotated[float | None, typer.Option(help="convex: weight of dense, in [0, 1].")] = None,
    weight_bm25: Annotated[float | None, typer.Option(help="weighted_rrf, dbsf: weight of bm25.")] = None,
    weight_dense: Annotated[float | None, typer.Option(help="weighted_rrf, dbsf: weight of dense.")] = None,
    weight_dense_lead: Annotated[float | None, typer.Option(
        help="weighted_rrf, dbsf: weight of the lead-passage dense list (documents ranked by their first chunk; "
             "--group-by document only; default 0: off).")] = None,
    weight_definitions: Annotated[float | None, typer.Option(
        help="weighted_rrf, dbsf: weight of the definitions list (documents that define a name the query writes; "
             "--group-by document only; default 0: off).")] = None,
    normalization: Annotated[str | None, typer.Option(help="convex: minmax | zscore.")] = None,
    rerank: Annotated[bool | None, typer.Option("--rerank/--no-rerank", help="Rescore the fused top N with the "
                                                "service's cross-encoder (default: as configured).")] = None,
    output: FormatOption = OutputFormat.TABLE,
    url: ApiUrlOption = DEFAULT_API_URL,
    api_key: ApiKeyOption = None,
) -> None:
    """Search through the API and print each hit with its rank in each leg."""
    options = SearchOptions(mode=cast(Mode, _choice("mode", mode, get_args(Mode))), top_k=top_k, index=index)
    fusion_kwargs = fusion_options(fusion=fusion, alpha=alpha, weight_bm25=weight_bm25, weight_dense=weight_dense,
                                   normalization=normalization, weight_dense_lead=weight_dense_lead,
                                   weight_definitions=weight_definitions)
    view = view_options(page=page, window=window, group_by=group_by, highlight=highlight, explain=explain,
                        rerank=rerank)
    with api_client(url, api_key) as client:
        response = client.search(text, options, **fusion_kwargs, **view)
    emit(response, output, Console(highlight=False))
