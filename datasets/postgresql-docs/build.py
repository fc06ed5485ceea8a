"""Build the `postgresql-docs` BEIR dev set from the Debian package postgresql-doc-15.

Run from the repository root (install the source first: `apt-get install -y postgresql-doc-15`):

    .venv/bin/python datasets/postgresql-docs/build.py

Writes corpus.jsonl (one document per selected HTML page, long pages split by sect2) next to this file and
validates the hand-written queries.jsonl and qrels/test.tsv against it. The output is deterministic: the same
package version gives a byte-identical corpus.jsonl.

Excluded on purpose (they are, or render the same text as, man pages): every refentry page (sql-*, app-*,
the SPI and dblink function pages, ecpg-sql-*, pgbench, pg_upgrade ...) and the release notes.
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
DEFAULT_SOURCE = Path("/usr/share/doc/postgresql-doc-15/html")
CATEGORIES = ("exact_match", "conceptual", "mixed")
SPLIT_CHARS = 20_000  # pages longer than this are split by their top-level sect2 sections
MIN_DOC_CHARS = 400  # tables of contents and stub pages below this are dropped
MERGE_BELOW = 600  # a split-off section shorter than this is appended to the previous section

# Page-name prefixes kept (chapters of the manual that are not man pages), one group a line; see README.
_INCLUDED = """
# functions, operators and data types
functions datatype arrays.html rangetypes.html rowtypes.html domains.html typeconv-
errcodes-appendix limits.html
# server configuration, administration, monitoring
runtime-config config-setting kernel-resources server-start server-shutdown creating-cluster
upgrading ssl-tcp encryption-options preventing-server-spoofing
monitoring progress-reporting disk-usage disk-full checksums
auth- client-authentication role- database-roles predefined-roles
routine- logfile-maintenance collation locale multibyte
# backup, WAL, replication
backup continuous-archiving warm-standby hot-standby high-availability
different-replication-solutions logical-replication wal-
# SQL language chapters, concurrency, performance
ddl- queries- dml- indexes- textsearch- mvcc- transaction-iso explicit-locking
applevel-consistency locking-indexes using-explain planner-stats populate non-durability
explicit-joins parallel- how-parallel when-can-parallel jit-
storage-toast storage-hot storage-file-layout storage-vm storage-fsm
gin-builtin gin-tips gin-limit gist-builtin spgist-builtin brin-intro brin-builtin
btree-behavior
# system catalogs and views
catalog-pg view-pg
# client library and procedural languages
libpq plpgsql
# contrib modules
pgstatstatements auto-explain pgtrgm hstore ltree postgres-fdw file-fdw pgcrypto
pgbuffercache pgprewarm pgstattuple pgvisibility pageinspect amcheck citext cube.html
earthdistance fuzzystrmatch intarray isn.html tablefunc unaccent uuid-ossp bloom
btree-gin btree-gist pgrowlocks pgfreespacemap pgwalinspect passwordcheck
sslinfo basic-archive pgsurgery lo.html
"""
INCLUDE_PREFIXES = tuple(word for line in _INCLUDED.splitlines() if not line.startswith("#") for word in line.split())
# Prefixes that would otherwise match but are not wanted (man pages and release notes).
EXCLUDE_PREFIXES = ("release", "sql-", "app-", "ecpg-sql-", "spi-spi-", "contrib-dblink")

_BLOCK_TAGS = "p div pre table tr ul ol li dl dt dd h1 h2 h3 h4 h5 h6 blockquote br hr thead tbody tfoot caption"
_BLOCK = frozenset(_BLOCK_TAGS.split())
_CELL = frozenset(("td", "th"))
_VOID = frozenset(("br", "hr", "img", "meta", "link", "col", "input"))
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_SKIP_CLASSES = frozenset(("navheader", "navfooter", "toc", "list-of-tables", "list-of-examples", "list-of-figures"))
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANKS = re.compile(r"\n\s*\n+")
_PARENT = re.compile(r'<th width="60%" align="center">(.*?)</th>', re.S)
_TITLE_NUMBER = re.compile(r"^(?:[A-Z]?[\d.]+\.?|Chapter \d+\.|Appendix [A-Z]\.|Part [IVX]+\.)\s+")


class _Section:
    """Text collected for one top-level piece of a page: the intro (id '') or one sect2."""

    def __init__(self, sect_id: str) -> None:
        self.sect_id = sect_id
        self.title = ""
        self.title_done = False
        self.parts: list[str] = []


class _PageParser(HTMLParser):
    """Turn one DocBook HTML page into plain text, split into the intro and its top-level sect2 sections."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.refentry = False
        self.sections: list[_Section] = [_Section("")]
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, skipping, opens a sect2)
        self._skip_depth = 0
        self._pre_depth = 0
        self._in_title = False
        self._in_h = False
        self._cell_open = False

    @property
    def _current(self) -> _Section:
        return self.sections[-1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Track skipping, block boundaries and sect2 starts."""
        attr = dict(attrs)
        classes = set((attr.get("class") or "").split())
        self._in_title = self._in_title or tag == "title"
        self.refentry = self.refentry or "refentry" in classes
        if tag in _VOID:
            self._emit("\n" if tag == "br" else "")
            return
        skip = bool(classes & _SKIP_CLASSES) or tag in ("script", "style", "head")
        opens_sect2 = tag == "div" and "sect2" in classes and self._skip_depth == 0 and not self._in_sect2()
        if opens_sect2:
            self.sections.append(_Section((attr.get("id") or "").lower()))
        self._stack.append((tag, skip, opens_sect2))
        self._skip_depth += skip
        self._pre_depth += tag == "pre"
        self._in_h = self._in_h or tag in _HEADINGS
        self._open_block(tag)

    def _open_block(self, tag: str) -> None:
        """Start a new line for block elements; separate table cells with ' | '."""
        if tag in _BLOCK:
            self._emit("\n")
        elif tag in _CELL:
            self._emit(" | " if self._cell_open else "")
            self._cell_open = True
        if tag == "tr":
            self._cell_open = False

    def _in_sect2(self) -> bool:
        return any(opens for _, _, opens in self._stack)

    def handle_endtag(self, tag: str) -> None:
        """Close the matching open element (the DocBook output is well formed XHTML)."""
        if tag == "title":
            self._in_title = False
        if tag not in {open_tag for open_tag, _, _ in self._stack}:
            return  # a void element (<br/>, <hr/>) or a stray end tag closes nothing
        while self._stack:
            open_tag, skip, _ = self._stack.pop()
            if skip:
                self._skip_depth -= 1
            if open_tag == "pre":
                self._pre_depth -= 1
            if open_tag in _HEADINGS:
                self._in_h = False
                if open_tag == "h3" and self._current.title:
                    self._current.title_done = True
            if open_tag in _BLOCK:
                self._emit("\n")
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        """Collect visible text; whitespace is kept verbatim inside <pre>."""
        if self._in_title:
            self.title += data
            return
        if self._skip_depth:
            return
        if not self._pre_depth:
            data = _SPACES.sub(" ", data.replace("\n", " "))
        if self._in_h and len(self.sections) > 1 and not self._current.title_done and self._stack_has_h3():
            self._current.title += data
        self._emit(data)

    def _stack_has_h3(self) -> bool:
        return any(tag == "h3" for tag, _, _ in self._stack)

    def _emit(self, text: str) -> None:
        if not self._skip_depth:
            self._current.parts.append(text)


def clean_text(raw: str) -> str:
    """Collapse runs of spaces per line and blank lines, keeping code lines intact."""
    lines = [line.rstrip() for line in raw.split("\n")]
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped in ("|", ""):
            out.append("")
            continue
        out.append(line if line.startswith("  ") else stripped)
    text = "\n".join(out)
    return _BLANKS.sub("\n\n", text).strip()


def strip_number(title: str) -> str:
    """'9.16. JSON Functions and Operators' -> 'JSON Functions and Operators'."""
    title = _SPACES.sub(" ", html.unescape(title)).strip()
    return _TITLE_NUMBER.sub("", title).strip()


def page_selected(name: str) -> bool:
    """Whether an HTML file name belongs to the chapters this set uses."""
    if name.startswith(EXCLUDE_PREFIXES):
        return False
    return name.startswith(INCLUDE_PREFIXES)


def slug(text: str) -> str:
    """'General Functions' -> 'general-functions' (for sections whose HTML id is generated)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def parent_title(raw_html: str) -> str:
    """The chapter a page belongs to, from the navigation header ('Chapter 70. GIN Indexes' -> 'GIN Indexes')."""
    match = _PARENT.search(raw_html)
    return strip_number(re.sub(r"<[^>]+>", "", match.group(1))) if match else ""


def _merge_small(pieces: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Fold sections shorter than MERGE_BELOW characters (authors, one-paragraph stubs) into the previous one."""
    merged: list[tuple[str, str, str]] = []
    for sect_id, title, text in pieces:
        if merged and len(text) < MERGE_BELOW:
            prev_id, prev_title, prev_text = merged[-1]
            merged[-1] = (prev_id, prev_title, f"{prev_text}\n\n{text}")
        else:
            merged.append((sect_id, title, text))
    return merged


def page_documents(path: Path) -> list[dict[str, str]]:
    """One document for the page, or one per top-level sect2 when the page is longer than SPLIT_CHARS."""
    raw = path.read_text(encoding="utf-8")
    parser = _PageParser()
    parser.feed(raw)
    parser.close()
    if parser.refentry:
        return []
    title = strip_number(parser.title)
    parent = parent_title(raw)
    texts = [(section, clean_text("".join(section.parts))) for section in parser.sections]
    whole = "\n\n".join(text for _, text in texts if text)
    if len(whole) <= SPLIT_CHARS or len(texts) < 3:
        if len(whole) < MIN_DOC_CHARS:
            return []
        return [{"_id": path.name, "title": title, "text": whole, "parent": parent}]
    pieces: list[tuple[str, str, str]] = []
    for index, (section, body) in enumerate(texts[1:]):
        text = f"{texts[0][1]}\n\n{body}" if index == 0 and texts[0][1] else body
        sect_title = strip_number(section.title) or section.sect_id
        sect_id = section.sect_id if section.sect_id and not section.sect_id.startswith("id-") else slug(sect_title)
        pieces.append((sect_id, sect_title, text))
    return [
        {"_id": f"{path.name}#{sect_id}", "title": f"{title}: {sect_title}", "text": text, "parent": parent}
        for sect_id, sect_title, text in _merge_small(pieces)
    ]


def _needs_parent(doc_id: str, title: str, parent: str, duplicated: bool) -> bool:
    """A short generic page title ('Introduction', 'Security') is shown with its chapter's name."""
    if "#" in doc_id or not parent or parent.startswith(("Part ", "PostgreSQL")) or "_" in title or title.islower():
        return False
    words = set(re.findall(r"[a-z]+", title.lower()))
    return duplicated or (len(words) <= 2 and not words & set(re.findall(r"[a-z]+", parent.lower())))


def build_corpus(source: Path) -> list[dict[str, str]]:
    """All documents of the selected pages, in file-name order, with generic titles qualified by their chapter."""
    docs: list[dict[str, str]] = []
    for path in sorted(source.glob("*.html")):
        if page_selected(path.name):
            docs.extend(page_documents(path))
    title_counts = Counter(doc["title"] for doc in docs)
    out: list[dict[str, str]] = []
    for doc in docs:
        parent = doc.pop("parent")
        if _needs_parent(doc["_id"], doc["title"], parent, title_counts[doc["title"]] > 1):
            doc["title"] = f"{parent}: {doc['title']}"
        out.append({"_id": doc["_id"], "title": doc["title"], "text": doc["text"]})
    return out


def write_corpus(docs: list[dict[str, str]], path: Path) -> None:
    """Write the corpus as JSON lines, one document per line, in a stable order."""
    with path.open("w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n")


def read_queries(path: Path) -> list[dict[str, object]]:
    """The hand-written queries, one JSON object a line."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def read_qrels(path: Path) -> list[tuple[str, str, int]]:
    """The judgments (query-id, corpus-id, score) after the header row."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    if rows[0] != ["query-id", "corpus-id", "score"]:
        raise ValueError(f"{path}: bad header {rows[0]}")
    return [(row[0], row[1], int(row[2])) for row in rows[1:]]


def validate(
    docs: list[dict[str, str]], queries: list[dict[str, object]], qrels: list[tuple[str, str, int]]
) -> list[str]:
    """Every problem found in the queries and judgments (an empty list when the set is consistent)."""
    doc_ids = {doc["_id"] for doc in docs}
    query_ids = [str(query["_id"]) for query in queries]
    problems = ["duplicate corpus ids"] if len(doc_ids) != len(docs) else []
    problems += ["duplicate query ids"] if len(set(query_ids)) != len(query_ids) else []
    judged: dict[str, list[tuple[str, int]]] = {}
    for query_id, doc_id, score in qrels:
        judged.setdefault(query_id, []).append((doc_id, score))
        if doc_id not in doc_ids:
            problems.append(f"{query_id}: judged id {doc_id!r} is not in the corpus")
        if score not in (1, 2):
            problems.append(f"{query_id}: score {score} is not 1 or 2")
    problems += [problem for query in queries for problem in _query_problems(query, judged.get(str(query["_id"]), []))]
    problems += [f"{query_id}: judged but not in queries.jsonl" for query_id in sorted(judged.keys() - set(query_ids))]
    return problems


def _query_problems(query: dict[str, object], grades: list[tuple[str, int]]) -> list[str]:
    """What is wrong with one query: its category, or its judgments."""
    query_id = str(query["_id"])
    metadata = query.get("metadata")
    category = metadata.get("category") if isinstance(metadata, dict) else None
    problems = [] if category in CATEGORIES else [f"{query_id}: bad category {category!r}"]
    if not grades:
        problems.append(f"{query_id}: no relevant document")
    elif len(grades) > 1 and max(score for _, score in grades) != 2:
        problems.append(f"{query_id}: several relevant pages but no primary (score 2)")
    if not str(query.get("text", "")).strip():
        problems.append(f"{query_id}: empty text")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Build corpus.jsonl from the installed package, validate the queries and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the package's html directory")
    parser.add_argument("--out", type=Path, default=HERE, help="the dataset directory")
    args = parser.parse_args(argv)
    if not (args.source / "index.html").is_file():
        print(f"{args.source} not found: apt-get install -y postgresql-doc-15", file=sys.stderr)
        return 2
    docs = build_corpus(args.source)
    write_corpus(docs, args.out / "corpus.jsonl")
    chars = sum(len(doc["text"]) for doc in docs)
    print(f"corpus: {len(docs)} documents, {chars:,} characters")
    queries_path, qrels_path = args.out / "queries.jsonl", args.out / "qrels" / "test.tsv"
    if not queries_path.is_file() or not qrels_path.is_file():
        print("no queries.jsonl/qrels yet: corpus only")
        return 0
    queries, qrels = read_queries(queries_path), read_qrels(qrels_path)
    problems = validate(docs, queries, qrels)
    counts = Counter(str(query["metadata"]["category"]) for query in queries)  # type: ignore[index]
    per_category = ", ".join(f"{name} {counts[name]}" for name in CATEGORIES)
    print(f"queries: {len(queries)} ({per_category}); qrels: {len(qrels)}")
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
