"""kibana/saved_objects.ndjson: every line parses, every reference resolves, every data view matches one of our
aliases, and every field a saved search, Lens layer, KQL query or format names exists in that alias's mapping with a
type its use needs. Renaming a mapped field without updating kibana/build_saved_objects.py fails here."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from search_platform.analytics.log_index import LOG_ALIAS, LOG_MAPPINGS
from search_platform.backends.elasticsearch.mappings import index_body
from search_platform.config import ElasticsearchSettings

ROOT = Path(__file__).resolve().parents[2]
NDJSON = ROOT / "kibana" / "saved_objects.ndjson"
GENERATOR = ROOT / "kibana" / "build_saved_objects.py"
RECORDS = "___records___"
NUMERIC = {"integer", "long", "short", "byte", "float", "half_float", "double", "scaled_float"}
# what each Lens operation may read
ALLOWED_TYPES = {
    "date_histogram": {"date", "date_nanos"},
    "terms": {"keyword", "boolean", "ip", *NUMERIC},
    **{op: NUMERIC for op in ("percentile", "median", "average", "sum", "min", "max", "standard_deviation")},
    "unique_count": {"keyword", "boolean", "ip", *NUMERIC},
    "last_value": {"keyword", "boolean", "date", *NUMERIC},
}
KQL_FIELD = re.compile(r"(?<![\w.@*-])([@A-Za-z_][\w.@-]*)\s*:")
KQL_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
FORMULA_KQL = re.compile(r"kql='((?:[^'\\]|\\.)*)'")


def flatten(mapping: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Dotted field name -> type, for nested properties and multi-field subfields ('query.raw')."""
    fields: dict[str, str] = {}
    for name, spec in mapping.get("properties", {}).items():
        path = f"{prefix}{name}"
        fields[path] = spec.get("type", "object")
        fields.update(flatten(spec, f"{path}."))
        for sub, sub_spec in spec.get("fields", {}).items():
            fields[f"{path}.{sub}"] = sub_spec["type"]
    return fields


def alias_fields() -> dict[str, dict[str, str]]:
    """Our aliases and the fields of the mapping behind each."""
    chunks = index_body(ElasticsearchSettings(), dims=384)["mappings"]
    return {ElasticsearchSettings().index_alias: flatten(chunks), LOG_ALIAS: flatten(LOG_MAPPINGS)}


def kql_fields(query: str) -> set[str]:
    """Field names a KQL query names (`a:x and b.c:"y:z"` -> {a, b.c})."""
    return set(KQL_FIELD.findall(KQL_QUOTED.sub('""', query)))


def load_objects(text: str) -> list[dict[str, Any]]:
    """Each line of the ndjson as an object."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    return load_objects(NDJSON.read_text(encoding="utf-8"))


def by_key(objects: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(obj["type"], obj["id"]): obj for obj in objects}


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_saved_objects", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- what each object names ---------------------------------------------------------------------------------------

def lens_uses(attributes: dict[str, Any]) -> Iterator[tuple[str, str | None]]:
    """(field, lens operation or None for KQL) for every field a Lens state names."""
    state = attributes["state"]
    yield from ((f, None) for f in kql_fields(state["query"]["query"]))
    for found in state.get("filters", []):
        if found.get("meta", {}).get("key"):
            yield found["meta"]["key"], None
        yield from ((f, None) for f in kql_fields(found.get("query", {}).get("query", "") or ""))
    for layer in state["datasourceStates"]["formBased"]["layers"].values():
        for column in layer["columns"].values():
            if column.get("sourceField") not in (None, RECORDS):
                yield column["sourceField"], column["operationType"]
            if column.get("filter"):
                yield from ((f, None) for f in kql_fields(column["filter"]["query"]))
            for inner in FORMULA_KQL.findall(column.get("params", {}).get("formula", "")):
                yield from ((f, None) for f in kql_fields(inner))


def search_uses(attributes: dict[str, Any]) -> Iterator[tuple[str, str | None]]:
    """Columns, sort fields and KQL fields of a saved search."""
    source = json.loads(attributes["kibanaSavedObjectMeta"]["searchSourceJSON"])
    yield from ((column, None) for column in attributes["columns"])
    yield from ((field, None) for field, _ in attributes.get("sort", []))
    yield from ((f, None) for f in kql_fields(source["query"]["query"]))
    for found in source.get("filter", []):
        yield found["meta"]["key"], None


def view_uses(attributes: dict[str, Any]) -> Iterator[tuple[str, str | None]]:
    """A data view's time field and formatted fields."""
    yield attributes["timeFieldName"], "date_histogram"
    yield from ((field, None) for field in json.loads(attributes.get("fieldFormatMap") or "{}"))


