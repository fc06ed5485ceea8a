"""The config files infra writes for Elasticsearch and Redis, rendered from Settings (no services run)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import SecretStr

from infra import elasticsearch, redis
from infra.errors import InfraError
from infra.system import loopback_port
from search_platform.config import ElasticsearchSettings, InfraSettings, RedisSettings, Settings


def make_settings(
    tmp_path: Path, *, es_url: str = "http://127.0.0.1:9200", redis_url: str = "redis://127.0.0.1:6379/0"
) -> Settings:
    """Settings rooted in tmp_path, ignoring any .env."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        elasticsearch=ElasticsearchSettings(url=es_url, password=SecretStr("unit-test-password")),
        redis=RedisSettings(url=redis_url),
        infra=InfraSettings(home=tmp_path / "home", download_cache=tmp_path / "cache", es_heap="512m"),
    )


def test_elasticsearch_yml_is_a_single_loopback_node_with_security_and_no_tls(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, es_url="http://127.0.0.1:9250")
    paths = elasticsearch.es_paths(settings)
    assert yaml.safe_load(elasticsearch.render_config(settings, paths)) == {
        "cluster.name": "search-platform",
        "node.name": "search-platform-1",
        "network.host": "127.0.0.1",
        "http.port": 9250,
        "discovery.type": "single-node",
        "path.data": str(tmp_path / "home" / "es-data"),
        "path.logs": str(tmp_path / "home" / "es-logs"),
        "path.repo": [str(tmp_path / "home" / "es-snapshots")],
        "xpack.security.enabled": True,
        "xpack.security.http.ssl.enabled": False,
        "xpack.security.transport.ssl.enabled": False,
        "cluster.routing.allocation.disk.threshold_enabled": False,
    }


def test_path_repo_follows_the_snapshot_dir_setting(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    settings.infra.snapshot_dir = tmp_path / "backups"
    paths = elasticsearch.es_paths(settings)
    assert paths.snapshots == tmp_path / "backups"
    assert yaml.safe_load(elasticsearch.render_config(settings, paths))["path.repo"] == [str(tmp_path / "backups")]


def test_a_node_config_without_the_current_settings_is_outdated(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    paths = elasticsearch.es_paths(settings)
    assert elasticsearch.config_outdated(settings)  # never written
    paths.config.mkdir(parents=True)
    (paths.config / "elasticsearch.yml").write_text(elasticsearch.render_config(settings, paths))
    assert not elasticsearch.config_outdated(settings)
    settings.infra.snapshot_dir = tmp_path / "elsewhere"
    assert elasticsearch.config_outdated(settings)


def test_es_layout_lives_under_infra_home(tmp_path: Path) -> None:
    paths = elasticsearch.es_paths(make_settings(tmp_path))
    home = tmp_path / "home"
    assert paths.install == home / "elasticsearch-9.5.4"
    assert paths.keystore == home / "elasticsearch-9.5.4" / "config" / "elasticsearch.keystore"
    assert paths.pid_file == home / "es-run" / "elasticsearch.pid"
    assert paths.password_file == home / "secrets" / "elastic-password"
    assert paths.log_file == home / "es-logs" / "search-platform.log"


def test_es_launcher_gets_java_home_and_a_fixed_heap_and_nothing_else(tmp_path: Path) -> None:
    env = elasticsearch.server_environment(make_settings(tmp_path))
    assert env["ES_JAVA_OPTS"] == "-Xms512m -Xmx512m"
    assert env["ES_JAVA_HOME"] == "/usr/lib/jvm/temurin-25-jdk-amd64"
    assert set(env) == {"PATH", "LANG", "ES_JAVA_HOME", "ES_JAVA_OPTS"}


@pytest.mark.parametrize(
    ("code", "cluster_status", "ready"),
    [(200, "green", True), (200, "yellow", True), (200, "red", False), (401, None, False), (None, None, False)],
)
def test_probe_is_ready_only_when_authenticated_and_yellow_or_green(
    code: int | None, cluster_status: str | None, ready: bool
) -> None:
    assert elasticsearch.Probe(code, cluster_status, "detail").ready is ready


def test_redis_conf_binds_loopback_daemonizes_and_keeps_an_aof(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "with space", redis_url="redis://127.0.0.1:6380/2")
    paths = redis.redis_paths(settings)
    lines = redis.render_config(settings, paths).splitlines()
    root = tmp_path / "with space" / "home" / "redis"
    for expected in (
        "bind 127.0.0.1",
        "port 6380",
        "daemonize yes",
        "appendonly yes",
        "appendfsync everysec",
        f'dir "{root / "data"}"',
        f'pidfile "{root / "redis.pid"}"',
        f'logfile "{root / "redis.log"}"',
    ):
        assert expected in lines


@pytest.mark.parametrize(
    ("url", "port"),
    [("http://127.0.0.1:9200", 9200), ("http://localhost", 9200), ("redis://127.0.0.1:6390/0", 6390)],
)
def test_loopback_port_reads_the_port_or_the_default(url: str, port: int) -> None:
    assert loopback_port(url, default=9200) == port


def test_loopback_port_refuses_a_remote_service() -> None:
    with pytest.raises(InfraError, match=r"not on 127\.0\.0\.1"):
        loopback_port("http://es.example.internal:9200", default=9200)
