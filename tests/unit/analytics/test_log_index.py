from search_platform.analytics.log_index import (
    LOG_ALIAS,
    LOG_MAPPINGS,
    generation_index_name,
    log_index_body,
    rollover_conditions,
)
from search_platform.analytics.search_log import LogContext, click_event, search_event
from search_platform.domain.models import Leg, SearchMode, SearchResult
from tests.unit.analytics.test_search_log import WHEN, _request


def _mapped_paths(properties: dict, prefix: str = "") -> set[str]:
    paths = set()
    for name, spec in properties.items():
        path = f"{prefix}{name}"
        if "properties" in spec:
            paths |= _mapped_paths(spec["properties"], f"{path}.")
        else:
            paths.add(path)
    return paths


def _leaf_paths(document: dict, prefix: str = "") -> set[str]:
    paths = set()
    for name, value in document.items():
        if isinstance(value, dict):
            paths |= _leaf_paths(value, f"{prefix}{name}.")
        else:
            paths.add(f"{prefix}{name}")
    return paths


def test_body_is_strict_with_the_agreed_fields():
    body = log_index_body(number_of_shards=2, number_of_replicas=1)
    assert body["settings"] == {"number_of_shards": 2, "number_of_replicas": 1}
    assert body["mappings"] is LOG_MAPPINGS
    assert LOG_MAPPINGS["dynamic"] == "strict"
    props = LOG_MAPPINGS["properties"]
    assert props["@timestamp"] == {"type": "date"}
    assert props["query"]["fields"]["raw"] == {"type": "keyword", "ignore_above": 512}
    assert props["legs"]["properties"]["dense"]["properties"]["hit_ids"] == {"type": "keyword"}
    assert props["params"]["properties"]["weights"]["properties"]["bm25"] == {"type": "float"}
    assert LOG_ALIAS == "sp-search-logs"


def test_every_event_field_is_mapped():
    result = SearchResult(mode=SearchMode.HYBRID, hits=(), took_ms=1.0, leg_took_ms={Leg.BM25: 1.0, Leg.DENSE: 1.0})
    search = search_event(_request(), result, context=LogContext(request_id="r", timestamp=WHEN))
    click = click_event(context=LogContext(request_id="r", timestamp=WHEN), doc_id="d", position=1)
    mapped = _mapped_paths(LOG_MAPPINGS["properties"])
    assert _leaf_paths(search) <= mapped
    assert _leaf_paths(click) <= mapped


def test_generation_names_follow_the_rollover_pattern():
    assert generation_index_name("sp-search-logs") == "sp-search-logs-000001"
    assert generation_index_name("logs", 12) == "logs-000012"


def test_rollover_conditions_keep_only_given_ones():
    assert rollover_conditions(max_age="7d", max_size="5gb") == {"max_age": "7d", "max_primary_shard_size": "5gb"}
    assert rollover_conditions(max_docs=10) == {"max_docs": 10}
    assert rollover_conditions() == {}
