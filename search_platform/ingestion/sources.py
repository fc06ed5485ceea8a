"""Read documents from disk: a directory of .md/.txt/.html files, or a JSON / JSON Lines file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import ContentType

CONTENT_TYPES: dict[str, ContentType] = {
    ".md": ContentType.MARKDOWN,
    ".markdown": ContentType.MARKDOWN,
    ".txt": ContentType.TEXT,
    ".rst": ContentType.TEXT,
    ".html": ContentType.HTML,
    ".htm": ContentType.HTML,
}


def iter_directory(root: Path, *, source: str = "") -> Iterator[dict[str, Any]]:
    """Raw documents for every supported file under root; doc_id is the POSIX path relative to root."""
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in CONTENT_TYPES):
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            content = path.read_text(encoding="utf-8", errors="replace")
        yield {
            "doc_id": path.relative_to(root).as_posix(),
            "content": content,
            "content_type": CONTENT_TYPES[path.suffix.lower()].value,
            "source": source or root.name,
        }


def read_json_documents(path: Path) -> list[dict[str, Any]]:
    """Raw documents from a JSON list or a JSON Lines file; a bad line is named in the error."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".jsonl":
        documents = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    documents.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise InvalidDocumentError(f"{path}:{number}: not valid JSON ({error.msg})") from error
        return documents
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidDocumentError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from error
    if not isinstance(data, list):
        raise InvalidDocumentError(f"{path}: expected a JSON list of documents")
    return data


def read_documents(path: Path) -> list[dict[str, Any]]:
    """Raw documents from a directory or a JSON/JSONL file."""
    if path.is_dir():
        return list(iter_directory(path))
    if path.suffix.lower() in (".json", ".jsonl"):
        return read_json_documents(path)
    raise InvalidDocumentError(f"{path}: expected a directory or a .json/.jsonl file")
