"""The platform under evaluation: its corpus ingested through Celery into an index of its own, its three
modes searched in-process through the same SearchService the API uses."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from celery import Celery
from elasticsearch import Elasticsearch
from redis import Redis

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.backends.elasticsearch.mappings import MAPPING_VERSION, delete_index, index_body, is_current
from search_platform.config import Settings
from search_platform.domain.errors import SearchPlatformError
from search_platform.domain.models import Document, GroupBy, SearchMode
from search_platform.evaluation.runner import RankedDoc
from search_platform.ingestion.jobs import JobState, JobStatus, JobStore, submit, wait_for
from search_platform.ingestion.queue import enqueue_batch
from search_platform.service.search_service import SearchParams, SearchService


class EvaluationSetupError(SearchPlatformError):
    """The platform is not ready to be evaluated (no worker, ingestion failed)."""


# what shapes an index's contents and scores; connection settings (URLs, users, timeouts) do not
INDEX_SHAPING_SETTINGS: set[str] = {
    "number_of_shards", "bm25_k1", "bm25_b", "vector_index_type", "hnsw_m", "hnsw_ef_construction"}
CORPUS_LIMIT_SETTINGS: set[str] = {"max_document_bytes", "max_chunks_per_document"}
WORKER_CHECK_S = 30.0  # how often a running ingestion's worker is pinged
WORKER_SILENCE_S = 300.0  # no answer for this long: the worker is gone and the evaluation stops
STALL_S = 3600.0  # no batch settled for this long: stuck (the largest document allowed takes about 40 minutes)


def corpus_fingerprint(corpus: Sequence[Document], settings: Settings, *, encoder: str = "",
                       mapping_version: int = MAPPING_VERSION) -> str:
    """Identifies what an evaluation index holds: the documents and everything that shapes their chunks and
    vectors. encoder: the embedder's passage fingerprint (a probe vector's hash), which catches a changed export
    or quantisation of the same named model that the settings alone do not show."""
    digest = hashlib.sha256()
    embedding = settings.embedding.model_dump(include={"backend", "model", "model_path", "onnx_quantize"})
    embedding["encoder"] = encoder
    index = settings.elasticsearch.model_dump(include=INDEX_SHAPING_SETTINGS)
    mapping = index_body(settings.elasticsearch, dims=0)  # analyzers and fields
    # the version too: it also changes when ingestion derives a field differently (`defines`) in the same mapping
    limits = settings.ingestion.model_dump(include=CORPUS_LIMIT_SETTINGS)  # which documents are indexed at all
    shape = {"chunking": settings.chunking.model_dump(), "embedding": embedding, "mapping": mapping, "es": index,
             "mapping_version": mapping_version, "limits": limits}
    digest.update(json.dumps(shape, sort_keys=True, default=str).encode())
    for document in sorted(corpus, key=lambda d: d.doc_id):
        digest.update(f"{document.doc_id}\x1f{document.title}\x1f{document.content}\x1e".encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class EvaluationIndex:
    """The alias an evaluation searches, whether an earlier run's index was reused (nothing re-embedded), and the
    corpus documents ingestion refused (doc_id: reason), which no mode can find."""

    alias: str
    reused: bool
    not_indexed: Mapping[str, str] = field(default_factory=dict)


def ensure_evaluation_index(settings: Settings, corpus: Sequence[Document], celery: Celery, *,
                            encoder: str, count_chunks: Callable[[Document], int]) -> EvaluationIndex:
    """Ingest the corpus through the normal Celery pipeline into sp-eval-<fingerprint>, unless already done
    (encoder: the passage fingerprint of the embedder the worker shares with this process). The fingerprint is
    this process's settings, the chunks the worker's: count_chunks (a document's chunks under this process's
    settings) must add up to what the worker indexed, else the index would be named for chunks it does not hold."""
    alias = f"sp-eval-{corpus_fingerprint(corpus, settings, encoder=encoder)}"
    redis: Redis[bytes] = Redis.from_url(settings.redis.url)
    marker = f"sp:eval:{alias}"
    es = build_client(settings.elasticsearch)
    try:
        done = redis.get(marker)
        if done is not None and _held_at_this_mapping_version(es, alias):
            return EvaluationIndex(alias, reused=True, not_indexed=_refused(done))
        if not celery.control.ping(timeout=2.0):
            raise EvaluationSetupError("no Celery worker answers: start one with `search-platform up --app`")
        delete_index(es, alias=alias)
        store = JobStore(redis, ttl_s=settings.redis.job_ttl_s)
        job_id = submit(store, partial(enqueue_batch, celery), list(corpus), index=alias,
                        per_batch=settings.ingestion.documents_per_task)
        status = _wait_while_a_worker_answers(store, job_id, celery)
        if status.state is not JobState.DONE or status.documents_done == 0:
            first_errors = dict(list(status.errors.items())[:5])
            raise EvaluationSetupError(f"ingesting the corpus ended {status.state}: {first_errors}")
        expected = sum(count_chunks(document) for document in corpus if document.doc_id not in status.errors)
        if status.chunks_done != expected:
            delete_index(es, alias=alias)
            raise EvaluationSetupError(
                f"the worker made {status.chunks_done} chunks of the corpus where this process's settings make "
                f"{expected}: the worker runs with other settings (chunking, model); restart it with the same "
                "environment (`search-platform down`, then `search-platform up --app`)")
        if not _held_at_this_mapping_version(es, alias):
            delete_index(es, alias=alias)
            raise EvaluationSetupError(
                f"the worker indexed the corpus at another mapping version than this process's ({MAPPING_VERSION}): "
                "it runs other code; restart it (`search-platform down`, then `search-platform up --app`)")
        redis.set(marker, json.dumps({"not_indexed": status.errors}))
        return EvaluationIndex(alias, reused=False, not_indexed=dict(status.errors))
    finally:
        es.close()
        redis.close()


def _held_at_this_mapping_version(es: Elasticsearch, alias: str) -> bool:
    """Whether alias exists and every index behind it has this code's mapping version: the version also names how
    ingestion derives stored fields (`defines`), so an index that a worker of other code built is not reused."""
    with translated_errors():
        if not es.indices.exists_alias(name=alias):
            return False
        return all(is_current(index, alias) for index in es.indices.get_alias(name=alias))


def _wait_while_a_worker_answers(store: JobStore, job_id: str, celery: Celery) -> JobStatus:
    """The finished job's status. A large corpus takes as long as it takes (hours for tens of thousands of chunks
    with a large model on a small machine), so there is no deadline; the wait ends when no worker has answered a
    ping for WORKER_SILENCE_S (a busy worker answers: its main process is not the one encoding), or when no batch
    has settled for STALL_S."""
    def settled(status: JobStatus) -> int:
        return status.batches_done + status.batches_failed

    silent_since: float | None = None
    status = wait_for(store, job_id, timeout_s=WORKER_CHECK_S)
    progress, progressed_at = settled(status), time.monotonic()
    while not status.finished:
        if settled(status) != progress:
            progress, progressed_at = settled(status), time.monotonic()
        elif time.monotonic() - progressed_at > STALL_S:
            raise EvaluationSetupError(f"no ingestion batch has settled for {STALL_S:.0f} s ({status.documents_done} "
                                       f"of {status.documents_total} documents done); see the worker's log")
        if celery.control.ping(timeout=5.0):
            silent_since = None
        elif silent_since is None:
            silent_since = time.monotonic()
        elif time.monotonic() - silent_since > WORKER_SILENCE_S:
            raise EvaluationSetupError(f"no Celery worker has answered for {WORKER_SILENCE_S:.0f} s while the corpus "
                                       f"was being ingested ({status.documents_done} of {status.documents_total} "
                                       "documents done): start one with `search-platform up --app`")
        status = wait_for(store, job_id, timeout_s=WORKER_CHECK_S)
    return status


def _refused(marker: bytes) -> dict[str, str]:
    """The refused documents a finished ingestion recorded (none in a marker of before they were recorded)."""
    if marker == b"done":
        return {}
    return {str(doc_id): str(reason) for doc_id, reason in json.loads(marker)["not_indexed"].items()}


@dataclass
class PlatformSystem:
    """One search mode of the platform as a RetrievalSystem for the runner; `params` are further SearchParams
    fields (fusion, rrf_k, candidate_k, weights, ...) and `label` names such a configuration in reports."""

    mode: SearchMode
    service: SearchService
    index: str
    loop: asyncio.AbstractEventLoop
    documents: int = 10  # the harness scores the top 10 documents (nDCG@10, R@10, MRR@10)
    params: Mapping[str, Any] = field(default_factory=dict)
    label: str | None = None

    @property
    def name(self) -> str:
        """The label, else the mode: bm25, semantic or hybrid."""
        return self.label or self.mode.value

    def search(self, query: str, *, top_k: int) -> list[RankedDoc]:
        """Document hits (each a document's passage), fused per document: the harness scores documents."""
        params = SearchParams(**{"query": query, "mode": self.mode, "top_k": min(top_k, self.documents),
                                 "index": self.index, "group_by": GroupBy.DOCUMENT, **self.params})
        _, result = self.loop.run_until_complete(self.service.search(params))
        return [RankedDoc(doc_id=str(hit.source["doc_id"]), score=hit.score) for hit in result.hits]
