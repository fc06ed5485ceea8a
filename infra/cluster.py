"""A local multi-node Elasticsearch cluster on loopback, beside the main single node, for scale-out and failover tests.

Every node runs the main node's installed distribution with its own config directory (ES_PATH_CONF), keystore,
data, logs and pid file under settings.infra.cluster.home/node-N. Node N listens on HTTP http_base_port + N - 1 and
transport transport_base_port + N - 1; security is on with the same elastic password as the main node.
`cluster.initial_master_nodes` is written only while no node has data, i.e. at the cluster's first bootstrap.
"""

from __future__ import annotations

import logging
import shutil
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from infra import elasticsearch, es_install, es_plugins, es_security
from infra.errors import InfraError
from infra.health import ServiceStatus
from infra.process import describe_log, live_pid, run, terminate
from infra.system import chown_tree, ensure_system_user, make_dir, write_file
from search_platform.config import Settings

log = logging.getLogger(__name__)

CLUSTER_NAME = "search-platform-cluster"
NODE_PREFIX = "sp-cluster-"
HOST = "127.0.0.1"
KEEP_OUT_OF_NODE_CONFIG = frozenset({"elasticsearch.yml", "elasticsearch.keystore"})
HEALTH_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class ClusterNode:
    """One node of the local cluster: its number, name, ports and directories."""

    number: int
    home: Path
    http_port: int
    transport_port: int

    @property
    def name(self) -> str:
        """node.name, also used in cluster.initial_master_nodes."""
        return f"{NODE_PREFIX}{self.number}"

    @property
    def url(self) -> str:
        """The node's HTTP address."""
        return f"http://{HOST}:{self.http_port}"

    @property
    def config(self) -> Path:
        """ES_PATH_CONF of this node."""
        return self.home / "config"

    @property
    def data(self) -> Path:
        """path.data."""
        return self.home / "data"

    @property
    def logs(self) -> Path:
        """path.logs."""
        return self.home / "logs"

    @property
    def pid_file(self) -> Path:
        """Written by `elasticsearch -p`."""
        return self.home / "run" / "elasticsearch.pid"

    @property
    def log_file(self) -> Path:
        """The server log, named after the cluster."""
        return self.logs / f"{CLUSTER_NAME}.log"


def nodes(settings: Settings) -> list[ClusterNode]:
    """Every node of the configured cluster, node 1 first."""
    cluster = settings.infra.cluster
    return [
        ClusterNode(number, cluster.home / f"node-{number}", cluster.http_base_port + number - 1,
                    cluster.transport_base_port + number - 1)
        for number in range(1, cluster.nodes + 1)
    ]


def snapshot_dir(settings: Settings) -> Path:
    """path.repo of every node: fs snapshot repositories (`search-platform snapshots`)."""
    return settings.infra.cluster.home / "snapshots"


def urls(settings: Settings) -> str:
    """Every node's URL, comma-separated: the value for SP_ELASTICSEARCH__URL of a client of the cluster."""
    return ",".join(node.url for node in nodes(settings))


def render_config(settings: Settings, node: ClusterNode, *, bootstrap: bool) -> str:
    """elasticsearch.yml of one node; bootstrap adds cluster.initial_master_nodes (first start only)."""
    members = nodes(settings)
    values: dict[str, Any] = {
        "cluster.name": CLUSTER_NAME,
        "node.name": node.name,
        "network.host": HOST,
        "http.port": node.http_port,
        "transport.port": node.transport_port,
        "discovery.seed_hosts": [f"{HOST}:{member.transport_port}" for member in members],
        "path.data": str(node.data),
        "path.logs": str(node.logs),
        "path.repo": [str(snapshot_dir(settings))],  # one directory every node shares: a valid fs repository
        "xpack.security.enabled": True,
        "xpack.security.http.ssl.enabled": False,
        "xpack.security.transport.ssl.enabled": False,  # loopback only: nothing leaves the machine
        "cluster.routing.allocation.disk.threshold_enabled": False,
    }
    if bootstrap:
        values["cluster.initial_master_nodes"] = [member.name for member in members]
    return elasticsearch.render_yaml(values, writer="infra/cluster.py")


