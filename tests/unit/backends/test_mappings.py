from types import SimpleNamespace
from typing import Any

from search_platform.backends.elasticsearch.mappings import (
    MAPPING_VERSION,
    index_body,
    outdated_reasons,
    vector_dims,
    versioned_index_name,
)
from search_platform.config import ElasticsearchSettings

CURRENT = f"sp-chunks-v{MAPPING_VERSION}"


def field_mapping(dims: int) -> dict[str, Any]:
    """One index's part of a get_field_mapping answer for the embedding field, as Elasticsearch 9 gives it."""
    return {"mappings": {"embedding": {"full_name": "embedding", "mapping": {"embedding": {
        "type": "dense_vector", "dims": dims, "index": True, "similarity": "cosine",
        "index_options": {"type": "int8_hnsw", "m": 16, "ef_construction": 100}}}}}}


def test_vector_dims_per_index_leaves_out_indices_without_the_field():
    answer = {"sp-chunks-v2": field_mapping(384), "sp-chunks-v2-r1": field_mapping(768), "other": {"mappings": {}}}
    assert vector_dims(answer) == {"sp-chunks-v2": 384, "sp-chunks-v2-r1": 768}


class _Indices:
    """The two index APIs outdated_reasons reads, answering from fixed bodies."""

    def __init__(self, dims_by_index: dict[str, int]) -> None:
        self._dims = dims_by_index

    def get_alias(self, *, name: str) -> dict[str, Any]:
        return {index: {"aliases": {name: {}}} for index in self._dims}

    def get_field_mapping(self, *, index: str, fields: str) -> Any:
        assert fields == "embedding"
        return SimpleNamespace(body={name: field_mapping(dims) for name, dims in self._dims.items()})


class _Client:
    """An Elasticsearch client with only those index APIs; options() asks for no different behaviour here."""

    def __init__(self, indices: _Indices) -> None:
        self.indices = indices
        self.options_asked: list[dict[str, Any]] = []

    def options(self, **options: Any) -> "_Client":
        self.options_asked.append(options)
        return self


def reasons(dims_by_index: dict[str, int], *, dims: int, indices: _Indices | None = None) -> list[str]:
    client = _Client(indices or _Indices(dims_by_index))
    found = outdated_reasons(client, alias="sp-chunks", dims=dims)  # type: ignore[arg-type]
    assert client.options_asked == [{"ignore_status": 404}]
    return found


class _Recovering(_Indices):
    """A node that has just restarted: the alias is there, the field mapping answers 404 with {}."""

    def get_field_mapping(self, *, index: str, fields: str) -> Any:
        return SimpleNamespace(body={})


def test_a_field_mapping_not_found_yet_is_no_reason_to_refuse():
    assert reasons({}, dims=768, indices=_Recovering({CURRENT: 384})) == []


def test_a_current_alias_of_the_same_dimension_needs_nothing():
    assert reasons({CURRENT: 768}, dims=768) == []
    assert reasons({f"{CURRENT}-r20261204101500123": 768}, dims=768) == []


def test_vectors_of_another_dimension_name_the_index_and_both_dimensions():
    assert reasons({CURRENT: 384}, dims=768) == [
        f"sp-chunks holds vectors of another embedding model ({CURRENT}: 384 dimensions; the current model makes "
        "768)"]


def test_an_older_mapping_version_and_another_dimension_are_both_reported():
    assert reasons({"sp-chunks-v1": 384}, dims=768) == [
        f"sp-chunks points at sp-chunks-v1, not at mapping version {MAPPING_VERSION} ({CURRENT})",
        "sp-chunks holds vectors of another embedding model (sp-chunks-v1: 384 dimensions; the current model makes "
        "768)"]


def test_versioned_name():
    assert versioned_index_name("sp-chunks") == CURRENT


def test_embedding_field_uses_settings():
    settings = ElasticsearchSettings(vector_index_type="int8_hnsw", hnsw_m=24, hnsw_ef_construction=128)
    body = index_body(settings, dims=384)
    assert body["mappings"]["properties"]["embedding"] == {
        "type": "dense_vector",
        "dims": 384,
        "index": True,
        "similarity": "cosine",
        "index_options": {"type": "int8_hnsw", "m": 24, "ef_construction": 128},
    }


def test_flat_index_has_no_hnsw_options():
    body = index_body(ElasticsearchSettings(vector_index_type="flat"), dims=8)
    assert body["mappings"]["properties"]["embedding"]["index_options"] == {"type": "flat"}


def test_bm25_parameters_come_from_settings():
    body = index_body(ElasticsearchSettings(bm25_k1=0.9, bm25_b=0.4), dims=8)
    assert body["settings"]["similarity"] == {"sp_bm25": {"type": "BM25", "k1": 0.9, "b": 0.4}}
    assert body["mappings"]["properties"]["text"]["similarity"] == "sp_bm25"
    assert body["mappings"]["properties"]["tech"]["analyzer"] == "standard"


def test_prose_fields_are_english_with_exact_and_identifier_subfields():
    body = index_body(ElasticsearchSettings(), dims=8)
    for name in ("text", "title", "section", "body"):
        field = body["mappings"]["properties"][name]
        assert (field["analyzer"], field["fields"]["exact"]["analyzer"], field["fields"]["ident"]["analyzer"]) == (
            "sp_english", "standard", "sp_identifier")
    assert body["mappings"]["properties"]["content"] == {"type": "text", "index": False}


def test_document_record_ids_are_per_tenant_and_never_a_chunk_id():
    from search_platform.backends.elasticsearch.mappings import document_record_id
    from search_platform.ingestion.pipeline import chunk_id_for

    assert document_record_id(tenant="a", doc_id="x") == document_record_id(tenant="a", doc_id="x")
    assert document_record_id(tenant="a", doc_id="x") != document_record_id(tenant="b", doc_id="x")
    assert document_record_id(tenant="a", doc_id="x") != chunk_id_for(tenant="a", doc_id="x", chunk_index=0,
                                                                      text_hash="document")
