"""Celery tasks: thin, idempotent, late-acked; only transient errors are retried, with bounded backoff."""

from __future__ import annotations

import logging
from functools import cached_property, partial
from typing import Any

from celery import Celery, Task
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import Settings
from search_platform.domain.errors import BackendUnavailableError
from search_platform.embeddings.cache import with_passage_cache
from search_platform.embeddings.factory import build_embedder
from search_platform.ingestion.batch import IngestContext
from search_platform.ingestion.bulk_mode import BulkMode
from search_platform.ingestion.ingest_metrics import IngestCounters
from search_platform.ingestion.jobs import Enqueue, JobStore
from search_platform.ingestion.lifecycle import Tombstones, ingest_unless_deleted
from search_platform.ingestion.queue import INGEST_TASK, REDIS_SOCKET_TIMEOUT_S, enqueue_batch
from workers.lease import delivery_lease

log = logging.getLogger(__name__)

TRANSIENT_ERRORS = (BackendUnavailableError, RedisConnectionError, RedisTimeoutError)


class WorkerResources:
    """Clients and model of one worker process, built on first use (after fork, never at import)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    @cached_property
    def context(self) -> IngestContext:
        """Elasticsearch client and embedder for ingestion."""
        return IngestContext(
            settings=self._settings,
            client=build_client(self._settings.elasticsearch),
            embedder=with_passage_cache(build_embedder(self._settings.embedding), self._settings.embedding),
        )

    @cached_property
    def redis(self) -> Redis[bytes]:
        """The job store's Redis, which is also the broker's (lease renewals); a call that outlasts the timeout
        raises a transient error instead of holding the batch."""
        return Redis.from_url(self._settings.redis.url, socket_timeout=REDIS_SOCKET_TIMEOUT_S,
                              socket_connect_timeout=REDIS_SOCKET_TIMEOUT_S)

    @cached_property
    def store(self) -> JobStore:
        """The job-status store (with the per-tenant lanes)."""
        return JobStore.from_settings(self.redis, self._settings)

    @cached_property
    def tombstones(self) -> Tombstones:
        """Delete marks that win over older jobs."""
        return Tombstones(self.redis, ttl_s=self._settings.redis.job_ttl_s)

    @cached_property
    def bulk(self) -> BulkMode:
        """Refresh off while large jobs load, one refresh per job (search_platform/ingestion/bulk_mode.py)."""
        return BulkMode.build(self._settings, self.context.client)

    @cached_property
    def counters(self) -> IngestCounters:
        """The ingest counters /metrics reports."""
        return IngestCounters(Redis.from_url(self._settings.redis.url, socket_timeout=5))


def register_tasks(app: Celery) -> None:
    """Attach the ingestion task to app, reading settings from app.conf.sp_settings."""
    settings: Settings = app.conf.sp_settings
    retry = settings.ingestion
    resources = WorkerResources(settings)
    enqueue: Enqueue = partial(enqueue_batch, app)

    class IngestTask(Task):  # type: ignore[misc]
        def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
            """Retry budget spent or a bug: the batch's documents fail with the reason, never silently."""
            job_id, number = args
            store = resources.store
            try:
                _, documents = store.load_batch(job_id, number)
                doc_ids = [d.doc_id for d in documents]
            except Exception:  # the payload itself may be what is missing
                doc_ids = []
            if store.last_to_settle(job_id, number):
                try:
                    resources.bulk.job_settled(job_id=job_id, index=store.get(job_id).index)
                except Exception:  # most likely what made the batch fail; the failure below is what counts
                    log.exception("job %s: could not refresh after its last batch failed", job_id)
            store.fail_batch(job_id, doc_ids, f"batch {number} failed: {exc}", batch=number)
            store.settled(job_id, number, enqueue)
            resources.counters.record_failed(len(doc_ids))

    @app.task(  # type: ignore[untyped-decorator]
        name=INGEST_TASK,
        base=IngestTask,
        bind=True,
        acks_late=True,
        autoretry_for=TRANSIENT_ERRORS,
        max_retries=retry.task_max_retries,
        retry_backoff=retry.task_backoff_s or False,
        retry_backoff_max=int(retry.task_backoff_max_s),
        retry_jitter=True,
    )
    def ingest_batch(self: Task, job_id: str, batch_number: int) -> dict[str, int]:
        """Ingest one stored batch of a job and record the outcome per document, renewing the delivery's lease
        while it runs (a batch longer than the visibility timeout is not delivered a second time)."""
        delivery_tag = (self.request.properties or {}).get("delivery_tag")
        with delivery_lease(resources.redis, delivery_tag,
                            visibility_timeout_s=settings.redis.visibility_timeout_s):
            return ingest(self, job_id, batch_number)

    def ingest(self: Task, job_id: str, batch_number: int) -> dict[str, int]:
        store = resources.store
        store.start_batch(job_id, batch_number)
        index, documents = store.load_batch(job_id, batch_number)
        resources.bulk.job_started(store.get(job_id), dims=resources.context.embedder.dims, settings=settings)
        report = ingest_unless_deleted(documents, index=index, sequence=store.sequence(job_id),
                                       ctx=resources.context, tombstones=resources.tombstones)
        if store.last_to_settle(job_id, batch_number):  # the job's one refresh, before it can read done
            resources.bulk.job_settled(job_id=job_id, index=index)
        store.complete_batch(job_id, batch_number, report, worker=self.request.hostname or "unknown")
        store.settled(job_id, batch_number, enqueue)
        resources.counters.record(report)
        return {"documents": len(report.written), "failed": len(report.errors)}


def create_worker_app(settings: Settings) -> Celery:
    """The Celery app with tasks registered, for `search-platform worker`."""
    from search_platform.ingestion.queue import create_celery

    app = create_celery(settings)
    register_tasks(app)
    return app
