"""services.up/down/status wiring, with the per-service functions replaced (no services run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from infra import elasticsearch, redis, services
from infra.errors import InfraError
from infra.health import ServiceStatus
from search_platform.config import ElasticsearchSettings, InfraSettings, Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose infra home is empty: nothing is running there."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        elasticsearch=ElasticsearchSettings(password=SecretStr("unit-test-password")),
        infra=InfraSettings(home=tmp_path / "home", download_cache=tmp_path / "cache"),
    )


def test_status_of_services_that_never_started(settings: Settings) -> None:
    assert services.status(settings) == {
        "elasticsearch": ServiceStatus("elasticsearch", running=False, healthy=False, pid=None, detail="not running"),
        "redis": ServiceStatus("redis", running=False, healthy=False, pid=None, detail="not running"),
    }


def test_up_starts_redis_then_elasticsearch(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(redis, "start", lambda s: started.append("redis"))
    monkeypatch.setattr(elasticsearch, "start", lambda s: started.append("elasticsearch"))
    services.up(settings)
    assert started == ["redis", "elasticsearch"]


def test_down_stops_both_even_if_one_fails(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    stopped: list[str] = []

    def failing_stop(s: Settings) -> None:
        raise InfraError("pid 42 is still alive after SIGKILL")

    monkeypatch.setattr(elasticsearch, "stop", failing_stop)
    monkeypatch.setattr(redis, "stop", lambda s: stopped.append("redis"))
    with pytest.raises(InfraError, match="still alive"):
        services.down(settings)
    assert stopped == ["redis"]


def test_stop_is_a_no_op_when_nothing_runs(settings: Settings) -> None:
    elasticsearch.stop(settings)
    redis.stop(settings)


def test_a_rejected_password_without_a_stored_one_is_a_clear_error(settings: Settings) -> None:
    with pytest.raises(InfraError, match="SP_ELASTICSEARCH__PASSWORD"):
        elasticsearch._adopt_settings_password(settings)


def test_only_the_builtin_elastic_user_can_be_provisioned(tmp_path: Path) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        elasticsearch=ElasticsearchSettings(username="app", password=SecretStr("unit-test-password")),
        infra=InfraSettings(home=tmp_path / "home", download_cache=tmp_path / "cache"),
    )
    with pytest.raises(InfraError, match="built-in 'elastic' user"):
        elasticsearch.prepare(settings)
    assert not (tmp_path / "home").exists()
