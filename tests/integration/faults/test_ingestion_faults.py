"""Ingestion under faults on the dedicated fault stack: workers killed, Redis and Elasticsearch restarted, jobs
submitted twice, several workers on one job. Each test ends by checking that Elasticsearch holds exactly the
chunks the pipeline derives from the documents, and that the job's status says what happened."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from infra import elasticsearch as infra_es
from infra import redis as infra_redis
from tests.integration.faults.conftest import (
    VISIBILITY_TIMEOUT_S,
    assert_exactly,
    expected_chunk_ids,
    finished,
    make_documents,
    submit,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _assert_done(status, documents, expected) -> None:
    assert status.state.value == "done", status
    assert (status.documents_total, status.documents_done, status.documents_failed) == (len(documents),
                                                                                        len(documents), 0)
    assert status.chunks_done == len(expected)
    assert status.batches_done == status.batches_total and status.batches_failed == 0
    assert status.errors == {}


def test_two_workers_share_one_job_with_exact_counts(fault_api, fault_headers, fault_index, fault_es, job_store,
                                                     start_workers, fault_settings):
    first, second = start_workers("w1", "w2")
    documents = make_documents(40)
    expected = expected_chunk_ids(documents, fault_settings)
    job_id = submit(fault_api, fault_headers, documents, fault_index).json()["job_id"]
    status = wait_until(job_store, job_id, finished, poll_s=0.2)
    _assert_done(status, documents, expected)
    done = job_store.done_batches(job_id)
    assert set(done.values()) == {first.node, second.node}, done  # both workers completed batches
    assert status.deliveries == status.batches_total  # no batch ran twice
    assert_exactly(fault_es, fault_index, expected)


def test_worker_sigkilled_mid_job_is_redelivered_and_counted_once(fault_api, fault_headers, fault_index, fault_es,
                                                                  job_store, start_workers, fault_settings):
    [worker] = start_workers("victim")
    documents = make_documents(40)
    expected = expected_chunk_ids(documents, fault_settings)
    job_id = submit(fault_api, fault_headers, documents, fault_index).json()["job_id"]
    # kill while a batch is in flight: delivered, not yet done, and some batches already done
    wait_until(job_store, job_id, lambda s: s.batches_done >= 3 and s.deliveries > s.batches_done, poll_s=0.005)
    worker.kill()
    killed_at = time.monotonic()
    interrupted = set(job_store.deliveries_by_batch(job_id)) - set(job_store.done_batches(job_id))
    status = job_store.get(job_id)
    assert interrupted, "the kill must land while a batch is in flight"
    assert status.state.value == "running" and status.batches_done < status.batches_total

    worker.start()
    status = wait_until(job_store, job_id, finished, poll_s=0.2)
    recovered_s = time.monotonic() - killed_at
    _assert_done(status, documents, expected)
    deliveries = job_store.deliveries_by_batch(job_id)
    assert all(deliveries[number] >= 2 for number in interrupted), deliveries  # redelivered after the kill
    assert recovered_s >= VISIBILITY_TIMEOUT_S * 0.9  # it came back through the visibility timeout
    assert_exactly(fault_es, fault_index, expected)
    print(f"\nSIGKILL: {len(interrupted)} batch(es) interrupted and redelivered; job done {recovered_s:.1f}s after "
          f"the kill (visibility timeout {VISIBILITY_TIMEOUT_S}s); deliveries {status.deliveries} for "
          f"{status.batches_total} batches")


SLOW_EMBED_S = VISIBILITY_TIMEOUT_S * 1.5  # one batch's encoding outlasts the visibility timeout


def test_a_batch_longer_than_the_visibility_timeout_is_delivered_once(fault_api, fault_headers, fault_index,
                                                                      fault_es, job_store, start_workers,
                                                                      fault_settings):
    # two idle-ready workers: without the lease, the second would take the expired delivery while the first runs
    start_workers("slow-1", "slow-2", SP_EMBEDDING__FAKE_DELAY_S=str(SLOW_EMBED_S))
    documents = make_documents(2)  # one batch (two documents a batch on the fault stack)
    expected = expected_chunk_ids(documents, fault_settings)
    started = time.monotonic()
    job_id = submit(fault_api, fault_headers, documents, fault_index).json()["job_id"]
    status = wait_until(job_store, job_id, finished, poll_s=0.5)
    took_s = time.monotonic() - started
    _assert_done(status, documents, expected)
    assert took_s > VISIBILITY_TIMEOUT_S  # the batch did outlast the timeout
    deliveries = job_store.deliveries_by_batch(job_id)
    assert status.batches_total == 1 and list(deliveries.values()) == [1], deliveries  # never handed on
    assert_exactly(fault_es, fault_index, expected)
    print(f"\nslow batch: done in {took_s:.1f}s against a visibility timeout of {VISIBILITY_TIMEOUT_S}s, "
          f"{status.deliveries} delivery")


def _in_the_middle(status) -> bool:
    return 2 <= status.batches_done <= status.batches_total - 5


def test_redis_restarted_mid_job(fault_api, fault_headers, fault_index, fault_es, job_store, start_workers,
                                 fault_settings):
    start_workers("r1")
    documents = make_documents(40)
    expected = expected_chunk_ids(documents, fault_settings)
    job_id = submit(fault_api, fault_headers, documents, fault_index).json()["job_id"]
    before = wait_until(job_store, job_id, _in_the_middle, poll_s=0.05)
    infra_redis.stop(fault_settings)
    down_at = time.monotonic()
    time.sleep(3)
    infra_redis.start(fault_settings)
    back_at = time.monotonic()
    survived = job_store.get(job_id)  # the job's record came back from the AOF
    assert survived.documents_total == len(documents) and survived.batches_done >= before.batches_done
    status = wait_until(job_store, job_id, finished, poll_s=0.2)
    _assert_done(status, documents, expected)
    assert_exactly(fault_es, fault_index, expected)
    print(f"\nRedis restart: down {back_at - down_at:.1f}s; job done {time.monotonic() - back_at:.1f}s after Redis "
          f"was back; deliveries {status.deliveries} for {status.batches_total} batches")


def test_elasticsearch_outage_within_the_retry_budget(fault_api, fault_headers, fault_index, fault_es, job_store,
                                                      start_workers, fault_settings):
    start_workers("e1")  # 40 retries, backoff 1 s doubling to at most 4 s: minutes of budget
    documents = make_documents(40)
    expected = expected_chunk_ids(documents, fault_settings)
    job_id = submit(fault_api, fault_headers, documents, fault_index).json()["job_id"]
    wait_until(job_store, job_id, _in_the_middle, poll_s=0.05)
    infra_es.stop(fault_settings)
    down_at = time.monotonic()
    during = job_store.get(job_id)
    time.sleep(5)
    infra_es.start(fault_settings)
    back_at = time.monotonic()
    status = wait_until(job_store, job_id, finished, poll_s=0.2)
    done_at = time.monotonic()
    _assert_done(status, documents, expected)
    retries = status.deliveries - status.batches_total
    assert during.state.value == "running"
    assert retries >= 1  # the outage was felt, and retried
    assert_exactly(fault_es, fault_index, expected)
    print(f"\nES outage within budget: down {back_at - down_at:.1f}s, {retries} task retries, job done "
          f"{done_at - back_at:.1f}s after ES was healthy again")


def test_elasticsearch_outage_beyond_the_budget_fails_then_resumes(fault_api, fault_headers, fault_index, fault_es,
                                                                   job_store, start_workers, fault_settings):
    start_workers("e2", SP_INGESTION__TASK_MAX_RETRIES="2", SP_INGESTION__TASK_BACKOFF_S="0.5")
    documents = make_documents(40)
    expected = expected_chunk_ids(documents, fault_settings)
    job_id = submit(fault_api, fault_headers, documents, fault_index).json()["job_id"]
    wait_until(job_store, job_id, _in_the_middle, poll_s=0.05)
    infra_es.stop(fault_settings)
    down_at = time.monotonic()
    failed = wait_until(job_store, job_id, finished, poll_s=0.2)
    failed_after_s = time.monotonic() - down_at
    assert failed.state.value == "failed"
    assert failed.batches_failed >= 1 and failed.batches_done + failed.batches_failed == failed.batches_total
    assert failed.documents_done + failed.documents_failed == len(documents)
    done_docs = {d["doc_id"] for d in documents} - set(failed.errors)
    assert failed.documents_done == len(done_docs)
    assert all("failed" in reason for reason in failed.errors.values()), failed.errors
    assert failed.deliveries >= failed.batches_done + 3 * failed.batches_failed  # each failed batch tried 3 times

    infra_es.start(fault_settings)
    response = httpx.post(f"{fault_api}/v1/jobs/{job_id}/resume", headers=fault_headers, timeout=30)
    assert response.status_code == 202, response.text
    assert response.json()["state"] == "running" and response.json()["batches_failed"] == 0
    resumed_at = time.monotonic()
    status = wait_until(job_store, job_id, finished, poll_s=0.2)
    _assert_done(status, documents, expected)
    assert_exactly(fault_es, fault_index, expected)
    again = httpx.post(f"{fault_api}/v1/jobs/{job_id}/resume", headers=fault_headers, timeout=30)
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    print(f"\nES outage beyond budget: job failed {failed_after_s:.1f}s after ES stopped with "
          f"{failed.batches_failed} failed batches ({failed.documents_failed} documents); resumed job done "
          f"{time.monotonic() - resumed_at:.1f}s after the resume")


def _post_together(count: int, post) -> list[httpx.Response]:
    """Send count requests at the same instant from count threads."""
    barrier = threading.Barrier(count)
    responses: list[httpx.Response] = []

    def send() -> None:
        barrier.wait(timeout=30)
        responses.append(post())

    threads = [threading.Thread(target=send) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return responses


def test_the_same_job_submitted_twice_concurrently(fault_api, fault_headers, fault_index, fault_es, job_store,
                                                   start_workers, fault_settings):
    redis = job_store._redis
    start_workers("d1")
    documents = make_documents(12)
    expected = expected_chunk_ids(documents, fault_settings)
    jobs_before = len(redis.keys("sp:job:*:meta"))

    keyed = _post_together(2, lambda: submit(fault_api, fault_headers, documents, fault_index,
                                             **{"Idempotency-Key": f"same-{fault_index}"}))
    assert [r.status_code for r in keyed] == [202, 202]
    assert keyed[0].json()["job_id"] == keyed[1].json()["job_id"]  # one job, whoever won the race
    assert len(redis.keys("sp:job:*:meta")) == jobs_before + 1
    status = wait_until(job_store, keyed[0].json()["job_id"], finished, poll_s=0.2)
    _assert_done(status, documents, expected)
    assert status.deliveries == status.batches_total  # its batches were queued once
    conflict = submit(fault_api, fault_headers, documents[:3], fault_index,
                      **{"Idempotency-Key": f"same-{fault_index}"})
    assert conflict.status_code == 409 and conflict.json()["error"] == "conflict"

    unkeyed = _post_together(2, lambda: submit(fault_api, fault_headers, documents, fault_index))
    job_ids = {r.json()["job_id"] for r in unkeyed}
    assert len(job_ids) == 2  # without a key they are two jobs ...
    for job_id in job_ids:
        _assert_done(wait_until(job_store, job_id, finished, poll_s=0.2), documents, expected)
    assert_exactly(fault_es, fault_index, expected)  # ... and the index still holds one copy of each chunk
