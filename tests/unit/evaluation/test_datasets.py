"""Golden-set and BEIR loaders, the corpus directory loader, and their error messages."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from search_platform.domain.models import ContentType
from search_platform.evaluation.datasets import (
    UNCATEGORIZED,
    DatasetError,
    load_beir_dir,
    load_dataset,
    load_directory_documents,
    load_golden_set,
)

GOLDEN = [
    {"query": "json.JSONDecodeError", "expected_doc_ids": ["library/json.html"], "category": "exact_match"},
    {
        "query": "connection refused",
        "expected_doc_ids": ["library/errno.html", "library/exceptions.html"],
        "category": "mixed",
        "relevance": {"library/errno.html": 2},
    },
    {"query": "no answer", "expected_doc_ids": []},
    {"id": "custom", "query": "how do paths work", "expected_doc_ids": ["guide.md"]},
]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _corpus(root: Path) -> Path:
    _write(root / "library" / "json.html", "<html><title>json</title></html>")
    _write(root / "library" / "errno.html", "<p>errno</p>")
    _write(root / "library" / "exceptions.html", "<p>exceptions</p>")
    _write(root / "guide.md", "# Paths\n")
    _write(root / "notes.txt", "plain")
    _write(root / ".hidden" / "skip.md", "hidden")
    return root


def test_golden_set_loads_grades_categories_and_drops_unjudged(tmp_path):
    path = _write(tmp_path / "golden.json", json.dumps(GOLDEN, indent=2))
    dataset = load_golden_set(path)
    assert dataset.name == "golden"
    assert dataset.corpus is None
    assert dataset.dropped_queries == 1
    assert [q.query_id for q in dataset.queries] == ["q1", "q2", "custom"]
    assert dataset.queries[1].relevance == {"library/errno.html": 2, "library/exceptions.html": 1}
    assert [q.category for q in dataset.queries] == ["exact_match", "mixed", UNCATEGORIZED]


def test_load_dataset_with_corpus_dir_checks_judged_docs_exist(tmp_path):
    path = _write(tmp_path / "golden.json", json.dumps(GOLDEN))
    dataset = load_dataset(path, corpus_dir=_corpus(tmp_path / "corpus"))
    assert dataset.corpus is not None
    assert len(dataset.corpus) == 5
    bad = _write(tmp_path / "bad.json", json.dumps([{"query": "q", "expected_doc_ids": ["missing.html"]}]))
    with pytest.raises(DatasetError, match=r"1 judged doc ids are not in the corpus: missing.html"):
        load_dataset(bad, corpus_dir=tmp_path / "corpus")


def test_golden_bad_json_names_the_line(tmp_path):
    text = '[\n  {"query": "a", "expected_doc_ids": ["x"]},\n  {"query": "b", "expected_doc_ids": ["x"],,}\n]\n'
    path = _write(tmp_path / "broken.json", text)
    with pytest.raises(DatasetError) as info:
        load_golden_set(path)
    assert info.value.line == 3
    assert str(info.value).startswith(f"{path}:3: invalid JSON")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"expected_doc_ids": ["x"]}, "field 'query' must be a non-empty string"),
        ({"query": "a", "expected_doc_ids": "x"}, "'expected_doc_ids' must be a list"),
        ({"query": "a", "expected_doc_ids": ["x"], "category": "fuzzy"}, "category 'fuzzy' is not one of"),
        ({"query": "a", "expected_doc_ids": ["x"], "relevance": {"x": -1}}, "must be a non-negative integer"),
        ("just a string", "query #2 must be a JSON object"),
    ],
)
def test_golden_schema_errors_name_the_entry_line(tmp_path, entry, message):
    ok = {"query": "fine", "expected_doc_ids": ["x"]}
    path = _write(tmp_path / "g.json", "[\n" + json.dumps(ok) + ",\n\n" + json.dumps(entry) + "\n]")
    with pytest.raises(DatasetError, match=message) as info:
        load_golden_set(path)
    assert info.value.line == 4


def test_golden_must_be_a_list(tmp_path):
    with pytest.raises(DatasetError, match="expected a JSON list"):
        load_golden_set(_write(tmp_path / "g.json", '{"query": "a"}'))


def test_dataset_error_pickles():
    error = pickle.loads(pickle.dumps(DatasetError("bad", "f.json", 3)))
    assert str(error) == "f.json:3: bad"
    assert error.line == 3


def _beir(root: Path, *, corpus_extra: str = "", qrels_extra: str = "") -> Path:
    corpus = [
        {"_id": "d1", "title": "Heap", "text": "Elasticsearch heap size"},
        {"_id": "d2", "title": "", "text": "Celery retries"},
    ]
    queries = [
        {"_id": "1", "text": "heap", "metadata": {"category": "exact_match"}},
        {"_id": "2", "text": "retry tasks"},
        {"_id": "3", "text": "unjudged"},
    ]
    _write(root / "corpus.jsonl", "\n".join(json.dumps(d) for d in corpus) + "\n" + corpus_extra)
    _write(root / "queries.jsonl", "\n".join(json.dumps(q) for q in queries) + "\n")
    _write(root / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n1\td1\t2\n2\td2\t1\n2\td1\t0\n" + qrels_extra)
    return root


def test_beir_dir_loads_corpus_queries_and_qrels(tmp_path):
    dataset = load_dataset(_beir(tmp_path / "scifact"))
    assert dataset.name == "scifact"
    assert dataset.corpus is not None
    first = dataset.corpus[0]
    assert (first.doc_id, first.title, first.content) == ("d1", "Heap", "Elasticsearch heap size")
    assert dataset.dropped_queries == 1
    assert [(q.query_id, q.category) for q in dataset.queries] == [("1", "exact_match"), ("2", UNCATEGORIZED)]
    assert dataset.queries[1].relevance == {"d2": 1, "d1": 0}


def test_beir_query_category_may_sit_beside_the_text(tmp_path):
    root = _beir(tmp_path / "top")
    _write(root / "queries.jsonl", json.dumps({"_id": "1", "text": "heap", "category": "conceptual"}) + "\n"
           + json.dumps({"_id": "2", "text": "retry", "category": "mixed", "metadata": {"category": "exact_match"}})
           + "\n")
    assert [q.category for q in load_dataset(root).queries] == ["conceptual", "exact_match"]  # metadata first


def test_beir_bad_jsonl_line_is_named(tmp_path):
    root = _beir(tmp_path / "b", corpus_extra='{"_id": "d3", "text": \n')
    with pytest.raises(DatasetError, match=r"corpus.jsonl:3: invalid JSON"):
        load_beir_dir(root)


def test_beir_bad_qrels_row_is_named(tmp_path):
    root = _beir(tmp_path / "b", qrels_extra="3\td1\thigh\n")
    with pytest.raises(DatasetError, match=r"test.tsv:5: score must be an integer, got 'high'"):
        load_beir_dir(root)
    root = _beir(tmp_path / "c", qrels_extra="3\td1\n")
    with pytest.raises(DatasetError, match=r"test.tsv:5: expected 3 tab-separated fields"):
        load_beir_dir(root)


def test_beir_missing_file_and_corpus_dir_conflict(tmp_path):
    root = _beir(tmp_path / "b")
    (root / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"queries.jsonl: cannot read file"):
        load_beir_dir(root)
    with pytest.raises(DatasetError, match="carries its own corpus"):
        load_dataset(root, corpus_dir=tmp_path)


def test_directory_documents_ids_types_and_hidden_files(tmp_path):
    documents = {d.doc_id: d for d in load_directory_documents(_corpus(tmp_path))}
    assert sorted(documents) == [
        "guide.md",
        "library/errno.html",
        "library/exceptions.html",
        "library/json.html",
        "notes.txt",
    ]
    assert documents["library/json.html"].content_type is ContentType.HTML
    assert documents["guide.md"].content_type is ContentType.MARKDOWN
    assert documents["notes.txt"].content_type is ContentType.TEXT
    assert documents["guide.md"].content == "# Paths\n"


def test_directory_documents_reports_bad_utf8(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"ok \xff\xfe")
    with pytest.raises(DatasetError, match=r"bad.txt: not valid UTF-8 at byte 3"):
        load_directory_documents(tmp_path)


def test_missing_paths(tmp_path):
    with pytest.raises(DatasetError, match="no such file or directory"):
        load_dataset(tmp_path / "nope.json")
    with pytest.raises(DatasetError, match="corpus directory does not exist"):
        load_directory_documents(tmp_path / "nope")


def test_beir_text_captured_from_a_terminal_loads_as_its_text(tmp_path):
    captured = "\x1b[1mNAME\x1b[0m\n  -\x08--\x08-a\x08al\x08ll\x08l  list _\x08a_\x08l_\x08l"
    root = _beir(tmp_path / "terminal", corpus_extra=json.dumps({"_id": "d3", "title": "ls", "text": captured}))
    assert load_beir_dir(root).corpus[-1].content == "NAME\n  --all  list all"


def test_beir_titles_lose_line_breaks_and_tabs_which_no_label_takes(tmp_path):
    record = {"_id": "d3", "title": "ls(1)\n\tlist  files", "text": "x"}
    root = _beir(tmp_path / "titles", corpus_extra=json.dumps(record))
    assert load_beir_dir(root).corpus[-1].title == "ls(1) list files"


def test_a_beir_record_with_a_title_and_no_text_is_its_title(tmp_path):
    root = _beir(tmp_path / "no-text", corpus_extra=json.dumps({"_id": "d3", "title": "Heap sizing", "text": " "}))
    assert load_beir_dir(root).corpus[-1].content == "Heap sizing"


def test_beir_integer_ids_null_titles_and_float_grades_load(tmp_path):
    root = tmp_path / "generated"
    _write(root / "corpus.jsonl", json.dumps({"_id": 7, "title": None, "text": "Heap size"}) + "\n")
    _write(root / "queries.jsonl", json.dumps({"_id": 1, "text": "heap"}) + "\n")
    _write(root / "qrels" / "test.tsv", "1\t7\t2.0\n")
    dataset = load_beir_dir(root)
    assert dataset.corpus is not None
    assert (dataset.corpus[0].doc_id, dataset.corpus[0].title) == ("7", "")
    assert [(q.query_id, q.relevance) for q in dataset.queries] == [("1", {"7": 2})]


@pytest.mark.parametrize(("qrels_row", "message"), [
    ("3\td1\t1.5\n", "score must be an integer, got '1.5'"),
    ("3\td1\tnan\n", "score must be an integer, got 'nan'"),
    ("3\td1\t-1\n", "score must be a non-negative integer, got -1"),
])
def test_beir_qrels_grades_that_are_no_integer_are_refused(tmp_path, qrels_row, message):
    with pytest.raises(DatasetError, match=message):
        load_beir_dir(_beir(tmp_path / "grades", qrels_extra=qrels_row))


@pytest.mark.parametrize("bad_id", [True, "", 1.5, None])
def test_beir_ids_that_are_no_string_or_integer_are_refused(tmp_path, bad_id):
    root = _beir(tmp_path / "ids", corpus_extra=json.dumps({"_id": bad_id, "text": "x"}))
    with pytest.raises(DatasetError, match=r"corpus.jsonl:3: field '_id' must be a non-empty string"):
        load_beir_dir(root)


def test_beir_split_chooses_the_qrels_file(tmp_path):
    root = _beir(tmp_path / "splits")
    _write(root / "qrels" / "dev.tsv", "2\td1\t1\n")
    dataset = load_dataset(root, split="dev")
    assert [(q.query_id, q.relevance) for q in dataset.queries] == [("2", {"d1": 1})]
    with pytest.raises(DatasetError, match=r"qrels/train.tsv: cannot read file"):
        load_dataset(root, split="train")
    with pytest.raises(DatasetError, match=r"split '../test' is not a qrels file name"):
        load_dataset(root, split="../test")


def test_a_golden_set_file_has_no_splits(tmp_path):
    path = tmp_path / "golden.json"
    _write(path, json.dumps([{"query": "q", "expected_doc_ids": ["a"]}]))
    with pytest.raises(DatasetError, match="--split is for BEIR directories"):
        load_dataset(path, split="dev")
