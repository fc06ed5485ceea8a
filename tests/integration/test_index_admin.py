"""Index creation, alias swap and deletion against the real Elasticsearch."""

from __future__ import annotations

import pytest

from search_platform.backends.elasticsearch.client import build_client
from search_platform.backends.elasticsearch.mappings import (
    MAPPING_VERSION,
    delete_index,
    ensure_index,
    swap_alias,
    versioned_index_name,
)

pytestmark = pytest.mark.integration


def test_ensure_swap_delete(services, index):
    es = build_client(services.elasticsearch)
    try:
        delete_index(es, alias=index)  # a missing alias is not an error
        assert ensure_index(es, services.elasticsearch, alias=index, dims=8) == index
        assert ensure_index(es, services.elasticsearch, alias=index, dims=8) == index  # idempotent
        assert list(es.indices.get_alias(name=index)) == [versioned_index_name(index)]
        mapping = es.indices.get_mapping(index=index)[versioned_index_name(index)]["mappings"]
        assert mapping["properties"]["embedding"]["index_options"]["type"] == "int8_hnsw"
        successor = versioned_index_name(index, MAPPING_VERSION + 1)
        es.indices.create(index=successor)
        swap_alias(es, alias=index, new_index=successor)
        assert list(es.indices.get_alias(name=index)) == [successor]
        es.indices.delete(index=versioned_index_name(index))
        delete_index(es, alias=index)
        assert not es.indices.exists_alias(name=index)
    finally:
        es.close()
