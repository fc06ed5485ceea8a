from datetime import UTC, datetime, timedelta, timezone

import pytest

from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.backends.elasticsearch.mappings import RecordKind
from search_platform.backends.elasticsearch.queries import (
    SOURCE_FIELDS,
    bm25_body,
    defines_filter,
    grouping_fields,
    knn_body,
    lead_passage_filter,
    num_candidates_for,
    page_body,
    passages_body,
)
from search_platform.domain.models import Filters, GroupBy

CHUNK_FIELDS = {"text": 1.0, "title": 0.5}


def test_bm25_body_with_technical_terms():
    body = bm25_body(
        "os.path.join", fields=CHUNK_FIELDS, kind=RecordKind.CHUNK, tech_query="os_path_join os path join",
        candidate_k=50, filters=[{"terms": {"tenant": ["a"]}}], tech_boost=1.0,
    )
    assert body == {
        "size": 50,
        "track_total_hits": False,
        "_source": False,
        "query": {
            "bool": {
                "should": [
                    {"match": {"text": {"query": "os.path.join"}}},
                    {"match": {"title": {"query": "os.path.join", "boost": 0.5}}},
                    {"match": {"tech": {"query": "os_path_join os path join", "boost": 1.0}}},
                ],
                "minimum_should_match": 1,
                "filter": [{"term": {"kind": "chunk"}}, {"terms": {"tenant": ["a"]}}],
            }
        },
    }


def test_bm25_body_over_whole_documents_skips_zero_boosts():
    body = bm25_body("rotate logs", fields={"body": 1.0, "body.exact": 0.0, "title": 2.0}, kind=RecordKind.DOCUMENT,
                     tech_query="", candidate_k=20, filters=[], tech_boost=1.0, doc_values=("kind", "doc_id"))
    assert (body["_source"], body["docvalue_fields"]) == (False, ["kind", "doc_id"])
    assert body["query"]["bool"] == {
        "should": [
            {"match": {"body": {"query": "rotate logs"}}},
            {"match": {"title": {"query": "rotate logs", "boost": 2.0}}},
        ],
        "minimum_should_match": 1,
        "filter": [{"term": {"kind": "document"}}],
    }


def test_bm25_body_adds_a_phrase_clause_per_identifier_phrase():
    body = bm25_body("tail --max-unchanged-stats --follow-name", fields={"body": 1.0}, kind=RecordKind.DOCUMENT,
                     tech_query="", candidate_k=20, filters=[], tech_boost=1.0,
                     phrases=["--max-unchanged-stats", "--follow-name"], phrase_field="body.exact", phrase_boost=2.0)
    assert body["query"]["bool"]["should"] == [
        {"match": {"body": {"query": "tail --max-unchanged-stats --follow-name"}}},
        {"match_phrase": {"body.exact": {"query": "--max-unchanged-stats", "boost": 2.0}}},
        {"match_phrase": {"body.exact": {"query": "--follow-name", "boost": 2.0}}},
    ]


def test_bm25_body_with_phrase_boost_zero_has_no_phrase_clause():
    body = bm25_body("--max-unchanged-stats", fields={"text": 1.0}, kind=RecordKind.CHUNK, tech_query="",
                     candidate_k=20, filters=[], tech_boost=1.0, phrases=["--max-unchanged-stats"],
                     phrase_field="text.exact", phrase_boost=0.0)
    assert body["query"]["bool"]["should"] == [{"match": {"text": {"query": "--max-unchanged-stats"}}}]


def test_bm25_body_matches_the_options_once_on_the_option_field():
    body = bm25_body("find -xdev -print0", fields={"body": 1.0}, kind=RecordKind.DOCUMENT, tech_query="",
                     candidate_k=20, filters=[], tech_boost=1.0, options=["-xdev", "-print0"],
                     option_field="body.ident", option_boost=2.0)
    assert body["query"]["bool"]["should"] == [
        {"match": {"body": {"query": "find -xdev -print0"}}},
        {"match": {"body.ident": {"query": "-xdev -print0", "boost": 2.0}}},
    ]


@pytest.mark.parametrize(("options", "boost"), [([], 2.0), (["-xdev"], 0.0)])
def test_bm25_body_without_options_or_with_option_boost_zero_has_no_option_clause(options, boost):
    body = bm25_body("-xdev", fields={"text": 1.0}, kind=RecordKind.CHUNK, tech_query="", candidate_k=20,
                     filters=[], tech_boost=1.0, options=options, option_field="text.ident", option_boost=boost)
    assert body["query"]["bool"]["should"] == [{"match": {"text": {"query": "-xdev"}}}]


HIGHLIGHT = {
    "pre_tags": ["<em>"],
    "post_tags": ["</em>"],
    "fields": {"text": {"fragment_size": 150, "number_of_fragments": 3}},
}


def test_passages_body_collapses_the_page_documents_to_their_best_chunk_or_the_record_shown():
    body = passages_body("rotate logs", doc_ids=["a", "b"], shown_ids=["a#2", "rec-b"],
                         filters=[{"terms": {"tenant": ["t"]}}])
    assert body == {
        "size": 2,
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {
            "bool": {
                "filter": [{"terms": {"tenant": ["t"]}}],
                "should": [
                    {"bool": {"filter": [{"term": {"kind": "chunk"}}, {"terms": {"doc_id": ["a", "b"]}}],
                              "must": [{"match": {"text": {"query": "rotate logs"}}}],
                              "_name": "passage"}},
                    {"ids": {"values": ["a#2", "rec-b"], "boost": 0.0}},
                ],
                "minimum_should_match": 1,
            }
        },
        "collapse": {"field": "doc_id"},
        "highlight": HIGHLIGHT,
    }


