"""SearchAnalytics: what the query service calls per request to assign an arm and log searches and clicks."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime

from elasticsearch import AsyncElasticsearch

from search_platform.analytics.experiments import Assignment, assign, pseudonymize
from search_platform.analytics.log_index import log_index_body
from search_platform.analytics.log_writer import SearchLogWriter, WriterStats
from search_platform.analytics.search_log import LogContext, click_event, search_event
from search_platform.config import AnalyticsSettings, ElasticsearchSettings, ExperimentSettings
from search_platform.domain.models import SearchResult
from search_platform.retrieval.hybrid import SearchRequest


class SearchAnalytics:
    """Experiment assignment plus the background log writer (absent when analytics is disabled)."""

    def __init__(self, settings: AnalyticsSettings, experiments: Sequence[ExperimentSettings],
                 writer: SearchLogWriter | None) -> None:
        self._settings = settings
        self._experiments = tuple(experiments)
        self._writer = writer
        self._user_key = settings.user_id_key.get_secret_value().encode()

    @classmethod
    def build(cls, es: AsyncElasticsearch, settings: AnalyticsSettings, experiments: Sequence[ExperimentSettings],
              es_settings: ElasticsearchSettings) -> SearchAnalytics:
        """Analytics over the given client; the log index takes its shard counts from the ES settings."""
        body = log_index_body(number_of_shards=es_settings.number_of_shards,
                              number_of_replicas=es_settings.number_of_replicas)
        writer = SearchLogWriter.from_settings(es, settings, body=body) if settings.enabled else None
        return cls(settings, experiments, writer)

    @property
    def stats(self) -> WriterStats | None:
        """The writer's counters, None when logging is off."""
        return self._writer.stats if self._writer else None

    async def start(self) -> None:
        """Start the background writer."""
        if self._writer is not None:
            await self._writer.start()

    async def stop(self) -> None:
        """Flush queued events and stop the writer."""
        if self._writer is not None:
            await self._writer.stop(timeout_s=self._settings.shutdown_timeout_s)

    def assign(self, unit_id: str | None, *, pinned: Collection[str] = ()) -> Assignment | None:
        """The caller's experiment and arm (sticky per user or session id), if any."""
        return assign(self._experiments, unit_id, pinned=pinned)

    def _context(self, request_id: str, unit_id: str | None, assignment: Assignment | None,
                 tenant: Sequence[str]) -> LogContext:
        return LogContext(request_id=request_id, timestamp=datetime.now(UTC), tenant=tuple(tenant),
                          user_id=pseudonymize(unit_id, key=self._user_key),
                          experiment=assignment.experiment if assignment else None,
                          arm=assignment.arm if assignment else None)

    def record_search(self, request: SearchRequest, result: SearchResult, *, request_id: str,
                      unit_id: str | None, assignment: Assignment | None) -> None:
        """Queue the search's log event (without waiting)."""
        if self._writer is None:
            return
        context = self._context(request_id, unit_id, assignment, request.filters.tenants)
        self._writer.enqueue(search_event(request, result, context=context,
                                          max_leg_hit_ids=self._settings.max_leg_hit_ids))

    def record_click(self, *, request_id: str, doc_id: str, position: int, chunk_id: str | None,
                     unit_id: str | None, tenant: Sequence[str] = ()) -> bool:
        """Queue a click on a result of request_id; the arm is the caller's sticky arm when an id is sent.
        False when the event could not be queued (logging off or queue full)."""
        if self._writer is None:
            return False
        context = self._context(request_id, unit_id, self.assign(unit_id), tenant)
        return self._writer.enqueue(click_event(context=context, doc_id=doc_id, position=position,
                                                chunk_id=chunk_id))
