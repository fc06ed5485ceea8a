from search_platform.domain.models import ContentType
from search_platform.service.routes.ingest import split_documents


def test_each_document_is_checked_alone():
    accepted, rejected = split_documents([
        {"doc_id": "a", "content": "fine", "content_type": "markdown", "tags": ["x"]},
        {"doc_id": "b", "content": 5},
        {"content": "no id"},
        {"doc_id": "a", "content": "again"},
        {"doc_id": "c", "content": "ok", "unknown": 1},
    ])
    assert [d.doc_id for d in accepted] == ["a"]
    assert accepted[0].content_type is ContentType.MARKDOWN
    assert accepted[0].tags == ("x",)
    assert set(rejected) == {"b", "#2", "#3", "c"}
    assert "content" in rejected["b"]
    assert "duplicate" in rejected["#3"]
    assert "unknown" in rejected["c"]
