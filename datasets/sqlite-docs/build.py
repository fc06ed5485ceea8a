"""Build the `sqlite-docs` BEIR dev set from the Debian package sqlite3-doc (SQLite's HTML documentation).

Run from the repository root (install the source first: `apt-get install -y sqlite3-doc`):

    .venv/bin/python datasets/sqlite-docs/build.py
    .venv/bin/python datasets/sqlite-docs/build.py --check-only

Writes corpus.jsonl next to this file, and queries.jsonl and qrels/test.tsv from the hand-written parts/*.tsv
(id, category, text, primary, secondary: the primary is graded 2 when the query has secondaries, else 1; each
secondary 1), then validates them against the corpus. One document per
C-interface page (`c3ref/*.html`, the shape of a library function's reference page: prototypes, then what they
do), one per PRAGMA, and one per reference page of the SQL language and the library's features; a page longer than
SPLIT_CHARS is split at its top-level (h1) sections. The same package version gives a byte-identical corpus.

Left out (see README.md): the command-line tools' pages (cli, sqldiff, sqlite3_analyzer, dbhash, lemon: programs
that have man pages of their own elsewhere), the all-in-one C reference (capi3ref.html repeats c3ref/), the
Version 2 pages, news, history, legal and site pages, and the generated indices.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = Path("/usr/share/doc/sqlite3")
CATEGORIES = ("exact_match", "conceptual", "mixed")
SPLIT_CHARS = 20_000  # a page longer than this becomes one document per top-level section
MERGE_BELOW = 800  # a section shorter than this stays with the section before it
MIN_DOC_CHARS = 60  # an empty stub; the shortest reference entries (`PRAGMA page_count`) are ~80

_EXCLUDED = """
34to35 35to36 about books c_interface capi3ref changes chronology cli codeofconduct codeofethics consortium
consortium_agreement-20071201 copyright copyright-release crew datatypes dbhash doc_backlink_crossref
doc_keyword_crossref doc_pagelink_crossref doc_target_crossref doclist docs download famous fileformat footprint
getthecode hp1 index keyword_index lemon lts mingw mostdeployed news oldnews pressrelease-20071212 privatebranch
prosupport qmplan requirements sitemap speed sqlanalyze sqldiff sqlite support syntax syntaxdiagrams testing th3
whynotgit xkcd-git
"""  # fileformat.html is a copy of fileformat2.html
EXCLUDED = frozenset(_EXCLUDED.split())
C_INDEX_PAGES = frozenset(("intro", "funclist", "objlist", "constlist"))

_SKIP_TAGS = frozenset(("script", "style", "svg", "head", "title"))
_SKIP_CLASSES = frozenset(("nosearch", "fancy_toc", "menu", "searchmenu", "tagline", "imgcontainer"))
_BLOCK_TAGS = "p div pre table tr ul ol li dl dt dd h1 h2 h3 h4 h5 h6 blockquote br hr"
_BLOCK = frozenset(_BLOCK_TAGS.split())
_CELL = frozenset(("td", "th"))
_VOID = frozenset(("br", "hr", "img", "meta", "link", "col", "input", "wbr"))
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANKS = re.compile(r"\n\s*\n+")
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_C_TITLE = re.compile(r"<h2>(?!SQLite C Interface)(.*?)</h2>", re.S)
_PRAGMA = re.compile(r'<a name="pragma_([a-z_0-9]+)"></a>')
_PRAGMA_LIST = re.compile(r'<h2 [^>]*id="?toc"?[^>]*>|<h2>List Of PRAGMAs</h2>|<a name="toc"></a>')
_SECTION = re.compile(r'<h1 id="([^"]+)"[^>]*>(.*?)</h1>', re.S)
_NUMBER = re.compile(r"^\s*[\d.]+\s*")
_MODIFIED = re.compile(r"This page last modified on .*", re.S)
_TAG = re.compile(r"<[^>]+>")


class _TextParser(HTMLParser):
    """Visible text of an HTML fragment: block elements on lines of their own, table cells joined with ` | `,
    `<pre>` kept as written."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._stack: list[tuple[str, bool]] = []
        self._skip = 0
        self._pre = 0
        self._cell_open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        if tag in _VOID:
            self._emit("\n" if tag in ("br", "hr") else "")
            return
        skip = tag in _SKIP_TAGS or bool(classes & _SKIP_CLASSES) or dict(attrs).get("style") == "display:none"
        self._stack.append((tag, skip))
        self._skip += skip
        self._pre += tag == "pre"
        if tag in _BLOCK:
            self._emit("\n")
        elif tag in _CELL:
            self._emit(" | " if self._cell_open else "")
            self._cell_open = True
        if tag == "tr":
            self._cell_open = False

    def handle_endtag(self, tag: str) -> None:
        if tag not in {open_tag for open_tag, _ in self._stack}:
            return
        while self._stack:
            open_tag, skip = self._stack.pop()
            self._skip -= skip
            self._pre -= open_tag == "pre"
            if open_tag in _BLOCK:
                self._emit("\n")
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        self._emit(data if self._pre else _SPACES.sub(" ", data.replace("\n", " ")))

    def _emit(self, text: str) -> None:
        if not self._skip:
            self.parts.append(text)


