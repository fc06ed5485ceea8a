"""Generate kibana/saved_objects.ndjson: data views, saved searches, Lens visualisations and the dashboard.

    python kibana/build_saved_objects.py          # rewrite the file
    python kibana/build_saved_objects.py --check  # exit 1 if the committed file differs from what this builds

Field names are written here as plain strings on purpose: tests/unit/test_kibana_objects.py checks every one of them
against the index mappings, so renaming a mapped field without updating this file fails the tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).with_name("saved_objects.ndjson")
CORE_MIGRATION_VERSION = "8.8.0"
# The attribute layout each object is written in; Kibana migrates anything newer it knows on import.
TYPE_MIGRATION_VERSION = {"index-pattern": "8.0.0", "search": "8.0.0", "lens": "8.9.0", "dashboard": "8.9.0"}

LOGS_VIEW = "sp-data-view-search-logs"
CHUNKS_VIEW = "sp-data-view-chunks"
RECORDS = "___records___"  # Lens's "count of documents" pseudo-field
SEARCHES = "event:search"
CLICKS = "event:click"
SEARCH_INDEX_REF = "kibanaSavedObjectMeta.searchSourceJSON.index"
MS_DURATION = {"id": "duration", "params": {"inputFormat": "milliseconds", "outputFormat": "humanizePrecise"}}

Column = dict[str, Any]


def saved_object(kind: str, object_id: str, attributes: dict[str, Any], references: list[dict[str, str]]
                 ) -> dict[str, Any]:
    """One line of the import file."""
    return {"type": kind, "id": object_id, "attributes": attributes, "references": references, "managed": False,
            "coreMigrationVersion": CORE_MIGRATION_VERSION, "typeMigrationVersion": TYPE_MIGRATION_VERSION[kind]}


def data_view(object_id: str, *, title: str, name: str, time_field: str, formats: dict[str, Any]) -> dict[str, Any]:
    """A data view (index-pattern) over an alias; allowNoIndex lets it exist before the first document."""
    return saved_object("index-pattern", object_id, {
        "title": title, "name": name, "timeFieldName": time_field, "allowNoIndex": True,
        "fields": "[]", "fieldAttrs": "{}", "runtimeFieldMap": "{}", "sourceFilters": "[]", "typeMeta": "{}",
        "fieldFormatMap": json.dumps(formats, sort_keys=True),
    }, [])


def saved_search(object_id: str, *, title: str, description: str, kql: str, columns: list[str]) -> dict[str, Any]:
    """A Discover session over the search logs, newest first."""
    source = {"query": {"query": kql, "language": "kuery"}, "filter": [], "indexRefName": SEARCH_INDEX_REF}
    return saved_object("search", object_id, {
        "title": title, "description": description, "columns": columns, "sort": [["@timestamp", "desc"]],
        "grid": {}, "hideChart": False, "isTextBasedQuery": False, "timeRestore": False,
        "kibanaSavedObjectMeta": {"searchSourceJSON": json.dumps(source, sort_keys=True)},
    }, [{"name": SEARCH_INDEX_REF, "type": "index-pattern", "id": LOGS_VIEW}])


# -- Lens columns -------------------------------------------------------------------------------------------------

def date_histogram(field: str) -> Column:
    """Time buckets of field, sized automatically to the time range."""
    return {"label": field, "dataType": "date", "operationType": "date_histogram", "sourceField": field,
            "isBucketed": True, "scale": "interval",
            "params": {"interval": "auto", "includeEmptyRows": True, "dropPartials": False}}


def terms(field: str, *, label: str, size: int, order_by: str) -> Column:
    """The top `size` values of a keyword field, ordered by another column."""
    return {"label": label, "customLabel": True, "dataType": "string", "operationType": "terms", "sourceField": field,
            "isBucketed": True, "scale": "ordinal",
            "params": {"size": size, "orderBy": {"type": "column", "columnId": order_by}, "orderDirection": "desc",
                       "otherBucket": False, "missingBucket": False, "parentFormat": {"id": "terms"}}}


def percentile(field: str, value: int, *, label: str, kql: str | None = None) -> Column:
    """A percentile of a numeric field (optionally over the documents matching kql)."""
    column: Column = {"label": label, "customLabel": True, "dataType": "number", "operationType": "percentile",
                      "sourceField": field, "isBucketed": False, "scale": "ratio", "params": {"percentile": value}}
    if kql:
        column["filter"] = {"language": "kuery", "query": kql}
    return column


def count(*, label: str, kql: str | None = None) -> Column:
    """Documents (optionally only those matching kql)."""
    column: Column = {"label": label, "customLabel": True, "dataType": "number", "operationType": "count",
                      "sourceField": RECORDS, "isBucketed": False, "scale": "ratio", "params": {"emptyAsNull": False}}
    if kql:
        column["filter"] = {"language": "kuery", "query": kql}
    return column


def ratio(column_id: str, *, label: str, numerator: str, denominator: str) -> dict[str, Column]:
    """A Lens formula count(kql=numerator) / count(kql=denominator), with the helper columns Lens stores for it."""
    formula = f"count(kql='{numerator}') / count(kql='{denominator}')"
    part = f"Part of {label}"
    top, bottom, math = f"{column_id}X0", f"{column_id}X1", f"{column_id}X2"
    return {
        top: count(label=part, kql=numerator),
        bottom: count(label=part, kql=denominator),
        math: {"label": part, "customLabel": True, "dataType": "number", "operationType": "math",
               "isBucketed": False, "scale": "ratio", "references": [top, bottom],
               "params": {"tinymathAst": {"type": "function", "name": "divide", "args": [top, bottom],
                                          "location": {"min": 0, "max": len(formula)}, "text": formula}}},
        column_id: {"label": label, "customLabel": True, "dataType": "number", "operationType": "formula",
                    "isBucketed": False, "scale": "ratio", "references": [math],
                    "params": {"formula": formula, "isFormulaBroken": False,
                               "format": {"id": "percent", "params": {"decimals": 1}}}},
    }


def lens(object_id: str, *, title: str, description: str, view: str, layer: str, columns: dict[str, Column],
         visualization_type: str, visualization: dict[str, Any], kql: str) -> dict[str, Any]:
    """A Lens visualisation with one form-based layer over a data view."""
    state = {
        "datasourceStates": {"formBased": {"layers": {layer: {
            "columns": columns, "columnOrder": list(columns), "incompleteColumns": {}}}}},
        "visualization": visualization,
        "query": {"language": "kuery", "query": kql},
        "filters": [],
        "internalReferences": [],
        "adHocDataViews": {},
    }
    return saved_object("lens", object_id, {
        "title": title, "description": description, "visualizationType": visualization_type, "state": state,
    }, [{"type": "index-pattern", "id": view, "name": f"indexpattern-datasource-layer-{layer}"}])


def xy(layer: str, *, x: str, accessors: list[str], split: str | None = None, series: str = "line"
       ) -> dict[str, Any]:
    """An XY chart with one data layer."""
    data_layer: dict[str, Any] = {"layerId": layer, "layerType": "data", "seriesType": series, "xAccessor": x,
                                  "accessors": accessors}
    if split:
        data_layer["splitAccessor"] = split
    return {"legend": {"isVisible": True, "position": "right"}, "valueLabels": "hide", "fittingFunction": "None",
            "preferredSeriesType": series, "layers": [data_layer]}


def datatable(layer: str, *, columns: list[str], sort_by: str) -> dict[str, Any]:
    """A table with the given columns, sorted descending by one of them."""
    return {"layerId": layer, "layerType": "data", "columns": [{"columnId": c} for c in columns],
            "sorting": {"columnId": sort_by, "direction": "desc"}}


# -- the objects --------------------------------------------------------------------------------------------------

def data_views() -> list[dict[str, Any]]:
    """The search-log and chunk data views."""
    return [
        data_view(LOGS_VIEW, title="sp-search-logs*", name="Search logs (sp-search-logs)", time_field="@timestamp",
                  formats={"latency_ms": MS_DURATION, "legs.bm25.latency_ms": MS_DURATION,
                           "legs.dense.latency_ms": MS_DURATION}),
        data_view(CHUNKS_VIEW, title="sp-chunks*", name="Indexed chunks (sp-chunks)", time_field="indexed_at",
                  formats={}),
    ]


def saved_searches() -> list[dict[str, Any]]:
    """Zero-result queries and degraded answers, for Discover and the dashboard."""
    return [
        saved_search("sp-search-zero-result", title="Zero-result queries",
                     description="Searches that returned no hit: candidates for synonyms, content or spelling work.",
                     kql=f"{SEARCHES} and zero_result:true",
                     columns=["query", "tenant", "mode", "fusion", "experiment", "arm", "latency_ms"]),
        saved_search("sp-search-degraded", title="Degraded answers",
                     description="Searches answered by fewer legs than asked (a leg failed or timed out).",
                     kql=f"{SEARCHES} and degraded:true",
                     columns=["query", "mode", "degraded_reason", "latency_ms", "legs.bm25.latency_ms",
                              "legs.dense.latency_ms", "hits"]),
    ]


def latency_by_mode() -> dict[str, Any]:
    """p50/p95/p99 search latency over time, one line per mode and percentile."""
    layer = "latency-by-mode"
    columns = {
        "mode": terms("mode", label="Mode", size=3, order_by="p95"),
        "time": date_histogram("@timestamp"),
        "p50": percentile("latency_ms", 50, label="p50 latency"),
        "p95": percentile("latency_ms", 95, label="p95 latency"),
        "p99": percentile("latency_ms", 99, label="p99 latency"),
    }
    return lens("sp-lens-latency-by-mode", title="Search latency percentiles by mode",
                description="p50, p95 and p99 of latency_ms per search mode.", view=LOGS_VIEW, layer=layer,
                columns=columns, visualization_type="lnsXY", kql=SEARCHES,
                visualization=xy(layer, x="time", accessors=["p50", "p95", "p99"], split="mode"))


def leg_latency() -> dict[str, Any]:
    """p95 latency of each Elasticsearch leg over time."""
    layer = "leg-latency"
    columns = {
        "time": date_histogram("@timestamp"),
        "bm25": percentile("legs.bm25.latency_ms", 95, label="bm25 leg p95"),
        "dense": percentile("legs.dense.latency_ms", 95, label="dense leg p95"),
    }
    return lens("sp-lens-leg-latency", title="Elasticsearch leg latency (p95)",
                description="p95 of each leg's Elasticsearch time.", view=LOGS_VIEW, layer=layer, columns=columns,
                visualization_type="lnsXY", kql=SEARCHES,
                visualization=xy(layer, x="time", accessors=["bm25", "dense"]))


def zero_result_rate_over_time() -> dict[str, Any]:
    """Share of searches with no hit, over time and per mode."""
    layer = "zero-result-rate"
    columns = {
        "mode": terms("mode", label="Mode", size=3, order_by="searches"),
        "time": date_histogram("@timestamp"),
        "searches": count(label="Searches"),
        **ratio("rate", label="Zero-result rate", numerator="zero_result:true", denominator=SEARCHES),
    }
    return lens("sp-lens-zero-result-rate", title="Zero-result rate by mode",
                description="Searches with no hit / searches.", view=LOGS_VIEW, layer=layer, columns=columns,
                visualization_type="lnsXY", kql=SEARCHES,
                visualization=xy(layer, x="time", accessors=["rate"], split="mode"))


def zero_result_rate_metric() -> dict[str, Any]:
    """One number: the zero-result rate over the dashboard's time range."""
    layer = "zero-result-metric"
    columns = ratio("rate", label="Zero-result rate", numerator="zero_result:true", denominator=SEARCHES)
    return lens("sp-lens-zero-result-metric", title="Zero-result rate",
                description="Searches with no hit / searches, over the selected time range.", view=LOGS_VIEW,
                layer=layer, columns=columns, visualization_type="lnsMetric", kql=SEARCHES,
                visualization={"layerId": layer, "layerType": "data", "metricAccessor": "rate"})


