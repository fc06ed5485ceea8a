"""The analysis plugin project's metadata, and infra/es_plugins.py installing a zip once per checksum."""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from xml.etree import ElementTree

import pytest
from pydantic import SecretStr

from infra import cluster, elasticsearch, es_install, es_plugins
from infra.errors import InfraError
from search_platform.config import ClusterSettings, ElasticsearchSettings, InfraSettings, Settings

PROJECT = es_plugins.PLUGIN_PROJECTS[0]
METADATA = PROJECT / "src" / "main" / "plugin-metadata"
SOURCES = PROJECT / "src" / "main" / "java"
STABLE_DESCRIPTOR_KEYS = {"name", "description", "version", "elasticsearch.version", "java.version", "modular",
                          "deployment.target"}
EXTENSIBLE = "org.elasticsearch.plugin.analysis."
POM = "{http://maven.apache.org/POM/4.0.0}"
COMPONENT = re.compile(
    r'@NamedComponent\("(?P<name>[^"]+)"\)\s*public\s+(?P<static>static\s+)?final\s+class\s+(?P<cls>\w+)'
    r"\s+implements\s+(?P<iface>\w+)"
)


def declared_components() -> dict[str, dict[str, str]]:
    """{interface: {name: binary class name}} from the @NamedComponent annotations in the Java sources."""
    found: dict[str, dict[str, str]] = {}
    for source in SOURCES.rglob("*.java"):
        text = source.read_text()
        package = re.search(r"^package ([\w.]+);", text, re.MULTILINE)
        assert package is not None, source
        for match in COMPONENT.finditer(text):
            outer = f"{source.stem}$" if match["static"] else ""
            binary = f"{package[1]}.{outer}{match['cls']}"
            found.setdefault(EXTENSIBLE + match["iface"], {})[match["name"]] = binary
    return found


def test_named_components_json_lists_every_annotated_component() -> None:
    shipped = json.loads((METADATA / "named_components.json").read_text())
    assert shipped == declared_components()
    names = [name for components in shipped.values() for name in components]
    assert all(name.startswith("sp_") for name in names), names
    assert {"sp_english", "sp_english_light", "sp_identifier"} <= set(
        shipped[EXTENSIBLE + "AnalyzerFactory"])


def test_descriptor_has_only_the_keys_a_stable_plugin_may_have() -> None:
    lines = (METADATA / "stable-plugin-descriptor.properties").read_text().splitlines()
    keys = {line.split("=", 1)[0] for line in lines if line and not line.startswith("#")}
    assert keys <= STABLE_DESCRIPTOR_KEYS
    assert {"name", "version", "elasticsearch.version", "java.version"} <= keys


def test_pom_builds_for_the_elasticsearch_version_infra_installs() -> None:
    properties = ElementTree.parse(PROJECT / "pom.xml").getroot().find(f"{POM}properties")
    assert properties is not None
    assert properties.findtext(f"{POM}elasticsearch.version") == InfraSettings().es_version


def make_zip(path: Path, *, name: str = "sp-test-plugin", payload: bytes = b"jar") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(es_plugins.DESCRIPTOR, f"# comment\nname={name}\nversion=1\n")
        archive.writestr("plugin.jar", payload)
    return path


class FakeInstaller:
    """Stands in for bin/elasticsearch-plugin: records argv and creates the plugin directory."""

    def __init__(self, install: Path) -> None:
        self.install = install
        self.calls: list[list[str]] = []

    def __call__(self, command: Sequence[object], **_: object) -> str:
        argv = [str(part) for part in command]
        self.calls.append(argv)
        assert argv[:3] == [str(self.install / "bin" / "elasticsearch-plugin"), "install", "--batch"]
        with zipfile.ZipFile(argv[3].removeprefix("file://")) as archive:
            plugin = self.install / "plugins" / es_plugins.plugin_name(Path(archive.filename or ""))
            plugin.mkdir(parents=True)
            (plugin / "plugin.jar").write_bytes(archive.read("plugin.jar"))
        return ""


