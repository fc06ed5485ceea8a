"""Pid files, liveness (zombies count as dead), graceful termination and log summaries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from infra import process
from infra.errors import InfraError


def test_read_pid_handles_missing_and_garbled_files(tmp_path: Path) -> None:
    pid_file = tmp_path / "x.pid"
    assert process.read_pid(pid_file) is None
    pid_file.write_text("not a pid\n")
    assert process.read_pid(pid_file) is None
    pid_file.write_text("1234\n")
    assert process.read_pid(pid_file) == 1234


def test_is_alive_checks_the_command_line_marker() -> None:
    assert process.is_alive(os.getpid(), marker="python")
    assert not process.is_alive(os.getpid(), marker="redis-server")


def test_live_pid_ignores_a_stale_pid_file(tmp_path: Path) -> None:
    pid_file = tmp_path / "x.pid"
    pid_file.write_text(str(os.getpid()))
    assert process.live_pid(pid_file, marker="python") == os.getpid()
    pid_file.write_text("999999999")
    assert process.live_pid(pid_file, marker="python") is None


def test_terminate_stops_a_process_and_a_zombie_counts_as_gone() -> None:
    script = "import time; print('ready', flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        assert process.is_alive(child.pid, marker="time.sleep")
        process.terminate(child.pid, marker="time.sleep", timeout_s=5.0)  # leaves an unreaped zombie
        assert not process.is_alive(child.pid, marker="time.sleep")
    finally:
        child.kill()
        child.wait()


def test_terminate_escalates_to_sigkill_when_sigterm_is_ignored() -> None:
    script = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        process.terminate(child.pid, marker="SIG_IGN", timeout_s=0.5)
        assert child.wait(timeout=5) == -9
    finally:
        child.kill()
        child.wait()


def test_run_returns_stdout_and_raises_with_the_output_on_failure() -> None:
    assert process.run([sys.executable, "-c", "print('hi')"]).strip() == "hi"
    with pytest.raises(InfraError, match="boom"):
        process.run([sys.executable, "-c", "import sys; sys.exit('boom')"])


def test_await_healthy_fails_fast_when_the_process_is_gone(tmp_path: Path) -> None:
    log_file = tmp_path / "service.log"
    log_file.write_text("starting\n[2026-01-01][ERROR][o.e.b] fatal exception while booting\nbye\n")
    with pytest.raises(InfraError, match="exited while starting") as caught:
        process.await_healthy(
            "svc", healthy=lambda: False, alive=lambda: False, timeout_s=30, log_file=log_file, grace_s=0
        )
    assert "fatal exception while booting" in str(caught.value)


def test_await_healthy_times_out(tmp_path: Path) -> None:
    with pytest.raises(InfraError, match="not healthy after 0s"):
        process.await_healthy(
            "svc", healthy=lambda: False, alive=lambda: True, timeout_s=0, log_file=tmp_path / "none.log"
        )


def test_error_lines_keeps_the_most_recent_errors_and_causes() -> None:
    log_text = "\n".join(
        [
            "[INFO ] started",
            "[ERROR] old failure",
            "[ERROR] fatal exception while booting",
            "Caused by: java.net.BindException: Address already in use",
            "1711:M 02 Dec 2026 13:03:29.833 # Failed listening on port 6379 (TCP), aborting.",
        ]
    )
    assert process.error_lines(log_text, limit=3) == [
        "[ERROR] fatal exception while booting",
        "Caused by: java.net.BindException: Address already in use",
        "1711:M 02 Dec 2026 13:03:29.833 # Failed listening on port 6379 (TCP), aborting.",
    ]


def test_describe_log_of_a_missing_file_says_so(tmp_path: Path) -> None:
    assert "(no log at" in process.describe_log(tmp_path / "missing.log")
