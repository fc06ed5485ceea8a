"""Bulk-load mode, and the one refresh of each job.

No batch refreshes the index. When the last batch of a job settles (written or given up; JobStore.last_to_settle
says which one that is), `job_settled` refreshes the index once, before that batch is recorded: so when a job's
status says done (or failed), what it wrote is searchable.

Large jobs also turn periodic refresh off (and optionally replicas) while they load: the jobs in bulk mode are a
Redis set per index and the index's previous settings are saved once, by the first job, under a Redis lock; the
last job to leave puts them back. A job that never settles (its batches lost for good) leaves the index at
refresh_interval -1 and its status never says done; `search-platform jobs resume` finishing the job restores the
index and refreshes it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from elasticsearch import Elasticsearch
from redis import Redis

from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.backends.elasticsearch.mappings import ensure_index
from search_platform.config import IngestionSettings, Settings
from search_platform.ingestion.jobs import JobStatus

log = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 30
SAVED_SETTINGS = ("refresh_interval", "number_of_replicas")


def bulk_settings(*, zero_replicas: bool) -> dict[str, Any]:
    """The index settings of bulk mode."""
    return {"refresh_interval": "-1", **({"number_of_replicas": 0} if zero_replicas else {})}


def saved_settings(client: Elasticsearch, index: str) -> dict[str, Any]:
    """The index's own refresh_interval and number_of_replicas (None where it uses the default)."""
    with translated_errors():
        answer = client.indices.get_settings(index=index, name=[f"index.{name}" for name in SAVED_SETTINGS],
                                             flat_settings=True)
    per_index: dict[str, dict[str, Any]] = dict(answer)
    values: dict[str, Any] = next(iter(per_index.values())).get("settings", {}) if per_index else {}
    return {name: values.get(f"index.{name}") for name in SAVED_SETTINGS}


@dataclass
class BulkMode:
    """Enters and leaves bulk mode for jobs of at least `min_documents` documents."""

    client: Elasticsearch
    redis: Redis[bytes]
    options: IngestionSettings
    prefix: str = "sp:bulk"

    @classmethod
    def build(cls, settings: Settings, client: Elasticsearch) -> BulkMode:
        """From settings, with its own Redis connection."""
        return cls(client, Redis.from_url(settings.redis.url, socket_timeout=5), settings.ingestion)

    def applies_to(self, job: JobStatus) -> bool:
        """Only jobs big enough for refreshes to cost more than they serve."""
        return 0 < self.options.bulk_mode_min_documents <= job.documents_total

    def job_started(self, job: JobStatus, *, dims: int, settings: Settings) -> None:
        """Called at each batch start: the job's first batch puts the index in bulk mode (idempotent)."""
        if not self.applies_to(job) or self.redis.sismember(self._jobs(job.index), job.job_id):
            return
        ensure_index(self.client, settings.elasticsearch, alias=job.index, dims=dims)
        with self.redis.lock(f"{self.prefix}:{job.index}:lock", timeout=LOCK_TIMEOUT_S):
            if self.redis.get(self._saved(job.index)) is None:
                self.redis.set(self._saved(job.index), json.dumps(saved_settings(self.client, job.index)))
                with translated_errors():
                    self.client.indices.put_settings(
                        index=job.index, settings=bulk_settings(zero_replicas=self.options.bulk_mode_zero_replicas))
                log.info("index %s in bulk mode for job %s", job.index, job.job_id)
            self.redis.sadd(self._jobs(job.index), job.job_id)

    def job_settled(self, *, job_id: str, index: str) -> None:
        """Called once the job's last batch has settled and before it is recorded: leave bulk mode (the last job
        out restores the index's settings), then refresh the index once so the job is searchable when it is done."""
        if self.redis.sismember(self._jobs(index), job_id):
            with self.redis.lock(f"{self.prefix}:{index}:lock", timeout=LOCK_TIMEOUT_S):
                self._leave(job_id=job_id, index=index)
        with translated_errors():
            self.client.indices.refresh(index=index)

    def _leave(self, *, job_id: str, index: str) -> None:
        """Take the job out of the index's bulk-mode set; the last one out first puts the saved settings back (if
        that fails the job stays in the set, and the retried batch tries again)."""
        saved = self.redis.get(self._saved(index))
        if saved is not None and self.redis.scard(self._jobs(index)) <= 1:
            with translated_errors():
                self.client.indices.put_settings(index=index, settings=json.loads(saved))
            self.redis.delete(self._saved(index))
            log.info("index %s back from bulk mode after job %s", index, job_id)
        self.redis.srem(self._jobs(index), job_id)

    def _jobs(self, index: str) -> str:
        return f"{self.prefix}:{index}:jobs"

    def _saved(self, index: str) -> str:
        return f"{self.prefix}:{index}:saved"
