"""`status` exits non-zero when a dependency is down; no help screen shows a type for a flag."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from infra.health import ServiceStatus
from search_platform.cli import app
from search_platform.cli.services import unhealthy


def state(name: str, *, running: bool, healthy: bool) -> ServiceStatus:
    return ServiceStatus(name, running=running, healthy=healthy, pid=None, detail="")


def test_a_dependency_down_is_unhealthy_an_optional_process_stopped_is_not():
    states = {"elasticsearch": state("elasticsearch", running=True, healthy=False),
              "redis": state("redis", running=True, healthy=True),
              "worker": state("worker", running=False, healthy=False),
              "api": state("api", running=True, healthy=False)}
    assert unhealthy(states) == ["elasticsearch", "api"]
    assert unhealthy({"worker": states["worker"], "redis": states["redis"]}) == []


def commands(group=app, prefix=()):
    import typer.main

    command = typer.main.get_command(group)
    yield prefix
    for name, sub in getattr(command, "commands", {}).items():
        yield (*prefix, name)
        for child in getattr(sub, "commands", {}):
            yield (*prefix, name, child)


@pytest.mark.parametrize("path", sorted(set(commands())), ids=lambda p: " ".join(p) or "top")
def test_help_screens_show_no_bool_metavar_and_fit_80_columns(path):
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_status_exits_3_naming_what_is_down(monkeypatch):
    import json

    import search_platform.cli.services as module
    from infra import app_processes, services

    monkeypatch.setattr(module, "settings_or_exit", lambda: None)
    monkeypatch.setattr(services, "status", lambda _: {
        "elasticsearch": state("elasticsearch", running=False, healthy=False),
        "redis": state("redis", running=True, healthy=True)})
    monkeypatch.setattr(app_processes, "status", lambda _: {})
    result = CliRunner().invoke(app, ["status", "--format", "json"])
    assert result.exit_code == 3
    assert [row["service"] for row in json.loads(result.stdout)] == ["elasticsearch", "redis"]
    assert "down: elasticsearch" in result.stderr
