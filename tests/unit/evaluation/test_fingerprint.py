"""The evaluation index's fingerprint: what shapes the index changes it, how it is reached does not."""

from __future__ import annotations

from search_platform.backends.elasticsearch.mappings import MAPPING_VERSION
from search_platform.config import Settings
from search_platform.domain.models import Document
from search_platform.evaluation.platform import corpus_fingerprint

CORPUS = [Document(doc_id="a.md", content="alpha"), Document(doc_id="b.md", content="beta")]


def _settings(**overrides: object) -> Settings:
    return Settings(elasticsearch={"password": "p" * 16, **overrides.pop("elasticsearch", {})},  # type: ignore[arg-type]
                    **overrides)  # type: ignore[arg-type]


def test_connection_settings_do_not_change_it() -> None:
    moved = _settings(elasticsearch={"url": "http://127.0.0.1:9201", "request_timeout_s": 5, "password": "q" * 16})
    assert corpus_fingerprint(CORPUS, moved) == corpus_fingerprint(CORPUS, _settings())


def test_document_order_does_not_change_it() -> None:
    assert corpus_fingerprint(CORPUS[::-1], _settings()) == corpus_fingerprint(CORPUS, _settings())


def test_chunking_scoring_and_content_change_it() -> None:
    base = corpus_fingerprint(CORPUS, _settings())
    assert corpus_fingerprint(CORPUS, _settings(chunking={"max_tokens": 100})) != base
    assert corpus_fingerprint(CORPUS, _settings(elasticsearch={"bm25_k1": 0.9})) != base
    assert corpus_fingerprint([CORPUS[0]], _settings()) != base


def test_the_limits_on_what_is_indexed_change_it() -> None:
    base = corpus_fingerprint(CORPUS, _settings())
    assert corpus_fingerprint(CORPUS, _settings(ingestion={"max_chunks_per_document": 10})) != base
    assert corpus_fingerprint(CORPUS, _settings(ingestion={"max_document_bytes": 10})) != base
    assert corpus_fingerprint(CORPUS, _settings(ingestion={"documents_per_task": 4})) == base


def test_embedding_model_changes_it() -> None:
    base = corpus_fingerprint(CORPUS, _settings())
    assert corpus_fingerprint(CORPUS, _settings(embedding={"model": "all-minilm-l6-v2"})) != base


def test_a_different_encoder_of_the_same_model_gets_another_index() -> None:
    base = corpus_fingerprint(CORPUS, _settings(), encoder="384-aaaa")
    assert corpus_fingerprint(CORPUS, _settings(), encoder="384-bbbb") != base
    assert corpus_fingerprint(CORPUS, _settings(), encoder="384-aaaa") == base


def test_a_new_mapping_version_gets_another_index() -> None:
    """A version bump may change only what ingestion derives (the names in `defines`), not the mapping itself."""
    current = corpus_fingerprint(CORPUS, _settings())
    assert corpus_fingerprint(CORPUS, _settings(), mapping_version=MAPPING_VERSION) == current
    assert corpus_fingerprint(CORPUS, _settings(), mapping_version=MAPPING_VERSION + 1) != current
