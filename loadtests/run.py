"""Headless Locust runner: steps the user count, writes Locust's CSVs per step and a Markdown report with
p50/p95/p99, requests/s and failures per mode and step, and where latency bends.

Usage: .venv/bin/python loadtests/run.py [--host http://127.0.0.1:8000] [--users 5,10,20,40] [--step-seconds 30]
Only loopback hosts are accepted; each step is bounded in time. The API key is SP_API_KEY, or else a search key
bound to the `default` tenant is created for the run (unthrottled) and revoked at the end.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def run_step(host: str, users: int, seconds: int, out_dir: Path, api_key: str) -> Path:
    """One Locust run at a fixed user count; returns the stats CSV."""
    prefix = out_dir / f"users-{users}"
    command = [sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py"), "--headless", "--host", host,
               "-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--csv", str(prefix), "--only-summary"]
    env = {**os.environ, "SP_LOADTEST_API_KEY": api_key}
    subprocess.run(command, check=False, timeout=seconds + 120, capture_output=True, env=env)
    return Path(f"{prefix}_stats.csv")


def read_stats(path: Path) -> list[dict[str, str]]:
    """Rows of a Locust stats CSV (one per request name, plus Aggregated)."""
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def report(steps: dict[int, list[dict[str, str]]]) -> str:
    """The Markdown report: a row per (step, mode), then the knee."""
    lines = ["| users | request | requests | failures | req/s | p50 ms | p95 ms | p99 ms |",
             "|---|---|---|---|---|---|---|---|"]
    for users, rows in steps.items():
        for row in rows:
            lines.append(f"| {users} | {row['Name']} | {row['Request Count']} | {row['Failure Count']} | "
                         f"{float(row['Requests/s']):.1f} | {row['50%']} | {row['95%']} | {row['99%']} |")
    lines += ["", knee(steps)]
    return "\n".join(lines) + "\n"


def knee(steps: dict[int, list[dict[str, str]]]) -> str:
    """The first step where aggregated p95 more than doubles from the previous step, if any."""
    p95 = {u: float(next(r["95%"] for r in rows if r["Name"] == "Aggregated")) for u, rows in steps.items() if rows}
    ordered = sorted(p95)
    for before, after in itertools.pairwise(ordered):
        if p95[after] > 2 * p95[before]:
            return (f"Latency bends between {before} and {after} users "
                    f"(aggregated p95 {p95[before]:.0f} → {p95[after]:.0f} ms).")
    return "No step more than doubled the aggregated p95."


def main() -> None:
    """Parse arguments, refuse non-loopback hosts, run the steps, write the report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="http://127.0.0.1:8000")
    parser.add_argument("--users", default="5,10,20,40")
    parser.add_argument("--step-seconds", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/reports/loadtest"))
    args = parser.parse_args()
    if urlparse(args.host).hostname not in LOOPBACK:
        raise SystemExit(f"refusing to load-test {args.host}: only loopback hosts are allowed")
    if not 1 <= args.step_seconds <= 600:
        raise SystemExit("--step-seconds must be between 1 and 600")
    args.out.mkdir(parents=True, exist_ok=True)
    from search_platform.cli.keys import run_api_key
    from search_platform.config import load_settings

    with run_api_key(load_settings(), name="loadtest", scopes="search") as api_key:
        steps = {users: read_stats(run_step(args.host, users, args.step_seconds, args.out, api_key))
                 for users in (int(u) for u in args.users.split(","))}
    markdown = args.out / "report.md"
    markdown.write_text(report(steps), encoding="utf-8")
    print(markdown.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
