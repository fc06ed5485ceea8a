"""The stage recorder: durations from its clock, in first-run order, adding up when a stage runs twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from search_platform.domain.timings import Stage, StageTiming, StageTimings


def ticking(*readings: float) -> Iterator[float]:
    """A clock that returns the given readings (seconds) in turn."""
    return iter(readings)


def clock_of(*readings: float) -> StageTimings:
    readings_left = ticking(*readings)
    return StageTimings(clock=lambda: next(readings_left))


def test_measure_records_the_clock_difference_in_milliseconds() -> None:
    timings = clock_of(10.0, 10.0025)
    with timings.measure(Stage.FUSION):
        pass
    assert timings.stages() == (StageTiming("fusion", pytest.approx(2.5)),)


def test_stages_keep_first_run_order_and_a_repeated_stage_adds_up() -> None:
    timings = clock_of(0.0, 0.001, 1.0, 1.004)
    with timings.measure(Stage.AUTH):
        pass
    timings.record("bm25", 7.0)
    timings.extend([StageTiming("dense", 3.0), StageTiming("bm25", 1.0)])
    with timings.measure(Stage.AUTH):
        pass
    assert [(s.name, round(s.ms, 6)) for s in timings.stages()] == [("auth", 1.0 + 4.0), ("bm25", 7.0 + 1.0),
                                                                     ("dense", 3.0)]


def test_a_stage_that_raises_is_still_recorded() -> None:
    timings = clock_of(5.0, 5.5)
    with pytest.raises(RuntimeError), timings.measure(Stage.LOG):
        raise RuntimeError("redis down")
    assert timings.stages() == (StageTiming("log", 500.0),)


def test_a_fresh_recorder_has_no_stages() -> None:
    assert StageTimings().stages() == ()
