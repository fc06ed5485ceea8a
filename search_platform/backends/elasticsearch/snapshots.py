"""Backups through Elasticsearch's snapshot API: an `fs` repository under the node's path.repo (infra/ sets it),
snapshots of the concrete indices behind an alias, and restores into fresh index names with an optional alias swap.

Request bodies are built by pure functions (tested against literal bodies); the functions that call Elasticsearch
translate its errors once, here at the edge, like the rest of this package. They need the cluster privileges of
snapshot management (`manage`), which the least-privilege service user lacks: callers pass an admin client.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.backends.elasticsearch.mappings import swap_alias
from search_platform.config import ElasticsearchSettings
from search_platform.domain.errors import BackendError, IndexMissingError

CREATED_BY = "search-platform"
RESTORED_INFIX = "-restored-"
# snapshot and index names: lowercase, no whitespace, none of \ / * ? " < > | , #
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,200}$")
_PATH_REPO_HINT = ("the node has no usable path.repo: restart Elasticsearch so it reads the elasticsearch.yml "
                   "infra/ writes (SP_INFRA__SNAPSHOT_DIR), or set path.repo in docker-compose")


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """One snapshot as the repository describes it."""

    name: str
    state: str
    indices: tuple[str, ...]
    alias: str | None  # the alias it was taken of (its metadata), if made by this module
    start_time: str | None
    end_time: str | None
    shards_total: int
    shards_failed: int

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (CLI --format json)."""
        return {"name": self.name, "state": self.state, "indices": list(self.indices), "alias": self.alias,
                "start_time": self.start_time, "end_time": self.end_time, "shards_total": self.shards_total,
                "shards_failed": self.shards_failed}


@dataclass(frozen=True, slots=True)
class RestoreReport:
    """What a restore produced: the snapshot's indices under their new names, and the alias moved (if any)."""

    snapshot: str
    indices: tuple[str, ...]
    alias: str | None
    shards_total: int
    shards_failed: int


class InvalidNameError(ValueError):
    """A snapshot or index name Elasticsearch would refuse (raised before anything is sent)."""


# ---- pure helpers ---------------------------------------------------------------------------------------------

def repository_body(location: str) -> dict[str, Any]:
    """PUT _snapshot/<repository>: a shared-filesystem repository at location (relative to path.repo)."""
    return {"type": "fs", "settings": {"location": location}}


def default_snapshot_name(alias: str, now: datetime) -> str:
    """A sortable, valid snapshot name for alias at now, e.g. sp-chunks-20261203t130512z."""
    return check_name(f"{alias.lower()}-{now:%Y%m%dt%H%M%S}z", what="snapshot")


def restore_suffix(now: datetime) -> str:
    """The suffix restored indices get, e.g. -restored-20261203t130512 (a fresh name per restore)."""
    return f"{RESTORED_INFIX}{now:%Y%m%dt%H%M%S}"


def check_name(name: str, *, what: str) -> str:
    """name if Elasticsearch accepts it as a snapshot or index name, else InvalidNameError."""
    if not _NAME.fullmatch(name):
        raise InvalidNameError(f"{what} name {name!r} is not valid: lowercase letters, digits, '.', '_' and '-', "
                               "starting with a letter or digit")
    return name


def create_body(indices: Sequence[str], *, alias: str) -> dict[str, Any]:
    """PUT _snapshot/<repository>/<snapshot>: exactly these indices, no cluster state, the alias in metadata."""
    return {
        "indices": ",".join(sorted(indices)),
        "ignore_unavailable": False,
        "include_global_state": False,
        "partial": False,
        "metadata": {"alias": alias, "created_by": CREATED_BY},
    }


def restore_body(indices: Sequence[str], *, suffix: str) -> dict[str, Any]:
    """POST _snapshot/<repository>/<snapshot>/_restore: the indices renamed to <name><suffix>, without their aliases
    or cluster state, so nothing existing is touched."""
    return {
        "indices": ",".join(sorted(indices)),
        "ignore_unavailable": False,
        "include_global_state": False,
        "include_aliases": False,
        "partial": False,
        "rename_pattern": "(.+)",
        "rename_replacement": f"$1{suffix}",
    }


def restored_names(indices: Sequence[str], *, suffix: str) -> list[str]:
    """The names restore_body gives the indices (what Elasticsearch's rename produces)."""
    return [check_name(f"{index}{suffix}", what="index") for index in sorted(indices)]


