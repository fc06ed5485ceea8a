"""`search-platform reindex` against real Elasticsearch, Redis and a Celery worker: a version-1 index (chunks only)
and a current one (document records) rebuilt while searches run, with the alias swapped at the end."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest
from elasticsearch import Elasticsearch, helpers
from redis import Redis
from search_platform_client import ConflictError, SearchClient

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import MAPPING_VERSION, is_current
from search_platform.config import Settings
from search_platform.domain.models import ContentType, Document
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.factory import build_embedder
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.ingestion.batch import IngestContext, ingest_documents
from search_platform.ingestion.jobs import JobStore, document_to_json
from search_platform.ingestion.pipeline import chunk_document, document_body, embed_chunks
from search_platform.ingestion.queue import create_celery, enqueue_batch
from search_platform.ingestion.reindex import Reindexer, ReindexReport, staging_alias
from search_platform.text.normalize import collapse_whitespace
from tests.integration.conftest import CLI, ROOT
from tests.integration.corpus import DOCUMENTS, LONG_DOCUMENT

pytestmark = pytest.mark.integration


def _v1_body(dims: int) -> dict[str, Any]:
    """The version-1 index as mapping version 1 created it (commit 52cc8bc^): chunks only, no `kind`."""
    text = {"type": "text", "analyzer": "standard", "similarity": "sp_bm25"}
    return {
        "settings": {"number_of_shards": 1, "number_of_replicas": 0,
                     "similarity": {"sp_bm25": {"type": "BM25", "k1": 1.2, "b": 0.75}}},
        "mappings": {
            "dynamic": "strict",
            "_source": {"excludes": ["embedding"]},
            "properties": {
                "doc_id": {"type": "keyword"}, "chunk_index": {"type": "integer"},
                "content_hash": {"type": "keyword"}, "text": text,
                "title": {**text, "fields": {"keyword": {"type": "keyword", "ignore_above": 512}}},
                "section": text, "tech": text, "source": {"type": "keyword"}, "tags": {"type": "keyword"},
                "lang": {"type": "keyword"}, "tenant": {"type": "keyword"}, "indexed_at": {"type": "date"},
                "embedding": {"type": "dense_vector", "dims": dims, "index": True, "similarity": "cosine",
                              "index_options": {"type": "hnsw", "m": 16, "ef_construction": 100}},
            },
        },
    }


def _documents() -> list[Document]:
    """The test corpus, a long plain-text document whose chunks overlap, and one doc_id under two tenants."""
    corpus = [Document(**{**raw, "tags": tuple(raw.get("tags", ())),  # type: ignore[arg-type]
                          "content_type": ContentType(str(raw.get("content_type", "text")))})
              for raw in [*DOCUMENTS, LONG_DOCUMENT]]
    prose = "\n\n".join(
        " ".join(f"Report {n} line {s} records valve pressure {n * 13 + s} kPa at station Q{n}{s}." for s in range(9))
        for n in range(8))
    return [*corpus,
            Document(doc_id="pressure-log", content=prose, title="Pressure log", source="plant", tags=("ops",)),
            Document(doc_id="bread", content="Rye bread needs a longer proof than wheat bread.", title="Rye",
                     source="recipes", tags=("kitchen",), tenant="bakery")]


@pytest.fixture(scope="module")
def embedder(services: Settings) -> Embedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return build_embedder(services.embedding)


@pytest.fixture
def es(services: Settings) -> Iterator[Elasticsearch]:
    client = build_client(services.elasticsearch)
    yield client
    client.close()


@pytest.fixture
def leftovers(es: Elasticsearch) -> Iterator[list[str]]:
    """Indices a test made beside the one its alias ends on (the fixture `index` deletes that one)."""
    names: list[str] = []
    yield names
    for name in names:
        es.indices.delete(index=name, ignore_unavailable=True)


@pytest.fixture
def reindexer(services: Settings, es: Elasticsearch, embedder: Embedder) -> Iterator[Reindexer]:
    redis: Redis[bytes] = Redis.from_url(services.redis.url)
    celery = create_celery(services)
    yield Reindexer(settings=services, client=es, store=JobStore.from_settings(redis, services),
                    enqueue=partial(enqueue_batch, celery), dims=lambda: embedder.dims, timeout_s=600)
    redis.close()


def write_v1_index(es: Elasticsearch, alias: str, documents: list[Document], settings: Settings,
                   embedder: Embedder) -> dict[tuple[str, str], list[str]]:
    """A version-1 index behind alias holding the documents' chunks (real vectors); returns their chunk texts."""
    index = f"{alias}-v1"
    body = _v1_body(embedder.dims)
    es.indices.create(index=index, settings=body["settings"], mappings=body["mappings"])
    es.indices.put_alias(index=index, name=alias, is_write_index=True)
    texts: dict[tuple[str, str], list[str]] = {}
    actions = []
    now = datetime.now(UTC).isoformat()
    for document in documents:
        chunks = chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens)
        texts[(document.tenant, document.doc_id)] = [chunk.text for chunk in chunks]
        for chunk, vector in zip(chunks, embed_chunks(chunks, embedder), strict=True):
            actions.append({"_index": index, "_id": chunk.chunk_id, "_source": {
                "doc_id": chunk.doc_id, "chunk_index": chunk.chunk_index, "content_hash": chunk.content_hash,
                "text": chunk.text, "title": chunk.title, "section": chunk.section, "tech": chunk.tech,
                "source": chunk.source, "tags": list(chunk.tags), "lang": chunk.lang, "tenant": chunk.tenant,
                "indexed_at": now, "embedding": vector}})
    helpers.bulk(es, actions, refresh=True)
    return texts


