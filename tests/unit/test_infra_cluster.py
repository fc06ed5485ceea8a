"""The local multi-node cluster's layout and config, rendered from Settings (no services run)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import SecretStr, ValidationError

from infra import cluster
from infra.errors import InfraError
from search_platform.backends.elasticsearch.client import _client_options
from search_platform.config import ClusterSettings, ElasticsearchSettings, InfraSettings, Settings


def make_settings(tmp_path: Path, **cluster_options: object) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        elasticsearch=ElasticsearchSettings(password=SecretStr("unit-test-password")),
        infra=InfraSettings(home=tmp_path / "home", download_cache=tmp_path / "cache",
                            cluster=ClusterSettings(home=tmp_path / "cluster", **cluster_options)),  # type: ignore[arg-type]
    )


def test_three_nodes_on_their_own_ports_and_directories(tmp_path: Path) -> None:
    nodes = cluster.nodes(make_settings(tmp_path))
    assert [(n.name, n.http_port, n.transport_port) for n in nodes] == [
        ("sp-cluster-1", 9201, 9401), ("sp-cluster-2", 9202, 9402), ("sp-cluster-3", 9203, 9403)]
    assert len({n.data for n in nodes} | {n.logs for n in nodes} | {n.pid_file for n in nodes}) == 9
    assert cluster.urls(make_settings(tmp_path)) == "http://127.0.0.1:9201,http://127.0.0.1:9202,http://127.0.0.1:9203"


def test_config_discovers_every_node_and_bootstraps_only_on_first_start(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    node = cluster.nodes(settings)[1]
    first = yaml.safe_load(cluster.render_config(settings, node, bootstrap=True))
    assert first["node.name"] == "sp-cluster-2"
    assert first["http.port"] == 9202 and first["transport.port"] == 9402
    assert first["discovery.seed_hosts"] == ["127.0.0.1:9401", "127.0.0.1:9402", "127.0.0.1:9403"]
    assert first["cluster.initial_master_nodes"] == ["sp-cluster-1", "sp-cluster-2", "sp-cluster-3"]
    assert first["xpack.security.enabled"] is True and first["network.host"] == "127.0.0.1"
    assert first["path.data"] == str(node.data)
    assert first["path.repo"] == [str(settings.infra.cluster.home / "snapshots")]  # shared by every node
    assert "cluster.initial_master_nodes" not in yaml.safe_load(cluster.render_config(settings, node, bootstrap=False))


def test_ports_colliding_with_the_main_node_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InfraError, match="collide"):
        cluster.check_ports(make_settings(tmp_path, http_base_port=9199))  # node 2 would take 9200
    with pytest.raises(InfraError, match="collide"):
        cluster.check_ports(make_settings(tmp_path, transport_base_port=9201))  # transport on node 1's HTTP port
    cluster.check_ports(make_settings(tmp_path))


def test_node_environment_points_at_its_own_config_and_heap(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, heap="768m")
    node = cluster.nodes(settings)[0]
    env = cluster.node_environment(settings, node)
    assert env["ES_PATH_CONF"] == str(node.config)
    assert env["ES_JAVA_OPTS"] == "-Xms768m -Xmx768m"


def test_clients_get_every_node_of_a_comma_separated_url() -> None:
    es = ElasticsearchSettings(url=" http://127.0.0.1:9201, http://127.0.0.1:9202 ,http://127.0.0.1:9203",
                               password=SecretStr("x"))
    assert _client_options(es)["hosts"] == ["http://127.0.0.1:9201", "http://127.0.0.1:9202",
                                            "http://127.0.0.1:9203"]
    with pytest.raises(ValidationError, match="names no node"):
        ElasticsearchSettings(url=" , ", password=SecretStr("x"))
