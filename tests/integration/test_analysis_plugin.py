"""The sp_ analysis plugin (plugins/analysis) as the real local node runs it, through `_analyze` and a real index.

The expected token lists are literal: the same module pointed at the docker-compose stack (SP_ELASTICSEARCH__URL)
must pass unchanged, which is what "both stacks produce identical tokens" means.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from elasticsearch import ApiError, Elasticsearch

from search_platform.backends.elasticsearch.client import build_client
from search_platform.config import Settings

pytestmark = pytest.mark.integration

FIELD_SETTINGS: dict[str, Any] = {
    "number_of_shards": 1,
    "number_of_replicas": 0,
    "analysis": {
        "tokenizer": {"short_identifier": {"type": "sp_identifier", "max_token_length": 4}},
        "analyzer": {
            # sp_english rebuilt from the plugin's filters: the pieces compose as the packaged analyzer does
            "english_from_parts": {
                "type": "custom",
                "tokenizer": "standard",
                "filter": ["sp_english_possessive", "lowercase", "sp_english_stop", "sp_porter_stem"],
            },
            "short_identifier": {"type": "custom", "tokenizer": "short_identifier"},
        },
    },
}
MAPPINGS = {"properties": {"code": {"type": "text", "analyzer": "sp_identifier"}}}


@pytest.fixture(scope="module")
def es(services: Settings) -> Iterator[Elasticsearch]:
    client = build_client(services.elasticsearch)
    yield client
    client.close()


@pytest.fixture(scope="module")
def analysis_index(es: Elasticsearch) -> Iterator[str]:
    """An index of this module only, with custom analyzers made from the plugin's components."""
    name = f"sp-test-analysis-{uuid.uuid4().hex[:12]}"
    es.indices.create(index=name, settings=FIELD_SETTINGS, mappings=MAPPINGS)
    yield name
    es.indices.delete(index=name, ignore_unavailable=True)


def tokens(es: Elasticsearch, index: str, **request: Any) -> list[str]:
    """The token strings `_analyze` returns for request (analyzer=..., or tokenizer=..., text=...)."""
    answer = es.indices.analyze(index=index, **request)
    return [token["token"] for token in answer["tokens"]]


@pytest.mark.parametrize(
    ("analyzer", "text", "expected"),
    [
        # possessive, lowercase, stop words (the, are, for, of), Porter
        ("sp_english", "The server's configuration files are loaded",
         ["server", "configur", "file", "load"]),
        ("sp_english", "Indexing documents for searching of connections",
         ["index", "document", "search", "connect"]),
        ("sp_english", "James's CHILDREN studied quickly", ["jame", "children", "studi", "quickli"]),
        # the same with KStem: gentler, dictionary-backed (it leaves loaded, searching and studied alone)
        ("sp_english_light", "The server's configuration files are loaded",
         ["server", "configuration", "file", "loaded"]),
        ("sp_english_light", "Indexing documents for searching of connections",
         ["index", "document", "searching", "connection"]),
        ("sp_english_light", "James's CHILDREN studied quickly", ["james", "children", "studied", "quick"]),
    ],
)
def test_english_analyzers(es: Elasticsearch, analysis_index: str, analyzer: str, text: str,
                           expected: list[str]) -> None:
    assert tokens(es, analysis_index, analyzer=analyzer, text=text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("--preserve-root", ["--preserve-root", "preserve", "root"]),
        ("-print0", ["-print0", "print0"]),
        ("os.path.join", ["os.path.join", "os", "path", "join"]),
        ("snake_case_name", ["snake_case_name", "snake", "case", "name"]),
        ("ALL_CAPS_VAR", ["all_caps_var", "all", "caps", "var"]),
        ("Vec::retain", ["vec::retain", "vec", "retain"]),
        ("camelCaseName", ["camelcasename", "camel", "case", "name"]),
        ("getElementById", ["getelementbyid", "get", "element", "by", "id"]),
        ("pg_stat_activity", ["pg_stat_activity", "pg", "stat", "activity"]),
        ("<stdio.h>", ["<stdio.h>", "stdio", "h"]),
        ("md5sum utf8", ["md5sum", "utf8"]),  # no split between letters and digits
        ("the user's $HOME", ["the", "user's", "user", "$home", "home"]),  # no stop words, no stemming
    ],
)
def test_identifier_analyzer_keeps_the_original_beside_its_parts(es: Elasticsearch, analysis_index: str, text: str,
                                                                 expected: list[str]) -> None:
    assert tokens(es, analysis_index, analyzer="sp_identifier", text=text) == expected


def test_identifier_tokenizer_splits_on_prose_punctuation_only(es: Elasticsearch, analysis_index: str) -> None:
    text = 'Use --preserve-root, -print0 (see os.path.join) "x=y" [Vec::retain] {a|b} <stdio.h>; done: ok... \'q\''
    expected = ["Use", "--preserve-root", "-print0", "see", "os.path.join", "x", "y", "Vec::retain", "a", "b",
                "<stdio.h>", "done", "ok", "q"]
    assert tokens(es, analysis_index, tokenizer="sp_identifier", text=text) == expected
    answer = es.indices.analyze(index=analysis_index, tokenizer="sp_identifier", text="call os.path.join.")
    last = answer["tokens"][-1]
    assert (last["token"], last["start_offset"], last["end_offset"]) == ("os.path.join", 5, 17)


def test_the_plugin_filters_compose_into_sp_english(es: Elasticsearch, analysis_index: str) -> None:
    text = "The server's configuration files are loaded for James's children"
    assert tokens(es, analysis_index, analyzer="english_from_parts", text=text) == tokens(
        es, analysis_index, analyzer="sp_english", text=text)


def test_tokenizer_setting_is_applied_and_a_bad_value_is_refused(es: Elasticsearch, analysis_index: str) -> None:
    assert tokens(es, analysis_index, analyzer="short_identifier", text="abcdefghij") == ["abcd", "efgh", "ij"]
    bad = {"type": "sp_identifier", "max_token_length": 0}
    with pytest.raises(ApiError) as refused:
        es.indices.analyze(index=analysis_index, tokenizer=bad, text="x")
    assert "[sp_identifier] max_token_length must be between 1 and 16384, got 0" in json.dumps(refused.value.body)


def test_an_identifier_query_matches_the_whole_token_or_the_phrase_of_its_parts(
    es: Elasticsearch, analysis_index: str
) -> None:
    documents = {
        "whole": "call os.path.join to build paths",
        "phrase": "in Python the os path join functions",
        "scattered": "the os module, path handling and str.join",
    }
    for doc_id, code in documents.items():
        es.index(index=analysis_index, id=doc_id, document={"code": code})
    es.indices.refresh(index=analysis_index)
    query = {"match": {"code": "os.path.join"}}
    explained = es.indices.validate_query(index=analysis_index, query=query, explain=True)
    assert explained["explanations"][0]["explanation"] == '(code:os.path.join code:"os path join")'
    hits = es.search(index=analysis_index, query=query)["hits"]["hits"]
    assert [hit["_id"] for hit in hits] == ["whole", "phrase"]
