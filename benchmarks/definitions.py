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
weighed 0, 0.25, 0.5, 1 or 2 on every route or on one route (the others at their default weights), and prints
nDCG@10 macro-averaged over the datasets (each weighs the same), per category and per dataset. The row "platform
hybrid, as recorded" is what the service answered under the defaults of the recording; "offline, definitions at
the default weights" should be close to it when those are today's (the offline fusion reads 50 documents per list,
the service its candidate_k). Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexical_lists import (
    DEPTH,
    Ranker,
    arguments,
    cached_runs,
    command_line,
    publish,
    score,
    single,
    table_header,
    table_row,
    weighted_rrf,
)

from search_platform.config import ArmWeights, Settings, load_settings
from search_platform.domain.models import Leg, SearchMode
from search_platform.evaluation.datasets import EvalDataset
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


def dataset_sessions(datasets: Sequence[Path], corpus: Path | None,
                     settings: Settings) -> Iterator[tuple[EvalDataset, PlatformSession]]:
    """Each dataset with a search session over its evaluation index (the corpus ingested once, through Celery)."""
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        assert dataset.corpus is not None
        with platform_session(settings, dataset.corpus, query_cache=True) as session:
            yield dataset, session


def ranking(system: PlatformSystem, text: str) -> list[str]:
    """The documents the system found for text, best first, to DEPTH; a document at score 0 (in a list fused from
    one weighed leg, the other legs' documents) is left out, so each list holds only what its leg found."""
    return [hit.doc_id for hit in system.search(text, top_k=DEPTH) if hit.score > 0]


def rerecorded(dataset: EvalDataset, recorded: Sequence[Mapping[str, Any]], lists: Mapping[str, PlatformSystem],
               only: Callable[[str], bool] = lambda _: True) -> list[dict[str, Any]]:
    """The recorded rankings of dataset's queries with `lists` recorded anew, for the queries `only` accepts."""
    return [{**record, "lists": {**record["lists"], **{name: ranking(system, query.text)
                                                       for name, system in lists.items()}}}
            if only(query.text) else dict(record)
            for query, record in zip(dataset.queries, recorded, strict=True)]


def collect(datasets: Sequence[Path], corpus: Path | None, settings: Settings) -> dict[str, Any]:
    """Every query's rankings, with its category, route and judgments, per dataset."""
    out: dict[str, Any] = {}
    for dataset, session in dataset_sessions(datasets, corpus, settings):
        lists = systems(session)
        out[dataset.name] = [
            {"category": query.category, "route": classify_query(query.text).value,
             "relevance": dict(query.relevance),
             "lists": {name: ranking(system, query.text) for name, system in lists.items()}}
            for query in dataset.queries]
        print(f"{dataset.name}: {len(dataset.queries)} queries", flush=True)
    return out


def list_weights(arm: ArmWeights, definitions: float) -> dict[str, float]:
    """A route's weights as list weights (bm25 weighs both lexical lists), the definitions list at `definitions`."""
    return {"doc": arm.bm25, "passage": arm.bm25, "dense": arm.dense, "lead": arm.dense_lead,
            "definitions": definitions}


def settings_hybrid(settings: Settings, k: int | None = None) -> Ranker:
    """The routed weighted RRF of the settings over the five lists, each route's definitions list at its weight,
    with RRF constant k (the settings' by default)."""
    table = settings.retrieval.route_weights
    return routed(table, {route: arm.definitions for route, arm in table.items()},
                  settings.retrieval.rrf_k if k is None else k)


def routed(table: Mapping[Any, ArmWeights], definitions: Mapping[str, float], k: int) -> Ranker:
    return lambda lists, route: weighted_rrf(lists, list_weights(table[route], definitions[route]), k=k)