def test_a_zip_is_installed_once_and_again_only_when_it_changes(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    install = tmp_path / "es"
    installer = FakeInstaller(install)
    monkeypatch.setattr(es_plugins, "run", installer)
    plugin = es_plugins.PluginZip("sp-test-plugin", make_zip(tmp_path / "target" / "p.zip"))
    java = Path("/jdk")
    assert es_plugins.ensure_installed(install, plugin, java_home=java) is True
    assert es_plugins.ensure_installed(install, plugin, java_home=java) is False
    assert len(installer.calls) == 1
    make_zip(plugin.path, payload=b"jar v2")
    assert es_plugins.ensure_installed(install, plugin, java_home=java) is True
    assert len(installer.calls) == 2
    assert (install / "plugins" / "sp-test-plugin" / "plugin.jar").read_bytes() == b"jar v2"
    assert not list((install / "plugins").glob(f"{es_plugins.MARKER_DIR}*"))  # markers stay out of plugins/


def test_a_plugin_removed_by_hand_is_installed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install = tmp_path / "es"
    installer = FakeInstaller(install)
    monkeypatch.setattr(es_plugins, "run", installer)
    plugin = es_plugins.PluginZip("sp-test-plugin", make_zip(tmp_path / "p.zip"))
    es_plugins.ensure_installed(install, plugin, java_home=Path("/jdk"))
    (install / "plugins" / "sp-test-plugin" / "plugin.jar").unlink()
    (install / "plugins" / "sp-test-plugin").rmdir()
    assert es_plugins.ensure_installed(install, plugin, java_home=Path("/jdk")) is True


def test_built_zip_reads_the_name_from_the_descriptor_and_refuses_an_unbuilt_project(tmp_path: Path) -> None:
    with pytest.raises(InfraError, match=r"scripts/bootstrap\.sh"):
        es_plugins.built_zip(tmp_path)
    path = make_zip(tmp_path / "target" / "whatever-0.1.zip", name="sp-named")
    assert es_plugins.built_zip(tmp_path) == es_plugins.PluginZip("sp-named", path)
    broken = tmp_path / "target" / "broken.zip"
    broken.write_bytes(b"not a zip")
    os.utime(broken, (path.stat().st_mtime + 10, path.stat().st_mtime + 10))
    with pytest.raises(InfraError, match="not a stable plugin zip"):
        es_plugins.built_zip(tmp_path)  # the newest zip wins, and it is broken


class ProvisionedError(Exception):
    """Raised by the fake chown to stop provisioning once the install is handed to the Elasticsearch user."""


@pytest.mark.parametrize("module", [elasticsearch, cluster], ids=["main-node-and-fault-stack", "cluster"])
def test_every_stack_installs_the_plugins_before_handing_the_install_to_the_es_user(
    module: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    java_home = tmp_path / "jdk"
    (java_home / "bin").mkdir(parents=True)
    (java_home / "bin" / "java").write_text("")
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        elasticsearch=ElasticsearchSettings(password=SecretStr("unit-test-password")),
        infra=InfraSettings(home=tmp_path / "home", java_home=java_home,
                            cluster=ClusterSettings(home=tmp_path / "cluster")),
    )
    install = tmp_path / "es"
    steps: list[tuple[str, Path]] = []

    def chown(path: Path, user: str) -> None:
        steps.append(("chown", path))
        raise ProvisionedError

    monkeypatch.setattr(module, "ensure_system_user", lambda name: None)
    monkeypatch.setattr(module, "chown_tree", chown)
    monkeypatch.setattr(es_install, "install", lambda infra: install)
    monkeypatch.setattr(es_plugins, "install_all", lambda path, *, java_home: steps.append(("plugins", path)) or [])
    monkeypatch.setattr(elasticsearch.es_install, "install_dir", lambda infra: install)
    with pytest.raises(ProvisionedError):
        module.prepare(settings)
    assert steps == [("plugins", install), ("chown", install)]


def test_outdated_names_a_plugin_until_its_zip_is_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install = tmp_path / "es"
    project = tmp_path / "project"
    make_zip(project / "target" / "p.zip")
    monkeypatch.setattr(es_plugins, "PLUGIN_PROJECTS", (project, tmp_path / "never-built"))
    monkeypatch.setattr(es_plugins, "run", FakeInstaller(install))
    assert es_plugins.outdated(install) == ["sp-test-plugin"]  # an unbuilt project is not an error here
    with pytest.raises(InfraError, match="never-built"):
        es_plugins.install_all(install, java_home=Path("/jdk"))  # but provisioning insists on every plugin
    monkeypatch.setattr(es_plugins, "PLUGIN_PROJECTS", (project,))
    assert es_plugins.install_all(install, java_home=Path("/jdk")) == ["sp-test-plugin"]
    assert es_plugins.outdated(install) == []
