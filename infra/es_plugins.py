"""Install the Elasticsearch plugins built from this repo (plugins/, by scripts/bootstrap.sh) into a distribution.

Idempotent: a plugin is (re)installed only when the zip's SHA-512 differs from the one recorded when it was last
installed (under <install>/.sp-plugins/, outside plugins/, where Elasticsearch refuses anything but plugin
directories). Runs before the node starts; the caller gives the tree to the Elasticsearch user afterwards.
"""

from __future__ import annotations

import logging
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from infra.errors import InfraError
from infra.es_install import sha512_of
from infra.process import run

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[1]
PLUGIN_PROJECTS = (REPO_ROOT / "plugins" / "analysis",)
DESCRIPTOR = "stable-plugin-descriptor.properties"
MARKER_DIR = ".sp-plugins"
TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True, slots=True)
class PluginZip:
    """A built plugin: its zip and the name (from its descriptor) it is installed under."""

    name: str
    path: Path


def built_zip(project: Path) -> PluginZip:
    """The newest zip under project/target, with its plugin name; raise if the project was never built."""
    zips = sorted((project / "target").glob("*.zip"), key=lambda path: path.stat().st_mtime)
    if not zips:
        raise InfraError(f"no plugin zip in {project / 'target'}: run scripts/bootstrap.sh (it builds {project.name} "
                         "with Maven)")
    return PluginZip(plugin_name(zips[-1]), zips[-1])


def plugin_name(path: Path) -> str:
    """The `name` of the zip's stable-plugin descriptor."""
    try:
        with zipfile.ZipFile(path) as archive:
            text = archive.read(DESCRIPTOR).decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile) as error:
        raise InfraError(f"{path} is not a stable plugin zip: {error}") from error
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "name" and value.strip():
            return value.strip()
    raise InfraError(f"{DESCRIPTOR} in {path} has no name")


def marker(install: Path, name: str) -> Path:
    """Where the checksum of the zip last installed as `name` is recorded."""
    return install / MARKER_DIR / f"{name}.sha512"


def is_current(install: Path, plugin: PluginZip, checksum: str) -> bool:
    """True if the plugin directory exists and was installed from a zip with this checksum."""
    recorded = marker(install, plugin.name)
    return (install / "plugins" / plugin.name).is_dir() and recorded.is_file() and recorded.read_text() == checksum


def ensure_installed(install: Path, plugin: PluginZip, *, java_home: Path) -> bool:
    """Install plugin into the distribution at install unless that very zip is installed; True if it installed."""
    checksum = sha512_of(plugin.path)
    if is_current(install, plugin, checksum):
        return False
    tool = install / "bin" / "elasticsearch-plugin"
    env = {"PATH": TOOL_PATH, "LANG": "C.UTF-8", "ES_JAVA_HOME": str(java_home)}
    recorded = marker(install, plugin.name)
    recorded.unlink(missing_ok=True)
    installed = install / "plugins" / plugin.name
    if installed.exists():  # a stable plugin is only this directory: no config/ or bin/ for `remove` to clean
        log.info("removing the outdated Elasticsearch plugin %s", plugin.name)
        shutil.rmtree(installed)
    log.info("installing the Elasticsearch plugin %s from %s", plugin.name, plugin.path)
    run([tool, "install", "--batch", plugin.path.resolve().as_uri()], env=env, cwd=install)
    recorded.parent.mkdir(exist_ok=True)
    recorded.write_text(checksum)
    return True


def install_all(install: Path, *, java_home: Path) -> list[str]:
    """Make every plugin of this repo installed and current in the distribution; the names (re)installed now."""
    plugins = [built_zip(project) for project in PLUGIN_PROJECTS]
    return [plugin.name for plugin in plugins if ensure_installed(install, plugin, java_home=java_home)]


def outdated(install: Path) -> list[str]:
    """Names of this repo's built plugins that the distribution lacks or has from another zip."""
    found = []
    for project in PLUGIN_PROJECTS:
        try:
            plugin = built_zip(project)
        except InfraError:
            continue  # nothing built: install_all reports it at the next provisioning
        if not is_current(install, plugin, sha512_of(plugin.path)):
            found.append(plugin.name)
    return found
