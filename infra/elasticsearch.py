"""Run Elasticsearch locally: a minimal distribution on 127.0.0.1, security on, as a dedicated system user.

Layout under settings.infra.home: elasticsearch-<version>/ (install and config), es-data/ (kept across
restarts), es-logs/, es-run/elasticsearch.pid, es-snapshots/ (path.repo, unless settings.infra.snapshot_dir),
secrets/elastic-password (the password it was provisioned with, 0600, used to adopt a changed settings password).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from infra import es_install, es_plugins, es_security
from infra.errors import InfraError
from infra.health import ServiceStatus
from infra.process import await_healthy, describe_log, live_pid, run, terminate
from infra.system import chown_tree, ensure_system_user, loopback_port, make_dir, write_file
from search_platform.config import Settings

log = logging.getLogger(__name__)

NAME = "elasticsearch"
CLUSTER_NAME = "search-platform"
NODE_NAME = "search-platform-1"
BUILTIN_USER = "elastic"  # its password is the keystore's bootstrap.password
PROCESS_MARKER = "org.elasticsearch.bootstrap.Elasticsearch"
READY_STATUSES = frozenset({"yellow", "green"})
PROBE_TIMEOUT_S = 5.0
STOP_TIMEOUT_S = 60.0
SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True, slots=True)
class EsPaths:
    """Every file and directory of the local node."""

    install: Path
    data: Path
    logs: Path
    run: Path
    secrets: Path
    snapshots: Path  # path.repo: fs snapshot repositories (search_platform/backends/elasticsearch/snapshots.py)

    @property
    def config(self) -> Path:
        """The node's config directory (elasticsearch.yml, keystore)."""
        return self.install / "config"

    @property
    def keystore(self) -> Path:
        """The secure settings keystore; its absence means the node was never provisioned."""
        return self.config / "elasticsearch.keystore"

    @property
    def pid_file(self) -> Path:
        """Written by `elasticsearch -p`."""
        return self.run / "elasticsearch.pid"

    @property
    def password_file(self) -> Path:
        """The elastic password the node currently has, as far as we provisioned it."""
        return self.secrets / "elastic-password"

    @property
    def log_file(self) -> Path:
        """The server log, named after the cluster."""
        return self.logs / f"{CLUSTER_NAME}.log"


@dataclass(frozen=True, slots=True)
class Probe:
    """One answer (or non-answer) of GET /_cluster/health."""

    code: int | None
    cluster_status: str | None
    detail: str

    @property
    def ready(self) -> bool:
        """Authenticated and the cluster is yellow or green."""
        return self.code == 200 and self.cluster_status in READY_STATUSES


def es_paths(settings: Settings) -> EsPaths:
    """The node's layout under settings.infra.home."""
    home = settings.infra.home
    return EsPaths(
        install=es_install.install_dir(settings.infra),
        data=home / "es-data",
        logs=home / "es-logs",
        run=home / "es-run",
        secrets=home / "secrets",
        snapshots=settings.infra.snapshot_path,
    )


def render_config(settings: Settings, paths: EsPaths) -> str:
    """elasticsearch.yml for a single loopback node with security on and TLS off."""
    values: dict[str, object] = {
        "cluster.name": CLUSTER_NAME,
        "node.name": NODE_NAME,
        "network.host": "127.0.0.1",
        "http.port": http_port(settings),
        "discovery.type": "single-node",
        "path.data": str(paths.data),
        "path.logs": str(paths.logs),
        "path.repo": [str(paths.snapshots)],  # static: a change needs a restart (`start` warns)
        "xpack.security.enabled": True,
        "xpack.security.http.ssl.enabled": False,
        "xpack.security.transport.ssl.enabled": False,
        "cluster.routing.allocation.disk.threshold_enabled": False,
    }
    return render_yaml(values, writer="infra/elasticsearch.py")


def render_yaml(values: Mapping[str, object], *, writer: str) -> str:
    """An elasticsearch.yml of flat keys (JSON values are valid YAML) with a do-not-edit header."""
    header = f"# Written by {writer} on every start; edit the settings, not this file.\n"
    return header + "".join(f"{key}: {json.dumps(value)}\n" for key, value in values.items())


def http_port(settings: Settings) -> int:
    """The main node's HTTP port, from the (single, loopback) elasticsearch.url."""
    return loopback_port(settings.elasticsearch.url, default=9200)


