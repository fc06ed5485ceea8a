"""Ingestion counters kept in Redis: workers add to them, the API's /metrics reads them (another process)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from redis import Redis
from redis.exceptions import RedisError

from search_platform.ingestion.writer import BulkReport

logger = logging.getLogger(__name__)

INGEST_METRICS_PREFIX = "sp:metrics:ingest"
DOCUMENTS_OK = "documents_ok"
DOCUMENTS_FAILED = "documents_failed"
CHUNKS = "chunks"


@dataclass(frozen=True, slots=True)
class IngestTotals:
    """Documents indexed and failed, and chunks indexed, since the counters were created."""

    documents_ok: int = 0
    documents_failed: int = 0
    chunks: int = 0


def batch_totals(report: BulkReport) -> IngestTotals:
    """What one batch adds: a document with any error counts as failed and its chunks do not count."""
    ok = {doc_id: chunks for doc_id, chunks in report.written.items() if doc_id not in report.errors}
    return IngestTotals(documents_ok=len(ok), documents_failed=len(report.errors), chunks=sum(ok.values()))


class IngestCounters:
    """Monotonic Redis counters of ingestion; recording is best-effort and never fails a batch."""

    def __init__(self, redis: Redis[bytes], *, prefix: str = INGEST_METRICS_PREFIX) -> None:
        self._redis = redis
        self._prefix = prefix

    def _key(self, name: str) -> str:
        return f"{self._prefix}:{name}"

    def add(self, totals: IngestTotals) -> None:
        """Add a batch's totals (one round trip); a Redis failure is logged, not raised."""
        pipe = self._redis.pipeline(transaction=False)
        for name, value in ((DOCUMENTS_OK, totals.documents_ok), (DOCUMENTS_FAILED, totals.documents_failed),
                            (CHUNKS, totals.chunks)):
            if value:
                pipe.incrby(self._key(name), value)
        try:
            pipe.execute()
        except RedisError as error:
            logger.warning("could not update the ingest counters: %s", error, extra={"totals": totals})

    def record(self, report: BulkReport) -> None:
        """Count a finished batch."""
        self.add(batch_totals(report))

    def record_failed(self, documents: int) -> None:
        """Count documents of a batch that gave up."""
        self.add(IngestTotals(documents_failed=documents))

    def read(self) -> IngestTotals:
        """The current totals; raises RedisError when Redis is unreachable."""
        values = self._redis.mget([self._key(name) for name in (DOCUMENTS_OK, DOCUMENTS_FAILED, CHUNKS)])
        ok, failed, chunks = (int(value or 0) for value in values)
        return IngestTotals(documents_ok=ok, documents_failed=failed, chunks=chunks)
