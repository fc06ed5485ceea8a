"""Ingestion jobs: payloads and status kept in Redis, so any worker or API process can read them."""

from __future__ import annotations

import enum
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from redis import Redis

from search_platform.config import Settings
from search_platform.domain.errors import ConflictError, JobNotFoundError
from search_platform.domain.ids import scoped
from search_platform.domain.models import ContentType, Document
from search_platform.ingestion.lanes import TenantLanes
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
    batches_total: int = 0
    batches_done: int = 0
    batches_failed: int = 0
    deliveries: int = 0  # batch deliveries to workers: first runs, retries and redeliveries after a lost worker
    workers: tuple[str, ...] = ()  # the workers that completed the job's batches

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
    """Redis keys of one job: meta hash, batch payloads, chunks per done document, errors per document, done
    batches (with the worker that did each), failed batches, settled batches (those that stopped writing) and
    deliveries per batch.

    Every count is the size of a hash or set keyed by document or batch, so a batch recorded twice (a retry, or
    a redelivery after its worker died) never counts twice."""

    def __init__(self, redis: Redis[bytes], *, ttl_s: int, prefix: str = "sp:job",
                 lanes: TenantLanes | None = None) -> None:
        self._redis = redis
        self._ttl_s = ttl_s
        self._prefix = prefix
        self.lanes = lanes  # per-tenant admission to the queue; None: every batch is sent at once

    @classmethod
    def from_settings(cls, redis: Redis[bytes], settings: Settings) -> JobStore:
        """The store with per-tenant lanes as settings.ingestion.max_inflight_batches_per_tenant says (0: none)."""
        limit = settings.ingestion.max_inflight_batches_per_tenant
        lanes = TenantLanes(redis, limit=limit, stale_after_s=2 * settings.redis.visibility_timeout_s,
                            ttl_s=settings.redis.job_ttl_s) if limit else None
        return cls(redis, ttl_s=settings.redis.job_ttl_s, lanes=lanes)

    def next_sequence(self) -> int:
        """The next number of the one sequence that orders jobs and deletes (a delete wins over older jobs)."""
        return int(self._redis.incr(f"{self._prefix}-seq"))

    def sequence(self, job_id: str) -> int:
        """The sequence number the job was created with (0 for jobs from before sequences)."""
        value = self._redis.hget(self._key(job_id, "meta"), "seq")
        return int(value) if value is not None else 0

    def send(self, job_id: str, numbers: Sequence[int], enqueue: Enqueue, *, tenant: str | None) -> None:
        """Hand batches to the queue, through the tenant's lane when lanes are on."""
        if self.lanes is None:
            for number in numbers:
                enqueue(job_id, number)
        else:
            self.lanes.add(tenant, job_id, numbers, enqueue)

    def last_to_settle(self, job_id: str, number: int) -> bool:
        """Note that a batch wrote all it will (written, or given up); True when no batch of the job is left to,
        i.e. this is the moment to make the job searchable, before its last batch is recorded. Atomic, so exactly
        the batch that completes the set sees True (a redelivery of it sees True again, which is harmless)."""
        key = self._key(job_id, "batches:settled")
        pipe = self._redis.pipeline()  # MULTI/EXEC
        pipe.sadd(key, str(number))
        pipe.expire(key, self._ttl_s)
        pipe.scard(key)
        pipe.hget(self._key(job_id, "meta"), "batches")
        _, _, settled, batches = pipe.execute()
        return int(settled) >= int(batches or 0)

    def settled(self, job_id: str, number: int, enqueue: Enqueue) -> None:
        """A batch is done or gave up: free its tenant's slot so the lane's next batch is sent."""
        if self.lanes is not None:
            self.lanes.release(self.tenant_of(job_id), job_id, number, enqueue)

    def _key(self, job_id: str, part: str) -> str:
        return f"{self._prefix}:{job_id}:{part}"

    def create(
        self, *, index: str, batches: Sequence[Sequence[Document]], rejected: dict[str, str] | None = None,
        tenant: str | None = None, fingerprint: str = "",
    ) -> str:
        """Store a new job, its batches and the documents refused before queueing; returns the job id.
        tenant: the submitting API key's tenant (None: a key spanning every tenant)."""
        job_id = uuid.uuid4().hex
        now = time.time()
        rejected = rejected or {}
        total = sum(len(b) for b in batches) + len(rejected)
        meta: dict[str, FieldValue] = {"index": index, "total": total, "batches": len(batches),
                "created_at": now, "updated_at": now, "state": JobState.QUEUED.value, "tenant": tenant or "",
                "fingerprint": fingerprint, "seq": self.next_sequence()}
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

    def start_batch(self, job_id: str, number: int) -> int:
        """Note a delivery of a batch to a worker (first run, retry or redelivery); returns its deliveries so far."""
        pipe = self._redis.pipeline()
        pipe.hincrby(self._key(job_id, "deliveries"), str(number), 1)
        pipe.expire(self._key(job_id, "deliveries"), self._ttl_s)
        deliveries = int(pipe.execute()[0])
        self.mark_running(job_id)
        return deliveries

    def complete_batch(self, job_id: str, number: int, report: BulkReport, *, worker: str) -> None:
        """Record a batch's outcome and mark it done by worker; idempotent."""
        self.record(job_id, report)
        pipe = self._redis.pipeline()
        pipe.hset(self._key(job_id, "batches:done"), str(number), worker)
        pipe.srem(self._key(job_id, "batches:failed"), str(number))
        pipe.expire(self._key(job_id, "batches:done"), self._ttl_s)
        pipe.execute()

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

    def fail_batch(self, job_id: str, documents: Sequence[str], reason: str, *, batch: int) -> None:
        """A batch gave up (retry budget spent): its documents fail with the reason and, once every batch has
        settled, the job is failed; `resume` re-queues such batches."""
        if self._redis.hexists(self._key(job_id, "batches:done"), str(batch)):
            return  # another delivery of the batch already did it
        pipe = self._redis.pipeline()
        if documents:
            pipe.hset(self._key(job_id, "errors"), mapping=_fields(dict.fromkeys(documents, reason)))
            pipe.expire(self._key(job_id, "errors"), self._ttl_s)
        pipe.sadd(self._key(job_id, "batches:failed"), str(batch))
        pipe.expire(self._key(job_id, "batches:failed"), self._ttl_s)
        pipe.execute()
        self._touch(job_id)

    def deliveries_by_batch(self, job_id: str) -> dict[int, int]:
        """How many times each batch was delivered to a worker so far."""
        raw = self._redis.hgetall(self._key(job_id, "deliveries"))
        return {int(k): int(v) for k, v in raw.items()}

    def done_batches(self, job_id: str) -> dict[int, str]:
        """The completed batches and the worker that completed each."""
        return {int(k): _text(v) for k, v in self._redis.hgetall(self._key(job_id, "batches:done")).items()}

    def take_failed_batches(self, job_id: str) -> list[int]:
        """Take the failed batches out of the failed set for a re-run, clearing their documents' errors."""
        if not self._redis.exists(self._key(job_id, "meta")):
            raise JobNotFoundError(f"no job with id {job_id}")
        failed = sorted(int(n) for n in self._redis.smembers(self._key(job_id, "batches:failed")))
        documents = {number: self.load_batch(job_id, number)[1] for number in failed}  # payloads must be there
        taken = [n for n in failed if self._redis.srem(self._key(job_id, "batches:failed"), str(n))]
        if taken:  # they settle again when they re-run
            self._redis.srem(self._key(job_id, "batches:settled"), *map(str, taken))
        doc_ids = [document.doc_id for number in taken for document in documents[number]]
        if doc_ids:
            self._redis.hdel(self._key(job_id, "errors"), *doc_ids)
        if taken:
            self._redis.hset(self._key(job_id, "meta"), mapping=_fields(
                {"state": JobState.RUNNING.value, "updated_at": time.time()}))
        return taken

    def job_for_key(self, key: str) -> str | None:
        """The job an idempotency key was first used for, if any."""
        job_id = self._redis.get(f"{self._prefix}-key:{key}")
        return _text(job_id) if job_id is not None else None

    def claim_key(self, key: str, job_id: str) -> str:
        """Bind an idempotency key to job_id unless another job has it; returns the job the key names."""
        name = f"{self._prefix}-key:{key}"
        if self._redis.set(name, job_id, nx=True, ex=self._ttl_s):
            return job_id
        return self.job_for_key(key) or job_id

    def fingerprint(self, job_id: str) -> str:
        """The request fingerprint a job was created with."""
        value = self._redis.hget(self._key(job_id, "meta"), "fingerprint")
        return _text(value) if value is not None else ""

    def discard(self, job_id: str) -> None:
        """Delete a job that was never queued (it lost an idempotency-key race)."""
        batches = int(self._redis.hget(self._key(job_id, "meta"), "batches") or 0)
        parts = ["meta", "errors", *(f"batch:{n}" for n in range(batches))]
        self._redis.delete(*(self._key(job_id, part) for part in parts))

    def _touch(self, job_id: str, state: JobState | None = None) -> None:
        mapping: dict[str, FieldValue] = {"updated_at": time.time()}
        current = self._redis.hget(self._key(job_id, "meta"), "state")
        if state is not None and _text(current or b"") != JobState.FAILED.value:
            mapping["state"] = state.value
        self._redis.hset(self._key(job_id, "meta"), mapping=_fields(mapping))

    def tenant_of(self, job_id: str) -> str | None:
        """The tenant of the key that submitted the job (None: unknown job, or a key spanning every tenant)."""
        tenant = self._redis.hget(self._key(job_id, "meta"), "tenant")
        return (_text(tenant) or None) if tenant is not None else None

    def get(self, job_id: str) -> JobStatus:
        """Current status, derived from what the workers recorded."""
        meta = {_text(k): _text(v) for k, v in self._redis.hgetall(self._key(job_id, "meta")).items()}
        if not meta:
            raise JobNotFoundError(f"no job with id {job_id}")
        pipe = self._redis.pipeline()
        for part in ("chunks", "errors", "batches:done", "deliveries"):
            pipe.hgetall(self._key(job_id, part))
        pipe.scard(self._key(job_id, "batches:failed"))
        raw_chunks, raw_errors, raw_done, raw_deliveries, failed = pipe.execute()
        chunks = {_text(k): int(v) for k, v in raw_chunks.items()}
        errors = {_text(k): _text(v) for k, v in raw_errors.items()}
        total, batches = int(meta["total"]), int(meta.get("batches", 0))
        return JobStatus(
            job_id=job_id,
            state=_derive_state(JobState(meta["state"]), batches=batches, done=len(raw_done), failed=int(failed)),
            index=meta["index"],
            documents_total=total,
            documents_done=len(chunks),
            documents_failed=len(errors),
            chunks_done=sum(chunks.values()),
            errors=errors,
            created_at=float(meta["created_at"]),
            updated_at=float(meta["updated_at"]),
            batches_total=batches,
            batches_done=len(raw_done),
            batches_failed=int(failed),
            deliveries=sum(int(v) for v in raw_deliveries.values()),
            workers=tuple(sorted({_text(v) for v in raw_done.values()})),
        )


