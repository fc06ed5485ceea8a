"""Read documents from disk: a directory of .md/.txt/.html files, or a JSON / JSON Lines file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from search_platform.domain.errors import InvalidDocumentError
from search_platform.domain.models import ContentType
from search_platform.text.normalize import resolve_formatter_output

CONTENT_TYPES: dict[str, ContentType] = {
    ".md": ContentType.MARKDOWN,
    ".markdown": ContentType.MARKDOWN,
    ".txt": ContentType.TEXT,
    ".rst": ContentType.TEXT,
    ".html": ContentType.HTML,
    ".htm": ContentType.HTML,
}


@dataclass(frozen=True, slots=True)
class DirectoryRead:
    """Raw documents read from a directory, and the files that could not be read with the reason."""

    documents: list[dict[str, Any]]
    errors: dict[str, str]


def _is_candidate(path: Path, root: Path) -> bool:
    relative = path.relative_to(root)
    hidden = any(part.startswith(".") for part in relative.parts)
    return path.is_file() and not hidden and path.suffix.lower() in CONTENT_TYPES


def read_directory(root: Path, *, source: str = "") -> DirectoryRead:
    """Every supported, non-hidden file under root; doc_id is its POSIX path relative to root. Terminal formatting
    in a file (man(1)'s overstrike, ANSI colours) is resolved to its text: the API takes text without controls."""
    if not root.is_dir():
        raise InvalidDocumentError(f"{root}: not a directory")
    documents: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if _is_candidate(p, root)):
        doc_id = path.relative_to(root).as_posix()
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            errors[doc_id] = f"not valid UTF-8 at byte {error.start}: {error.reason}"
            continue
        except OSError as error:
            errors[doc_id] = f"cannot read file: {error.strerror}"
            continue
        documents.append({
            "doc_id": doc_id,
            "content": resolve_formatter_output(content),  # a file may be captured terminal output
            "content_type": CONTENT_TYPES[path.suffix.lower()].value,
            "source": source or root.name,
        })
    return DirectoryRead(documents=documents, errors=errors)


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


def read_documents(path: Path) -> DirectoryRead:
    """Raw documents from a directory or a JSON/JSONL file, with the files that could not be read."""
    if path.is_dir():
        return read_directory(path)
    if path.suffix.lower() in (".json", ".jsonl"):
        return DirectoryRead(documents=read_json_documents(path), errors={})
    raise InvalidDocumentError(f"{path}: expected a directory or a .json/.jsonl file")
