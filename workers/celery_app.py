"""create_celery(settings): the one place the Celery app is configured."""

from __future__ import annotations

from celery import Celery
from kombu import Queue  # type: ignore[attr-defined]

from search_platform.config import Settings

INGEST_QUEUE = "ingest"
INGEST_TASK = "search_platform.ingest_batch"


def create_celery(settings: Settings) -> Celery:
    """A Celery app on Redis (broker and results) with late acks, so a dying worker's batch is redelivered."""
    app = Celery("search_platform", broker=settings.redis.url, backend=settings.redis.url)
    app.conf.update(
        task_queues=(Queue(INGEST_QUEUE),),  # type: ignore[no-untyped-call]
        task_default_queue=INGEST_QUEUE,
        task_routes={INGEST_TASK: {"queue": INGEST_QUEUE}},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_concurrency=settings.ingestion.worker_concurrency,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=settings.redis.job_ttl_s,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": 900},
        worker_hijack_root_logger=False,
    )
    app.conf.sp_settings = settings
    return app


def enqueue_batch(app: Celery, job_id: str, batch_number: int) -> None:
    """Send one batch of a job to the ingest queue."""
    app.send_task(INGEST_TASK, args=[job_id, batch_number], queue=INGEST_QUEUE)