def _derive_state(stored: JobState, *, batches: int, done: int, failed: int) -> JobState:
    """Done or failed once every batch has settled (failed if any batch gave up), else as stored."""
    if stored is JobState.FAILED:  # jobs recorded before failed batches were tracked one by one
        return JobState.FAILED
    if done + failed >= batches:
        return JobState.FAILED if failed else JobState.DONE
    return stored


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
    tenant: str | None = None,
    idempotency_key: str | None = None,
    max_batch_bytes: int | None = None,
) -> str:
    """Create a job, split into batches, and hand each batch to the queue.

    With an idempotency key, a repeat of the same request (even a concurrent one) gets the first job's id and
    queues nothing; the same key with a different request is a ConflictError."""
    fingerprint = request_fingerprint(documents, index=index, rejected=rejected or {})
    key = scoped(tenant, idempotency_key) if idempotency_key is not None else None
    if key is not None and (existing := store.job_for_key(key)) is not None:
        return _replayed(store, existing, fingerprint, idempotency_key)
    batches = split_batches(documents, per_batch=per_batch, max_bytes=max_batch_bytes)
    job_id = store.create(index=index, batches=batches, rejected=rejected, tenant=tenant, fingerprint=fingerprint)
    if key is not None and (winner := store.claim_key(key, job_id)) != job_id:
        store.discard(job_id)
        return _replayed(store, winner, fingerprint, idempotency_key)
    store.send(job_id, range(len(batches)), enqueue, tenant=tenant)
    return job_id


