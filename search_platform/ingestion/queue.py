"""create_celery(settings) and enqueue_batch: the one place the Celery app is configured and batches are sent;
the API and evaluation enqueue through here, the worker process (workers/) builds on it."""

from __future__ import annotations

from celery import Celery
from kombu import Queue  # type: ignore[attr-defined]

from search_platform.config import Settings

INGEST_QUEUE = "ingest"
INGEST_TASK = "search_platform.ingest_batch"
BACKEND_RETRIES = 20
REDIS_SOCKET_TIMEOUT_S = 10.0
RESTORE_SWEEP_MAX_S = 10
DEFAULT_MUTEX_EXPIRE_S = 300
UNACKED_INDEX_KEY = "unacked_index"  # kombu's sorted set of taken, unacked deliveries (renewed by workers/lease.py)


def create_celery(settings: Settings) -> Celery:
    """A Celery app on Redis (broker and results) with late acks, so a dying worker's batch is redelivered."""
    app = Celery("search_platform", broker=settings.redis.url, backend=settings.redis.url)
    app.conf.update(
        task_queues=(Queue(INGEST_QUEUE),),  # type: ignore[no-untyped-call]
        task_default_queue=INGEST_QUEUE,
        task_routes={INGEST_TASK: {"queue": INGEST_QUEUE}},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # a task running when the broker connection drops cannot be acked any more: stop it, and its batch is
        # redelivered once Redis is back (instead of a retry that cannot be published to a Redis that is down)
        worker_cancel_long_running_tasks_on_connection_loss=True,
        worker_prefetch_multiplier=1,
        # optional hard limit: a batch running longer is stopped and fails, resumable (its lease keeps it from a
        # second worker until then)
        task_time_limit=settings.ingestion.task_time_limit_s or None,
        worker_concurrency=settings.ingestion.worker_concurrency,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=settings.redis.job_ttl_s,
        # a lost Redis connection is retried, not fatal: the worker reconnects once Redis is back (AOF keeps
        # the queue); results and job status are retried the same way
        broker_connection_retry_on_startup=True,
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        broker_transport_options=broker_transport_options(settings.redis.visibility_timeout_s),
        result_backend_always_retry=True,
        result_backend_max_retries=BACKEND_RETRIES,
        redis_retry_on_timeout=True,
        redis_socket_timeout=REDIS_SOCKET_TIMEOUT_S,
        worker_hijack_root_logger=False,
    )
    app.conf.sp_settings = settings
    return app


def broker_transport_options(visibility_timeout_s: int) -> dict[str, int | str]:
    """Redis transport options: the visibility timeout, and sweeps for expired unacked tasks often enough that a
    dead worker's task comes back soon after it (kombu's default sweep runs only every ~100 s)."""
    return {
        "visibility_timeout": visibility_timeout_s,
        "unacked_index_key": UNACKED_INDEX_KEY,
        "unacked_restore_interval": max(1, min(RESTORE_SWEEP_MAX_S, visibility_timeout_s // 6)),
        "unacked_restore_throttle": 1,
        # the sweep's lock; a sweep cut short by a Redis restart leaves it held until it expires (default 300 s)
        "unacked_mutex_expire": max(5, min(DEFAULT_MUTEX_EXPIRE_S, visibility_timeout_s // 2)),
    }


def enqueue_batch(app: Celery, job_id: str, batch_number: int) -> None:
    """Send one batch of a job to the ingest queue."""
    app.send_task(INGEST_TASK, args=[job_id, batch_number], queue=INGEST_QUEUE)