def top_queries() -> dict[str, Any]:
    """The most frequent queries with how often they found nothing and how slow they were."""
    layer = "top-queries"
    columns = {
        "query": terms("query.raw", label="Query", size=25, order_by="searches"),
        "searches": count(label="Searches"),
        "zero": count(label="Zero-result searches", kql="zero_result:true"),
        "p95": percentile("latency_ms", 95, label="p95 latency"),
        "hits": {"label": "Median hits", "customLabel": True, "dataType": "number", "operationType": "median",
                 "sourceField": "hits", "isBucketed": False, "scale": "ratio", "params": {}},
    }
    return lens("sp-lens-top-queries", title="Top queries", description="The 25 most frequent queries.",
                view=LOGS_VIEW, layer=layer, columns=columns, visualization_type="lnsDatatable", kql=SEARCHES,
                visualization=datatable(layer, columns=list(columns), sort_by="searches"))


def arm_comparison() -> dict[str, Any]:
    """Each experiment arm side by side: traffic, clicks, click-through, zero results, latency."""
    layer = "arm-comparison"
    columns = {
        "experiment": terms("experiment", label="Experiment", size=10, order_by="searches"),
        "arm": terms("arm", label="Arm", size=10, order_by="searches"),
        "searches": count(label="Searches", kql=SEARCHES),
        "clicks": count(label="Clicks", kql=CLICKS),
        **ratio("ctr", label="Click-through rate", numerator=CLICKS, denominator=SEARCHES),
        **ratio("zero", label="Zero-result rate", numerator=f"{SEARCHES} and zero_result:true", denominator=SEARCHES),
        "p95": percentile("latency_ms", 95, label="p95 latency", kql=SEARCHES),
    }
    shown = ["experiment", "arm", "searches", "clicks", "ctr", "zero", "p95"]
    return lens("sp-lens-arm-comparison", title="Experiment arm comparison",
                description="Searches, clicks, click-through rate, zero-result rate and p95 latency per arm.",
                view=LOGS_VIEW, layer=layer, columns=columns, visualization_type="lnsDatatable", kql="experiment:*",
                visualization=datatable(layer, columns=shown, sort_by="searches"))


