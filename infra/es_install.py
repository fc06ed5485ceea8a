"""Fetch the Elasticsearch distribution from Maven Central once, verify it, and unpack it under infra.home."""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
from pathlib import Path

from infra.errors import InfraError
from infra.process import run
from infra.system import ensure_debian_package
from search_platform.config import InfraSettings

log = logging.getLogger(__name__)

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
ARTIFACT = "org.elasticsearch.distribution.integ-test-zip:elasticsearch"
DOWNLOAD_TIMEOUT_S = 1800.0


def install_dir(infra: InfraSettings) -> Path:
    """Where this Elasticsearch version lives once unpacked."""
    return infra.home / f"elasticsearch-{infra.es_version}"


def archive_path(infra: InfraSettings) -> Path:
    """Where the downloaded zip is cached so a reinstall does not fetch it again."""
    return infra.download_cache / f"elasticsearch-{infra.es_version}.zip"


def maven_fetch_command(version: str, output_dir: Path) -> list[str]:
    """The mvn command that copies the distribution zip of version into output_dir."""
    return [
        "mvn",
        "-B",
        "-q",
        f"{DEPENDENCY_PLUGIN}:copy",
        f"-Dartifact={ARTIFACT}:{version}:zip",
        f"-DoutputDirectory={output_dir}",
    ]


def sha512_of(path: Path) -> str:
    """Hex SHA-512 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha512()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def install(infra: InfraSettings) -> Path:
    """Make sure the distribution is unpacked (idempotent) and return its directory."""
    target = install_dir(infra)
    if (target / "bin" / "elasticsearch").is_file():
        return target
    archive = fetch_archive(infra)
    _unpack(archive, target)
    return target


def fetch_archive(infra: InfraSettings) -> Path:
    """Return the cached, checksum-verified zip, downloading it with Maven if it is missing or corrupt."""
    archive = archive_path(infra)
    expected = infra.es_sha512.lower()
    if archive.is_file() and sha512_of(archive) == expected:
        return archive
    archive.unlink(missing_ok=True)
    _download(infra.es_version, archive)
    actual = sha512_of(archive)
    if actual != expected:
        archive.unlink()
        raise InfraError(f"checksum mismatch for {archive.name}: sha512 {actual}, settings expect {expected}")
    return archive


def _download(version: str, archive: Path) -> None:
    """Copy the zip from Maven Central (or the local ~/.m2) into the cache."""
    ensure_debian_package(Path("/usr/bin/mvn"), "maven")
    archive.parent.mkdir(parents=True, exist_ok=True)
    log.info("fetching Elasticsearch %s with Maven into %s", version, archive.parent)
    with tempfile.TemporaryDirectory(dir=archive.parent, prefix=".fetch-") as staging:
        run(maven_fetch_command(version, Path(staging)), cwd=Path(staging), timeout_s=DOWNLOAD_TIMEOUT_S)
        fetched = Path(staging) / archive.name
        if not fetched.is_file():
            raise InfraError(f"mvn finished but did not produce {fetched.name}")
        fetched.replace(archive)


def _unpack(archive: Path, target: Path) -> None:
    """Unzip into a staging directory and rename it into place, so target is either whole or absent."""
    ensure_debian_package(Path("/usr/bin/unzip"), "unzip")
    if target.exists():
        shutil.rmtree(target)  # a leftover without bin/elasticsearch: not a usable install
    target.parent.mkdir(parents=True, exist_ok=True)
    log.info("unpacking %s into %s", archive.name, target)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".unpack-") as staging:
        run(["unzip", "-q", archive, "-d", staging])
        unpacked = Path(staging) / target.name
        if not (unpacked / "bin" / "elasticsearch").is_file():
            raise InfraError(f"{archive.name} does not contain {target.name}/bin/elasticsearch")
        unpacked.rename(target)
