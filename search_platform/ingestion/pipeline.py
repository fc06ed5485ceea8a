"""Ingestion steps as plain functions: validate -> parse -> chunk -> embed -> bulk actions."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from search_platform.backends.elasticsearch.mappings import RecordKind, document_record_id
from search_platform.config import ChunkingSettings
from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import Chunk, Document
from search_platform.embeddings.base import Embedder
from search_platform.text.chunking import chunk_blocks
from search_platform.text.definitions import defined_names
from search_platform.text.parsing import extract_title, parse_blocks
from search_platform.text.tokenizer import technical_index_text

# C0 controls other than tab, newline, vertical tab, form feed and carriage return; DEL; lone UTF-16 surrogates
CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ud800-\udfff]")
# identifiers and labels take no control character at all
CONTROL_IN_LABEL = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
MAX_DOC_ID_BYTES = 256


class OversizeDocumentError(InvalidDocumentError):
    """A document's content is over the size limit."""


def _refuse_controls(document: Document) -> None:
    labels = {"doc_id": document.doc_id, "title": document.title, "source": document.source, "lang": document.lang,
              "tenant": document.tenant, **{f"tags[{i}]": tag for i, tag in enumerate(document.tags)}}
    for name, value in labels.items():
        if (found := CONTROL_IN_LABEL.search(value)) is not None:
            raise InvalidDocumentError(f"{name} contains the control or surrogate character U+{ord(found[0]):04X}")
    if (found := CONTROL_IN_TEXT.search(document.content)) is not None:
        raise InvalidDocumentError(f"content contains the control or surrogate character U+{ord(found[0]):04X} "
                                   f"at offset {found.start()}")


def validate_document(document: Document, *, max_bytes: int) -> None:
    """Refuse a document that cannot be indexed, with the reason."""
    size = len(document.content.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise OversizeDocumentError(f"content is {size} bytes, over the {max_bytes}-byte limit")
    if not document.doc_id.strip():
        raise InvalidDocumentError("doc_id is empty")
    if len(document.doc_id.encode("utf-8", errors="surrogatepass")) > MAX_DOC_ID_BYTES:
        raise InvalidDocumentError(f"doc_id is longer than {MAX_DOC_ID_BYTES} bytes")
    if not document.content.strip():
        raise InvalidDocumentError("content is empty")
    if not document.tenant.strip():
        raise InvalidDocumentError("tenant is empty")
    _refuse_controls(document)


def content_hash(text: str) -> str:
    """Stable hash of a chunk's text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id_for(*, tenant: str, doc_id: str, chunk_index: int, text_hash: str) -> str:
    """Deterministic chunk id from tenant, document id, position and content: re-runs overwrite, never duplicate."""
    key = f"{tenant}\x1f{doc_id}\x1f{chunk_index}\x1f{text_hash}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]


def document_body(document: Document) -> str:
    """The document's whole text as its chunks see it (parsed, markup gone), for document-level BM25; a blank line
    between its paragraphs, as a term alone in its paragraph is laid out differently from one inside a list."""
    return "\n\n".join(block.text for block in parse_blocks(document.content, document.content_type))


def chunk_document(
    document: Document, *, chunking: ChunkingSettings, count_tokens: Callable[[str], int]
) -> list[Chunk]:
    """Split a document into chunks with deterministic ids and technical terms."""
    blocks = parse_blocks(document.content, document.content_type)
    pieces = chunk_blocks(
        blocks,
        max_tokens=chunking.max_tokens,
        overlap_tokens=chunking.overlap_tokens,
        count_tokens=count_tokens,
    )
    if not pieces:
        raise InvalidDocumentError("no text left after parsing")
    title = document.title or extract_title(document.content, document.content_type)
    chunks = []
    for index, piece in enumerate(pieces):
        text_hash = content_hash(piece.text)
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(tenant=document.tenant, doc_id=document.doc_id, chunk_index=index,
                                      text_hash=text_hash),
                doc_id=document.doc_id,
                chunk_index=index,
                text=piece.text,
                title=title,
                section=piece.section,
                tech=technical_index_text(f"{piece.section}\n{piece.text}"),
                content_hash=text_hash,
                source=document.source,
                tags=document.tags,
                lang=document.lang,
                tenant=document.tenant,
            )
        )
    return chunks


def embedding_text(chunk: Chunk) -> str:
    """What the dense leg sees: title and section give a chunk its context."""
    context = " > ".join(part for part in (chunk.title, chunk.section) if part)
    return f"{context}\n{chunk.text}" if context else chunk.text


def embed_chunks(chunks: Sequence[Chunk], embedder: Embedder) -> list[list[float]]:
    """Vectors for chunks, in order."""
    return embedder.embed_documents([embedding_text(chunk) for chunk in chunks])


def document_action(document: Document, chunks: Sequence[Chunk], *, index: str, indexed_at: datetime
                    ) -> dict[str, Any]:
    """The bulk `index` action of a document's own record: its whole text (document-level BM25) and its original
    content (what re-embedding needs), no vector."""
    body = document_body(document)
    return {
        "_op_type": "index",
        "_index": index,
        "_id": document_record_id(tenant=document.tenant, doc_id=document.doc_id),
        "_source": {
            "kind": RecordKind.DOCUMENT.value,
            "doc_id": document.doc_id,
            "chunk_count": len(chunks),
            "chunk_ids": [chunk.chunk_id for chunk in chunks],
            "content_hash": content_hash(document.content),
            "title": chunks[0].title if chunks else document.title,
            "body": body,
            "defines": defined_names(body),
            "content": document.content,
            "content_type": document.content_type.value,
            "source": document.source,
            "tags": list(document.tags),
            "lang": document.lang,
            "tenant": document.tenant,
            "indexed_at": indexed_at.isoformat(),
        },
    }


def index_actions(
    chunks: Sequence[Chunk], vectors: Sequence[list[float]], *, index: str, indexed_at: datetime
) -> Iterator[dict[str, Any]]:
    """Bulk `index` actions of chunks with deterministic ids."""
    for chunk, vector in zip(chunks, vectors, strict=True):
        yield {
            "_op_type": "index",
            "_index": index,
            "_id": chunk.chunk_id,
            "_source": {
                "kind": RecordKind.CHUNK.value,
                "doc_id": chunk.doc_id,
                "chunk_index": chunk.chunk_index,
                "content_hash": chunk.content_hash,
                "text": chunk.text,
                "title": chunk.title,
                "section": chunk.section,
                "tech": chunk.tech,
                "source": chunk.source,
                "tags": list(chunk.tags),
                "lang": chunk.lang,
                "tenant": chunk.tenant,
                "indexed_at": indexed_at.isoformat(),
                "embedding": vector,
            },
        }
