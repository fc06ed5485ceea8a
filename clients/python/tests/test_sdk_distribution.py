"""The SDK as a distribution: its wheel depends on httpx and pydantic only, is typed, and mypy --strict passes on
a user's script."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import search_platform_client

PROJECT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(PROJECT)],
                   check=True, capture_output=True, text=True, timeout=300)
    [built] = out.glob("search_platform_client-*.whl")
    return built


def metadata(wheel: Path) -> tuple[dict[str, list[str]], list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [meta] = [name for name in names if name.endswith(".dist-info/METADATA")]
        message = Parser().parsestr(archive.read(meta).decode())
    fields: dict[str, list[str]] = {}
    for key, value in message.items():
        fields.setdefault(key, []).append(value)
    return fields, names


def test_the_wheel_depends_on_httpx_and_pydantic_only(wheel):
    fields, _ = metadata(wheel)
    required = sorted(line.split(";")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
                      for line in fields.get("Requires-Dist", []))
    assert required == ["httpx", "pydantic"]
    assert fields["Requires-Python"] == [">=3.10"]


def test_the_wheel_is_typed_versioned_and_holds_only_the_client(wheel):
    fields, names = metadata(wheel)
    assert fields["Version"] == [search_platform_client.__version__]
    assert "search_platform_client/py.typed" in names
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"search_platform_client"}


def test_mypy_strict_passes_on_a_users_script():
    from mypy import api

    stdout, stderr, status = api.run(["--strict", "--no-incremental", str(PROJECT / "tests" / "typed_usage.py")])
    assert status == 0, stdout + stderr


def test_the_sdk_type_checks_for_its_oldest_python():
    from mypy import api

    source = PROJECT / "src" / "search_platform_client"
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "--python-version", "3.10", str(source)])
    assert status == 0, stdout + stderr


def test_the_client_imports_nothing_of_the_server():
    code = ("import sys, search_platform_client; "
            "heavy = {'search_platform', 'torch', 'celery', 'elasticsearch', 'fastapi'} & set(sys.modules); "
            "print(sorted(heavy))")
    result = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]"
