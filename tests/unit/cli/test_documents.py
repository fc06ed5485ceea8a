"""`documents get|delete|delete-where|purge-tenant` send the right requests and print what the API answered."""

from __future__ import annotations

import json

import httpx
from typer.testing import CliRunner

from search_platform.cli.main import app

runner = CliRunner()
INFO = {"doc_id": "d1", "tenant": "acme", "index": "sp-chunks", "chunk_count": 3, "content_hash": "abc",
        "indexed_at": "2026-12-03T10:00:00+00:00", "title": "T", "source": "s", "tags": []}
DELETED = {"index": "sp-chunks", "documents": [{"tenant": "acme", "doc_id": "d1"}], "records_deleted": 4}


def test_get_prints_the_chunk_count_and_hash(api):
    seen = api(lambda request: httpx.Response(200, json=INFO))
    result = runner.invoke(app, ["documents", "get", "d1", "--index", "sp-chunks"])
    assert result.exit_code == 0, result.output
    assert "3 chunks, hash abc" in result.output
    assert (seen[0].method, seen[0].url.path, seen[0].url.params["index"]) == ("GET", "/v1/documents/d1", "sp-chunks")


def test_a_missing_document_exits_1(api):
    api(lambda request: httpx.Response(404, json={"error": "document_not_found", "message": "no document",
                                                  "details": []}))
    assert runner.invoke(app, ["documents", "get", "nope"]).exit_code == 1


def test_delete_where_sends_the_criteria_and_needs_one(api):
    seen = api(lambda request: httpx.Response(200, json=DELETED))
    result = runner.invoke(app, ["documents", "delete-where", "--source", "wiki", "--tag", "old", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(seen[0].content) == {"doc_ids": [], "sources": ["wiki"], "tags": ["old"]}
    assert json.loads(result.output)["records_deleted"] == 4
    assert runner.invoke(app, ["documents", "delete-where"]).exit_code == 2


def test_purge_needs_yes(api):
    seen = api(lambda request: httpx.Response(200, json={"tenant": "acme", "records_deleted": 9,
                                                         "indices_deleted": [], "keys_deleted": ["k"]}))
    assert runner.invoke(app, ["documents", "purge-tenant", "acme"]).exit_code == 2
    assert seen == []
    result = runner.invoke(app, ["documents", "purge-tenant", "acme", "--yes"])
    assert result.exit_code == 0 and "9 records" in result.output
    assert (seen[0].method, seen[0].url.path) == ("DELETE", "/v1/tenants/acme")
