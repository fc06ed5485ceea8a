"""Headless Locust runner: steps the user count, writes Locust's CSVs per step and a Markdown report with
p50/p95/p99, requests/s and failures per mode and step, and where latency bends.

Usage: .venv/bin/python loadtests/run.py [--host http://127.0.0.1:8000] [--users 5,10,20,40] [--step-seconds 30]
    [--out DIR] [--api-key KEY | --env-key] [--fresh-queries]
Only loopback hosts are accepted; each step is bounded in time. Results go to a fresh folder,
benchmarks/reports/loadtest-<UTC time>, unless --out names one (published results are never overwritten by
default). The API key is --api-key, or SP_API_KEY with --env-key, or else a search key bound to the `default`
tenant is created for the run (unthrottled) and revoked at the end; the run says which it uses.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import subprocess
import sys
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def run_step(host: str, users: int, seconds: int, out_dir: Path, api_key: str, *, fresh: bool = False) -> Path:
    """One Locust run at a fixed user count; returns the stats CSV. fresh: unique query texts (no cache hits)."""
    prefix = out_dir / f"users-{users}"
    command = [sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py"), "--headless", "--host", host,
               "-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--csv", str(prefix), "--only-summary"]
    env = {**os.environ, "SP_LOADTEST_API_KEY": api_key, "SP_LOADTEST_FRESH_QUERIES": "1" if fresh else "0"}
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


def fresh_out_dir(now: datetime | None = None) -> Path:
    """benchmarks/reports/loadtest-<UTC time>: a new folder per run."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path("benchmarks/reports") / f"loadtest-{stamp}"


def choose_key(api_key: str | None, *, env_key: bool) -> tuple[str, AbstractContextManager[str] | None]:
    """Which key the run uses and why: the given one, SP_API_KEY when asked for, else None (a temporary key)."""
    if api_key:
        return "the key given with --api-key", nullcontext(api_key)
    if env_key:
        given = os.environ.get("SP_API_KEY")
        if not given:
            raise SystemExit("--env-key: SP_API_KEY is not set")
        return "SP_API_KEY from the environment", nullcontext(given)
    return "a temporary search key bound to tenant 'default', revoked at the end", None


def main() -> None:
    """Parse arguments, refuse non-loopback hosts, run the steps, write the report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="http://127.0.0.1:8000")
    parser.add_argument("--users", default="5,10,20,40")
    parser.add_argument("--step-seconds", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None, help="default: a fresh benchmarks/reports/loadtest-<time>")
    parser.add_argument("--api-key", default=None, help="the key to search with (default: a temporary one)")
    parser.add_argument("--env-key", action="store_true", help="search with SP_API_KEY from the environment")
    parser.add_argument("--fresh-queries", action="store_true",
                        help="append a random number to every query, so none is answered from the vector cache")
    args = parser.parse_args()
    out: Path = args.out or fresh_out_dir()
    if urlparse(args.host).hostname not in LOOPBACK:
        raise SystemExit(f"refusing to load-test {args.host}: only loopback hosts are allowed")
    if not 1 <= args.step_seconds <= 600:
        raise SystemExit("--step-seconds must be between 1 and 600")
    out.mkdir(parents=True, exist_ok=True)
    from search_platform.cli.keys import temporary_key
    from search_platform.config import load_settings

    source, given = choose_key(args.api_key, env_key=args.env_key)
    print(f"load test of {args.host}: searching with {source}; writing to {out}/", flush=True)
    key = given or temporary_key(load_settings(), name="loadtest", scopes="search")
    with key as api_key:
        steps = {users: read_stats(run_step(args.host, users, args.step_seconds, out, api_key,
                                            fresh=args.fresh_queries))
                 for users in (int(u) for u in args.users.split(","))}
    markdown = out / "report.md"
    markdown.write_text(report(steps), encoding="utf-8")
    print(markdown.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