@dataclass
class SearchLoop:
    """Searches the alias through the API over and over from a thread (with its own client), counting answers and
    errors."""

    url: str
    api_key: str
    alias: str
    stop: threading.Event = field(default_factory=threading.Event)
    answers: list[tuple[float, int]] = field(default_factory=list)  # (time, hits)
    errors: list[str] = field(default_factory=list)
    queries: tuple[str, ...] = ("valve pressure at station", "replacement hinge KX9ZQ4471", "sourdough starter")

    def run(self) -> None:
        with SearchClient(self.url, api_key=self.api_key, timeout=60) as client:
            n = 0
            while not self.stop.is_set():
                mode = ("hybrid", "bm25", "semantic")[n // 3 % 3]
                try:
                    response = client.search(self.queries[n % 3], mode=mode, index=self.alias, top_k=5)
                    self.answers.append((time.monotonic(), len(response.hits)))
                except Exception as error:  # any failure counts
                    self.errors.append(f"{mode}: {error!r}")
                n += 1

    def __enter__(self) -> SearchLoop:
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join(timeout=120)


Pair = tuple[str, str]


def index_state(es: Elasticsearch, alias: str) -> tuple[dict[Pair, dict[str, Any]], dict[Pair, list[str]],
                                                        list[dict[str, Any]]]:
    """The document records behind alias, each document's chunk texts in order, and every chunk."""
    es.indices.refresh(index=alias)
    records: dict[Pair, dict[str, Any]] = {}
    chunks: list[dict[str, Any]] = []
    for hit in helpers.scan(es, index=alias, query={"query": {"match_all": {}}}):
        source = {**hit["_source"], "_id": hit["_id"]}
        if source.get("kind") == "document":
            records[(source["tenant"], source["doc_id"])] = source
        else:
            chunks.append(source)
    texts: dict[Pair, list[str]] = {}
    for chunk in sorted(chunks, key=lambda c: (c["tenant"], c["doc_id"], c["chunk_index"])):
        texts.setdefault((chunk["tenant"], chunk["doc_id"]), []).append(chunk["text"])
    return records, texts, chunks


def assert_every_chunk_is_searchable(client: SearchClient, alias: str, chunks: list[dict[str, Any]]) -> None:
    """Each chunk comes back for its own words by BM25 and by the dense leg, within its own document."""
    for chunk in chunks:
        words = " ".join(chunk["text"].split()[:24])
        filters = {"doc_ids": [chunk["doc_id"]], "tenants": [chunk["tenant"]]}
        for mode in ("bm25", "semantic"):
            response = client.search(words, mode=mode, index=alias, top_k=20, group_by="chunk", filters=filters)
            assert chunk["_id"] in {hit.chunk_id for hit in response.hits}, (mode, chunk["doc_id"], words)


def run_cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SP_ENVIRONMENT": "test", "SP_REDIS__URL": settings.redis.url, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([CLI, "reindex", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
                          check=False)


