"""Host-level chores for provisioning: system users, Debian packages, ownership, files, loopback ports."""

from __future__ import annotations

import contextlib
import logging
import os
import pwd
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from infra.errors import InfraError
from infra.process import run

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
POLICY_RC_D = Path("/usr/sbin/policy-rc.d")


def loopback_port(url: str, *, default: int) -> int:
    """The port of a service URL, refusing URLs that do not point at this machine's loopback."""
    parts = urlsplit(url)
    if parts.hostname not in LOOPBACK_HOSTS:
        raise InfraError(f"infra only runs local services, but {url!r} is not on 127.0.0.1")
    return parts.port or default


def ensure_system_user(name: str) -> None:
    """Create a non-login system user (and its group) unless it exists."""
    try:
        pwd.getpwnam(name)
    except KeyError:
        log.info("creating system user %s", name)
        run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name])


def chown_tree(path: Path, user: str) -> None:
    """Give a directory tree to user and that user's group."""
    run(["chown", "-R", f"{user}:", path])


def make_dir(path: Path, *, owner: str | None = None, mode: int = 0o755) -> Path:
    """Create a directory (and parents) with mode, optionally owned by a user; return it."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)
    if owner is not None:
        shutil.chown(path, owner, pwd.getpwnam(owner).pw_gid)
    return path


def write_file(path: Path, text: str, *, owner: str | None = None, mode: int = 0o644) -> None:
    """Atomically write a text file with mode (set before any byte is written) and owner."""
    staging = path.with_name(f".{path.name}.tmp")
    staging.unlink(missing_ok=True)
    descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    if owner is not None:
        shutil.chown(staging, owner, pwd.getpwnam(owner).pw_gid)
    staging.replace(path)


def ensure_debian_package(binary: Path, package: str) -> None:
    """Install a Debian package with apt-get if binary is missing, refreshing the index if needed."""
    if binary.exists():
        return
    log.info("%s is missing: apt-get install %s", binary, package)
    install = ["apt-get", "install", "-y", "--no-install-recommends", package]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with _services_not_autostarted():
        try:
            run(install, env=env)
        except InfraError:
            run(["apt-get", "update"], env=env)
            run(install, env=env)
    if not binary.exists():
        raise InfraError(f"apt-get installed {package} but {binary} is still missing")


@contextlib.contextmanager
def _services_not_autostarted() -> Iterator[None]:
    """Stop Debian maintainer scripts from starting a packaged daemon on our ports (policy-rc.d)."""
    if POLICY_RC_D.exists():
        yield
        return
    POLICY_RC_D.write_text("#!/bin/sh\nexit 101\n")
    POLICY_RC_D.chmod(0o755)
    try:
        yield
    finally:
        POLICY_RC_D.unlink(missing_ok=True)
