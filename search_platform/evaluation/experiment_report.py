"""Experiment report: read search and click events from the log alias, compare arms with confidence intervals."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from elasticsearch import Elasticsearch
from elasticsearch.helpers import scan

from search_platform.analytics.search_log import CLICK_EVENT, SEARCH_EVENT
from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.evaluation.bootstrap import CONFIDENCE, DEFAULT_SEED, bootstrap_mean_ci

NOT_IN_EXPERIMENT = "(none)"
BOOTSTRAP_MAX_N = 20_000
Z_95 = 1.959963984540054  # two-sided normal quantile of CONFIDENCE
_SINCE = re.compile(r"^[1-9]\d*[smhdw]$")
_SEARCH_FIELDS = ["request_id", "experiment", "arm", "latency_ms", "zero_result"]
_CLICK_FIELDS = ["request_id", "position"]


@dataclass(frozen=True, slots=True)
class SearchRecord:
    """What the report needs of one search event."""

    request_id: str
    experiment: str
    arm: str
    latency_ms: float
    zero_result: bool


@dataclass(frozen=True, slots=True)
class ClickRecord:
    """What the report needs of one click event."""

    request_id: str
    position: int


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with its CONFIDENCE interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class ArmReport:
    """One arm's figures: CTR (searches with a click), MRR of the best click (0 without one), latency, zero results."""

    experiment: str
    arm: str
    searches: int
    clicked_searches: int
    clicks: int
    ctr: Estimate
    mrr: Estimate
    latency_p50_ms: Estimate
    latency_p95_ms: Estimate
    zero_result_rate: Estimate


def wilson_interval(successes: int, n: int, *, z: float = Z_95) -> Estimate:
    """A proportion with its Wilson score interval (sound near 0 and 1, unlike the normal approximation)."""
    if n <= 0:
        raise ValueError("a proportion needs at least one trial")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Estimate(value=p, low=max(0.0, centre - half), high=min(1.0, centre + half))


def quantile_interval(values: Sequence[float], q: float, *, z: float = Z_95) -> Estimate:
    """The q-quantile (linear interpolation) with a distribution-free order-statistic interval: the sorted values
    at ranks n*q -/+ z*sqrt(n*q*(1-q)), clipped to the sample."""
    if not values:
        raise ValueError("a quantile needs at least one value")
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    n = len(ordered)
    spread = z * math.sqrt(n * q * (1 - q))
    low_rank = max(1, math.floor(n * q - spread))
    high_rank = min(n, math.ceil(n * q + spread))
    return Estimate(value=float(np.quantile(ordered, q)), low=float(ordered[low_rank - 1]),
                    high=float(ordered[high_rank - 1]))


def mean_interval(values: Sequence[float], *, seed: int = DEFAULT_SEED) -> Estimate:
    """A mean with its percentile-bootstrap interval; past BOOTSTRAP_MAX_N values, the normal (CLT) interval,
    which agrees there and costs no resampling memory."""
    if len(values) <= BOOTSTRAP_MAX_N:
        found = bootstrap_mean_ci(values, seed=seed)
        return Estimate(value=found.mean, low=found.ci_low, high=found.ci_high)
    array = np.asarray(values, dtype=np.float64)
    mean, half = float(array.mean()), Z_95 * float(array.std(ddof=1)) / math.sqrt(len(array))
    return Estimate(value=mean, low=mean - half, high=mean + half)


def reciprocal_ranks(searches: Sequence[SearchRecord], best_click: Mapping[str, int]) -> list[float]:
    """Per search: 1 / position of its best (highest) click, 0 when it had none."""
    return [1.0 / best_click[s.request_id] if s.request_id in best_click else 0.0 for s in searches]


