"""Snapshot request bodies, names and response parsing are pure: asserted against literal values."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from search_platform.backends.elasticsearch import snapshots
from search_platform.config import ElasticsearchSettings

NOW = datetime(2026, 12, 3, 13, 5, 12, tzinfo=UTC)


def test_repository_body_is_a_shared_filesystem_repository() -> None:
    assert snapshots.repository_body("sp-backups") == {"type": "fs", "settings": {"location": "sp-backups"}}


def test_the_default_repository_lives_relative_to_path_repo() -> None:
    settings = ElasticsearchSettings()
    assert (settings.snapshot_repository, settings.snapshot_location) == ("sp-backups", "sp-backups")


def test_create_body_names_exactly_the_indices_without_cluster_state() -> None:
    assert snapshots.create_body(["sp-chunks-v2-b", "sp-chunks-v2"], alias="sp-chunks") == {
        "indices": "sp-chunks-v2,sp-chunks-v2-b",
        "ignore_unavailable": False,
        "include_global_state": False,
        "partial": False,
        "metadata": {"alias": "sp-chunks", "created_by": "search-platform"},
    }


def test_restore_body_renames_every_index_and_leaves_aliases_and_cluster_state_alone() -> None:
    assert snapshots.restore_body(["sp-chunks-v2"], suffix="-restored-20261203t130512") == {
        "indices": "sp-chunks-v2",
        "ignore_unavailable": False,
        "include_global_state": False,
        "include_aliases": False,
        "partial": False,
        "rename_pattern": "(.+)",
        "rename_replacement": "$1-restored-20261203t130512",
    }


def test_restored_names_follow_the_rename() -> None:
    suffix = snapshots.restore_suffix(NOW)
    assert suffix == "-restored-20261203t130512"
    assert snapshots.restored_names(["b", "a"], suffix=suffix) == ["a-restored-20261203t130512",
                                                                    "b-restored-20261203t130512"]


def test_default_snapshot_name_is_lowercase_and_sortable_by_time() -> None:
    assert snapshots.default_snapshot_name("SP-Chunks", NOW) == "sp-chunks-20261203t130512z"
    later = snapshots.default_snapshot_name("sp-chunks", NOW.replace(hour=14))
    assert later > snapshots.default_snapshot_name("sp-chunks", NOW)


@pytest.mark.parametrize("name", ["", "Upper", "with space", "a/b", "a,b", "*", "_leading", "-leading", "a#b"])
def test_names_elasticsearch_would_refuse_are_rejected_before_sending(name: str) -> None:
    with pytest.raises(snapshots.InvalidNameError, match="not valid"):
        snapshots.check_name(name, what="snapshot")


def test_parse_snapshot_reads_the_get_response_entry() -> None:
    raw = {
        "snapshot": "sp-chunks-20261203t130512z", "uuid": "u", "repository": "sp-backups",
        "indices": ["sp-chunks-v2"], "data_streams": [], "include_global_state": False,
        "metadata": {"alias": "sp-chunks", "created_by": "search-platform"}, "state": "SUCCESS",
        "start_time": "2026-12-03T13:05:12.000Z", "end_time": "2026-12-03T13:05:13.000Z",
        "failures": [], "shards": {"total": 1, "failed": 0, "successful": 1},
    }
    info = snapshots.parse_snapshot(raw)
    assert info == snapshots.SnapshotInfo(
        name="sp-chunks-20261203t130512z", state="SUCCESS", indices=("sp-chunks-v2",), alias="sp-chunks",
        start_time="2026-12-03T13:05:12.000Z", end_time="2026-12-03T13:05:13.000Z", shards_total=1,
        shards_failed=0)
    assert info.as_dict()["indices"] == ["sp-chunks-v2"]


def test_a_snapshot_made_elsewhere_has_no_alias() -> None:
    info = snapshots.parse_snapshot({"snapshot": "nightly", "state": "PARTIAL", "indices": ["x", "a"],
                                     "shards": {"total": 2, "failed": 1}})
    assert (info.alias, info.indices, info.state, info.shards_failed) == (None, ("a", "x"), "PARTIAL", 1)
