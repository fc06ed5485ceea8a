import pytest

from search_platform.domain.errors import InvalidDocumentError
from search_platform.ingestion.sources import read_directory, read_documents


def test_directory_reads_supported_files_and_reports_unreadable_ones(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("# A\n")
    (tmp_path / "b.html").write_text("<p>b</p>")
    (tmp_path / "c.txt").write_text("c")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.md").write_text("secret")
    (tmp_path / "bad.txt").write_bytes(b"ok \xff")
    read = read_directory(tmp_path, source="docs")
    assert [(d["doc_id"], d["content_type"]) for d in read.documents] == [
        ("b.html", "html"), ("c.txt", "text"), ("sub/a.md", "markdown")]
    assert {d["source"] for d in read.documents} == {"docs"}
    assert read.errors == {"bad.txt": "not valid UTF-8 at byte 3: invalid start byte"}


def test_jsonl_error_names_the_line(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"doc_id": "a", "content": "x"}\n{oops\n')
    with pytest.raises(InvalidDocumentError, match=r"docs.jsonl:2"):
        read_documents(path)


def test_json_list_is_read(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text('[{"doc_id": "a", "content": "x"}]')
    assert read_documents(path).documents == [{"doc_id": "a", "content": "x"}]


def test_a_file_captured_from_a_terminal_is_read_as_its_text(tmp_path):
    (tmp_path / "ls.txt").write_text("N\x08NA\x08AM\x08ME\x08E\n  \x1b[4m-a\x1b[24m, --all\n")
    [document] = read_directory(tmp_path).documents
    assert document["content"] == "NAME\n  -a, --all\n"
