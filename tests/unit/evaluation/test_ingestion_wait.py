"""How the evaluation waits for its corpus to be ingested: no deadline, but not for a gone worker or a stuck job."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from search_platform.evaluation import platform
from search_platform.evaluation.platform import EvaluationSetupError, _wait_while_a_worker_answers
from search_platform.ingestion.jobs import JobState, JobStatus


def status(state: JobState, batches_done: int) -> JobStatus:
    return JobStatus(job_id="j", state=state, index="ix", documents_total=4, documents_done=batches_done,
                     documents_failed=0, chunks_done=0, created_at=0.0, updated_at=0.0, batches_total=4,
                     batches_done=batches_done)


class Store:
    def __init__(self, statuses: list[JobStatus]) -> None:
        self._statuses: Iterator[JobStatus] = iter(statuses)
        self._last = statuses[0]

    def get(self, job_id: str) -> JobStatus:
        self._last = next(self._statuses, self._last)
        return self._last


class Control:
    def __init__(self, answers: bool) -> None:
        self.answers = answers

    def ping(self, timeout: float) -> list[dict[str, Any]]:
        return [{"worker": {"ok": "pong"}}] if self.answers else []


class Celery:
    def __init__(self, answers: bool) -> None:
        self.control = Control(answers)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WORKER_CHECK_S", 0.0)
    monkeypatch.setattr(platform, "WORKER_SILENCE_S", 0.0)


def test_it_waits_as_long_as_batches_settle_and_a_worker_answers() -> None:
    statuses = [status(JobState.RUNNING, done) for done in range(4)] + [status(JobState.DONE, 4)]
    finished = _wait_while_a_worker_answers(Store(statuses), "j", Celery(answers=True))  # type: ignore[arg-type]
    assert finished.state is JobState.DONE


def test_it_stops_when_no_worker_answers() -> None:
    with pytest.raises(EvaluationSetupError, match=r"no Celery worker has answered .*\(1 of 4 documents done\)"):
        _wait_while_a_worker_answers(Store([status(JobState.RUNNING, 1)]), "j",  # type: ignore[arg-type]
                                     Celery(answers=False))  # type: ignore[arg-type]


def test_it_stops_when_no_batch_settles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "STALL_S", 0.0)
    with pytest.raises(EvaluationSetupError, match="no ingestion batch has settled"):
        _wait_while_a_worker_answers(Store([status(JobState.RUNNING, 2)]), "j",  # type: ignore[arg-type]
                                     Celery(answers=True))  # type: ignore[arg-type]
