"""Backups against the real Elasticsearch: snapshot an alias's index to the fs repository under path.repo (written
by infra/), delete the index, restore it under a fresh name and find every chunk and document record again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from elasticsearch import Elasticsearch, helpers
from typer.testing import CliRunner

from search_platform.backends.elasticsearch import snapshots
from search_platform.backends.elasticsearch.client import build_admin_client, build_client
from search_platform.backends.elasticsearch.mappings import ensure_index, versioned_index_name
from search_platform.cli.main import app
from search_platform.config import Settings
from search_platform.domain.models import Document
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.ingestion.pipeline import chunk_document, document_action, embed_chunks, index_actions
from search_platform.ingestion.writer import BulkOptions, write_actions

pytestmark = pytest.mark.integration

DIMS = 16
TOPICS = ("certificate rotation", "backup retention", "disk quotas", "kernel modules", "log shipping")


@pytest.fixture
def admin(services: Settings) -> Iterator[Elasticsearch]:
    client = build_admin_client(services.elasticsearch)
    yield client
    client.close()


def ingest(settings: Settings, alias: str) -> set[str]:
    """Write 15 multi-chunk documents into a fresh index behind alias; returns every record id written."""
    embedder = FakeEmbedder(DIMS)
    data = build_client(settings.elasticsearch)
    try:
        ensure_index(data, settings.elasticsearch, alias=alias, dims=DIMS)
        actions, doc_of = [], {}
        now = datetime.now(UTC)
        for n in range(15):
            paragraphs = [f"Paragraph {p} of document {n} on {TOPICS[(n + p) % len(TOPICS)]}. " * 12
                          for p in range(4)]
            document = Document(doc_id=f"doc-{n:02d}", content="\n\n".join(paragraphs), title=f"Document {n}")
            chunks = chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens)
            for action in [*index_actions(chunks, embed_chunks(chunks, embedder), index=alias, indexed_at=now),
                           document_action(document, chunks, index=alias, indexed_at=now)]:
                actions.append(action)
                doc_of[action["_id"]] = document.doc_id
        report = write_actions(data, actions, doc_of=doc_of, options=BulkOptions())
        assert not report.errors
        data.indices.refresh(index=alias)
    finally:
        data.close()
    return set(doc_of)


def record_ids(client: Elasticsearch, index: str) -> list[str]:
    """Every _id in index, as scanned (duplicates would show)."""
    return [hit["_id"] for hit in helpers.scan(client, index=index, query={"query": {"match_all": {}}},
                                               _source=False)]


def drop_snapshot(client: Elasticsearch, settings: Settings, name: str) -> None:
    client.options(ignore_status=404).snapshot.delete(repository=settings.elasticsearch.snapshot_repository,
                                                      snapshot=name)


def test_snapshot_delete_restore_finds_every_chunk(services: Settings, index: str, admin: Elasticsearch) -> None:
    es = services.elasticsearch
    expected = ingest(services, index)
    chunk_count = admin.count(index=index, query={"term": {"kind": "chunk"}})["count"]
    assert chunk_count > 15 * 2  # several chunks a document, plus one record each
    assert sorted(record_ids(admin, index)) == sorted(expected)
    name = f"{index}-snap"
    concrete = versioned_index_name(index)
    try:
        info = snapshots.create_snapshot(admin, es, alias=index, name=name)
        assert (info.state, info.indices, info.alias, info.shards_failed) == ("SUCCESS", (concrete,), index, 0)
        assert name in [listed.name for listed in snapshots.list_snapshots(admin, es)]

        admin.indices.delete(index=concrete)
        assert not admin.indices.exists(index=concrete) and not admin.indices.exists_alias(name=index)

        suffix = snapshots.restore_suffix(datetime.now(UTC))
        report = snapshots.restore_snapshot(admin, es, name=name, suffix=suffix, alias=index)
        assert report.indices == (f"{concrete}{suffix}",) and report.shards_failed == 0
        assert list(admin.indices.get_alias(name=index)) == [f"{concrete}{suffix}"]
        restored = record_ids(admin, index)
        assert len(restored) == len(expected) and set(restored) == expected
        assert admin.count(index=index, query={"term": {"kind": "chunk"}})["count"] == chunk_count
        # the vectors came back too (they are indexed, not in _source): kNN finds chunks of the right topic
        vector = FakeEmbedder(DIMS).embed_query("backup retention")
        hits = admin.search(index=index, knn={"field": "embedding", "query_vector": vector, "k": 5,
                                              "num_candidates": 50})["hits"]["hits"]
        assert len(hits) == 5 and "backup retention" in hits[0]["_source"]["text"]
    finally:
        drop_snapshot(admin, services, name)


def test_the_cli_creates_lists_and_restores_beside_the_original(services: Settings, index: str,
                                                                  admin: Elasticsearch) -> None:
    expected = ingest(services, index)
    name = f"{index}-cli"
    runner = CliRunner()
    restored: list[str] = []
    try:
        created = runner.invoke(app, ["snapshots", "create", "--alias", index, "--name", name, "--format", "json"])
        assert created.exit_code == 0, created.output
        assert json.loads(created.stdout)[0]["indices"] == [versioned_index_name(index)]

        listed = runner.invoke(app, ["snapshots", "list", "--format", "json"])
        assert listed.exit_code == 0, listed.output
        entry = next(entry for entry in json.loads(listed.stdout) if entry["name"] == name)
        assert (entry["state"], entry["alias"], entry["shards_failed"]) == ("SUCCESS", index, 0)

        done = runner.invoke(app, ["snapshots", "restore", name, "--format", "json"])  # no swap: beside it
        assert done.exit_code == 0, done.output
        restored = json.loads(done.stdout)["indices"]
        (fresh,) = restored
        assert fresh.startswith(f"{versioned_index_name(index)}-restored-")
        assert list(admin.indices.get_alias(name=index)) == [versioned_index_name(index)]  # alias untouched
        assert sorted(record_ids(admin, fresh)) == sorted(record_ids(admin, index))
        assert set(record_ids(admin, fresh)) == expected

        missing = runner.invoke(app, ["snapshots", "restore", f"{name}-nope"])
        assert missing.exit_code == 1 and "snapshot" in missing.output
        bad = runner.invoke(app, ["snapshots", "create", "--alias", index, "--name", "Not Valid"])
        assert bad.exit_code == 2
    finally:
        drop_snapshot(admin, services, name)
        for fresh in restored:
            admin.options(ignore_status=404).indices.delete(index=fresh)