def chunks_over_time() -> dict[str, Any]:
    """Chunks indexed over time, per source."""
    layer = "chunks-by-source"
    columns = {
        "source": terms("source", label="Source", size=10, order_by="chunks"),
        "time": date_histogram("indexed_at"),
        "chunks": count(label="Chunks"),
    }
    return lens("sp-lens-chunks-indexed", title="Chunks indexed by source",
                description="Chunks by their indexed_at time, per source.", view=CHUNKS_VIEW, layer=layer,
                columns=columns, visualization_type="lnsXY", kql="",
                visualization=xy(layer, x="time", accessors=["chunks"], split="source", series="bar_stacked"))


# (object, x, y, width, height) on Kibana's 48-column grid
Layout = list[tuple[dict[str, Any], int, int, int, int]]


def dashboard(layout: Layout) -> dict[str, Any]:
    """The search-quality dashboard: every panel by reference, so each object stays editable on its own."""
    panels, references = [], []
    for number, (target, x, y, width, height) in enumerate(layout, start=1):
        index = f"p{number}"
        panels.append({"type": target["type"], "panelIndex": index, "panelRefName": f"panel_{index}",
                       "gridData": {"x": x, "y": y, "w": width, "h": height, "i": index},
                       "embeddableConfig": {"enhancements": {}}})
        references.append({"name": f"{index}:panel_{index}", "type": target["type"], "id": target["id"]})
    return saved_object("dashboard", "sp-dashboard-search-quality", {
        "title": "Search platform: quality and latency",
        "description": "Latency percentiles per mode, zero-result rate, top queries, experiment arms, "
                       "zero-result and degraded searches.",
        "panelsJSON": json.dumps(panels, sort_keys=True),
        "optionsJSON": json.dumps({"useMargins": True, "syncColors": False, "syncCursor": True,
                                   "syncTooltips": False, "hidePanelTitles": False}, sort_keys=True),
        "timeRestore": True, "timeFrom": "now-24h", "timeTo": "now",
        "refreshInterval": {"pause": False, "value": 60000},
        "kibanaSavedObjectMeta": {"searchSourceJSON": json.dumps({"query": {"query": "", "language": "kuery"},
                                                                  "filter": []}, sort_keys=True)},
    }, references)