def server_environment(settings: Settings) -> dict[str, str]:
    """The whole environment of the ES launcher: Java home and heap, nothing inherited."""
    heap = settings.infra.es_heap
    return {
        "PATH": SAFE_PATH,
        "LANG": "C.UTF-8",
        "ES_JAVA_HOME": str(settings.infra.java_home),
        "ES_JAVA_OPTS": f"-Xms{heap} -Xmx{heap}",
    }


def _as_es_user(settings: Settings, *argv: str | Path) -> list[str | Path]:
    """argv run as the Elasticsearch system user."""
    return ["runuser", "-u", settings.infra.es_user, "--", *argv]


def running_pid(settings: Settings) -> int | None:
    """The pid of our Elasticsearch node if it is running."""
    return live_pid(es_paths(settings).pid_file, marker=PROCESS_MARKER)


def probe(settings: Settings, password: str | None = None) -> Probe:
    """Ask /_cluster/health as the configured user (with the settings password unless one is given)."""
    secret = password if password is not None else settings.elasticsearch.password.get_secret_value()
    url = settings.elasticsearch.url.rstrip("/") + "/_cluster/health"
    try:
        response = httpx.get(url, auth=(settings.elasticsearch.username, secret), timeout=PROBE_TIMEOUT_S)
    except httpx.HTTPError as error:
        return Probe(None, None, f"no answer from {url}: {error.__class__.__name__}")
    if response.status_code != 200:
        return Probe(response.status_code, None, f"HTTP {response.status_code} from {url}")
    cluster_status = str(response.json().get("status"))
    return Probe(200, cluster_status, f"cluster {cluster_status}")


def is_healthy(settings: Settings) -> bool:
    """True if Elasticsearch accepts the settings credentials and the cluster is yellow or green."""
    return probe(settings).ready


def status(settings: Settings) -> ServiceStatus:
    """Running, healthy, pid and a one-line reason."""
    pid = running_pid(settings)
    if pid is None:
        return ServiceStatus(NAME, running=False, healthy=False, pid=None, detail="not running")
    answer = probe(settings)
    return ServiceStatus(NAME, running=True, healthy=answer.ready, pid=pid, detail=answer.detail)


def start(settings: Settings) -> None:
    """Install, configure and start Elasticsearch unless it runs; return once it is healthy."""
    if running_pid(settings) is None:
        paths = prepare(settings)
        _launch(settings, paths)
    else:
        for name in es_plugins.outdated(es_paths(settings).install):
            log.warning("Elasticsearch runs without the current %s plugin; `search-platform down` then `up` "
                        "installs it", name)
        if config_outdated(settings):
            log.warning("Elasticsearch runs with an older elasticsearch.yml (static settings such as path.repo "
                        "differ); restart it to apply them")
    await_healthy(
        NAME,
        healthy=lambda: _ready_adopting_password(settings),
        alive=lambda: running_pid(settings) is not None,
        timeout_s=settings.infra.start_timeout_s,
        log_file=es_paths(settings).log_file,
    )
    ensure_service_user(settings)


def ensure_service_user(settings: Settings) -> None:
    """Give the running node the least-privilege service user of the settings (skipped while none is set)."""
    if not settings.elasticsearch.service_password.get_secret_value():
        log.warning("SP_ELASTICSEARCH__SERVICE_PASSWORD is not set: the API and workers use %r (dev only)",
                    settings.elasticsearch.username)
        return
    paths = es_paths(settings)
    es_security.ensure_service_user(settings, install=paths.install, config_dir=paths.config,
                                    env=server_environment(settings), url=settings.elasticsearch.hosts[0])


def stop(settings: Settings, *, timeout_s: float = STOP_TIMEOUT_S) -> None:
    """Stop Elasticsearch gracefully (SIGTERM, then SIGKILL after timeout_s); data stays."""
    pid = running_pid(settings)
    if pid is None:
        return
    log.info("stopping Elasticsearch (pid %d)", pid)
    terminate(pid, marker=PROCESS_MARKER, timeout_s=timeout_s)


def config_outdated(settings: Settings) -> bool:
    """True if the node's elasticsearch.yml is not what these settings render (it is rewritten only at start)."""
    paths = es_paths(settings)
    try:
        written = (paths.config / "elasticsearch.yml").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return written != render_config(settings, paths)


