"""Where one request's time went: named stage durations read off a monotonic clock by the layer that runs each
stage. Pure: whoever reports them (the HTTP adapter: Server-Timing and metrics) reads the recorded stages."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


class Stage(enum.StrEnum):
    """Stages of a search besides its legs (a leg's stage is named by its Leg value: bm25, bm25_passage, dense)."""

    AUTH = "auth"  # API key check and rate limit
    ENCODE = "encode"  # query embedding: the part of the dense leg's took_ms before its kNN request
    FUSION = "fusion"  # collapsing leg lists to documents (when grouped) and fusing them into hits
    RERANK = "rerank"  # the rerank stage, with the stored fields it reads, when a rerank ran
    PAGE = "page"  # the returned page's stored fields, highlights and passages (one request)
    LOG = "log"  # claiming the request id and queueing the search-log event
    SEARCH = "search"  # the core's whole search (SearchResult.took_ms): legs to page


@dataclass(frozen=True, slots=True)
class StageTiming:
    """One stage and how long it took, in milliseconds."""

    name: str
    ms: float


class StageTimings:
    """A recorder of stage durations in the order stages first ran; a stage recorded twice adds up.

    Each stage is timed on its own (concurrent stages overlap in wall time); the clock is time.perf_counter
    (monotonic) unless a test passes another.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._ms: dict[str, float] = {}

    def record(self, name: str, ms: float) -> None:
        """Add ms to the stage `name`."""
        self._ms[name] = self._ms.get(name, 0.0) + ms

    def extend(self, stages: Iterable[StageTiming]) -> None:
        """Record stages measured elsewhere (a result's stages)."""
        for stage in stages:
            self.record(stage.name, stage.ms)

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        """Time the block as stage `name` (recorded even when the block raises)."""
        started = self._clock()
        try:
            yield
        finally:
            self.record(name, (self._clock() - started) * 1000)

    def stages(self) -> tuple[StageTiming, ...]:
        """The stages recorded so far, in the order each first ran."""
        return tuple(StageTiming(name, ms) for name, ms in self._ms.items())
