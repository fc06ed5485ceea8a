"""The least-privilege Elasticsearch user the API, workers and CLI data paths run as (file realm).

The minimal distribution has no `.security` index, so there are no native users or API keys: the role lives in
`config/roles.yml` and the user in `config/users` + `config/users_roles`, written by `bin/elasticsearch-users`.
Elasticsearch reloads these files on its own (every few seconds), so a running node needs no restart.
The built-in `elastic` superuser stays with infra (provisioning, health probes); the service user may only read,
write and manage `sp-*` indices and aliases, and monitor the cluster.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import httpx

from infra.errors import InfraError
from infra.process import run
from infra.system import make_dir, write_file
from search_platform.config import Settings

log = logging.getLogger(__name__)

ROLE_NAME = "sp_service"
INDEX_PATTERNS = ("sp-*",)  # chunk indices and aliases (sp-chunks*), search logs (sp-search-logs*), test indices
CLUSTER_PRIVILEGES = ("monitor",)  # _cluster/health (healthz), node stats; nothing that changes the cluster
# read: search, knn, get, scroll; write: bulk index/delete (stale chunks); create_index + manage: versioned indices,
# mappings, refresh, alias swaps, rollover and deleting old versions; view_index_metadata: alias and mapping reads
INDEX_PRIVILEGES = ("read", "write", "create_index", "manage", "view_index_metadata")
REALM_FILES = ("roles.yml", "users", "users_roles")
AUTHENTICATE_TIMEOUT_S = 5.0
RELOAD_TIMEOUT_S = 60.0
POLL_S = 1.0


def render_roles() -> str:
    """roles.yml with the one role of the service user (JSON flow values are valid YAML)."""
    index_entry = {"names": list(INDEX_PATTERNS), "privileges": list(INDEX_PRIVILEGES)}
    return (
        "# Written by infra/es_security.py on every start; edit the code, not this file.\n"
        f"{ROLE_NAME}:\n"
        f"  cluster: {json.dumps(list(CLUSTER_PRIVILEGES))}\n"
        f"  indices:\n    - {json.dumps(index_entry)}\n"
    )


def authenticates(settings: Settings, url: str | None = None) -> bool:
    """True when the service user's credentials work and carry the service role."""
    target = (url or settings.elasticsearch.hosts[0]).rstrip("/") + "/_security/_authenticate"
    auth = (settings.elasticsearch.service_username, settings.elasticsearch.service_password.get_secret_value())
    try:
        response = httpx.get(target, auth=auth, timeout=AUTHENTICATE_TIMEOUT_S)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and ROLE_NAME in response.json().get("roles", [])


def _users_tool(settings: Settings, install: Path, config_dir: Path, env: dict[str, str], *args: str,
                stdin: str | None = None) -> None:
    tool = install / "bin" / "elasticsearch-users"
    command: list[str | Path] = ["runuser", "-u", settings.infra.es_user, "--", tool, *args]
    run(command, stdin=stdin, env={**env, "ES_PATH_CONF": str(config_dir)})


def _user_exists(config_dir: Path, username: str) -> bool:
    users = config_dir / "users"
    return users.is_file() and any(line.split(":", 1)[0] == username for line in users.read_text().splitlines())


def write_service_user(settings: Settings, *, install: Path, config_dir: Path, env: dict[str, str]) -> None:
    """Write the role and (re)create the user with the settings password; the password goes through stdin."""
    es = settings.elasticsearch
    write_file(config_dir / "roles.yml", render_roles(), owner=settings.infra.es_user, mode=0o640)
    if _user_exists(config_dir, es.service_username):
        _users_tool(settings, install, config_dir, env, "userdel", es.service_username)
    password = es.service_password.get_secret_value()
    # the tool prompts twice (new, retype) and reads stdin when there is no console
    _users_tool(settings, install, config_dir, env, "useradd", es.service_username, "-r", ROLE_NAME,
                stdin=f"{password}\n{password}\n")


def ensure_service_user(settings: Settings, *, install: Path, config_dir: Path, env: dict[str, str],
                        url: str | None = None) -> None:
    """Make the service user work on a running node: provision it unless it already authenticates, then wait for
    the node to reload its realm files."""
    if authenticates(settings, url):
        write_file(config_dir / "roles.yml", render_roles(), owner=settings.infra.es_user, mode=0o640)
        remember_password(settings)
        return
    log.info("provisioning the Elasticsearch service user %r", settings.elasticsearch.service_username)
    write_service_user(settings, install=install, config_dir=config_dir, env=env)
    deadline = time.monotonic() + RELOAD_TIMEOUT_S
    while not authenticates(settings, url):
        if time.monotonic() > deadline:
            raise InfraError(f"Elasticsearch did not accept the service user "
                             f"{settings.elasticsearch.service_username!r} within {RELOAD_TIMEOUT_S:.0f}s "
                             f"after writing {config_dir}/users")
        time.sleep(POLL_S)
    remember_password(settings)


def service_password_file(settings: Settings) -> Path:
    """Where the service user's current password is kept (0600), so that another checkout's bootstrap adopts it
    instead of generating a new one and re-provisioning the user under this one's feet."""
    return settings.infra.home / "secrets" / "service-password"


def remember_password(settings: Settings) -> None:
    """Keep the password the service user now has."""
    path = service_password_file(settings)
    make_dir(path.parent, mode=0o700)
    write_file(path, settings.elasticsearch.service_password.get_secret_value(), mode=0o600)
