"""Which lexical evidence should hybrid fuse when results are documents: whole-document BM25, passage (chunk)
BM25, or both as separate ranked lists? And with which RRF weights per query route?

    .venv/bin/python benchmarks/lexical_lists.py \
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \
        --out benchmarks/reports/lexical-lists.md

Needs the platform up with a worker (`search-platform up --app`): each corpus is ingested once, through Celery,
into the same evaluation index `search-platform eval` uses. For every query it records three document rankings
(depth 50) through the platform's own search service: BM25 over document records, BM25 over chunks, dense; then
fuses them offline with (weighted) RRF, fixed or by the query's route (retrieval/routing.py), and prints nDCG@10
macro-averaged over the datasets (each weighs the same), per category and per dataset. `--runs FILE` keeps the
rankings as JSON (they are reused when the file exists). Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from search_platform.config import load_settings
from search_platform.domain.models import SearchMode
from search_platform.evaluation.metrics import ndcg_at_k
from search_platform.evaluation.platform import PlatformSystem
from search_platform.evaluation.session import load_eval_dataset, platform_session
from search_platform.retrieval.routing import classify_query

DEPTH = 50  # documents per list
CATEGORIES = ("exact_match", "conceptual", "mixed")
Lists = Mapping[str, Sequence[str]]  # list name (doc, passage, dense) -> doc ids, best first
Weights = tuple[float, float, float]  # doc, passage, dense


def collect(datasets: Sequence[Path], corpus: Path | None) -> dict[str, Any]:
    """Every query's three document rankings, with its category, route and judgments, per dataset."""
    settings = load_settings()
    out: dict[str, Any] = {}
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        assert dataset.corpus is not None
        with platform_session(settings, dataset.corpus, query_cache=True) as session:
            document_level = session.service_with({"lexical_unit": "document"})
            systems = {
                "doc": PlatformSystem(SearchMode.BM25, document_level, session.index, session.loop, documents=DEPTH),
                "passage": PlatformSystem(SearchMode.BM25, session.service_with({"lexical_unit": "chunk"}),
                                          session.index, session.loop, documents=DEPTH),
                "dense": PlatformSystem(SearchMode.SEMANTIC, document_level, session.index, session.loop,
                                        documents=DEPTH),
            }
            out[dataset.name] = [
                {"category": query.category, "route": classify_query(query.text).value,
                 "relevance": dict(query.relevance),
                 "lists": {name: [hit.doc_id for hit in system.search(query.text, top_k=DEPTH)]
                           for name, system in systems.items()}}
                for query in dataset.queries]
        print(f"{dataset.name}: {len(dataset.queries)} queries", flush=True)
    return out


def ndcg_at_10(ranked: Sequence[str], relevance: Mapping[str, int]) -> float:
    """nDCG@10 exactly as the evaluation harness computes it (gain = grade). Reports written before 2026-12-05
    used gains 2^grade - 1, which weigh grade-2 judgments more; their rankings compare the same way."""
    return ndcg_at_k(ranked, relevance, k=10)


def weighted_rrf(lists: Lists, weights: Mapping[str, float], *, k: int) -> list[str]:
    """Weighted RRF of the named lists (a weight of 0 leaves a list out)."""
    scores: dict[str, float] = defaultdict(float)
    for name, weight in weights.items():
        if weight > 0:
            for rank, doc in enumerate(lists[name], start=1):
                scores[doc] += weight / (k + rank)
    return sorted(scores, key=lambda doc: -scores[doc])


def rrf(lists: Lists, weights: Weights, *, k: int) -> list[str]:
    """Weighted RRF of the doc, passage and dense lists."""
    return weighted_rrf(lists, dict(zip(("doc", "passage", "dense"), weights, strict=True)), k=k)


Ranker = Callable[[Lists, str], list[str]]  # (lists, route) -> ranking


def fixed(weights: Weights, k: int) -> Ranker:
    return lambda lists, _route: rrf(lists, weights, k=k)


def routed(table: Mapping[str, Weights], k: int) -> Ranker:
    return lambda lists, route: rrf(lists, table[route], k=k)


def single(name: str) -> Ranker:
    return lambda lists, _route: list(lists[name])


def per_query(queries: Sequence[Mapping[str, Any]], ranker: Ranker) -> list[float]:
    """nDCG@10 of each query, in order, under the ranker."""
    return [ndcg_at_10(ranker(query["lists"], query["route"]), query["relevance"]) for query in queries]


def category_means(scored: Iterable[tuple[str, float]]) -> dict[str, float]:
    """The mean of (category, nDCG@10) pairs overall ("all") and per category (what table_row reads)."""
    values: dict[str, list[float]] = defaultdict(list)
    for category, value in scored:
        values["all"].append(value)
        values[category].append(value)
    return {category: sum(v) / len(v) for category, v in values.items()}


def score(runs: Mapping[str, Any], ranker: Ranker) -> dict[str, dict[str, float]]:
    """nDCG@10 per dataset: overall and per category."""
    return {name: category_means(zip((query["category"] for query in queries), per_query(queries, ranker),
                                     strict=True))
            for name, queries in runs.items()}


