"""Evaluation datasets: golden-set JSON files and BEIR-format directories behind one interface."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from search_platform.domain.errors import InvalidDocumentError, SearchPlatformError
from search_platform.domain.models import ContentType, Document
from search_platform.ingestion.sources import read_directory
from search_platform.text.normalize import collapse_whitespace, resolve_formatter_output

UNCATEGORIZED = "uncategorized"
GOLDEN_CATEGORIES = frozenset({"exact_match", "conceptual", "mixed"})
QRELS_HEADER = "query-id"
DEFAULT_SPLIT = "test"  # the judgments BEIR evaluates: qrels/test.tsv


class DatasetError(SearchPlatformError):
    """A dataset file is missing or malformed; the message names the file and, where known, the line."""

    def __init__(self, message: str, path: str = "", line: int | None = None) -> None:
        where = f"{path}:{line}: " if path and line is not None else (f"{path}: " if path else "")
        super().__init__(f"{where}{message}")
        self.path = path
        self.line = line
        self.args = (message, path, line)


@dataclass(frozen=True, slots=True)
class EvalQuery:
    """One judged query; relevance maps doc_id to a graded judgment (>= 1 means relevant)."""

    query_id: str
    text: str
    category: str
    relevance: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class EvalDataset:
    """Judged queries plus, when the dataset carries or was given one, the corpus to index."""

    name: str
    queries: tuple[EvalQuery, ...]
    corpus: list[Document] | None
    dropped_queries: int = 0


def load_dataset(path: Path, *, corpus_dir: Path | None = None, split: str = DEFAULT_SPLIT) -> EvalDataset:
    """Load a golden-set JSON file or a BEIR-format directory (its qrels/<split>.tsv), whichever `path` is."""
    if path.is_dir():
        if corpus_dir is not None:
            raise DatasetError("a BEIR directory carries its own corpus; do not pass a corpus directory", str(path))
        return load_beir_dir(path, split=split)
    if not path.is_file():
        raise DatasetError("no such file or directory", str(path))
    if split != DEFAULT_SPLIT:
        raise DatasetError("a golden-set file has no splits: --split is for BEIR directories", str(path))
    corpus = load_directory_documents(corpus_dir) if corpus_dir is not None else None
    return load_golden_set(path, corpus=corpus)


def load_golden_set(path: Path, *, corpus: list[Document] | None = None) -> EvalDataset:
    """Load a golden-set JSON list of {query, expected_doc_ids, category, relevance?}."""
    text = _read_text(path)
    queries: list[EvalQuery] = []
    dropped = 0
    for index, (line, item) in enumerate(_iter_json_array(text, str(path))):
        query = _golden_query(item, index, str(path), line)
        if _has_relevant(query):
            queries.append(query)
        else:
            dropped += 1
    _check_unique_ids(queries, str(path))
    if corpus is not None:
        _check_judged_docs_exist(queries, corpus, str(path))
    return EvalDataset(name=path.stem, queries=tuple(queries), corpus=corpus, dropped_queries=dropped)


def load_beir_dir(root: Path, *, split: str = DEFAULT_SPLIT) -> EvalDataset:
    """Load a BEIR directory: corpus.jsonl, queries.jsonl and qrels/<split>.tsv."""
    if not split or "/" in split or split.startswith("."):
        raise DatasetError(f"split {split!r} is not a qrels file name (test, dev, train)", str(root / "qrels"))
    corpus = [_beir_document(obj, str(root / "corpus.jsonl"), line) for line, obj in _iter_jsonl(root / "corpus.jsonl")]
    qrels = _load_qrels(root / "qrels" / f"{split}.tsv")
    queries: list[EvalQuery] = []
    dropped = 0
    for line, obj in _iter_jsonl(root / "queries.jsonl"):
        query = _beir_query(obj, qrels, str(root / "queries.jsonl"), line)
        if _has_relevant(query):
            queries.append(query)
        else:
            dropped += 1
    _check_unique_ids(queries, str(root / "queries.jsonl"))
    return EvalDataset(name=root.name, queries=tuple(queries), corpus=corpus, dropped_queries=dropped)


def load_directory_documents(root: Path) -> list[Document]:
    """Every supported file under `root` as a Document (doc_id = relative POSIX path); unreadable files are errors."""
    try:
        read = read_directory(root, source=root.name)
    except InvalidDocumentError as error:
        raise DatasetError("corpus directory does not exist", str(root)) from error
    if read.errors:
        doc_id, reason = next(iter(read.errors.items()))
        raise DatasetError(reason, str(root / doc_id))
    return [
        Document(doc_id=raw["doc_id"], content=raw["content"], content_type=ContentType(raw["content_type"]),
                 source=raw["source"])
        for raw in read.documents
    ]


def _read_text(path: Path) -> str:
    """Read a file as UTF-8, turning I/O and decoding failures into DatasetError."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"not valid UTF-8 at byte {exc.start}: {exc.reason}", str(path)) from exc
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", str(path)) from exc


