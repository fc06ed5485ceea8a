"""Schemathesis fuzzes every operation of the live API from its own /openapi.json: no input may get a 5xx.

It runs against the fault stack's API (its own Elasticsearch and Redis), so the random documents and indices it
creates never reach the shared services; it authenticates with a real API key."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCHEMATHESIS = str(Path(sys.executable).parent / "schemathesis")
MAX_EXAMPLES = 25
TIME_LIMIT_S = 600


def test_no_5xx_on_any_generated_request(fault_api, fault_headers, tmp_path):
    junit = tmp_path / "schemathesis.xml"
    command = [
        SCHEMATHESIS, "run", f"{fault_api}/openapi.json",
        "--checks", "not_a_server_error",
        "--max-examples", str(MAX_EXAMPLES),
        "--seed", "20261202",
        "--workers", "1",
        "--request-timeout", "60",
        "--generation-database", "none",
        "--suppress-health-check", "all",
        "--report", "junit", "--report-junit-path", str(junit),
        "--header", f"Authorization: {fault_headers['Authorization']}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIME_LIMIT_S, check=False)
    output = done.stdout[-6000:] + done.stderr[-2000:]
    assert done.returncode == 0, output
    suites = ET.parse(junit).getroot()
    cases = list(suites.iter("testcase"))
    assert len(cases) >= 5, output  # every operation of the API was exercised
    assert not [case for case in cases if case.find("failure") is not None or case.find("error") is not None]
    print(f"\nschemathesis: {len(cases)} operations, up to {MAX_EXAMPLES} examples each, no 5xx")
