"""Processes we started and track through pid files: liveness, graceful stop, waiting, log tails."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from infra.errors import InfraError

log = logging.getLogger(__name__)

OUTPUT_LIMIT = 2000  # characters of a failed command's output kept in the error


def run(
    command: Sequence[str | os.PathLike[str]],
    *,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout_s: float = 600.0,
) -> str:
    """Run a command to completion and return its stdout; raise InfraError with its output if it fails."""
    argv = [os.fspath(part) for part in command]
    try:
        done = subprocess.run(
            argv,
            input=stdin,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            start_new_session=True,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InfraError(f"{argv[0]} failed: {error}") from error
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()[-OUTPUT_LIMIT:]
        raise InfraError(f"`{' '.join(argv)}` exited with {done.returncode}:\n{output}")
    return done.stdout


def read_pid(pid_file: Path) -> int | None:
    """The pid written in a pid file, or None if the file is missing or garbled."""
    try:
        return int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def is_alive(pid: int, *, marker: str) -> bool:
    """True if pid is a live (not zombie) process whose command line contains marker."""
    proc = Path("/proc") / str(pid)
    try:
        cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z" and marker in cmdline


def live_pid(pid_file: Path, *, marker: str) -> int | None:
    """The pid from pid_file if that process is alive and is the expected program, else None."""
    pid = read_pid(pid_file)
    return pid if pid is not None and is_alive(pid, marker=marker) else None


def wait_until(predicate: Callable[[], bool], *, timeout_s: float, interval_s: float = 0.5) -> bool:
    """Poll predicate until it is true or timeout_s passes; return its last value."""
    deadline = time.monotonic() + timeout_s
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)


def terminate(pid: int, *, marker: str, timeout_s: float) -> None:
    """Stop a process: SIGTERM, wait up to timeout_s, then SIGKILL and wait for it to go."""
    if not _signal(pid, signal.SIGTERM):
        return
    if wait_until(lambda: not is_alive(pid, marker=marker), timeout_s=timeout_s):
        return
    log.warning("pid %d ignored SIGTERM for %.0fs, sending SIGKILL", pid, timeout_s)
    _signal(pid, signal.SIGKILL)
    if not wait_until(lambda: not is_alive(pid, marker=marker), timeout_s=10.0):
        raise InfraError(f"pid {pid} is still alive after SIGKILL")


def _signal(pid: int, signum: signal.Signals) -> bool:
    """Send a signal; False if the process is already gone."""
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        return False
    return True


def tail(path: Path, *, lines: int = 30) -> str:
    """The last lines of a text file, or a note that it does not exist."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


ERROR_MARKERS = ("[ERROR]", "[FATAL]", " # ", "Caused by:", "Exception:")  # ES records; " # " is a Redis warning


def error_lines(text: str, *, limit: int = 8) -> list[str]:
    """The last `limit` lines of a log excerpt that name an error (ERROR/FATAL records, exceptions, causes)."""
    found = [line.strip() for line in text.splitlines() if any(mark in line for mark in ERROR_MARKERS)]
    return found[-limit:]


def describe_log(path: Path, *, lines: int = 20) -> str:
    """The error lines of a log's recent part, then its last lines: what to put in an InfraError."""
    errors = error_lines(tail(path, lines=400))
    summary = "\n".join(errors) if errors else "(no error lines)"
    return f"errors in {path}:\n{summary}\nlast {lines} lines of {path}:\n{tail(path, lines=lines)}"


def await_healthy(
    name: str,
    *,
    healthy: Callable[[], bool],
    alive: Callable[[], bool],
    timeout_s: float,
    log_file: Path,
    grace_s: float = 5.0,
) -> None:
    """Wait until healthy(); fail early if the process died (after grace_s), or when timeout_s runs out."""
    started = time.monotonic()
    while not healthy():
        waited = time.monotonic() - started
        if waited > grace_s and not alive():
            raise InfraError(f"{name} exited while starting; {describe_log(log_file)}")
        if waited > timeout_s:
            raise InfraError(f"{name} not healthy after {timeout_s:.0f}s; {describe_log(log_file)}")
        time.sleep(0.5)