USES = {"lens": lens_uses, "search": search_uses, "index-pattern": view_uses}


def view_alias(view: dict[str, Any], aliases: dict[str, dict[str, str]]) -> str:
    """The one alias a data view's title pattern covers."""
    matched = [alias for alias in aliases if fnmatchcase(alias, view["attributes"]["title"])]
    assert len(matched) == 1, f"data view {view['id']} ({view['attributes']['title']}) matches {matched}"
    return matched[0]


def field_problems(objects: list[dict[str, Any]], aliases: dict[str, dict[str, str]]) -> list[str]:
    """Every field named by an object that its data view's mapping lacks or cannot serve."""
    index = by_key(objects)
    problems = []
    for obj in objects:
        if obj["type"] not in USES:
            continue
        views = [obj] if obj["type"] == "index-pattern" else [
            index[("index-pattern", ref["id"])] for ref in obj["references"] if ref["type"] == "index-pattern"]
        assert views, f"{obj['type']} {obj['id']} has no data view"
        for view in views:
            fields = aliases[view_alias(view, aliases)]
            for field, operation in USES[obj["type"]](obj["attributes"]):
                if field not in fields:
                    title = view["attributes"]["title"]
                    problems.append(f"{obj['type']} {obj['id']}: field {field!r} is not in {title}")
                elif operation in ALLOWED_TYPES and fields[field] not in ALLOWED_TYPES[operation]:
                    problems.append(f"{obj['type']} {obj['id']}: {operation} on {field!r} of type {fields[field]}")
    return problems


# -- the tests ----------------------------------------------------------------------------------------------------

def test_every_line_is_a_saved_object_with_a_unique_id(objects: list[dict[str, Any]]) -> None:
    assert objects
    for obj in objects:
        assert {"type", "id", "attributes", "references"} <= set(obj), obj.get("id")
        assert obj["attributes"]["title"]
    assert len(by_key(objects)) == len(objects)
    assert {obj["type"] for obj in objects} == {"index-pattern", "search", "lens", "dashboard"}


def test_the_committed_file_is_what_the_generator_builds() -> None:
    assert NDJSON.read_text(encoding="utf-8") == generator().render(), \
        "run: python kibana/build_saved_objects.py"


def test_every_reference_resolves_to_an_object_in_the_file(objects: list[dict[str, Any]]) -> None:
    index = by_key(objects)
    for obj in objects:
        for ref in obj["references"]:
            assert (ref["type"], ref["id"]) in index, f"{obj['id']} -> {ref}"


def test_embedded_reference_names_match_the_references(objects: list[dict[str, Any]]) -> None:
    for obj in objects:
        names = {ref["name"] for ref in obj["references"]}
        attributes = obj["attributes"]
        if obj["type"] == "search":
            source = json.loads(attributes["kibanaSavedObjectMeta"]["searchSourceJSON"])
            assert source["indexRefName"] in names
        if obj["type"] == "lens":
            for layer in attributes["state"]["datasourceStates"]["formBased"]["layers"]:
                assert f"indexpattern-datasource-layer-{layer}" in names, (obj["id"], layer)
        if obj["type"] == "dashboard":
            panels = json.loads(attributes["panelsJSON"])
            assert {f"{p['panelIndex']}:{p['panelRefName']}" for p in panels} == names