def saved_objects() -> list[dict[str, Any]]:
    """Every object, referenced ones before those referring to them."""
    views, searches = data_views(), saved_searches()
    metric, latency, legs = zero_result_rate_metric(), latency_by_mode(), leg_latency()
    rate, queries, arms, chunks = zero_result_rate_over_time(), top_queries(), arm_comparison(), chunks_over_time()
    board = dashboard([
        (metric, 0, 0, 12, 8), (latency, 12, 0, 36, 16),
        (rate, 0, 16, 24, 14), (legs, 24, 16, 24, 14),
        (queries, 0, 30, 24, 18), (arms, 24, 30, 24, 18),
        (searches[0], 0, 48, 48, 15), (searches[1], 0, 63, 48, 15),
        (chunks, 0, 78, 48, 12),
    ])
    return [*views, *searches, metric, latency, legs, rate, queries, arms, chunks, board]


def render() -> str:
    """The ndjson text: one object per line, keys sorted so regenerating gives the same bytes."""
    return "".join(json.dumps(obj, sort_keys=True, ensure_ascii=False) + "\n" for obj in saved_objects())


def main(argv: list[str]) -> int:
    """Write the file, or with --check report whether it is up to date."""
    text = render()
    if "--check" in argv:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is out of date: run python kibana/build_saved_objects.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} objects to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
