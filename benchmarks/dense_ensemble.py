"""Does a second encoder's dense list, fused beside the default encoder's, lift what one encoder cannot? Conceptual
queries are where hybrid is weakest and where the fusion ceiling says the lists hold no better order; two encoders
trained differently (all-mpnet-base-v2, the default, and all-MiniLM-L6-v2) err on different queries.

    .venv/bin/python benchmarks/dense_ensemble.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/dense-ensemble.md

The five lists of each query are the recorded ones of benchmarks/definitions.py (`--runs`). The second encoder's
list ranks documents by their best chunk's exact cosine (numpy) over the chunks that encoder's own tokenizer cuts
(200 tokens, as ingestion would cut them with that model); its vectors come from the passage-vector cache when the
corpus was evaluated with that model before. The lists are fused by the settings' routed weighted RRF with the
second list at each weight of WEIGHTS on the routes named. Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from definitions import collect, list_weights, settings_hybrid
from dense_aggregation import cached_embedder
from lexical_lists import (
    Lists,
    Ranker,
    arguments,
    cached_runs,
    command_line,
    publish,
    score,
    table_header,
    table_row,
    weighted_rrf,
)
from second_pass import dense_index

from search_platform.config import ArmWeights, EmbeddingModelName, Settings, load_settings

SECOND_MODEL: EmbeddingModelName = "all-minilm-l6-v2"
WEIGHTS = (0.25, 0.5, 1.0)
ROUTES: dict[str, tuple[str, ...]] = {"semantic": ("semantic",), "semantic and mixed": ("semantic", "mixed"),
                                      "every route": ("lexical", "semantic", "mixed")}
SECOND = "second_dense"  # the second encoder's list, beside the five recorded ones


def with_model(settings: Settings, model: EmbeddingModelName) -> Settings:
    return settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"model": model})})


def second_lists(names: Sequence[str], datasets: Sequence[Path], corpus: Path | None,
                 settings: Settings) -> dict[str, list[list[str]]]:
    """Per dataset (named as in the rankings), each query's documents by the second encoder's best chunk."""
    other = with_model(settings, SECOND_MODEL)
    embedder = cached_embedder(other)
    out: dict[str, list[list[str]]] = {}
    for name, path in zip(names, datasets, strict=True):
        index = dense_index(path, corpus, embedder, other)
        out[name] = [index.best_chunk(query) for query in index.queries]
    return out


def ensemble(settings: Settings, weight: float, routes: Sequence[str]) -> Ranker:
    """The settings' routed weighted RRF with the second list at `weight` on `routes`."""
    table: Mapping[Any, ArmWeights] = settings.retrieval.route_weights
    k = settings.retrieval.rrf_k

    def ranking(lists: Lists, route: str) -> list[str]:
        weights = {**list_weights(table[route], table[route].definitions),
                   SECOND: weight if route in routes else 0.0}
        return weighted_rrf(lists, weights, k=k)
    return ranking


def with_second(runs: Mapping[str, Any], second: Mapping[str, list[list[str]]]) -> dict[str, Any]:
    return {name: [{**query, "lists": {**query["lists"], SECOND: ranked}}
                   for query, ranked in zip(queries, second[name], strict=True)]
            for name, queries in runs.items()}


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = [f"# A second encoder's dense list beside the default one ({settings.embedding.model} + "
             f"{SECOND_MODEL}, nDCG@10)", "", f"Command: `{command}`  ",
             f"Fusion: the settings' routed weighted RRF, k={settings.retrieval.rrf_k}, over the five recorded lists "
             f"and {SECOND_MODEL}'s best-chunk list.  ",
             "Datasets (queries): " + ", ".join(f"{name} ({len(runs[name])})" for name in names), "",
             *table_header(("fusion",), names, "all/exact/concept")]
    configs: dict[str, Ranker] = {"default (five recorded lists)": settings_hybrid(settings),
                                  f"{SECOND_MODEL} list alone": lambda lists, _route: list(lists[SECOND])}
    for label, routes in ROUTES.items():
        for weight in WEIGHTS:
            configs[f"+ {SECOND_MODEL} at {weight:g} on {label}"] = ensemble(settings, weight, routes)
    lines += [table_row(label, score(runs, ranker), details=("exact_match", "conceptual"), digits=4)
              for label, ranker in configs.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0])
    settings = load_settings()
    runs = cached_runs(args.runs, lambda: collect(args.dataset, args.corpus, settings))
    combined = with_second(runs, second_lists(list(runs), args.dataset, args.corpus, settings))
    publish(report(combined, settings, command_line("dense_ensemble.py", args)), args.out)


if __name__ == "__main__":
    main()
