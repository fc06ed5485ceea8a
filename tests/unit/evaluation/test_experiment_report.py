import math

import pytest

from search_platform.evaluation.experiment_report import (
    BOOTSTRAP_MAX_N,
    NOT_IN_EXPERIMENT,
    Z_95,
    ClickRecord,
    SearchRecord,
    _search_record,
    compare_arms,
    events_query,
    mean_interval,
    quantile_interval,
    report_as_dict,
    since_expression,
    wilson_interval,
)


def _search(request_id: str, arm: str, latency_ms: float, zero_result: bool = False) -> SearchRecord:
    return SearchRecord(request_id=request_id, experiment="exp", arm=arm, latency_ms=latency_ms,
                        zero_result=zero_result)


SEARCHES = [
    _search("a1", "control", 10.0), _search("a2", "control", 20.0), _search("a3", "control", 30.0),
    _search("a4", "control", 40.0, zero_result=True),
    _search("b1", "dbsf", 5.0), _search("b2", "dbsf", 15.0),
]
CLICKS = [
    ClickRecord("a1", 3), ClickRecord("a1", 1), ClickRecord("a2", 2),
    ClickRecord("b2", 4),
    ClickRecord("unknown", 1),  # a click on a search outside the window is ignored
]


def test_arms_figures_are_computed_from_the_events():
    control, dbsf = compare_arms(SEARCHES, CLICKS)
    assert (control.experiment, control.arm, control.searches, control.clicks) == ("exp", "control", 4, 3)
    assert control.clicked_searches == 2
    assert control.ctr.value == pytest.approx(2 / 4)
    assert control.mrr.value == pytest.approx((1 / 1 + 1 / 2 + 0 + 0) / 4)
    assert control.latency_p50_ms.value == pytest.approx((20.0 + 30.0) / 2)
    assert control.latency_p95_ms.value == pytest.approx(30.0 + (3 * 0.95 - 2) * (40.0 - 30.0))
    assert control.zero_result_rate.value == pytest.approx(1 / 4)
    assert (dbsf.arm, dbsf.searches, dbsf.clicks, dbsf.clicked_searches) == ("dbsf", 2, 1, 1)
    assert dbsf.ctr.value == pytest.approx(1 / 2)
    assert dbsf.mrr.value == pytest.approx((0 + 1 / 4) / 2)
    assert dbsf.zero_result_rate.value == 0.0
    for estimate in (control.ctr, control.mrr, control.latency_p95_ms, dbsf.mrr, dbsf.zero_result_rate):
        assert estimate.low <= estimate.value <= estimate.high


def test_wilson_interval_matches_reference_values():
    half = wilson_interval(5, 10)
    assert (half.low, half.high) == (pytest.approx(0.2365931, abs=1e-6), pytest.approx(0.7634069, abs=1e-6))
    none = wilson_interval(0, 10)
    assert (none.value, none.low) == (0.0, 0.0)
    assert none.high == pytest.approx(Z_95**2 / 10 / (1 + Z_95**2 / 10))
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_quantile_interval_uses_order_statistics():
    values = [float(v) for v in range(100, 0, -1)]
    median = quantile_interval(values, 0.5)
    spread = Z_95 * math.sqrt(100 * 0.5 * 0.5)
    assert median.value == pytest.approx(50.5)
    assert (median.low, median.high) == (math.floor(50 - spread), math.ceil(50 + spread))
    single = quantile_interval([7.0], 0.95)
    assert (single.value, single.low, single.high) == (7.0, 7.0, 7.0)


def test_mean_interval_switches_to_the_normal_interval_for_large_samples():
    small = mean_interval([0.0, 1.0, 0.5, 0.25])
    assert small.value == pytest.approx(0.4375) and small.low <= small.value <= small.high
    values = [float(i % 2) for i in range(BOOTSTRAP_MAX_N + 1)]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    large = mean_interval(values)
    assert large.value == pytest.approx(mean)
    assert large.high - large.value == pytest.approx(Z_95 * sd / math.sqrt(len(values)))


def test_searches_outside_experiments_form_their_own_group():
    record = _search_record({"request_id": "r", "latency_ms": 3, "zero_result": True})
    assert (record.experiment, record.arm, record.latency_ms, record.zero_result) == (
        NOT_IN_EXPERIMENT, NOT_IN_EXPERIMENT, 3.0, True)


def test_query_selects_event_window_and_experiment():
    assert events_query("search", since="24h", experiment="exp") == {"query": {"bool": {"filter": [
        {"term": {"event": "search"}},
        {"range": {"@timestamp": {"gte": "now-24h"}}},
        {"term": {"experiment": "exp"}},
    ]}}}
    assert len(events_query("click", since="7d")["query"]["bool"]["filter"]) == 2


@pytest.mark.parametrize("bad", ["", "24", "h", "0h", "-1d", "1y", "now-1d"])
def test_since_is_checked(bad):
    with pytest.raises(ValueError, match="since"):
        since_expression(bad)


def test_report_as_dict_is_json_ready():
    data = report_as_dict(compare_arms(SEARCHES, CLICKS), since="1h")
    assert data["since"] == "1h" and data["confidence"] == 0.95
    assert data["arms"][0]["ctr"]["value"] == pytest.approx(0.5)
