"""Build the `rust-std` dev set: Rust standard library API pages (Debian `rust-doc` 1.63) as a BEIR directory.

Run from the repository root (needs `apt-get install rust-doc`; lxml comes with the `eval` extra):

    .venv/bin/python datasets/rust-std/build.py

Writes `corpus.jsonl` (one document per rustdoc page, plain text) deterministically from the installed HTML, turns
the hand-written `queries.src.tsv` into `queries.jsonl` and `qrels/test.tsv`, and validates both against the corpus
(every judged id exists, every query has a relevant page, categories are valid, exact_match terms occur in their
primary page, conceptual queries name no identifier of their page). Prints the counts; exits non-zero on any error.

Page choice (see README.md): the std pages of the modules a developer searches most (collections, io, fs, path,
process, thread, sync, net, time, env, fmt, iter, option, result, string, vec, rc, cell, mem, ptr, ...), the Unix
extension traits, the commonly used macros, a few primitive types and the keywords; redirects, nightly-only and
deprecated items are skipped, as are the per-collection iterator structs (`Iter`, `IntoIter`, `Drain`, ...).
Text: the page title, the item declaration, the top documentation block, then every variant, field and inherent or
trait-defined method as its signature plus its documentation (shortened when the page would pass CAP characters),
and one line naming the traits the item implements. Sidebars, trait-implementation bodies, auto-trait, blanket
and implementor lists are dropped.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

from lxml import html as lxml_html

HERE = Path(__file__).resolve().parent
DOC_ROOTS = (Path("/usr/share/doc/rust-doc/html"),)
CAP = 20_000  # characters per document
DECL_CAP = 1_500
MIN_CHARS = 120  # drop near-empty pages
CATEGORIES = ("exact_match", "conceptual", "mixed")

# Modules whose pages (index, structs, enums, traits, functions, macros, type aliases) are taken, non-recursive.
MODULES = (
    "any", "array", "ascii", "backtrace", "borrow", "boxed", "cell", "char", "clone", "cmp", "collections",
    "collections/binary_heap", "collections/btree_map", "collections/btree_set", "collections/hash_map",
    "collections/hash_set", "collections/linked_list", "collections/vec_deque", "convert", "default", "env",
    "error", "ffi", "fmt", "fs", "hash", "io", "iter", "marker", "mem", "net", "num", "ops", "option",
    "os/unix/ffi", "os/unix/fs", "os/unix/io", "os/unix/net", "os/unix/process", "os/unix/thread", "panic", "path",
    "pin", "process", "ptr", "rc", "result", "slice", "str", "string", "sync", "sync/atomic", "sync/mpsc", "thread",
    "time", "vec",
)
PRIMITIVES = (
    "array", "bool", "char", "f64", "fn", "i32", "never", "pointer", "reference", "slice", "str", "tuple", "u8",
    "unit", "usize",
)
# Iterator/helper structs that only say "created by method X": many near-identical pages; the iter module's own
# adapters (Map, Filter, ...) are dropped too for the same reason, its traits and functions stay.
SKIP_STRUCTS = {
    "Iter", "IterMut", "IntoIter", "IntoKeys", "IntoValues", "Keys", "Values", "ValuesMut", "Drain", "DrainFilter",
    "Range", "RangeMut", "Difference", "Intersection", "SymmetricDifference", "Union", "Cursor", "CursorMut",
    "SplitN", "RSplitN", "Split", "RSplit", "SplitInclusive", "SplitMut", "RSplitMut", "SplitNMut", "RSplitNMut",
    "RSplitTerminator", "SplitTerminator", "Chunks", "ChunksMut", "ChunksExact", "ChunksExactMut", "RChunks",
    "RChunksMut", "RChunksExact", "RChunksExactMut", "Windows", "Matches", "RMatches", "MatchIndices",
    "RMatchIndices", "CharIndices", "Chars", "Bytes", "Lines", "LinesAny", "SplitWhitespace",
    "SplitAsciiWhitespace", "EncodeUtf16", "EscapeDebug", "EscapeDefault", "EscapeUnicode", "ToLowercase",
    "ToUppercase", "Incoming", "ReadDir", "Ancestors", "Components", "CommandArgs", "CommandEnvs", "Args", "ArgsOs",
    "Vars", "VarsOs", "SplitPaths", "Splice", "ArrayChunks", "ArrayChunksMut", "ArrayWindows", "GroupBy",
    "GroupByMut", "DecodeUtf16", "ToSocketAddrs", "TryIter", "Chain", "Take", "Empty", "Repeat", "Sink",
}
KEEP_ATOMICS = {"AtomicBool", "AtomicUsize", "AtomicU64", "AtomicI32", "AtomicPtr"}
ITER_ADAPTERS_MODULE = "iter"
ITER_KEEP_STRUCTS = {"Peekable", "StepBy", "Rev", "Zip", "Enumerate", "Cycle", "Flatten", "Fuse"}

BLOCK_TAGS = {
    "p", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "div", "tr", "section", "summary", "br", "table", "ul",
    "ol", "blockquote", "dt", "dd", "details",
}
DROP_XPATH = (
    ".//a[contains(@class,'test-arrow')] | .//button | .//*[contains(@class,'rightside')]"
    " | .//a[contains(@class,'anchor')] | .//*[contains(@class,'tooltip')] | .//script"
    " | .//summary[contains(@class,'hideme')] | .//*[contains(@class,'notable-traits')]"
    " | .//*[contains(@class,'out-of-band')] | .//*[contains(@class,'since')]"
)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANKS = re.compile(r"\n{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def docs_root() -> Path:
    for root in DOC_ROOTS:
        if (root / "std" / "index.html").is_file():
            return root / "std"
    sys.exit("rust-doc is not installed: run `apt-get install rust-doc` (Debian package, version 1.63)")


def render(element: lxml_html.HtmlElement) -> str:
    """Plain text of an element: block elements on their own lines, list items dashed, markup dropped."""
    node = copy.deepcopy(element)
    for bad in node.xpath(DROP_XPATH):
        bad.drop_tree()
    for child in node.iter():
        if not isinstance(child.tag, str):
            continue
        if child.tag in BLOCK_TAGS:
            prefix = "\n- " if child.tag == "li" else "\n"
            child.text = prefix + (child.text or "")
            child.tail = "\n" + (child.tail or "")
    text = node.text_content().replace("\xa0", " ").replace("\u200b", "")
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    joined = "\n".join(lines)
    return _BLANKS.sub("\n\n", joined).strip()


def one_line(element: lxml_html.HtmlElement) -> str:
    return " ".join(render(element).split())


def shorten(text: str, limit: int) -> str:
    """Cut at a word boundary before `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip()
    return cut + " [...]"


def first_sentence(text: str) -> str:
    paragraph = text.split("\n\n", 1)[0].replace("\n", " ")
    parts = _SENTENCE_END.split(paragraph, maxsplit=1)
    return parts[0]


def is_redirect(path: Path) -> bool:
    with path.open(encoding="utf-8") as handle:
        head = handle.read(400)
    return 'http-equiv="refresh"' in head


def keep_module_page(module: str, path: Path) -> bool:
    """Whether a page of one of MODULES is taken (see the module docstring for the reasons)."""
    kind, _, rest = path.name.partition(".")
    item = rest.removesuffix(".html")
    if path.name == "index.html":
        return True
    if kind not in {"struct", "enum", "trait", "fn", "macro", "type", "union"}:
        return False
    if kind == "macro":  # `macro.x!.html` redirects; outside ptr the module macros are builtin derives
        return module == "ptr" and not item.endswith("!")
    if kind == "type":
        return module in {"io", "fmt", "thread", "sync"}
    if kind != "struct":
        return True
    skipped = (
        item in SKIP_STRUCTS
        or (item.startswith("NonZero") and item != "NonZeroUsize")  # 12 near-twins
        or (item.startswith("Atomic") and item not in KEEP_ATOMICS)  # near-twins
        or (module == ITER_ADAPTERS_MODULE and item not in ITER_KEEP_STRUCTS)
    )
    return not skipped


def select_pages(std: Path) -> list[Path]:
    pages = [path for module in MODULES for path in sorted((std / module).glob("*.html"))
             if keep_module_page(module, path)]
    pages.extend(path for path in sorted(std.glob("macro.*.html")) if not path.name.endswith("!.html"))
    pages.extend(std / f"primitive.{name}.html" for name in PRIMITIVES)
    pages.extend(sorted(std.glob("keyword.*.html")))
    return [page for page in pages if not is_redirect(page)]


def is_unstable_or_deprecated(main: lxml_html.HtmlElement) -> bool:
    """Whether the page's own item (not one of its variants or methods) is nightly-only or deprecated."""
    for child in main:
        if child.tag == "h2" or "top-doc" in (child.get("class") or ""):
            return False
        if "item-info" in (child.get("class") or "") and child.xpath(
                ".//*[contains(@class,'unstable') or contains(@class,'deprecated')]"):
            return True
    return False


def item_docs(details_or_section: lxml_html.HtmlElement) -> tuple[str, str]:
    """(signature, documentation) of one method/variant entry inside a details toggle."""
    header = details_or_section.xpath(".//h4[contains(@class,'code-header')]")
    signature = one_line(header[0]) if header else ""
    docs = details_or_section.xpath("./div[contains(@class,'docblock')]")
    return signature, (render(docs[0]) if docs else "")


def method_entries(container: lxml_html.HtmlElement) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    for node in container.xpath(".//h4[contains(@class,'code-header')]"):
        holder = node.getparent()  # section.method / div.method
        summary = holder.getparent()
        details = summary.getparent() if summary is not None and summary.tag == "summary" else None
        signature = one_line(node)
        if details is not None:
            marks = details.xpath("./*[contains(@class,'item-info')]//*[contains(@class,'unstable')"
                                  " or contains(@class,'deprecated')]"
                                  " | ./summary/*[contains(@class,'item-info')]//*[contains(@class,'unstable')"
                                  " or contains(@class,'deprecated')]")
            if marks:
                continue
            docs = details.xpath("./div[contains(@class,'docblock')]")
            entries.append((signature, render(docs[0]) if docs else ""))
        else:
            entries.append((signature, ""))
    return entries


def section_after(main: lxml_html.HtmlElement, heading_id: str) -> list[lxml_html.HtmlElement]:
    """Siblings following the h2 with `heading_id` up to the next h2."""
    heads = main.xpath(f"./h2[@id='{heading_id}']")
    if not heads:
        return []
    out: list[lxml_html.HtmlElement] = []
    sibling = heads[0].getnext()
    while sibling is not None and sibling.tag != "h2":
        out.append(sibling)
        sibling = sibling.getnext()
    return out


def module_items(main: lxml_html.HtmlElement) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    for heading in main.xpath("./h2[contains(@class,'section-header')]"):
        label = one_line(heading)
        table = heading.getnext()
        if table is None or "item-table" not in (table.get("class") or ""):
            continue
        for row in table.xpath("./div[contains(@class,'item-row')]"):
            left = row.xpath("./div[contains(@class,'item-left')]")
            if not left or "unstable" in (left[0].get("class") or ""):
                continue
            if left[0].xpath(".//*[contains(@class,'deprecated')]"):
                continue
            name = " ".join(a.text_content() for a in left[0].xpath("./a"))
            right = row.xpath("./div[contains(@class,'item-right')]")
            summary = one_line(right[0]) if right else ""
            entries.append((f"{label.rstrip('s')} {name}", summary))
    return entries


def variant_entries(main: lxml_html.HtmlElement) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    for head in main.xpath("./h3[contains(@class,'variant')] | ./span[contains(@class,'structfield')]"):
        following = head.getnext()
        if following is not None and "item-info" in (following.get("class") or ""):
            if following.xpath(".//*[contains(@class,'unstable') or contains(@class,'deprecated')]"):
                continue
            following = following.getnext()
        docs = following if following is not None and "docblock" in (following.get("class") or "") else None
        entries.append((one_line(head), render(docs) if docs is not None else ""))
    return entries


def implemented_traits(main: lxml_html.HtmlElement) -> list[str]:
    names: list[str] = []
    for header in main.xpath(".//div[@id='trait-implementations-list']//h3[contains(@class,'code-header')]"):
        text = one_line(header)
        match = re.match(r"impl(?:<.*?>)? !?([\w:]+)", text.replace("&", ""))
        if match and " for " in text and match.group(1) not in names:
            names.append(match.group(1))
    return names


def title_of(main: lxml_html.HtmlElement) -> tuple[str, str]:
    fqn = one_line(main.xpath(".//h1[contains(@class,'fqn')]")[0])
    kind, _, path = fqn.partition(" ")
    return kind, path.strip()


def fit(head: str, top: str, entries: list[tuple[str, str]], tail: str) -> str:
    """Join the parts under CAP: entries first keep signature + first sentence, the top doc shrinks to make room."""
    def entry(sig: str, doc: str, limit: int | None) -> str:
        body = doc if limit is None else shorten(doc, max(limit, len(first_sentence(doc))))
        body = first_sentence(doc) if limit is not None and len(body) > limit * 2 else body
        return f"{sig}\n{body}".strip()

    full = [entry(sig, doc, None) for sig, doc in entries]
    parts_len = len(head) + len(top) + sum(len(e) + 2 for e in full) + len(tail)
    if parts_len <= CAP:
        return "\n\n".join(p for p in [head, top, *full, tail] if p)
    short = [f"{sig}\n{first_sentence(doc)}".strip() for sig, doc in entries]
    short_len = sum(len(s) + 2 for s in short)
    top_budget = max(3_000, CAP - len(head) - len(tail) - short_len)
    top = shorten(top, top_budget)
    remaining = CAP - len(head) - len(top) - len(tail)
    per_entry = remaining // max(1, len(entries)) - 4
    chosen = [entry(sig, doc, max(0, per_entry - len(sig))) for sig, doc in entries]
    body = "\n\n".join(chosen)
    if len(body) > remaining:
        body = "\n\n".join(short)
    text = "\n\n".join(p for p in [head, top, body, tail] if p)
    return shorten(text, CAP)


def page_entries(main: lxml_html.HtmlElement, *, is_module: bool) -> list[tuple[str, str]]:
    """A module's item table, or an item's variants, fields, inherent methods and trait-defined items."""
    if is_module:
        return module_items(main)
    entries = variant_entries(main)
    for container in main.xpath("./div[@id='implementations-list']"):
        entries.extend(method_entries(container))
    for heading_id in ("required-associated-types", "provided-associated-types", "required-associated-consts",
                       "provided-associated-consts", "required-methods", "provided-methods"):
        for node in section_after(main, heading_id):
            entries.extend(method_entries(node))
    return entries


def display_title(kind: str, item_path: str) -> tuple[str, str]:
    """(title, path) as a developer writes them: `std::fs::File`, `std::vec!`, `primitive str`, `keyword move`."""
    if kind == "Primitive":
        item_path = item_path.removeprefix("Type ").strip()
        return f"primitive {item_path}", item_path
    if kind == "Keyword":
        return f"keyword {item_path}", item_path
    if kind == "Macro":
        return f"{item_path}!", item_path
    return item_path, item_path


def extract(path: Path, std: Path) -> dict[str, str] | None:
    tree = lxml_html.fromstring(path.read_bytes().decode("utf-8"))
    mains = tree.xpath("//section[@id='main-content']")
    if not mains or is_unstable_or_deprecated(mains[0]):
        return None
    main = mains[0]
    kind, item_path = title_of(main)
    if kind in {"Derive", "Attribute"}:  # `Derive Macro std::clone::Clone`: one line each
        return None
    decl_nodes = main.xpath("./div[contains(@class,'item-decl')]")
    decl = shorten(render(decl_nodes[0]), DECL_CAP) if decl_nodes else ""
    top_nodes = main.xpath("./details[contains(@class,'top-doc')]/div[contains(@class,'docblock')]")
    top = render(top_nodes[0]) if top_nodes else ""
    entries = page_entries(main, is_module=path.name == "index.html")
    traits = implemented_traits(main)
    tail = ("Implements: " + ", ".join(traits)) if traits else ""
    title, item_path = display_title(kind, item_path)
    head = f"{kind} {item_path}\n{decl}".strip()
    doc_id = "std/" + path.relative_to(std).as_posix()
    return {"_id": doc_id, "title": title, "text": fit(head, top, entries, tail)}


def build_corpus(std: Path) -> list[dict[str, str]]:
    """One document per selected page; a re-exported item (`collections::hash_map::HashMap` is the same page as
    `collections::HashMap`) is kept once, under the path listed first."""
    docs: list[dict[str, str]] = []
    seen_bodies: set[str] = set()
    for page in select_pages(std):
        doc = extract(page, std)
        if doc is None or len(doc["text"]) < MIN_CHARS:
            continue
        body = doc["text"].split("\n", 1)[-1]
        if body in seen_bodies:
            continue
        seen_bodies.add(body)
        docs.append(doc)
    return docs


# ---------------------------------------------------------------- queries

# Identifier-like, as all the dev sets define it (snake_case, `--option`, a `::` path, a call, a dotted name between
# letters, ALL_CAPS), plus the Rust names that rule misses: CamelCase types and traits and `name!` macros.
_IDENTIFIER = re.compile(r"\S*_\S*|\S*--\S*|\S*::\S*|\S*\(\)\S*|\S*[A-Za-z]\.[A-Za-z]\S*|\b[A-Z][A-Z0-9]+\b")
_RUST_NAME = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z_][a-z0-9_]*!")


def identifier_tokens(text: str) -> set[str]:
    """The identifier-like tokens of a query (the same rule as tests/unit/test_devset_rust_std.py)."""
    found = {match.group(0).strip(".,;:'\"()") for match in _IDENTIFIER.finditer(text)}
    found |= {match.group(0) for match in _RUST_NAME.finditer(text)}
    return found - {""}


def expand_id(short: str) -> str:
    """`vec/struct.Vec` -> `std/vec/struct.Vec.html` (the source file uses the short form)."""
    doc_id = short.strip()
    doc_id = doc_id if doc_id.startswith("std/") else "std/" + doc_id
    return doc_id if doc_id.endswith(".html") else doc_id + ".html"


def occurs(term: str, page: str) -> bool:
    """`term` is in the page; a path `Type::method` also counts when each of its parts is (rustdoc lists the
    method as `fn method` on the type's page, rarely spelling out `Type::method`)."""
    if term in page:
        return True
    parts = [part for part in term.split("::") if part]
    return "::" in term and all(re.search(rf"(?<![\w]){re.escape(part)}(?![\w])", page) for part in parts)


def names_identifier(text: str, page: str) -> bool:
    """A mixed query names at least one identifier of the page: an identifier-like token, a capitalised Rust name
    (type, trait, variant), a method (`fn name`), a keyword page's keyword, or format syntax such as `{:#?}`."""
    if any(occurs(token, page) for token in identifier_tokens(text)):
        return True
    for word in re.findall(r"[A-Za-z_][\w]*|\{[^}\s]*\}", text):
        if word.startswith("{") and word in page:
            return True
        if word[0].isupper() and len(word) > 2 and re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", page):
            return True
        if word[0].islower() and (f"fn {word}" in page or page.startswith(f"keyword {word}\n")):
            return True
    return False


def load_query_source(path: Path) -> list[tuple[str, str, list[str]]]:
    rows: list[tuple[str, str, list[str]]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            sys.exit(f"{path}:{number}: expected 3 tab-separated fields, got {len(fields)}")
        category, text, relevant = fields
        rows.append((category.strip(), text.strip(), [expand_id(r) for r in relevant.split(",") if r.strip()]))
    return rows


def check_ids(docs: dict[str, dict[str, str]], relevant: list[str]) -> list[str]:
    problems = [f"unknown document {doc_id}" for doc_id in relevant if doc_id not in docs]
    if not relevant:
        problems.append("no relevant document")
    if len(set(relevant)) != len(relevant):
        problems.append("repeated document")
    return problems


def check_category(docs: dict[str, dict[str, str]], category: str, text: str, relevant: list[str]) -> list[str]:
    """The rules of each category, checked against the judged pages (primary first)."""
    pages = [docs[doc_id]["title"] + "\n" + docs[doc_id]["text"] for doc_id in relevant]
    if category == "exact_match":
        terms = identifier_tokens(text) or {text.split(maxsplit=1)[0]}
        missing = sorted(term for term in terms if not occurs(term, pages[0]))
        return [f"identifier {missing} not in {relevant[0]}"] if missing else []
    if category == "conceptual":
        named = sorted(identifier_tokens(text))
        return [f"conceptual query names identifiers {named}"] if named else []
    if category == "mixed":
        words = text.split()
        if not 3 <= len(words) <= 12 or not any(re.fullmatch(r"[a-z]{3,}", word) for word in words):
            return ["mixed query needs 3-12 words, some of them plain"]
        if not any(names_identifier(text, page) for page in pages):
            return ["mixed query names no identifier of its pages"]
        return []
    return [f"bad category {category!r}"]


def validate(docs: dict[str, dict[str, str]], rows: list[tuple[str, str, list[str]]]) -> list[str]:
    errors: list[str] = []
    seen: set[str] = set()
    for index, (category, text, relevant) in enumerate(rows, start=1):
        problems = check_ids(docs, relevant)
        if text.lower() in seen:
            problems.append("duplicate query text")
        seen.add(text.lower())
        if not problems:
            problems = check_category(docs, category, text, relevant)
        errors.extend(f"query {index} {text!r}: {problem}" for problem in problems)
    return errors


def main() -> None:
    std = docs_root()
    corpus = build_corpus(std)
    by_id = {doc["_id"]: doc for doc in corpus}
    with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for doc in corpus:
            handle.write(json.dumps(doc, ensure_ascii=False) + "\n")
    total_chars = sum(len(doc["text"]) for doc in corpus)
    longest = max(len(doc["text"]) for doc in corpus)
    print(f"corpus: {len(corpus)} documents, {total_chars:,} characters, longest {longest:,}")
    source = HERE / "queries.src.tsv"
    if not source.is_file():
        print("no queries.src.tsv yet")
        return
    rows = load_query_source(source)
    errors = validate(by_id, rows)
    (HERE / "qrels").mkdir(exist_ok=True)
    with (HERE / "queries.jsonl").open("w", encoding="utf-8") as queries, \
            (HERE / "qrels" / "test.tsv").open("w", encoding="utf-8") as qrels:
        qrels.write("query-id\tcorpus-id\tscore\n")
        for index, (category, text, relevant) in enumerate(rows, start=1):
            query_id = f"rs{index:03d}"
            queries.write(json.dumps({"_id": query_id, "text": text, "metadata": {"category": category}},
                                     ensure_ascii=False) + "\n")
            for rank, doc_id in enumerate(relevant):
                qrels.write(f"{query_id}\t{doc_id}\t{2 if rank == 0 and len(relevant) > 1 else 1}\n")
    counts = {c: sum(1 for row in rows if row[0] == c) for c in CATEGORIES}
    print(f"queries: {len(rows)} {counts}; judged pages: {len({r for row in rows for r in row[2]})}")
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(f"{len(errors)} validation errors")


if __name__ == "__main__":
    main()
