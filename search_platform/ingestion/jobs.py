"""Ingestion jobs: payloads and status kept in Redis, so any worker or API process can read them."""

from __future__ import annotations

import enum
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from redis import Redis

from search_platform.domain.errors import JobNotFoundError
from search_platform.domain.models import ContentType, Document
from search_platform.ingestion.writer import BulkReport

Enqueue = Callable[[str, int], None]
FieldValue = bytes | float | int | str


def _fields(mapping: Mapping[str, FieldValue]) -> dict[str | bytes, FieldValue]:
    return {key: value for key, value in mapping.items()}


class JobState(enum.StrEnum):
    """Lifecycle of a job."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class JobStatus:
    """What a caller sees of a job."""

    job_id: str
    state: JobState
    index: str
    documents_total: int
    documents_done: int
    documents_failed: int
    chunks_done: int
    errors: dict[str, str] = field(default_factory=dict)
    created_at: float = 0.0
    updated_at: float = 0.0

    @property
    def finished(self) -> bool:
        """True once nothing more will happen to the job."""
        return self.state in (JobState.DONE, JobState.FAILED)


def document_to_json(document: Document) -> dict[str, object]:
    """A document as stored in a job payload."""
    data = asdict(document)
    data["tags"] = list(document.tags)
    return data


def document_from_json(data: dict[str, object]) -> Document:
    """The inverse of document_to_json."""
    fields = dict(data)
    tags = fields.get("tags") or ()
    fields["tags"] = tuple(tags) if isinstance(tags, list | tuple) else ()
    fields["content_type"] = ContentType(str(fields.get("content_type", "text")))
    return Document(**fields)  # type: ignore[arg-type]


class JobStore:
    """Redis keys of one job: meta hash, batch payloads, chunks per done document, errors per document."""

    def __init__(self, redis: Redis[bytes], *, ttl_s: int, prefix: str = "sp:job") -> None:
        self._redis = redis
        self._ttl_s = ttl_s
        self._prefix = prefix

    def _key(self, job_id: str, part: str) -> str:
        return f"{self._prefix}:{job_id}:{part}"

    def create(
        self, *, index: str, batches: Sequence[Sequence[Document]], rejected: dict[str, str] | None = None
    ) -> str:
        """Store a new job, its batches and the documents refused before queueing; returns the job id."""
        job_id = uuid.uuid4().hex
        now = time.time()
        rejected = rejected or {}
        total = sum(len(b) for b in batches) + len(rejected)
        meta: dict[str, FieldValue] = {"index": index, "total": total, "batches": len(batches),
                "created_at": now, "updated_at": now, "state": JobState.QUEUED.value}
        pipe = self._redis.pipeline()
        pipe.hset(self._key(job_id, "meta"), mapping=_fields(meta))
        for number, batch in enumerate(batches):
            key = self._key(job_id, f"batch:{number}")
            pipe.set(key, json.dumps([document_to_json(d) for d in batch]), ex=self._ttl_s)
        if rejected:
            pipe.hset(self._key(job_id, "errors"), mapping=_fields(rejected))
            pipe.expire(self._key(job_id, "errors"), self._ttl_s)
        pipe.expire(self._key(job_id, "meta"), self._ttl_s)
        pipe.execute()
        return job_id

    def load_batch(self, job_id: str, number: int) -> tuple[str, list[Document]]:
        """The target index and the documents of one batch."""
        index = self._redis.hget(self._key(job_id, "meta"), "index")
        payload = self._redis.get(self._key(job_id, f"batch:{number}"))
        if index is None or payload is None:
            raise JobNotFoundError(f"job {job_id} batch {number} not found (expired or never created)")
        return _text(index), [document_from_json(d) for d in json.loads(payload)]

    def mark_running(self, job_id: str) -> None:
        """Note that a worker started on the job."""
        self._touch(job_id, state=JobState.RUNNING)

    def record(self, job_id: str, report: BulkReport) -> None:
        """Record a batch's outcome; idempotent, so a retried batch never counts twice."""
        pipe = self._redis.pipeline()
        if report.written:
            pipe.hset(self._key(job_id, "chunks"), mapping=_fields(report.written))
            pipe.hdel(self._key(job_id, "errors"), *report.written)
        if report.errors:
            pipe.hset(self._key(job_id, "errors"), mapping=_fields(report.errors))
            pipe.hdel(self._key(job_id, "chunks"), *report.errors)
        for part in ("chunks", "errors"):
            pipe.expire(self._key(job_id, part), self._ttl_s)
        pipe.execute()
        self._touch(job_id)

    def fail_batch(self, job_id: str, documents: Sequence[str], reason: str) -> None:
        """A batch gave up (retry budget spent): its documents fail with the reason and the job fails."""
        if documents:
            self._redis.hset(self._key(job_id, "errors"), mapping=_fields(dict.fromkeys(documents, reason)))
        self._touch(job_id, state=JobState.FAILED)

    def _touch(self, job_id: str, state: JobState | None = None) -> None:
        mapping: dict[str, FieldValue] = {"updated_at": time.time()}
        current = self._redis.hget(self._key(job_id, "meta"), "state")
        if state is not None and _text(current or b"") != JobState.FAILED.value:
            mapping["state"] = state.value
        self._redis.hset(self._key(job_id, "meta"), mapping=_fields(mapping))

    def get(self, job_id: str) -> JobStatus:
        """Current status, derived from what the workers recorded."""
        meta = {_text(k): _text(v) for k, v in self._redis.hgetall(self._key(job_id, "meta")).items()}
        if not meta:
            raise JobNotFoundError(f"no job with id {job_id}")
        chunks = {_text(k): int(v) for k, v in self._redis.hgetall(self._key(job_id, "chunks")).items()}
        errors = {_text(k): _text(v) for k, v in self._redis.hgetall(self._key(job_id, "errors")).items()}
        total = int(meta["total"])
        return JobStatus(
            job_id=job_id,
            state=_derive_state(JobState(meta["state"]), total=total, processed=len(chunks) + len(errors)),
            index=meta["index"],
            documents_total=total,
            documents_done=len(chunks),
            documents_failed=len(errors),
            chunks_done=sum(chunks.values()),
            errors=errors,
            created_at=float(meta["created_at"]),
            updated_at=float(meta["updated_at"]),
        )


def _derive_state(stored: JobState, *, total: int, processed: int) -> JobState:
    if stored is JobState.FAILED:
        return JobState.FAILED
    return JobState.DONE if processed >= total else stored


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def submit(
    store: JobStore,
    enqueue: Enqueue,
    documents: Sequence[Document],
    *,
    index: str,
    per_batch: int,
    rejected: dict[str, str] | None = None,
) -> str:
    """Create a job, split into batches, and hand each batch to the queue."""
    batches = [documents[i : i + per_batch] for i in range(0, len(documents), per_batch)]
    job_id = store.create(index=index, batches=batches, rejected=rejected)
    for number in range(len(batches)):
        enqueue(job_id, number)
    return job_id


def wait_for(store: JobStore, job_id: str, *, timeout_s: float, poll_s: float = 0.5) -> JobStatus:
    """Poll until the job finishes or the timeout passes (returns the last status either way)."""
    deadline = time.monotonic() + timeout_s
    status = store.get(job_id)
    while not status.finished and time.monotonic() < deadline:
        time.sleep(poll_s)
        status = store.get(job_id)
    return status