def _line_of(text: str, pos: int) -> int:
    """Return the 1-based line number of a character offset."""
    return text.count("\n", 0, pos) + 1


def _iter_json_array(text: str, path: str) -> Iterator[tuple[int, Any]]:
    """Yield (line, element) for each element of a top-level JSON array, naming the line on errors."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos >= len(text) or text[pos] != "[":
        raise DatasetError("expected a JSON list of queries", path, _line_of(text, pos))
    pos = _skip_ws(text, pos + 1)
    if pos < len(text) and text[pos] == "]":
        return
    while True:
        try:
            item, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"invalid JSON: {exc.msg}", path, exc.lineno) from exc
        yield _line_of(text, pos), item
        pos = _skip_ws(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
            continue
        if pos < len(text) and text[pos] == "]":
            break
        raise DatasetError("invalid JSON: expected ',' or ']'", path, _line_of(text, pos))
    if _skip_ws(text, pos + 1) != len(text):
        raise DatasetError("invalid JSON: extra data after the list", path, _line_of(text, pos + 1))


def _skip_ws(text: str, pos: int) -> int:
    """Return the first offset at or after `pos` that is not JSON whitespace."""
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line, object) for each non-blank line of a JSON Lines file."""
    for number, raw in enumerate(_read_text(path).splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"invalid JSON: {exc.msg} (column {exc.colno})", str(path), number) from exc
        if not isinstance(obj, dict):
            raise DatasetError("expected a JSON object", str(path), number)
        yield number, obj


def _require_str(obj: Mapping[str, Any], key: str, path: str, line: int) -> str:
    """Return obj[key] if it is a non-empty string, else raise DatasetError."""
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"field {key!r} must be a non-empty string", path, line)
    return value