def prepare(settings: Settings) -> EsPaths:
    """Install the distribution and this repo's plugins, create the user and directories, write config and keystore."""
    infra = settings.infra
    if settings.elasticsearch.username != BUILTIN_USER:
        raise InfraError(f"the local node only has the built-in {BUILTIN_USER!r} user; set SP_ELASTICSEARCH__USERNAME")
    if not (infra.java_home / "bin" / "java").is_file():
        raise InfraError(f"no Java at {infra.java_home}: install a JDK 21+ and set SP_INFRA__JAVA_HOME")
    ensure_system_user(infra.es_user)
    make_dir(infra.home)
    paths = es_paths(settings)
    es_install.install(infra)
    es_plugins.install_all(paths.install, java_home=infra.java_home)
    chown_tree(paths.install, infra.es_user)
    for directory in (paths.data, paths.logs, paths.run, paths.snapshots):
        make_dir(directory, owner=infra.es_user, mode=0o750)
    config = render_config(settings, paths)
    write_file(paths.config / "elasticsearch.yml", config, owner=infra.es_user, mode=0o640)
    if not paths.keystore.exists():
        _create_keystore(settings, paths)
    return paths


def _create_keystore(settings: Settings, paths: EsPaths) -> None:
    """First provisioning: an empty keystore, then the settings password as bootstrap.password."""
    log.info("creating the Elasticsearch keystore with bootstrap.password")
    tool = paths.install / "bin" / "elasticsearch-keystore"
    run(_as_es_user(settings, tool, "create"), env=server_environment(settings))
    _set_bootstrap_password(settings, paths, settings.elasticsearch.password.get_secret_value())
    _store_password(paths, settings.elasticsearch.password.get_secret_value())


def _set_bootstrap_password(settings: Settings, paths: EsPaths, password: str) -> None:
    """Write bootstrap.password (the elastic user's password) into the keystore; read at the next start."""
    tool = paths.install / "bin" / "elasticsearch-keystore"
    command = _as_es_user(settings, tool, "add", "-x", "-f", "bootstrap.password")
    run(command, stdin=password, env=server_environment(settings))


def _launch(settings: Settings, paths: EsPaths) -> None:
    """Start the daemonized node; the launcher returns once the node has started (or failed)."""
    log.info("starting Elasticsearch %s (heap %s)", settings.infra.es_version, settings.infra.es_heap)
    paths.pid_file.unlink(missing_ok=True)
    command = _as_es_user(settings, paths.install / "bin" / "elasticsearch", "-d", "-p", paths.pid_file)
    try:
        run(
            command,
            env=server_environment(settings),
            cwd=paths.install,
            timeout_s=settings.infra.start_timeout_s,
        )
    except InfraError as error:
        raise InfraError(f"Elasticsearch failed to start: {describe_log(paths.log_file)}\n{error}") from error


def _ready_adopting_password(settings: Settings) -> bool:
    """Ready check that, on a 401, switches the node to the settings password if the stored one works."""
    answer = probe(settings)
    if answer.code == 401:
        _adopt_settings_password(settings)
        answer = probe(settings)
    return answer.ready


def _adopt_settings_password(settings: Settings) -> None:
    """Give the node the settings password, after proving the stored one works, then restart it.

    The minimal distribution lacks the analysis-common module, so the .security index can never be
    created (its mapping needs `pattern_capture`) and `POST /_security/user/elastic/_password` fails
    with HTTP 400. The reserved realm then keeps using the keystore's bootstrap.password, so that is
    the one place to change it.
    """
    paths = es_paths(settings)
    wanted = settings.elasticsearch.password.get_secret_value()
    stored = _read_password(paths)
    if stored is None or stored == wanted or probe(settings, stored).code != 200:
        raise InfraError(
            f"Elasticsearch rejects the password of SP_ELASTICSEARCH__PASSWORD for user "
            f"{settings.elasticsearch.username!r}, and the password stored in {paths.password_file} "
            "does not work either; restore the right password in .env"
        )
    log.warning("the Elasticsearch password in settings changed: updating the keystore and restarting")
    _set_bootstrap_password(settings, paths, wanted)
    stop(settings)
    _launch(settings, paths)
    if probe(settings).code == 401:
        _set_bootstrap_password(settings, paths, stored)
        raise InfraError("the node still rejects the new password after a restart; the keystore was reverted")
    _store_password(paths, wanted)


def _read_password(paths: EsPaths) -> str | None:
    """The stored provisioned password, if any."""
    try:
        return paths.password_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _store_password(paths: EsPaths, password: str) -> None:
    """Keep the password the node has, readable by root only."""
    make_dir(paths.secrets, mode=0o700)
    write_file(paths.password_file, password, mode=0o600)