def test_page_body_fetches_stored_fields_and_fragments_of_just_the_page():
    assert page_body("join paths", chunk_ids=["c1", "c2"], highlight=True) == {
        "size": 2,
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {
            "bool": {
                "filter": [{"ids": {"values": ["c1", "c2"]}}],
                "should": [{"match": {"text": {"query": "join paths"}}}],
            }
        },
        "highlight": HIGHLIGHT,
    }


def test_page_body_without_highlight_is_a_plain_ids_fetch():
    assert page_body("join paths", chunk_ids=["c1"], highlight=False) == {
        "size": 1,
        "track_total_hits": False,
        "_source": list(SOURCE_FIELDS),
        "query": {"ids": {"values": ["c1"]}},
    }


def test_candidates_carry_grouping_fields_only_for_document_results():
    assert grouping_fields(GroupBy.CHUNK) == ()
    assert grouping_fields(GroupBy.DOCUMENT) == ("kind", "doc_id", "tenant")


def test_bm25_body_never_highlights_all_candidates():
    body = bm25_body("q", fields=CHUNK_FIELDS, kind=RecordKind.CHUNK, tech_query="", candidate_k=10, filters=[],
                     tech_boost=1.0)
    assert "highlight" not in body


def test_bm25_body_without_technical_terms_has_no_tech_clause():
    body = bm25_body("join two paths", fields=CHUNK_FIELDS, kind=RecordKind.CHUNK, tech_query="", candidate_k=10,
                     filters=[], tech_boost=2.0)
    assert body["query"]["bool"]["should"] == [
        {"match": {"text": {"query": "join two paths"}}},
        {"match": {"title": {"query": "join two paths", "boost": 0.5}}},
    ]


def test_knn_body_prefilters_inside_knn():
    body = knn_body([0.1, 0.2], candidate_k=20, num_candidates=100, filters=[{"terms": {"lang": ["en"]}}])
    assert body == {
        "size": 20,
        "_source": False,
        "knn": {
            "field": "embedding",
            "query_vector": [0.1, 0.2],
            "k": 20,
            "num_candidates": 100,
            "filter": [{"terms": {"lang": ["en"]}}],
        },
    }


def test_the_lead_passage_filter_keeps_each_documents_first_chunk():
    assert lead_passage_filter() == {"term": {"chunk_index": 0}}


def test_the_defines_filter_keeps_documents_that_define_one_of_the_names():
    assert defines_filter(["path::strip_prefix", "strip_prefix"]) == {
        "terms": {"defines": ["path::strip_prefix", "strip_prefix"]}}


def test_knn_body_rescores_an_oversample_with_the_float_vectors_when_asked():
    body = knn_body([1.0], candidate_k=5, num_candidates=100, filters=[], rescore_oversample=2.0)
    assert body["knn"] == {"field": "embedding", "query_vector": [1.0], "k": 5, "num_candidates": 100,
                           "rescore_vector": {"oversample": 2.0}}


def test_knn_body_without_filters_has_no_filter_key():
    assert "filter" not in knn_body([1.0], candidate_k=5, num_candidates=100, filters=[])["knn"]


def test_knn_body_for_document_results_returns_grouping_fields_from_doc_values():
    body = knn_body([1.0], candidate_k=5, num_candidates=100, filters=[], doc_values=("kind", "doc_id", "tenant"))
    assert body == {
        "size": 5,
        "_source": False,
        "docvalue_fields": ["kind", "doc_id", "tenant"],
        "knn": {"field": "embedding", "query_vector": [1.0], "k": 5, "num_candidates": 100},
    }


def test_num_candidates_floor_factor_and_cap():
    assert num_candidates_for(10, factor=2.0, minimum=100) == 100
    assert num_candidates_for(200, factor=2.0, minimum=100) == 400
    assert num_candidates_for(9000, factor=2.0, minimum=100) == 10_000


def test_filters_become_terms_and_ranges_in_fixed_order():
    after = datetime(2026, 1, 1, tzinfo=UTC)
    before = datetime(2026, 6, 1, tzinfo=UTC)
    clauses = filter_clauses(
        Filters(tags=("a", "b"), tenants=("t1",), sources=("docs",), indexed_after=after, indexed_before=before)
    )
    assert clauses == [
        {"terms": {"source": ["docs"]}},
        {"terms": {"tags": ["a", "b"]}},
        {"terms": {"tenant": ["t1"]}},
        {"range": {"indexed_at": {"format": "epoch_millis", "gte": 1767225600000, "lt": 1780272000000}}},
    ]


def test_range_bounds_take_any_offset_and_round_up_to_whole_milliseconds():
    past_java_limit = datetime(214, 3, 4, 21, 44, 8, tzinfo=timezone(timedelta(hours=19, minutes=31)))
    half_a_milli = datetime(1970, 1, 1, 0, 0, 0, 500, tzinfo=UTC)
    clauses = filter_clauses(Filters(indexed_after=past_java_limit, indexed_before=half_a_milli))
    assert clauses == [{"range": {"indexed_at": {"format": "epoch_millis", "gte": -55408657612000, "lt": 1}}}]


def test_empty_filters_are_no_clauses():
    assert filter_clauses(Filters()) == []


def test_bm25_body_with_tech_boost_zero_turns_the_tech_field_off():
    body = bm25_body("os.path.join", fields=CHUNK_FIELDS, kind=RecordKind.CHUNK,
                     tech_query="os_path_join os_path path_join", candidate_k=10, filters=[], tech_boost=0.0)
    assert body["query"]["bool"]["should"] == [
        {"match": {"text": {"query": "os.path.join"}}},
        {"match": {"title": {"query": "os.path.join", "boost": 0.5}}},
    ]