def check_ports(settings: Settings) -> None:
    """Refuse a layout whose ports collide with each other or with the main node's 9200/9300."""
    taken = [port for node in nodes(settings) for port in (node.http_port, node.transport_port)]
    main_http = elasticsearch.http_port(settings)
    main = {main_http, main_http + 100}
    if len(set(taken)) != len(taken) or main & set(taken):
        raise InfraError(f"cluster ports {sorted(taken)} collide with each other or with the main node's "
                         f"{sorted(main)}: change SP_INFRA__CLUSTER__HTTP_BASE_PORT / TRANSPORT_BASE_PORT")


def node_environment(settings: Settings, node: ClusterNode) -> dict[str, str]:
    """The main node's launcher environment with this node's config directory and the cluster heap."""
    heap = settings.infra.cluster.heap
    return {**elasticsearch.server_environment(settings), "ES_PATH_CONF": str(node.config),
            "ES_JAVA_OPTS": f"-Xms{heap} -Xmx{heap}"}


def running_pid(node: ClusterNode) -> int | None:
    """The node's pid if it runs."""
    return live_pid(node.pid_file, marker=elasticsearch.PROCESS_MARKER)


def prepare(settings: Settings) -> list[ClusterNode]:
    """Install the distribution, then give every node its directories, config and keystore."""
    check_ports(settings)
    infra = settings.infra
    if not (infra.java_home / "bin" / "java").is_file():
        raise InfraError(f"no Java at {infra.java_home}: install a JDK 21+ and set SP_INFRA__JAVA_HOME")
    ensure_system_user(infra.es_user)
    install = es_install.install(infra)
    es_plugins.install_all(install, java_home=infra.java_home)  # the main node's install: same plugins
    chown_tree(install, infra.es_user)
    members = nodes(settings)
    bootstrap = not any(_has_data(node) for node in members)
    make_dir(infra.cluster.home)
    make_dir(snapshot_dir(settings), owner=infra.es_user, mode=0o750)
    for node in members:
        _prepare_node(settings, node, install, bootstrap=bootstrap)
    return members


def _has_data(node: ClusterNode) -> bool:
    return node.data.is_dir() and any(node.data.iterdir())


def _prepare_node(settings: Settings, node: ClusterNode, install: Path, *, bootstrap: bool) -> None:
    user = settings.infra.es_user
    for directory in (node.home, node.data, node.logs, node.pid_file.parent):
        make_dir(directory, owner=user, mode=0o750)
    if not node.config.is_dir():
        shutil.copytree(install / "config", node.config,
                        ignore=lambda _dir, names: [n for n in names if n in KEEP_OUT_OF_NODE_CONFIG])
        chown_tree(node.config, user)
    write_file(node.config / "elasticsearch.yml", render_config(settings, node, bootstrap=bootstrap),
               owner=user, mode=0o640)
    if not (node.config / "elasticsearch.keystore").exists():
        tool = install / "bin" / "elasticsearch-keystore"
        env = node_environment(settings, node)
        run(["runuser", "-u", user, "--", tool, "create"], env=env)
        run(["runuser", "-u", user, "--", tool, "add", "-x", "-f", "bootstrap.password"],
            stdin=settings.elasticsearch.password.get_secret_value(), env=env)


def port_in_use(port: int) -> bool:
    """True if something listens on the loopback port."""
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((HOST, port)) == 0


