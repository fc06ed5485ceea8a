from search_platform.backends.elasticsearch.mappings import index_body, versioned_index_name
from search_platform.config import ElasticsearchSettings


def test_versioned_name():
    assert versioned_index_name("sp-chunks") == "sp-chunks-v2"


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