def parse_snapshot(raw: Mapping[str, Any]) -> SnapshotInfo:
    """A snapshot entry of GET _snapshot/<repository>/<snapshot> (or of a create response) as SnapshotInfo."""
    shards = raw.get("shards") or {}
    metadata = raw.get("metadata") or {}
    alias = metadata.get("alias")
    return SnapshotInfo(
        name=str(raw["snapshot"]), state=str(raw.get("state", "UNKNOWN")),
        indices=tuple(sorted(raw.get("indices") or ())),
        alias=str(alias) if isinstance(alias, str) else None,
        start_time=raw.get("start_time"), end_time=raw.get("end_time"),
        shards_total=int(shards.get("total", 0)), shards_failed=int(shards.get("failed", 0)),
    )


# ---- calls to Elasticsearch ---------------------------------------------------------------------------------------

def ensure_repository(client: Elasticsearch, settings: ElasticsearchSettings) -> str:
    """Register (or update) the fs repository of the settings and have every node verify it; returns its name."""
    name = settings.snapshot_repository
    body = repository_body(settings.snapshot_location)
    try:
        with translated_errors():
            client.snapshot.create_repository(name=name, repository=body, verify=True)
    except BackendError as error:
        if "path.repo" in error.message:
            raise BackendError(f"{error.message}; {_PATH_REPO_HINT}", error.status) from error
        raise
    return name


def concrete_indices(client: Elasticsearch, alias: str) -> list[str]:
    """The indices behind alias (or [alias] if it is an index itself); IndexMissingError if neither."""
    with translated_errors():
        if client.indices.exists_alias(name=alias):
            return sorted(client.indices.get_alias(name=alias))
        if client.indices.exists(index=alias):
            return [alias]
    raise IndexMissingError(f"no alias or index named {alias!r}", 404)


def create_snapshot(client: Elasticsearch, settings: ElasticsearchSettings, *, alias: str,
                    name: str) -> SnapshotInfo:
    """Snapshot the indices behind alias as `name` and wait until it is done; a snapshot that is not SUCCESS raises."""
    check_name(name, what="snapshot")
    repository = ensure_repository(client, settings)
    indices = concrete_indices(client, alias)
    with translated_errors():
        response = client.snapshot.create(repository=repository, snapshot=name, wait_for_completion=True,
                                          **create_body(indices, alias=alias))
    info = parse_snapshot(response["snapshot"])
    if info.state != "SUCCESS" or info.shards_failed:
        raise BackendError(f"snapshot {name} ended {info.state} with {info.shards_failed} of {info.shards_total} "
                           "shards failed")
    return info


def list_snapshots(client: Elasticsearch, settings: ElasticsearchSettings) -> list[SnapshotInfo]:
    """Every snapshot in the repository, oldest first."""
    repository = ensure_repository(client, settings)
    with translated_errors():
        response = client.snapshot.get(repository=repository, snapshot="_all", sort="start_time", order="asc")
    return [parse_snapshot(raw) for raw in response["snapshots"]]


def get_snapshot(client: Elasticsearch, settings: ElasticsearchSettings, name: str) -> SnapshotInfo:
    """One snapshot of the repository by name."""
    repository = ensure_repository(client, settings)
    with translated_errors():
        response = client.snapshot.get(repository=repository, snapshot=check_name(name, what="snapshot"))
    return parse_snapshot(response["snapshots"][0])


def restore_snapshot(client: Elasticsearch, settings: ElasticsearchSettings, *, name: str, suffix: str,
                     alias: str | None = None) -> RestoreReport:
    """Restore a snapshot's indices as <index><suffix> and wait for them; with alias, then point it at the
    restored index atomically (the snapshot must hold exactly one index)."""
    info = get_snapshot(client, settings, name)
    if alias is not None and len(info.indices) != 1:
        raise BackendError(f"snapshot {name} holds {len(info.indices)} indices; the alias can point at one only")
    targets = restored_names(info.indices, suffix=suffix)
    with translated_errors():
        response = client.snapshot.restore(repository=settings.snapshot_repository, snapshot=name,
                                           wait_for_completion=True, **restore_body(info.indices, suffix=suffix))
    restored = response["snapshot"]
    shards = restored.get("shards") or {}
    report = RestoreReport(snapshot=name, indices=tuple(sorted(restored.get("indices") or targets)), alias=alias,
                           shards_total=int(shards.get("total", 0)), shards_failed=int(shards.get("failed", 0)))
    if report.shards_failed:
        raise BackendError(f"restore of {name} failed on {report.shards_failed} of {report.shards_total} shards")
    if alias is not None:
        swap_alias(client, alias=alias, new_index=report.indices[0])
    return report