def split_batches(documents: Sequence[Document], *, per_batch: int, max_bytes: int | None = None
                  ) -> list[list[Document]]:
    """Consecutive batches of at most per_batch documents, each ending before its content passes max_bytes (a
    document larger than that gets a batch of its own), so that no batch holds a worker for long."""
    batches: list[list[Document]] = []
    current: list[Document] = []
    size = 0
    for document in documents:
        length = len(document.content.encode("utf-8", "surrogatepass"))
        if current and (len(current) >= per_batch or (max_bytes is not None and size + length > max_bytes)):
            batches.append(current)
            current, size = [], 0
        current.append(document)
        size += length
    if current:
        batches.append(current)
    return batches


def request_fingerprint(documents: Sequence[Document], *, index: str, rejected: Mapping[str, str]) -> str:
    """A hash of what an ingest request asks for, to tell a retried request from a different one."""
    body = {"index": index, "documents": [document_to_json(d) for d in documents], "rejected": dict(rejected)}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


def _replayed(store: JobStore, job_id: str, fingerprint: str, idempotency_key: str | None) -> str:
    if store.fingerprint(job_id) != fingerprint:
        raise ConflictError(f"Idempotency-Key {idempotency_key!r} was already used for a different request "
                            f"(job {job_id})")
    return job_id


def resume(store: JobStore, enqueue: Enqueue, job_id: str) -> list[int]:
    """Queue a job's failed batches again; returns their numbers. Deterministic chunk ids make the re-run
    overwrite, never duplicate; a job without failed batches is a ConflictError."""
    numbers = store.take_failed_batches(job_id)
    if not numbers:
        raise ConflictError(f"job {job_id} has no failed batches to resume")
    store.send(job_id, numbers, enqueue, tenant=store.tenant_of(job_id))
    return numbers


def wait_for(store: JobStore, job_id: str, *, timeout_s: float, poll_s: float = 0.5) -> JobStatus:
    """Poll until the job finishes or the timeout passes (returns the last status either way)."""
    deadline = time.monotonic() + timeout_s
    status = store.get(job_id)
    while not status.finished and time.monotonic() < deadline:
        time.sleep(poll_s)
        status = store.get(job_id)
    return status