def test_version_1_index_is_migrated_while_searches_keep_answering(services, worker, api, admin_key, client, es,
                                                                   index, embedder, leftovers):
    documents = _documents()
    leftovers.append(f"{index}-v1")
    v1_texts = write_v1_index(es, index, documents, services, embedder)
    with SearchLoop(api, admin_key, index) as loop:
        time.sleep(2)  # searches against the version-1 index first
        started = time.monotonic()
        result = run_cli(services, "--alias", index)
        took = time.monotonic() - started
        time.sleep(2)  # and against the new one after the swap
    print(result.stdout, f"\nreindex CLI wall time {took:.1f} s; {len(loop.answers)} searches during the test")
    assert result.returncode == 0, result.stderr
    assert loop.errors == [], loop.errors[:3]
    assert len([at for at, _ in loop.answers if started <= at <= started + took]) >= 5
    assert all(hits > 0 for at, hits in loop.answers if at > started + took), "after the swap searches find hits"

    (new_index,) = es.indices.get_alias(name=index)
    assert is_current(new_index, index) and new_index.startswith(f"{index}-v{MAPPING_VERSION}-r")
    assert es.indices.exists(index=f"{index}-v1"), "the old index is kept without --delete-old"
    assert set(es.indices.get_alias(index=new_index)[new_index]["aliases"]) == {index}, "the staging alias is gone"
    records, texts, chunks = index_state(es, index)
    originals = {(d.tenant, d.doc_id): d for d in documents}
    assert set(records) == set(originals), "the same documents, under their tenants"
    assert texts == v1_texts, "re-chunking the rebuilt text gives the version-1 chunks again"
    for pair, record in records.items():
        original = originals[pair]
        title = chunk_document(original, chunking=services.chunking, count_tokens=embedder.count_tokens)[0].title
        assert (record["title"], record["source"], record["tags"], record["lang"]) == (
            title, original.source, list(original.tags), original.lang)
        assert collapse_whitespace(record["body"]) == collapse_whitespace(document_body(original))
        assert record["chunk_count"] == len(v1_texts[pair])
    assert f"before: {len(documents)} documents, {len(chunks)} chunks, 0 document records" in result.stdout
    assert f"after:  {len(documents)} documents, {len(chunks)} chunks, {len(documents)} document records" \
        in result.stdout
    assert_every_chunk_is_searchable(client, index, chunks)


@dataclass(frozen=True)
class _WritesDuringRun(Reindexer):
    """A reindexer whose main pass is followed, before its catch-up, by a client changing the old index: one
    document updated, one added and one deleted through the API."""

    api: SearchClient | None = None
    alias: str = ""
    calls: list[str] = field(default_factory=list)

    def ingest(self, documents: Any, *, staging: str) -> int:
        count = super().ingest(documents, staging=staging)
        if self.api is not None and not self.calls:
            self.calls.append(staging)
            update = Document(doc_id="tomatoes", content="Tomatoes were moved to the greenhouse in March.",
                              title="Growing tomatoes", source="garden-notes", tags=("garden",))
            added = Document(doc_id="late-arrival", content="A document written while the re-index ran.")
            job = self.api.ingest([_wire(update), _wire(added)], index=self.alias)
            assert self.api.wait_for_job(job.job_id, timeout_s=300).state == "done"
            self.api.delete_document("bread", index=self.alias, tenant="bakery")
        return count


def _wire(document: Document) -> dict[str, Any]:
    return {key: value for key, value in document_to_json(document).items() if key != "tenant"}