def configurations(settings: Settings) -> dict[str, Ranker]:
    table = settings.retrieval.route_weights
    k = settings.retrieval.rrf_k
    defaults: dict[str, float] = {route: arm.definitions for route, arm in table.items()}
    configs: dict[str, Ranker] = {"platform hybrid, as recorded": single("hybrid"),
                                  "offline, definitions at the default weights": routed(table, defaults, k)}
    configs.update({f"{name} alone": single(name) for name in LIST_NAMES})
    for weight in SWEPT_WEIGHTS:
        configs[f"offline, definitions at {weight:g} on every route"] = routed(table, dict.fromkeys(table, weight), k)
    for route in table:
        for weight in SWEPT_WEIGHTS:
            if weight != defaults[route]:
                configs[f"offline, definitions at {weight:g} on the {route} route, the others at default"] = routed(
                    table, {**defaults, route: weight}, k)
    return configs


def report(runs: Mapping[str, Any], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = ["# The definitions list: documents that define a name the query writes (nDCG@10)", "",
             f"Command: `{command}`  ", "Datasets (queries): "
             + ", ".join(f"{name} ({len(runs[name])})" for name in names) + f"  \nRRF k={settings.retrieval.rrf_k}; "
             "route weights (bm25 / dense / dense_lead) from the settings; each dataset: all / exact_match / mixed",
             "", *table_header(("configuration",), names, "all/exact/mixed")]
    for label, ranker in configurations(settings).items():
        lines.append(table_row(label, score(runs, ranker), details=("exact_match", "mixed"), digits=4))
    return "\n".join(lines) + "\n"


def variants_table(runs: Mapping[str, Any], settings: Settings, first_column: str) -> list[str]:
    """The table of a benchmark that re-records the lexical lists under variants of a setting (`runs`: variant
    label -> dataset -> rankings): per variant, the settings' hybrid, document BM25 alone and passage BM25 alone."""
    hybrid = settings_hybrid(settings)
    names = list(next(iter(runs.values())))
    lines = table_header((first_column, "list"), names, "all/exact")
    for label, by_dataset in runs.items():
        for list_label, ranker in (("hybrid", hybrid), ("doc alone", single("doc")),
                                   ("passage alone", single("passage"))):
            row = table_row(list_label, score(by_dataset, ranker), details=("exact_match",), digits=4)
            lines.append(f"| {label} {row}")
    return lines


Rerecord = Callable[[Sequence[Path], Path | None, Settings, Mapping[str, Any]], dict[str, Any]]
Report = Callable[[Mapping[str, Any], Settings, str], str]


def recorded_runs(description: str) -> tuple[argparse.Namespace, Settings, dict[str, Any]]:
    """The command line of a benchmark on the rankings this script recorded (`--runs`, which must exist), the
    settings and the rankings."""
    args = arguments(description)
    if args.runs is None or not args.runs.exists():
        raise SystemExit("--runs: the rankings file of benchmarks/definitions.py for the same datasets")
    return args, load_settings(), cached_runs(args.runs, dict)


def query_texts(datasets: Sequence[Path], corpus: Path | None) -> dict[str, list[str]]:
    """Every dataset's query texts, in the order the rankings hold them."""
    texts: dict[str, list[str]] = {}
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        texts[dataset.name] = [query.text for query in dataset.queries]
    return texts


def rerecorded_main(script: str, description: str, rerecord: Rerecord, report: Report) -> None:
    """The command line of a benchmark that re-records some of the lists of this script's rankings (`--runs`)
    under other settings: the re-recorded rankings are kept beside them (`<runs>-<script>.json`) and reused."""
    args, settings, recorded = recorded_runs(description)
    out = args.runs.with_name(f"{args.runs.stem}-{Path(script).stem.replace('_', '-')}.json")
    runs = cached_runs(out, lambda: rerecord(args.dataset, args.corpus, settings, recorded))
    publish(report(runs, settings, command_line(script, args)), args.out)


def recorded_main(script: str, description: str, report: Report) -> None:
    """The command line of a benchmark on this script's rankings (`--runs`: read if it exists, else recorded)."""
    args = arguments(description)
    settings = load_settings()
    runs = cached_runs(args.runs, lambda: collect(args.dataset, args.corpus, settings))
    publish(report(runs, settings, command_line(script, args)), args.out)


if __name__ == "__main__":
    recorded_main("definitions.py", __doc__.split("\n\n")[0], report)