def launch(settings: Settings, node: ClusterNode) -> None:
    """Start one node (daemonized) unless it runs; the launcher returns once the JVM is up."""
    if running_pid(node) is not None:
        return
    for port in (node.http_port, node.transport_port):
        if port_in_use(port):
            raise InfraError(f"{node.name} cannot start: {HOST}:{port} is taken by another process")
    install = es_install.install_dir(settings.infra)
    node.pid_file.unlink(missing_ok=True)
    command: list[str | Path] = ["runuser", "-u", settings.infra.es_user, "--", install / "bin" / "elasticsearch",
                                 "-d", "-p", node.pid_file]
    log.info("starting cluster node %s (HTTP %d, transport %d)", node.name, node.http_port, node.transport_port)
    try:
        run(command, env=node_environment(settings, node), cwd=install, timeout_s=settings.infra.start_timeout_s)
    except InfraError as error:
        raise InfraError(f"{node.name} failed to start: {describe_log(node.log_file)}\n{error}") from error


def health(settings: Settings, *, via: list[ClusterNode] | None = None, **params: str) -> dict[str, Any] | None:
    """GET /_cluster/health from the first node that answers (params such as wait_for_nodes), or None."""
    auth = (settings.elasticsearch.username, settings.elasticsearch.password.get_secret_value())
    for node in via or nodes(settings):
        try:
            response = httpx.get(f"{node.url}/_cluster/health", params=params, auth=auth,
                                 timeout=HEALTH_TIMEOUT_S + float(params.get("timeout", "0s").rstrip("s") or 0))
        except httpx.HTTPError:
            continue
        if response.status_code in (200, 408):  # 408: the wait_for_* condition was not met in time
            body: dict[str, Any] = response.json()
            return body
    return None


def wait_for(settings: Settings, *, status: str, node_count: int, timeout_s: float) -> dict[str, Any]:
    """Wait until the cluster has node_count nodes and at least `status`; return the health, or raise."""
    deadline = time.monotonic() + timeout_s
    last: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        last = health(settings, wait_for_status=status, wait_for_nodes=str(node_count), timeout="5s")
        if last is not None and not last.get("timed_out", True):
            return last
        time.sleep(1.0)
    logs = "\n".join(describe_log(node.log_file, lines=5) for node in nodes(settings))
    raise InfraError(f"cluster not {status} with {node_count} nodes after {timeout_s:.0f}s (last: {last})\n{logs}")


def up(settings: Settings) -> dict[str, Any]:
    """Provision and start every node (in parallel), then wait for green with all of them; returns the health."""
    members = prepare(settings)
    with ThreadPoolExecutor(max_workers=len(members)) as pool:
        list(pool.map(lambda node: launch(settings, node), members))
    health = wait_for(settings, status="green", node_count=len(members), timeout_s=settings.infra.start_timeout_s)
    if settings.elasticsearch.service_password.get_secret_value():
        install = es_install.install_dir(settings.infra)
        for node in members:  # the file realm is per node: each gets the service user the main node has
            es_security.ensure_service_user(settings, install=install, config_dir=node.config,
                                            env=node_environment(settings, node), url=node.url)
    return health


def down(settings: Settings, *, wipe: bool = False) -> None:
    """Stop every node (SIGTERM, then SIGKILL); wipe also deletes the cluster's directories."""
    for node in nodes(settings):
        pid = running_pid(node)
        if pid is not None:
            log.info("stopping cluster node %s (pid %d)", node.name, pid)
            terminate(pid, marker=elasticsearch.PROCESS_MARKER, timeout_s=elasticsearch.STOP_TIMEOUT_S)
    if wipe and settings.infra.cluster.home.is_dir():
        shutil.rmtree(settings.infra.cluster.home)


def status(settings: Settings) -> dict[str, ServiceStatus]:
    """Each node's process and the cluster's health as seen from it."""
    found = {}
    for node in nodes(settings):
        pid = running_pid(node)
        answer = health(settings, via=[node]) if pid is not None else None
        detail = "not running" if pid is None else (
            f"{node.url}: cluster {answer['status']}, {answer['number_of_nodes']} nodes" if answer
            else f"{node.url}: no answer")
        healthy = answer is not None and answer.get("status") in elasticsearch.READY_STATUSES
        found[node.name] = ServiceStatus(node.name, running=pid is not None, healthy=healthy, pid=pid, detail=detail)
    return found