def test_current_index_is_re_embedded_from_its_records_and_catches_up(services, worker, api, admin_key, client, es,
                                                                       index, reindexer, leftovers):
    documents = _documents()
    for tenant in ("default", "bakery"):
        job = client.ingest([{**_wire(d), "tenant": tenant} for d in documents if d.tenant == tenant], index=index)
        assert client.wait_for_job(job.job_id, timeout_s=300).state == "done"
    records_before, texts_before, _ = index_state(es, index)
    (old_index,) = es.indices.get_alias(name=index)
    leftovers.append(old_index)

    with SearchLoop(api, admin_key, index) as loop:
        report: ReindexReport = reindexer.run(alias=index)
    print(report, f"{len(loop.answers)} searches during the run")
    assert loop.errors == [], loop.errors[:3]
    assert (report.from_records, report.rebuilt, report.caught_up, report.removed) == (len(documents), 0, 0, 0)
    assert report.before.documents == report.before.records == len(documents)
    assert report.after == report.before, "counts after equal counts before"
    (new_index,) = es.indices.get_alias(name=index)
    assert new_index != old_index and is_current(new_index, index)
    records, texts, _ = index_state(es, index)
    assert texts == texts_before
    for pair, record in records.items():
        assert record["content"] == records_before[pair]["content"], "the original content, kept exactly"
        assert record["indexed_at"] > records_before[pair]["indexed_at"], "re-embedded, not copied"

    # the same alias again, the old index changing between the main pass and the catch-up
    base = {f.name: getattr(reindexer, f.name) for f in fields(Reindexer)}
    again = _WritesDuringRun(**base, api=client, alias=index).run(alias=index, delete_old=True)
    print(again)
    assert (again.caught_up, again.removed) == (2, 1)
    assert again.after.documents == again.before.documents  # one added, one deleted
    assert not es.indices.exists(index=new_index), "--delete-old deleted the index it replaced"
    records, texts, _ = index_state(es, index)
    assert ("default", "late-arrival") in records and ("bakery", "bread") not in records
    assert texts[("default", "tomatoes")] == ["Tomatoes were moved to the greenhouse in March."]


def vector_dims(es: Elasticsearch, alias: str) -> int:
    (mapping,) = es.indices.get_field_mapping(index=alias, fields="embedding").body.values()
    return int(mapping["mappings"]["embedding"]["mapping"]["embedding"]["dims"])


def test_an_index_of_another_model_is_refused_until_reindex_if_needed_rebuilds_it(
        services, worker, api, client, es, index, embedder, leftovers):
    documents = _documents()[:4]
    previous_model = IngestContext(settings=services, client=es, embedder=FakeEmbedder(dims=embedder.dims // 2))
    assert ingest_documents(documents, index=index, ctx=previous_model).errors == {}
    es.indices.refresh(index=index)
    (old_index,) = es.indices.get_alias(name=index)
    leftovers.append(old_index)
    assert vector_dims(es, index) == embedder.dims // 2

    job = client.ingest([{"doc_id": "late", "content": "Written after the model changed."}], index=index)
    failed = client.wait_for_job(job.job_id, timeout_s=300)
    assert (failed.state, failed.documents_failed) == ("failed", 1)
    assert "another embedding model" in failed.errors["late"]
    assert f"search-platform reindex --alias {index}" in failed.errors["late"]
    with pytest.raises(ConflictError) as refused:  # the query vector does not fit the index
        client.search("how do plants grow", index=index, mode="semantic")
    assert refused.value.body["error"] == "index_outdated", refused.value.body
    assert "search-platform reindex" in refused.value.body["message"]
    lexical_only = client.search(documents[0].doc_id, index=index, mode="hybrid")  # BM25 answers, said so
    assert lexical_only.degraded and lexical_only.hits
    assert "another embedding model" in (lexical_only.degraded_reason or "")

    result = run_cli(services, "--alias", index, "--if-needed")
    print(result.stdout)
    assert result.returncode == 0, result.stderr
    assert f"{index} needs a re-index: {index} holds vectors of another embedding model" in result.stdout
    assert f"after:  {len(documents)} documents" in result.stdout
    assert vector_dims(es, index) == embedder.dims
    assert client.search(documents[0].title or documents[0].doc_id, index=index, mode="hybrid").hits

    again = run_cli(services, "--alias", index, "--if-needed")
    assert again.returncode == 0, again.stderr
    assert f"{index}: nothing to re-index" in again.stdout
    (current,) = es.indices.get_alias(name=index)
    assert current != old_index


def test_reindex_if_needed_leaves_a_missing_alias_alone(services, index):
    result = run_cli(services, "--alias", index, "--if-needed")
    assert result.returncode == 0, result.stderr
    assert f"{index}: nothing to re-index" in result.stdout


def test_staging_alias_name():
    at = datetime(2026, 12, 3, 10, 15, 0, 123456, tzinfo=UTC)
    assert staging_alias("sp-chunks", at) == f"sp-chunks-v{MAPPING_VERSION}-r20261203101500123"
    assert is_current(f"{staging_alias('sp-chunks', at)}-v{MAPPING_VERSION}", "sp-chunks")