def html_text(fragment: str) -> str:
    """Plain text of an HTML fragment, blank-line separated blocks, code lines kept as written."""
    parser = _TextParser()
    parser.feed(fragment)
    parser.close()
    raw = _MODIFIED.sub("", "".join(parser.parts))
    lines = []
    for line in raw.split("\n"):
        stripped = line.strip()
        lines.append("" if stripped in ("", "|") else (line.rstrip() if line.startswith("  ") else stripped))
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def plain(fragment: str) -> str:
    """A heading's or title's text."""
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def c_documents(source: Path) -> list[dict[str, str]]:
    """One document per C-interface page, titled by its heading (`Opening A New Database Connection`)."""
    documents = []
    for path in sorted((source / "c3ref").glob("*.html")):
        if path.stem in C_INDEX_PAGES:
            continue
        page = path.read_text(encoding="utf-8")
        title = _C_TITLE.search(page)
        documents.append({"_id": f"c3ref/{path.stem}", "title": plain(title.group(1)) if title else path.stem,
                          "text": html_text(page)})
    return documents


def pragma_documents(source: Path) -> list[dict[str, str]]:
    """The PRAGMA page's introduction (up to its list of pragmas), then one document per pragma."""
    page = (source / "pragma.html").read_text(encoding="utf-8")
    marks = list(_PRAGMA.finditer(page))
    intro = page[: marks[0].start()]
    listing = _PRAGMA_LIST.search(intro)
    documents = [{"_id": "pragma", "title": "PRAGMA Statements",
                  "text": html_text(intro[: listing.start()] if listing else intro)}]
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        end = following.start() if following else len(page)
        name = mark.group(1)
        documents.append({"_id": f"pragma/{name}", "title": f"PRAGMA {name}", "text": html_text(page[mark.end():end])})
    return documents


def page_documents(path: Path) -> list[dict[str, str]]:
    """A page as one document, or, when longer than SPLIT_CHARS, one per top-level section."""
    page = path.read_text(encoding="utf-8")
    title_match = _TITLE.search(page)
    title = plain(title_match.group(1)) if title_match else path.stem
    whole = html_text(page)
    sections = list(_SECTION.finditer(page))
    if len(whole) <= SPLIT_CHARS or len(sections) < 2:
        return [{"_id": path.stem, "title": title, "text": whole}]
    documents: list[dict[str, str]] = []
    starts = [0, *(match.start() for match in sections[1:])]
    ends = [*starts[1:], len(page)]
    for index, (start, end) in enumerate(zip(starts, ends, strict=True)):
        text = html_text(page[start:end])
        heading = _NUMBER.sub("", plain(sections[index].group(2)))
        if documents and len(text) < MERGE_BELOW:
            documents[-1]["text"] += "\n\n" + text
            continue
        anchor = sections[index].group(1)
        documents.append({"_id": f"{path.stem}/{anchor}", "title": f"{title}: {heading}", "text": text})
    return documents


