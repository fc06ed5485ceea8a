"""The worker's view of the Celery app; the app itself is configured on the ingestion side (ingestion/queue.py)."""

from __future__ import annotations

from search_platform.ingestion.queue import INGEST_QUEUE, INGEST_TASK, create_celery, enqueue_batch

__all__ = ["INGEST_QUEUE", "INGEST_TASK", "create_celery", "enqueue_batch"]
