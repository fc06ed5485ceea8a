from datetime import UTC, datetime

import pytest

from search_platform.config import ChunkingSettings
from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import ContentType, Document
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.ingestion.pipeline import (
    chunk_document,
    chunk_id_for,
    content_hash,
    document_action,
    embedding_text,
    index_actions,
    validate_document,
)

CHUNKING = ChunkingSettings(max_tokens=20, overlap_tokens=4)
count = FakeEmbedder().count_tokens


def doc(content: str, **extra) -> Document:
    return Document(doc_id="d1", content=content, **extra)


def test_chunk_ids_are_deterministic_and_depend_on_tenant_position_and_content():
    first = chunk_document(doc("alpha beta gamma"), chunking=CHUNKING, count_tokens=count)
    again = chunk_document(doc("alpha beta gamma"), chunking=CHUNKING, count_tokens=count)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    other_tenant = chunk_document(doc("alpha beta gamma", tenant="t2"), chunking=CHUNKING, count_tokens=count)
    assert first[0].chunk_id != other_tenant[0].chunk_id
    changed = chunk_document(doc("alpha beta delta"), chunking=CHUNKING, count_tokens=count)
    assert first[0].chunk_id != changed[0].chunk_id
    h = content_hash("x")
    assert chunk_id_for(tenant="t", doc_id="d", chunk_index=0, text_hash=h) != chunk_id_for(
        tenant="t", doc_id="d", chunk_index=1, text_hash=h)


def test_long_document_is_split_within_the_token_limit():
    text = "\n\n".join(f"Paragraph {n} has exactly seven words here." for n in range(20))
    chunks = chunk_document(doc(text), chunking=CHUNKING, count_tokens=count)
    assert len(chunks) > 5
    assert all(count(c.text) <= CHUNKING.max_tokens for c in chunks)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_title_from_html_and_technical_terms():
    html = "<html><head><title>json — JSON encoder</title></head><body><h1>json</h1>" \
           "<p>Raise json.JSONDecodeError on bad input.</p></body></html>"
    chunks = chunk_document(doc(html, content_type=ContentType.HTML), chunking=CHUNKING, count_tokens=count)
    assert chunks[0].title == "json — JSON encoder"
    assert "json_jsondecodeerror" in chunks[0].tech.split()
    assert embedding_text(chunks[0]).startswith("json — JSON encoder")


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (Document(doc_id=" ", content="x"), "doc_id is empty"),
        (Document(doc_id="x" * 300, content="x"), "256 bytes"),
        (Document(doc_id="a", content=" \n "), "content is empty"),
        (Document(doc_id="a", content="x" * 101), "over the 100-byte limit"),
        (Document(doc_id="a", content="x", tenant=""), "tenant is empty"),
        (Document(doc_id="a", content="a\x00b"), "U\\+0000 at offset 1"),
        (Document(doc_id="a", content="\x1b[31m"), "U\\+001B"),
        (Document(doc_id="a", content="x\ud800"), "U\\+D800"),
        (Document(doc_id="a\x07", content="x"), "doc_id contains .* U\\+0007"),
        (Document(doc_id="a", content="x", tags=("ok", "b\nc")), "tags\\[1\\] contains"),
        (Document(doc_id="a", content="x", title="t\tt"), "title contains"),
    ],
)
def test_invalid_documents_are_refused_with_the_reason(document, reason):
    with pytest.raises(InvalidDocumentError, match=reason):
        validate_document(document, max_bytes=100)


def test_markup_without_text_is_refused():
    with pytest.raises(InvalidDocumentError, match="no text"):
        chunk_document(doc("<script>x()</script>", content_type=ContentType.HTML), chunking=CHUNKING,
                       count_tokens=count)


def test_index_actions_carry_the_deterministic_id():
    chunks = chunk_document(doc("alpha beta", tags=("t",)), chunking=CHUNKING, count_tokens=count)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    [action] = list(index_actions(chunks, [[0.5, 0.5]], index="ix", indexed_at=when))
    assert action["_id"] == chunks[0].chunk_id
    assert action["_index"] == "ix"
    assert action["_source"]["tags"] == ["t"]
    assert action["_source"]["indexed_at"] == "2026-01-01T00:00:00+00:00"
    assert action["_source"]["embedding"] == [0.5, 0.5]


def test_tabs_newlines_and_form_feeds_are_text():
    validate_document(Document(doc_id="a", content="a\tb\nc\r\nd\x0ce\x0bf"), max_bytes=100)


def test_an_oversize_document_is_refused_as_oversize():
    from search_platform.ingestion.pipeline import OversizeDocumentError

    with pytest.raises(OversizeDocumentError):
        validate_document(Document(doc_id="a", content="\x00" * 101), max_bytes=100)


def test_a_term_alone_in_its_paragraph_is_defined_through_the_document_record():
    # man(1)'s layout: a short option one space before its description, in a paragraph of its own
    page = ("OPTIONS\n       -q     say nothing\n\n       --help show this help and exit\n\n       --version\n"
            "              print the version\n              and exit\n")
    document = doc(page)
    chunks = chunk_document(document, chunking=CHUNKING, count_tokens=count)
    record = document_action(document, chunks, index="ix", indexed_at=datetime(2026, 1, 1, tzinfo=UTC))["_source"]
    assert "\n\n       --help show this help" in record["body"]
    assert {"-q", "--help", "--version"} <= set(record["defines"])
