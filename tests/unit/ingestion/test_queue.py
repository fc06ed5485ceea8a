"""Celery configuration that the delivery guarantees rest on."""

from __future__ import annotations

import pytest

from search_platform.config import SettingsError, load_settings
from search_platform.ingestion.queue import UNACKED_INDEX_KEY, broker_transport_options, create_celery


def test_late_acks_and_redelivery_of_a_lost_worker_s_task():
    settings = load_settings(redis={"visibility_timeout_s": 120}, ingestion={"task_time_limit_s": 100})
    conf = create_celery(settings).conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert conf.worker_cancel_long_running_tasks_on_connection_loss
    assert conf.broker_transport_options["visibility_timeout"] == 120
    assert conf.broker_transport_options["unacked_index_key"] == UNACKED_INDEX_KEY  # the index leases renew
    assert conf.broker_connection_retry and conf.broker_connection_max_retries is None
    assert conf.result_backend_always_retry


@pytest.mark.parametrize(("visibility", "sweep", "mutex"), [(20, 3, 10), (3600, 10, 300), (6, 1, 5)])
def test_unacked_sweeps_follow_the_visibility_timeout(visibility, sweep, mutex):
    options = broker_transport_options(visibility)
    assert options["unacked_restore_interval"] == sweep
    assert options["unacked_restore_throttle"] == 1
    assert options["unacked_mutex_expire"] == mutex


def test_a_visibility_timeout_shorter_than_the_backoff_is_refused():
    with pytest.raises(SettingsError, match="visibility_timeout_s"):
        load_settings(redis={"visibility_timeout_s": 30}, ingestion={"task_backoff_max_s": 60})


def test_a_fake_delay_needs_the_fake_backend():
    with pytest.raises(SettingsError, match="fake_delay_s"):
        load_settings(embedding={"backend": "onnx", "fake_delay_s": 1.0})
    assert load_settings(embedding={"backend": "fake", "fake_delay_s": 1.0}).embedding.fake_delay_s == 1.0