def arm_report(experiment: str, arm: str, searches: Sequence[SearchRecord], clicks: Sequence[ClickRecord],
               *, seed: int = DEFAULT_SEED) -> ArmReport:
    """The figures of one arm from its searches and the clicks on them."""
    ids = {search.request_id for search in searches}
    best_click: dict[str, int] = {}
    joined = 0
    for click in clicks:
        if click.request_id in ids:
            joined += 1
            best_click[click.request_id] = min(click.position, best_click.get(click.request_id, click.position))
    n = len(searches)
    latencies = [search.latency_ms for search in searches]
    return ArmReport(
        experiment=experiment,
        arm=arm,
        searches=n,
        clicked_searches=len(best_click),
        clicks=joined,
        ctr=wilson_interval(len(best_click), n),
        mrr=mean_interval(reciprocal_ranks(searches, best_click), seed=seed),
        latency_p50_ms=quantile_interval(latencies, 0.5),
        latency_p95_ms=quantile_interval(latencies, 0.95),
        zero_result_rate=wilson_interval(sum(search.zero_result for search in searches), n),
    )


def compare_arms(searches: Iterable[SearchRecord], clicks: Sequence[ClickRecord]) -> list[ArmReport]:
    """One report per (experiment, arm), sorted by name; clicks join their search by request_id."""
    groups: dict[tuple[str, str], list[SearchRecord]] = defaultdict(list)
    for search in searches:
        groups[(search.experiment, search.arm)].append(search)
    by_request: dict[str, list[ClickRecord]] = defaultdict(list)
    for click in clicks:
        by_request[click.request_id].append(click)
    reports = []
    for (experiment, arm), members in sorted(groups.items()):
        arm_clicks = [click for search in members for click in by_request.get(search.request_id, ())]
        reports.append(arm_report(experiment, arm, members, arm_clicks))
    return reports


def since_expression(since: str) -> str:
    """ES date math for 'the last <since>' (e.g. 24h, 7d, 30m); ValueError for anything else."""
    if not _SINCE.fullmatch(since):
        raise ValueError(f"since must look like 30m, 24h or 7d, got {since!r}")
    return f"now-{since}"


def events_query(event: str, *, since: str, experiment: str | None = None) -> dict[str, Any]:
    """The query selecting one kind of event in the time window (and, for searches, one experiment)."""
    filters: list[dict[str, Any]] = [
        {"term": {"event": event}},
        {"range": {"@timestamp": {"gte": since_expression(since)}}},
    ]
    if experiment is not None:
        filters.append({"term": {"experiment": experiment}})
    return {"query": {"bool": {"filter": filters}}}


def _search_record(source: Mapping[str, Any]) -> SearchRecord:
    return SearchRecord(
        request_id=str(source["request_id"]),
        experiment=str(source.get("experiment") or NOT_IN_EXPERIMENT),
        arm=str(source.get("arm") or NOT_IN_EXPERIMENT),
        latency_ms=float(source.get("latency_ms") or 0.0),
        zero_result=bool(source.get("zero_result")),
    )


def fetch_events(es: Elasticsearch, *, alias: str, since: str,
                 experiment: str | None = None) -> tuple[list[SearchRecord], list[ClickRecord]]:
    """Every search (of the experiment, if named) and every click in the window, scanned from the log alias."""
    with translated_errors():
        searches = [_search_record(hit["_source"]) for hit in scan(
            es, index=alias, query=events_query(SEARCH_EVENT, since=since, experiment=experiment),
            _source=_SEARCH_FIELDS, size=5000)]
        clicks = [ClickRecord(request_id=str(hit["_source"]["request_id"]), position=int(hit["_source"]["position"]))
                  for hit in scan(es, index=alias, query=events_query(CLICK_EVENT, since=since),
                                  _source=_CLICK_FIELDS, size=5000)]
    return searches, clicks


def build_report(es: Elasticsearch, *, alias: str, since: str, experiment: str | None = None) -> list[ArmReport]:
    """Fetch the window's events and compare arms."""
    searches, clicks = fetch_events(es, alias=alias, since=since, experiment=experiment)
    return compare_arms(searches, clicks)


def report_as_dict(reports: Sequence[ArmReport], *, since: str) -> dict[str, Any]:
    """The report as JSON-ready data."""
    return {"since": since, "confidence": CONFIDENCE, "arms": [asdict(report) for report in reports]}