def configurations() -> dict[str, Ranker]:
    three_routes = {
        "lexical 1,1,.25 semantic .5,.5,1 mixed 1,1,1": {"lexical": (1, 1, .25), "semantic": (.5, .5, 1),
                                                        "mixed": (1, 1, 1)},
        "lexical 1,1,.25 semantic .3,.3,1 mixed 1,1,1": {"lexical": (1, 1, .25), "semantic": (.3, .3, 1),
                                                        "mixed": (1, 1, 1)},
        "lexical 1,1,.5 semantic .5,.5,1 mixed 1,1,1": {"lexical": (1, 1, .5), "semantic": (.5, .5, 1),
                                                       "mixed": (1, 1, 1)},
        "lexical .5,1,.25 semantic .5,.5,1 mixed 1,1,1": {"lexical": (.5, 1, .25), "semantic": (.5, .5, 1),
                                                         "mixed": (1, 1, 1)},
    }
    configs: dict[str, Ranker] = {"doc BM25 alone": single("doc"), "passage BM25 alone": single("passage"),
                                  "dense alone": single("dense")}
    for k in (10, 20, 60):
        configs[f"rrf k={k} doc+dense"] = fixed((1, 0, 1), k)
        configs[f"rrf k={k} passage+dense"] = fixed((0, 1, 1), k)
        configs[f"rrf k={k} doc+passage+dense"] = fixed((1, 1, 1), k)
        configs[f"rrf k={k} doc.5+passage.5+dense1"] = fixed((.5, .5, 1), k)
        configs[f"routed k={k} doc+dense lexical 1/.5 semantic .5/1 mixed 1/1"] = routed(
            {"lexical": (1, 0, .5), "semantic": (.5, 0, 1), "mixed": (1, 0, 1)}, k)
        for label, table in three_routes.items():
            configs[f"routed k={k} 3 lists {label}"] = routed(table, k)
    return configs


def report(runs: Mapping[str, Any], command: str) -> str:
    names = list(runs)
    lines = ["# Lexical lists for document results: document BM25, passage BM25, or both (nDCG@10)", "",
             f"Command: `{command}`  ", "Datasets (queries): "
             + ", ".join(f"{name} ({len(runs[name])})" for name in names), "",
             *table_header(("configuration",), names, "all/exact")]
    lines += [table_row(label, score(runs, ranker), details=("exact_match",))
              for label, ranker in configurations().items()]
    return "\n".join(lines) + "\n"


def table_header(labels: Sequence[str], names: Sequence[str], columns: str) -> list[str]:
    """The header and separator lines of a table of table_row rows: the label columns, the macro and each category's
    macro, then one column per dataset named `<dataset> <columns>` (just the dataset when columns is empty)."""
    cells = [*labels, "macro", *(f"macro {c}" for c in CATEGORIES),
             *(f"{name} {columns}" if columns else name for name in names)]
    return ["| " + " | ".join(cells) + " |", "|" + "---|" * len(cells)]


def table_row(label: str, scores: Mapping[str, Mapping[str, float]], *, details: Sequence[str],
              digits: int = 3) -> str:
    """One report row: macro nDCG@10, the macro of each category, then each dataset's overall / each of
    `details` (categories)."""
    macro = sum(s["all"] for s in scores.values()) / len(scores)
    cats = [sum(s[c] for s in scores.values() if c in s) / sum(1 for s in scores.values() if c in s)
            for c in CATEGORIES]
    return (f"| {label} | {macro:.{digits}f} | " + " | ".join(f"{c:.3f}" for c in cats) + " | "
            + " | ".join("/".join(f"{s.get(column, math.nan):.3f}" for column in ("all", *details))
                         for s in scores.values()) + " |")


def arguments(description: str) -> argparse.Namespace:
    """The dev sets, a golden set's corpus, the rankings file and the report file (the benchmarks built on these
    rankings share them)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dataset", type=Path, action="append", required=True)
    parser.add_argument("--corpus", type=Path, help="corpus directory of a golden-set file")
    parser.add_argument("--runs", type=Path, help="JSON of the rankings: read if it exists, else written")
    parser.add_argument("--out", type=Path, help="Markdown report (printed too)")
    return parser.parse_args()


def cached_runs(path: Path | None, collect_runs: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The rankings of `path` when it exists, else collected (and written to `path` when given)."""
    if path is not None and path.exists():
        loaded: dict[str, Any] = json.loads(path.read_text())
        return loaded
    runs = collect_runs()
    if path is not None:
        path.write_text(json.dumps(runs))
    return runs


def command_line(script: str, args: argparse.Namespace) -> str:
    """The command that reproduces a report, as the report prints it."""
    datasets = " ".join(f"--dataset {path}" for path in args.dataset)
    corpus = f" --corpus {args.corpus}" if args.corpus else ""
    return (f"python benchmarks/{script} {datasets}{corpus}" + (f" --runs {args.runs}" if args.runs else "")
            + (f" --out {args.out}" if args.out else ""))


def publish(text: str, out: Path | None) -> None:
    print(text)
    if out is not None:
        out.write_text(text)


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0])
    runs = cached_runs(args.runs, lambda: collect(args.dataset, args.corpus))
    publish(report(runs, command_line("lexical_lists.py", args)), args.out)


if __name__ == "__main__":
    main()
