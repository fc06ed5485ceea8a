"""`ingest` and `jobs`: the job id comes first, progress follows when piped, a timeout is one line naming the
job."""

from __future__ import annotations

import json

import httpx
import pytest
from typer.testing import CliRunner

import search_platform.cli.ingest as ingest_module
from search_platform.cli import app
from tests.unit.cli.conftest import JOB


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.md").write_text(f"# {name}\n\nSome text about {name}.\n")
    return folder


def jobs_api(states: list[str]):
    """POST /v1/ingest queues j1, j2...; GET /v1/jobs/* answers the given states in turn."""
    polls = iter(states)
    counter = iter(range(1, 100))

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            documents = len(json.loads(request.content)["documents"])
            job_id = f"j{next(counter)}"
            return httpx.Response(202, json={"job_id": job_id, "documents": documents, "rejected": {},
                                             "status_url": f"/v1/jobs/{job_id}"})
        state = next(polls, states[-1])
        return httpx.Response(200, json={**JOB, "job_id": request.url.path.rsplit("/", 1)[1], "state": state,
                                         "documents_done": 2 if state == "done" else 0})

    return handler


def test_ingest_prints_each_job_id_first_then_the_summary(api, corpus, monkeypatch):
    monkeypatch.setattr(ingest_module, "POLL_S", 0)
    api(jobs_api(["running", "done"]))
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--batch", "2"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("job j1 queued") and lines[1].startswith("job j2 queued")
    assert "chunks indexed" in lines[-1]


def test_ingest_jsonl_is_one_event_a_line(api, corpus, monkeypatch):
    monkeypatch.setattr(ingest_module, "POLL_S", 0)
    api(jobs_api(["done"]))
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--format", "jsonl"])
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0] == {"event": "queued", "job_id": "j1", "documents_sent": 3, "documents_rejected": 0}
    assert events[-1]["event"] == "done" and events[-1]["job_ids"] == ["j1"]


def test_ingest_timeout_is_one_line_naming_the_job_and_exit_4(api, corpus, monkeypatch):
    monkeypatch.setattr(ingest_module, "POLL_S", 0)
    api(jobs_api(["running"]))
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--timeout", "0"])
    assert result.exit_code == 4
    assert result.stdout.startswith("job j1 queued")
    assert result.stderr.strip().count("\n") == 0
    assert "j1" in result.stderr and "search-platform jobs wait j1" in result.stderr


def test_ingest_no_wait_only_queues(api, corpus):
    seen = api(jobs_api(["running"]))
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--no-wait", "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"job_ids": ["j1"]}
    assert [request.method for request in seen] == ["POST"]


def test_jobs_status_talks_to_the_api_and_fails_with_the_job(api):
    api(lambda _: httpx.Response(200, json={**JOB, "state": "failed", "documents_failed": 1,
                                            "errors": {"a": "too long"}}))
    result = CliRunner().invoke(app, ["jobs", "status", "j1"])
    assert result.exit_code == 1
    assert "j1: failed" in result.stdout and "a: too long" in result.stdout


def test_jobs_resume_conflict_is_one_line(api):
    api(lambda _: httpx.Response(409, json={"error": "conflict", "message": "job j1 has no failed batch"}))
    result = CliRunner().invoke(app, ["jobs", "resume", "j1"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: 409: job j1 has no failed batch"


def test_piped_progress_prints_a_line_when_counts_change_not_every_poll(monkeypatch):
    from search_platform_client import Job

    from search_platform.cli.ingest import Reporter
    from search_platform.cli.output import OutputFormat

    clock = iter([0.0, 1.0, 2.0, 6.0, 7.0, 40.0])
    monkeypatch.setattr(ingest_module.time, "monotonic", lambda: next(clock))
    printed: list[str] = []
    reporter = Reporter(OutputFormat.TABLE, tty=False)
    monkeypatch.setattr(reporter, "event", lambda kind, text, **_: printed.append(text))
    queued = Job.model_validate({**JOB, "state": "queued", "documents_done": 0})
    running = Job.model_validate({**JOB, "state": "running", "documents_done": 1})
    for job in (queued, queued, running, running, running, running):
        reporter.progress([job])
    assert printed == ["0/2 documents (0 failed) · queued", "1/2 documents (0 failed) · running",
                       "1/2 documents (0 failed) · running"]
