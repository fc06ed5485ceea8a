"""`snapshots create|list|restore` hand the right arguments to the core and map its errors to exit codes (the core
itself runs against real Elasticsearch in tests/integration/test_snapshots.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from search_platform.backends.elasticsearch import snapshots as core
from search_platform.cli import snapshots as command
from search_platform.cli.main import app
from search_platform.config import ElasticsearchSettings, Settings
from search_platform.domain.errors import BackendError, BackendUnavailableError

runner = CliRunner()
INFO = core.SnapshotInfo(name="snap-1", state="SUCCESS", indices=("sp-chunks-v2",), alias="sp-chunks",
                         start_time="2026-12-03T13:05:12.000Z", end_time="2026-12-03T13:05:13.000Z",
                         shards_total=1, shards_failed=0)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Record the core calls; no Elasticsearch."""
    seen: list[tuple[str, dict[str, Any]]] = []
    settings = Settings(_env_file=None,  # type: ignore[call-arg]
                        elasticsearch=ElasticsearchSettings(password=SecretStr("unit-test-password")))

    @contextmanager
    def no_client(_settings: Settings) -> Iterator[Any]:
        yield object()

    def create(_client: Any, _es: Any, **kwargs: Any) -> core.SnapshotInfo:
        seen.append(("create", kwargs))
        return INFO

    def restore(_client: Any, _es: Any, **kwargs: Any) -> core.RestoreReport:
        seen.append(("restore", kwargs))
        return core.RestoreReport(snapshot=kwargs["name"], indices=(f"sp-chunks-v2{kwargs['suffix']}",),
                                  alias=kwargs["alias"], shards_total=1, shards_failed=0)

    monkeypatch.setattr(command, "settings_or_exit", lambda: settings)
    monkeypatch.setattr(command, "admin_client", no_client)
    monkeypatch.setattr(core, "create_snapshot", create)
    monkeypatch.setattr(core, "restore_snapshot", restore)
    monkeypatch.setattr(core, "get_snapshot", lambda _client, _es, name: INFO)
    monkeypatch.setattr(core, "list_snapshots", lambda _client, _es: [INFO])
    return seen


def test_create_defaults_to_the_index_alias_and_a_timed_name(calls: list[tuple[str, dict[str, Any]]]) -> None:
    result = runner.invoke(app, ["snapshots", "create", "--format", "json"])
    assert result.exit_code == 0, result.output
    (name, kwargs), = calls
    assert name == "create" and kwargs["alias"] == "sp-chunks"
    assert kwargs["name"].startswith("sp-chunks-") and kwargs["name"].endswith("z")
    assert json.loads(result.stdout)[0]["indices"] == ["sp-chunks-v2"]


def test_list_prints_one_json_line_a_snapshot(calls: list[tuple[str, dict[str, Any]]]) -> None:
    result = runner.invoke(app, ["snapshots", "list", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["name"] for line in result.stdout.splitlines()] == ["snap-1"]


def test_restore_keeps_the_alias_unless_asked(calls: list[tuple[str, dict[str, Any]]]) -> None:
    assert runner.invoke(app, ["snapshots", "restore", "snap-1"]).exit_code == 0
    assert calls[-1][1]["alias"] is None and calls[-1][1]["suffix"].startswith("-restored-")
    result = runner.invoke(app, ["snapshots", "restore", "snap-1", "--swap-alias"])
    assert result.exit_code == 0 and calls[-1][1]["alias"] == "sp-chunks"  # the snapshot's own alias
    assert "sp-chunks -> sp-chunks-v2-restored-" in result.stdout
    assert runner.invoke(app, ["snapshots", "restore", "snap-1", "--swap-alias", "--alias", "other"]).exit_code == 0
    assert calls[-1][1]["alias"] == "other"


def test_alias_without_swap_is_a_usage_error(calls: list[tuple[str, dict[str, Any]]]) -> None:
    assert runner.invoke(app, ["snapshots", "restore", "snap-1", "--alias", "other"]).exit_code == 2
    assert calls == []


@pytest.mark.parametrize(("error", "code"), [
    (core.InvalidNameError("snapshot name 'X' is not valid"), 2),
    (BackendUnavailableError("Elasticsearch unreachable"), 3),
    (BackendError("Elasticsearch error (404): snapshot_missing_exception: nope", 404), 1),
])
def test_core_errors_become_one_line_and_an_exit_code(calls: list[tuple[str, dict[str, Any]]],
                                                      monkeypatch: pytest.MonkeyPatch, error: Exception,
                                                      code: int) -> None:
    def failing(*_args: Any, **_kwargs: Any) -> core.SnapshotInfo:
        raise error

    monkeypatch.setattr(core, "create_snapshot", failing)
    result = runner.invoke(app, ["snapshots", "create"])
    assert result.exit_code == code
    assert result.output.startswith("error: ") and str(error) in result.output
