"""Server-Timing header values from stage timings, against literal strings."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from search_platform.domain.models import Leg
from search_platform.domain.timings import Stage, StageTiming
from search_platform.service.server_timing import (
    DESCRIPTIONS,
    parse_server_timing,
    request_timings,
    server_timing,
    timing_entry,
)


def test_an_entry_is_name_and_duration_in_milliseconds() -> None:
    assert timing_entry(StageTiming("bm25", 4.0)) == "bm25;dur=4.00"
    assert timing_entry(StageTiming("dense", 12.3456)) == "dense;dur=12.35"


def test_a_description_is_a_quoted_string_with_quotes_and_backslashes_escaped() -> None:
    assert timing_entry(StageTiming("page", 1.5), desc="fields") == 'page;dur=1.50;desc="fields"'
    assert timing_entry(StageTiming("x", 0.0), desc='a "b" \\c') == 'x;dur=0.00;desc="a \\"b\\" \\\\c"'


@pytest.mark.parametrize("name", ["", "two words", "a,b", "a;b", 'q"', "é"])
def test_a_name_that_is_not_an_http_token_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="not an HTTP token"):
        timing_entry(StageTiming(name, 1.0))


def test_every_stage_and_leg_name_is_an_http_token() -> None:
    for name in [*Stage, *Leg]:
        assert timing_entry(StageTiming(name, 1.0)) == f"{name};dur=1.00"


def test_the_header_lists_stages_in_order_comma_separated() -> None:
    stages = [StageTiming(Stage.AUTH, 0.25), StageTiming(Stage.ENCODE, 3.0), StageTiming(Leg.BM25, 4.5),
              StageTiming(Leg.DENSE, 6.125), StageTiming(Stage.FUSION, 0.1)]
    assert server_timing(stages, descriptions={}) == (
        "auth;dur=0.25, encode;dur=3.00, bm25;dur=4.50, dense;dur=6.12, fusion;dur=0.10")
    assert server_timing(stages[:2]) == ('auth;dur=0.25;desc="API key and rate limit", '
                                         'encode;dur=3.00;desc="query encoding"')


def test_every_search_stage_has_a_description_that_naive_parsers_split_right() -> None:
    assert set(DESCRIPTIONS) == {*Stage, *Leg}
    assert not any(mark in desc for desc in DESCRIPTIONS.values() for mark in ',;"\\')


def test_a_request_keeps_one_recorder() -> None:
    request = Request({"type": "http", "method": "POST", "path": "/v1/search", "headers": []})
    timings = request_timings(request)
    timings.record(Stage.AUTH, 1.0)
    assert request_timings(request) is timings
    assert request_timings(request).stages() == (StageTiming("auth", 1.0),)


def test_a_header_parses_back_to_its_stages() -> None:
    stages = [StageTiming(Stage.AUTH, 0.25), StageTiming(Leg.DENSE, 6.125), StageTiming(Stage.PAGE, 2.0)]
    assert parse_server_timing(server_timing(stages)) == {"auth": 0.25, "dense": 6.12, "page": 2.0}
    assert parse_server_timing("a;dur=1, b;desc=x, c") == {"a": 1.0, "b": 0.0, "c": 0.0}
