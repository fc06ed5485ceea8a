"""Background writer of log events: a bounded queue drained in batches by one asyncio task; never blocks a request."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_bulk

from search_platform.analytics.log_index import async_ensure_log_index, log_index_body
from search_platform.config import AnalyticsSettings

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class WriterStats:
    """What the writer has done since it started: events written, dropped (queue full) and failed (ES refused)."""

    written: int
    dropped: int
    failed: int
    queued: int


class SearchLogWriter:
    """Queues events without waiting and bulk-writes them to the log alias by batch size or flush interval."""

    def __init__(self, es: AsyncElasticsearch, *, alias: str, queue_size: int = 10_000, batch_size: int = 500,
                 flush_interval_s: float = 2.0, body: dict[str, Any] | None = None) -> None:
        self._es = es
        self._alias = alias
        self._batch_size = batch_size
        self._flush_interval_s = flush_interval_s
        self._body = body or log_index_body()
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=queue_size)
        self._task: asyncio.Task[None] | None = None
        self._pending: list[dict[str, Any]] = []  # taken from the queue, not yet handed to a flush
        self._flushing: asyncio.Future[None] | None = None
        self._index_ready = False
        self._written = self._dropped = self._failed = 0

    @classmethod
    def from_settings(cls, es: AsyncElasticsearch, settings: AnalyticsSettings, *,
                      body: dict[str, Any] | None = None) -> SearchLogWriter:
        """A writer configured by the analytics settings."""
        return cls(es, alias=settings.log_alias, queue_size=settings.queue_size, batch_size=settings.batch_size,
                   flush_interval_s=settings.flush_interval_s, body=body)

    @property
    def alias(self) -> str:
        """The alias events are written to."""
        return self._alias

    @property
    def stats(self) -> WriterStats:
        """Counters since start."""
        return WriterStats(written=self._written, dropped=self._dropped, failed=self._failed,
                           queued=self._queue.qsize())

    def enqueue(self, event: dict[str, Any]) -> bool:
        """Queue one event; False (and counted as dropped) when the queue is full."""
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self._dropped += 1
            return False
        return True

    async def start(self) -> None:
        """Start the background task (idempotent); the log index is created on the first flush if missing."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="search-log-writer")

    async def stop(self, *, timeout_s: float = 10.0) -> None:
        """Stop the loop (letting a running flush finish), then flush what is left within timeout_s."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drain(), timeout=timeout_s)
        left = len(self._pending) + self._queue.qsize()
        if left:
            logger.warning("search log: %d queued events lost at shutdown", left)

    async def _drain(self) -> None:
        if self._flushing is not None:
            await self._flushing
        while self._pending or not self._queue.empty():
            self._pending.extend(self._take_ready(self._batch_size - len(self._pending)))
            batch, self._pending = self._pending, []
            await self.flush(batch)

    async def _run(self) -> None:
        while True:
            await self._collect()
            batch, self._pending = self._pending, []
            self._flushing = asyncio.ensure_future(self.flush(batch))
            await asyncio.shield(self._flushing)  # cancelling the loop never cuts a bulk request short
            self._flushing = None

    async def _collect(self) -> None:
        """Wait for one event, then collect until the batch is full or the flush interval since it has passed."""
        self._pending.append(await self._queue.get())
        deadline = time.monotonic() + self._flush_interval_s
        while len(self._pending) < self._batch_size:
            self._pending.extend(self._take_ready(self._batch_size - len(self._pending)))
            remaining = deadline - time.monotonic()
            if len(self._pending) >= self._batch_size or remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                self._pending.append(await asyncio.wait_for(self._queue.get(), timeout=remaining))

    def _take_ready(self, limit: int) -> list[dict[str, Any]]:
        taken: list[dict[str, Any]] = []
        while len(taken) < limit and not self._queue.empty():
            taken.append(self._queue.get_nowait())
        return taken

    async def flush(self, batch: list[dict[str, Any]]) -> None:
        """Bulk-write one batch to the alias; failures are counted and logged, never raised."""
        if not batch:
            return
        try:
            if not self._index_ready:
                await async_ensure_log_index(self._es, alias=self._alias, body=self._body)
                self._index_ready = True
            ok, errors = await async_bulk(
                self._es, batch, index=self._alias, require_alias=True, chunk_size=self._batch_size,
                raise_on_error=False, raise_on_exception=False, max_retries=0,
            )
        except Exception as error:  # the writer must survive any failure of ES, and never raise into requests
            self._failed += len(batch)
            logger.warning("search log: %d events not written: %s", len(batch), error)
            return
        failures = errors if isinstance(errors, list) else []
        self._written += ok
        self._failed += len(batch) - ok
        if failures:
            self._index_ready = "index_not_found" not in str(failures[0])
            logger.warning("search log: %d of %d events refused, first: %s", len(batch) - ok, len(batch),
                           failures[0])