def build_corpus(source: Path) -> list[dict[str, str]]:
    """Every document, C pages first, then PRAGMAs, then the other pages by file name."""
    documents = c_documents(source) + pragma_documents(source)
    for path in sorted(source.glob("*.html")):
        if path.stem not in EXCLUDED and path.stem != "pragma":
            documents.extend(page_documents(path))
    kept = [document for document in documents if len(document["text"]) >= MIN_DOC_CHARS]
    duplicates = [key for key, count in Counter(d["_id"] for d in kept).items() if count > 1]
    if duplicates:
        raise SystemExit(f"duplicate document ids: {duplicates[:5]}")
    return kept


def write_queries() -> None:
    """queries.jsonl and qrels/test.tsv from the hand-written parts, in id order."""
    rows = []
    for part in sorted((HERE / "parts").glob("queries-*.tsv")):
        with part.open(encoding="utf-8", newline="") as handle:
            rows += list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    queries, judgments = [], ["query-id\tcorpus-id\tscore"]
    for row in sorted(rows, key=lambda row: row["id"]):
        secondary = [doc_id.strip() for doc_id in (row["secondary"] or "").split(",") if doc_id.strip()]
        queries.append(json.dumps({"_id": row["id"], "text": row["text"].strip(),
                                   "metadata": {"category": row["category"]}}, ensure_ascii=False))
        judgments.append(f"{row['id']}\t{row['primary'].strip()}\t{2 if secondary else 1}")
        judgments += [f"{row['id']}\t{doc_id}\t1" for doc_id in secondary]
    (HERE / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (HERE / "qrels").mkdir(exist_ok=True)
    (HERE / "qrels" / "test.tsv").write_text("\n".join(judgments) + "\n", encoding="utf-8")


def validate(corpus_ids: set[str]) -> list[str]:
    """Problems with queries.jsonl and qrels/test.tsv against the corpus; empty when they are consistent."""
    problems: list[str] = []
    queries = [json.loads(line) for line in (HERE / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    ids = [query["_id"] for query in queries]
    problems += [f"duplicate query id {key}" for key, count in Counter(ids).items() if count > 1]
    problems += [f"{q['_id']}: category {q['metadata'].get('category')!r}"
                 for q in queries if q["metadata"].get("category") not in CATEGORIES]
    judged: dict[str, dict[str, int]] = {}
    rows = (HERE / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()
    for row in rows[1:]:
        query_id, doc_id, grade = row.split("\t")
        judged.setdefault(query_id, {})[doc_id] = int(grade)
        if doc_id not in corpus_ids:
            problems.append(f"{query_id}: judged document {doc_id!r} is not in the corpus")
    problems += [f"{key}: no judgment" for key in ids if key not in judged]
    problems += [f"{key}: judged but not a query" for key in judged if key not in set(ids)]
    for key, grades in judged.items():
        if sorted(grades.values()).count(max(grades.values())) != 1:
            problems.append(f"{key}: needs exactly one primary document")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--check-only", action="store_true", help="validate the committed files, write nothing")
    args = parser.parse_args()
    corpus_path = HERE / "corpus.jsonl"
    if args.check_only:
        corpus = [json.loads(line) for line in corpus_path.read_text(encoding="utf-8").splitlines()]
    else:
        if not (args.source / "c3ref").is_dir():
            raise SystemExit(f"{args.source}/c3ref not found: apt-get install -y sqlite3-doc")
        corpus = build_corpus(args.source)
        corpus_path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus), encoding="utf-8")
        write_queries()
    chars = sum(len(document["text"]) for document in corpus)
    print(f"{len(corpus)} documents, {chars:,} characters")
    problems = validate({document["_id"] for document in corpus})
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        raise SystemExit(1)
    print(f"{len(problems)} problems in queries.jsonl and qrels/test.tsv")


if __name__ == "__main__":
    main()