def _grade(value: Any, what: str, path: str, line: int) -> int:
    """Validate a relevance grade: a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DatasetError(f"{what} must be a non-negative integer, got {value!r}", path, line)
    return value


def _golden_query(item: Any, index: int, path: str, line: int) -> EvalQuery:
    """Validate one golden-set entry and turn it into an EvalQuery."""
    if not isinstance(item, dict):
        raise DatasetError(f"query #{index + 1} must be a JSON object", path, line)
    text = _require_str(item, "query", path, line)
    expected = item.get("expected_doc_ids")
    if not isinstance(expected, list) or not all(isinstance(d, str) and d for d in expected):
        raise DatasetError("field 'expected_doc_ids' must be a list of non-empty strings", path, line)
    category = item.get("category", UNCATEGORIZED)
    if category != UNCATEGORIZED and category not in GOLDEN_CATEGORIES:
        allowed = ", ".join(sorted(GOLDEN_CATEGORIES))
        raise DatasetError(f"category {category!r} is not one of {allowed}", path, line)
    grades = item.get("relevance", {})
    if not isinstance(grades, dict):
        raise DatasetError("field 'relevance' must be an object {doc_id: grade}", path, line)
    relevance = {doc_id: 1 for doc_id in expected}
    relevance.update({str(k): _grade(v, f"relevance[{k!r}]", path, line) for k, v in grades.items()})
    query_id = str(item.get("id", f"q{index + 1}"))
    return EvalQuery(query_id=query_id, text=text, category=category, relevance=relevance)


def _beir_id(obj: Mapping[str, Any], path: str, line: int) -> str:
    """A record's `_id`: a non-empty string, or an integer as its decimal string (what qrels write for it)."""
    value = obj.get("_id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _require_str(obj, "_id", path, line)


def _beir_document(obj: Mapping[str, Any], path: str, line: int) -> Document:
    """Turn one corpus.jsonl record into a Document."""
    doc_id = _beir_id(obj, path, line)
    title, text = obj.get("title") or "", obj.get("text")  # a null title is no title
    if not isinstance(title, str) or not isinstance(text, str):
        raise DatasetError("fields 'title' and 'text' must be strings", path, line)
    # a title is a label, which takes no control character: a line break or tab in one is only a space; a record
    # with a title and no text (some BEIR corpora have them) is its title, not an empty document
    title = collapse_whitespace(title)
    content = resolve_formatter_output(text) if text.strip() else title
    return Document(doc_id=doc_id, title=title, content=content, content_type=ContentType.TEXT, source=doc_id)


def _beir_query(obj: Mapping[str, Any], qrels: Mapping[str, dict[str, int]], path: str, line: int) -> EvalQuery:
    """Turn one queries.jsonl record and its qrels into an EvalQuery."""
    query_id = _beir_id(obj, path, line)
    text = _require_str(obj, "text", path, line)
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise DatasetError("field 'metadata' must be an object", path, line)
    # BEIR keeps extra fields under metadata; a set that writes its category beside _id and text is read too
    category = metadata.get("category") or obj.get("category") or UNCATEGORIZED
    if not isinstance(category, str):
        raise DatasetError("field 'metadata.category' (or 'category') must be a string", path, line)
    return EvalQuery(query_id=query_id, text=text, category=category, relevance=qrels.get(query_id, {}))


def _load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Read a BEIR qrels TSV (query-id, corpus-id, score; header line optional) into nested dicts."""
    qrels: dict[str, dict[str, int]] = {}
    rows = csv.reader(_read_text(path).splitlines(), delimiter="\t")
    for number, row in enumerate(rows, start=1):
        if not row or not "".join(row).strip() or (number == 1 and row[0].strip() == QRELS_HEADER):
            continue
        if len(row) != 3:
            raise DatasetError(f"expected 3 tab-separated fields, got {len(row)}", str(path), number)
        query_id, doc_id, score = (field.strip() for field in row)
        grade = _integer(score)
        if grade is None:
            raise DatasetError(f"score must be an integer, got {score!r}", str(path), number)
        qrels.setdefault(query_id, {})[doc_id] = _grade(grade, "score", str(path), number)
    return qrels


def _integer(text: str) -> int | None:
    """The integer a qrels score writes, `2` or `2.0` (some tools write grades as floats); None for anything else."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None


def _has_relevant(query: EvalQuery) -> bool:
    """Whether a query has at least one relevant (grade >= 1) document."""
    return any(grade >= 1 for grade in query.relevance.values())


def _check_unique_ids(queries: list[EvalQuery], path: str) -> None:
    """Refuse datasets in which two queries share an id."""
    seen: set[str] = set()
    for query in queries:
        if query.query_id in seen:
            raise DatasetError(f"duplicate query id {query.query_id!r}", path)
        seen.add(query.query_id)


def _check_judged_docs_exist(queries: list[EvalQuery], corpus: list[Document], path: str) -> None:
    """Refuse a golden set that judges documents the corpus does not contain."""
    known = {document.doc_id for document in corpus}
    missing = sorted({d for q in queries for d, g in q.relevance.items() if g >= 1 and d not in known})
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise DatasetError(f"{len(missing)} judged doc ids are not in the corpus: {shown}", path)
