"""Does a list of the documents that define a name the query writes (an option, a parameter, a function: the
definitions leg, text/definitions.py) help hybrid document results, and at which weight on which routes?

    .venv/bin/python benchmarks/definitions.py \
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \
        --runs var/definitions-runs.json --out benchmarks/reports/definitions.md

Needs the platform up with a worker (`search-platform up --app`): each corpus is ingested once, through Celery,
into the evaluation index `search-platform eval` uses. For every query it records, through the platform's own
search service, five document rankings (depth 50): BM25 over document records, BM25 over chunks, dense (best
chunk), dense lead passage, and the definitions leg alone, plus the default hybrid ranking itself. It then fuses
the five lists offline with the routed weighted RRF of the settings (k = retrieval.rrf_k), the definitions list
weighed 0, 0.25, 0.5, 1 or 2 on every route or on one route only, and prints nDCG@10 macro-averaged over the
datasets (each weighs the same), per category and per dataset. The row "platform default hybrid" is what the
service answered; "offline, definitions at the default weight" should be close to it (the offline fusion reads
50 documents per list, the service its candidate_k). Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexical_lists import (
    CATEGORIES,
    DEPTH,
    Ranker,
    arguments,
    cached_runs,
    command_line,
    publish,
    score,
    single,
    table_row,
    weighted_rrf,
)

from search_platform.config import DEFINITIONS_WEIGHT, ArmWeights, Settings, load_settings
from search_platform.domain.models import Leg, SearchMode
from search_platform.evaluation.platform import PlatformSystem
from search_platform.evaluation.session import PlatformSession, load_eval_dataset, platform_session
from search_platform.retrieval.routing import classify_query

LIST_NAMES = ("doc", "passage", "dense", "lead", "definitions")
ONLY_DEFINITIONS = {Leg.BM25: 0.0, Leg.BM25_PASSAGE: 0.0, Leg.DENSE: 0.0, Leg.DENSE_LEAD: 0.0, Leg.DEFINITIONS: 1.0}
ONLY_LEAD = {Leg.BM25: 0.0, Leg.BM25_PASSAGE: 0.0, Leg.DENSE: 0.0, Leg.DENSE_LEAD: 1.0}
SWEPT_WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0)


def systems(session: PlatformSession, retrieval: Mapping[str, Any] | None = None) -> dict[str, PlatformSystem]:
    """The five document lists and the default hybrid, each through the platform's search service; `retrieval`
    overrides query-time settings of the five lists."""

    def system(mode: SearchMode, lexical_unit: str = "document", **params: Any) -> PlatformSystem:
        return PlatformSystem(mode, session.service_with({**(retrieval or {}), "lexical_unit": lexical_unit}),
                              session.index, session.loop, documents=DEPTH, params=params)

    return {
        "doc": system(SearchMode.BM25),
        "passage": system(SearchMode.BM25, "chunk"),
        "dense": system(SearchMode.SEMANTIC),
        "lead": system(SearchMode.HYBRID, fusion="weighted_rrf", weights=ONLY_LEAD),
        "definitions": system(SearchMode.HYBRID, fusion="weighted_rrf", weights=ONLY_DEFINITIONS),
        "hybrid": PlatformSystem(SearchMode.HYBRID, session.service, session.index, session.loop),
    }


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings) -> dict[str, Any]:
    """Every query's rankings, with its category, route and judgments, per dataset. A list fused from one weighed
    leg also holds the other legs' documents at score 0 (a query that writes no name has only those): they are
    left out, so the lead and definitions lists hold only what their leg found."""
    out: dict[str, Any] = {}
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        assert dataset.corpus is not None
        with platform_session(settings, dataset.corpus, query_cache=True) as session:
            lists = systems(session)
            out[dataset.name] = [
                {"category": query.category, "route": classify_query(query.text).value,
                 "relevance": dict(query.relevance),
                 "lists": {name: [hit.doc_id for hit in system.search(query.text, top_k=DEPTH) if hit.score > 0]
                           for name, system in lists.items()}}
                for query in dataset.queries]
        print(f"{dataset.name}: {len(dataset.queries)} queries", flush=True)
    return out


def list_weights(arm: ArmWeights, definitions: float) -> dict[str, float]:
    """A route's weights as list weights (bm25 weighs both lexical lists), the definitions list at `definitions`."""
    return {"doc": arm.bm25, "passage": arm.bm25, "dense": arm.dense, "lead": arm.dense_lead,
            "definitions": definitions}


def routed(table: Mapping[Any, ArmWeights], definitions: Mapping[str, float], k: int) -> Ranker:
    return lambda lists, route: weighted_rrf(lists, list_weights(table[route], definitions[route]), k=k)


def configurations(settings: Settings) -> dict[str, Ranker]:
    table = settings.retrieval.route_weights
    k = settings.retrieval.rrf_k
    routes = list(table)
    configs: dict[str, Ranker] = {"platform default hybrid": single("hybrid")}
    configs.update({f"{name} alone": single(name) for name in LIST_NAMES})
    for weight in SWEPT_WEIGHTS:
        label = "default weight" if weight == DEFINITIONS_WEIGHT else f"{weight:g}"
        configs[f"offline, definitions at {label} on every route"] = routed(
            table, dict.fromkeys(routes, weight), k)
    for route in routes:
        for weight in (0.25, 0.5, 1.0):
            configs[f"offline, definitions at {weight:g} on the {route} route only"] = routed(
                table, {name: weight if name == route else 0.0 for name in routes}, k)
    return configs


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = ["# The definitions list: documents that define a name the query writes (nDCG@10)", "",
             f"Command: `{command}`  ", "Datasets (queries): "
             + ", ".join(f"{name} ({len(runs[name])})" for name in names) + f"  \nRRF k={settings.retrieval.rrf_k}; "
             "route weights (bm25 / dense / dense_lead) from the settings; each dataset: all / exact_match / mixed",
             "", "| configuration | macro | " + " | ".join(f"macro {c}" for c in CATEGORIES) + " | "
             + " | ".join(f"{n} all/exact/mixed" for n in names) + " |",
             "|---|---|" + "---|" * (len(CATEGORIES) + len(names))]
    for label, ranker in configurations(settings).items():
        lines.append(table_row(label, score(runs, ranker), details=("exact_match", "mixed"), digits=4))
    return "\n".join(lines) + "\n"


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0])
    settings = load_settings()
    runs = cached_runs(args.runs, lambda: collect(args.dataset, args.corpus, settings))
    publish(report(runs, settings, command_line("definitions.py", args)), args.out)


if __name__ == "__main__":
    main()
