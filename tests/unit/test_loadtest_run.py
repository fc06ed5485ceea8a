"""loadtests/run.py writes to a fresh folder by default and uses SP_API_KEY only when asked to."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location("loadtest_run", Path(__file__).parents[2] / "loadtests" / "run.py")
assert SPEC and SPEC.loader
run = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(run)


def test_the_default_folder_is_new_per_run_and_not_the_published_one():
    out = run.fresh_out_dir(datetime(2026, 12, 3, 10, 5, 9, tzinfo=UTC))
    assert out == Path("benchmarks/reports/loadtest-20261203T100509Z")


def test_sp_api_key_in_the_environment_is_not_used_unless_asked(monkeypatch):
    monkeypatch.setenv("SP_API_KEY", "from-env")
    source, given = run.choose_key(None, env_key=False)
    assert given is None and "temporary" in source
    source, given = run.choose_key(None, env_key=True)
    assert given is not None and given.__enter__() == "from-env" and "SP_API_KEY" in source
    assert run.choose_key("explicit", env_key=True)[1].__enter__() == "explicit"


def test_env_key_without_the_variable_stops(monkeypatch):
    monkeypatch.delenv("SP_API_KEY", raising=False)
    with pytest.raises(SystemExit, match="SP_API_KEY"):
        run.choose_key(None, env_key=True)


def test_fresh_queries_are_unique_golden_queries(monkeypatch):
    path = Path(__file__).parents[2] / "loadtests" / "queries.py"
    spec = importlib.util.spec_from_file_location("loadtest_queries", path)
    assert spec is not None and spec.loader is not None
    locustfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(locustfile)
    assert locustfile.query_text() in locustfile.QUERIES  # off by default: the cache may answer repeats
    monkeypatch.setattr(locustfile, "FRESH_QUERIES", True)
    texts = [locustfile.query_text() for _ in range(50)]
    assert len(set(texts)) == 50
    assert all(text.rsplit(" ", 1)[0] in locustfile.QUERIES and text.rsplit(" ", 1)[1].isdigit() for text in texts)
