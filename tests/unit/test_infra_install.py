"""The Elasticsearch download cache: checksum-verified, fetched only when missing or corrupt."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from infra import es_install
from infra.errors import InfraError
from search_platform.config import InfraSettings


def make_infra(tmp_path: Path, content: bytes) -> InfraSettings:
    """InfraSettings whose expected checksum is that of content."""
    return InfraSettings(
        home=tmp_path / "home",
        download_cache=tmp_path / "cache",
        es_sha512=hashlib.sha512(content).hexdigest(),
    )


def test_maven_command_names_the_minimal_distribution() -> None:
    command = es_install.maven_fetch_command("9.5.4", Path("/tmp/out"))
    assert command[:3] == ["mvn", "-B", "-q"]
    assert "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy" in command
    assert "-Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:9.5.4:zip" in command
    assert "-DoutputDirectory=/tmp/out" in command


def test_sha512_of_matches_hashlib(tmp_path: Path) -> None:
    path = tmp_path / "blob"
    path.write_bytes(b"x" * (3 << 20))
    assert es_install.sha512_of(path) == hashlib.sha512(b"x" * (3 << 20)).hexdigest()


def test_a_verified_cached_zip_is_not_downloaded_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    infra = make_infra(tmp_path, b"the zip")
    cached = es_install.archive_path(infra)
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"the zip")

    def no_download(version: str, archive: Path) -> None:
        raise AssertionError("downloaded although the cache was valid")

    monkeypatch.setattr(es_install, "_download", no_download)
    assert es_install.fetch_archive(infra) == cached


def test_a_corrupt_cache_is_fetched_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    infra = make_infra(tmp_path, b"the zip")
    cached = es_install.archive_path(infra)
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"truncated")
    monkeypatch.setattr(es_install, "_download", lambda version, archive: archive.write_bytes(b"the zip"))
    assert es_install.fetch_archive(infra).read_bytes() == b"the zip"


def test_a_download_with_the_wrong_checksum_is_refused_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    infra = make_infra(tmp_path, b"the zip")
    infra.download_cache.mkdir()
    monkeypatch.setattr(es_install, "_download", lambda version, archive: archive.write_bytes(b"tampered"))
    with pytest.raises(InfraError, match="checksum mismatch"):
        es_install.fetch_archive(infra)
    assert not es_install.archive_path(infra).exists()


def test_an_unpacked_install_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    infra = make_infra(tmp_path, b"the zip")
    launcher = es_install.install_dir(infra) / "bin" / "elasticsearch"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/bin/sh\n")
    monkeypatch.setattr(es_install, "fetch_archive", lambda infra: pytest.fail("fetched again"))
    assert es_install.install(infra) == es_install.install_dir(infra)