def test_lens_layers_are_consistent(objects: list[dict[str, Any]]) -> None:
    for obj in (o for o in objects if o["type"] == "lens"):
        state = obj["attributes"]["state"]
        layers = state["datasourceStates"]["formBased"]["layers"]
        for layer in layers.values():
            columns = layer["columns"]
            assert sorted(layer["columnOrder"]) == sorted(columns)
            for column in columns.values():
                assert set(column.get("references", [])) <= set(columns), obj["id"]
                order_by = column.get("params", {}).get("orderBy", {}).get("columnId")
                assert order_by is None or order_by in columns, obj["id"]
        visualization = state["visualization"]
        shown = {c["columnId"] for c in visualization.get("columns", [])}
        for layer in visualization.get("layers", []):
            shown |= {layer["xAccessor"], *layer["accessors"], layer.get("splitAccessor") or layer["xAccessor"]}
        shown |= {visualization["metricAccessor"]} if "metricAccessor" in visualization else set()
        every_column = {cid for layer in layers.values() for cid in layer["columns"]}
        assert shown and shown <= every_column, obj["id"]


def test_every_data_view_covers_exactly_one_of_our_aliases(objects: list[dict[str, Any]]) -> None:
    aliases = alias_fields()
    views = [obj for obj in objects if obj["type"] == "index-pattern"]
    assert sorted(view_alias(view, aliases) for view in views) == sorted(aliases)


def test_every_referenced_field_exists_in_the_mapping_with_a_usable_type(objects: list[dict[str, Any]]) -> None:
    assert field_problems(objects, alias_fields()) == []


@pytest.mark.parametrize(("alias", "field"), [
    (LOG_ALIAS, "latency_ms"), (LOG_ALIAS, "zero_result"), (LOG_ALIAS, "degraded"), (LOG_ALIAS, "arm"),
    (LOG_ALIAS, "legs.dense.latency_ms"), (LOG_ALIAS, "@timestamp"), ("sp-chunks", "indexed_at"),
    ("sp-chunks", "source"),
])
def test_renaming_a_mapped_field_is_caught(objects: list[dict[str, Any]], alias: str, field: str) -> None:
    aliases = copy.deepcopy(alias_fields())
    aliases[alias][f"{field}_renamed"] = aliases[alias].pop(field)
    assert any(repr(field) in problem for problem in field_problems(objects, aliases))


def test_a_text_field_cannot_be_bucketed(objects: list[dict[str, Any]]) -> None:
    aliases = copy.deepcopy(alias_fields())
    aliases[LOG_ALIAS]["query.raw"] = "text"
    assert any("terms on 'query.raw'" in problem for problem in field_problems(objects, aliases))


def test_kql_field_extraction() -> None:
    assert kql_fields('event:search and zero_result:true') == {"event", "zero_result"}
    assert kql_fields('query.raw:"a:b" or not legs.bm25.latency_ms >= 3 or @timestamp:*') == {
        "query.raw", "@timestamp"}
    assert kql_fields("") == set()


def test_the_dashboard_shows_what_the_issue_asks_for(objects: list[dict[str, Any]]) -> None:
    index = by_key(objects)
    (board,) = [obj for obj in objects if obj["type"] == "dashboard"]
    shown = {index[(ref["type"], ref["id"])]["attributes"]["title"] for ref in board["references"]}
    assert {"Search latency percentiles by mode", "Zero-result rate", "Zero-result rate by mode", "Top queries",
            "Experiment arm comparison", "Zero-result queries", "Degraded answers"} <= shown
    searches = {obj["attributes"]["title"]: json.loads(obj["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
                for obj in objects if obj["type"] == "search"}
    assert "zero_result:true" in searches["Zero-result queries"]["query"]["query"]
    assert "degraded:true" in searches["Degraded answers"]["query"]["query"]


def test_the_log_data_view_is_time_based_on_timestamp(objects: list[dict[str, Any]]) -> None:
    aliases = alias_fields()
    for view in (obj for obj in objects if obj["type"] == "index-pattern"):
        if view_alias(view, aliases) == LOG_ALIAS:
            assert view["attributes"]["timeFieldName"] == "@timestamp"
