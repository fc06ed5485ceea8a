"""Build the gnu-info dev set: GNU info manuals -> BEIR corpus.jsonl, then validate queries and qrels.

Reads the .info files that Debian installs under /usr/share/info (packages coreutils, findutils, grep, sed,
diffutils, gzip, ed, gettext, time), one document per info node. Deterministic: the same package versions give
a byte-identical corpus.jsonl.

Run: .venv/bin/python datasets/gnu-info/build.py [--check-only]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
INFO_DIR = Path("/usr/share/info")
CATEGORIES = ("exact_match", "conceptual", "mixed")

MIN_CHARS = 300  # a node shorter than this (after cleaning) is dropped or merged into its parent
MERGE_BELOW = 700  # a node shorter than this is appended to its parent when the parent is kept

_COMMAND_NODE = re.compile(r"( invocation|^Invoking .*)$")

# Nodes that are never documents in any manual: navigation, indexes, licences.
GLOBAL_SKIP = re.compile(
    r"^(Top|.*Index|Index|Copying This Manual|GNU Free Documentation License|GNU FDL|GNU GPL|GNU LGPL"
    r"|Licenses|Copying|GNU General Public License|Translations)$"
)


@dataclass(frozen=True)
class Manual:
    """One info manual: its Debian package, its files, and which top-level chapters it contributes."""

    name: str
    package: str
    files: tuple[str, ...]
    skip_chapters: frozenset[str] = field(default_factory=frozenset)
    keep_chapters: frozenset[str] | None = None  # None = every chapter not skipped


MANUALS = (
    Manual("coreutils", "coreutils", ("coreutils.info.gz",)),
    # findutils repeats gnulib's "File Permissions" and "Date input formats" chapters verbatim from coreutils.
    Manual("find", "findutils", ("find.info-1.gz", "find.info-2.gz"),
           skip_chapters=frozenset({"File Permissions", "Date input formats"})),
    Manual("grep", "grep", ("grep.info.gz",)),
    Manual("sed", "sed", ("sed.info.gz",)),
    Manual("diffutils", "diffutils", ("diffutils.info.gz",)),
    Manual("gzip", "gzip", ("gzip.info.gz",)),
    Manual("ed", "ed", ("ed.info.gz",)),
    Manual("time", "time", ("time.info.gz",)),
    # gettext: the reference chapters (tools, invocation, programmer interface, build integration) only; the
    # Emacs PO mode, translator-team history, per-language format lists and code tables are left out.
    Manual("gettext", "gettext", ("gettext.info.gz",),
           keep_chapters=frozenset({"Users", "PO Files", "Sources", "Template", "Creating", "Updating",
                                    "Manipulating", "Binaries", "Programmers", "Maintainers",
                                    "Programming Languages"})),
)
# Within kept gettext chapters, these subtrees are still excluded (per-language format notes, Perl pitfalls,
# Emacs-only editing, catgets history).
GETTEXT_SKIP_SUBTREES = frozenset({"Translators for other Languages", "Perl", "Temp Programmers",
                                   "Language Implementors", "Programmers for other Languages",
                                   "Maintainers for other Languages"})
GETTEXT_KEEP_LANGS = frozenset({"List of Programming Languages", "C", "Python", "sh", "bash"})


@dataclass
class Node:
    """A parsed info node."""

    manual: str
    name: str
    up: str
    raw: str
    order: int
    text: str = ""
    merged: list[str] = field(default_factory=list)


def read_nodes(manual: Manual) -> list[Node]:
    """Parse every node of a manual's info files in file order."""
    missing = [f for f in manual.files if not (INFO_DIR / f).is_file()]
    if missing:
        raise SystemExit(f"{INFO_DIR / missing[0]} is missing: apt-get install {manual.package} "
                         "(and check /etc/dpkg/dpkg.cfg.d/ does not exclude /usr/share/info)")
    raw = "".join(gzip.decompress((INFO_DIR / f).read_bytes()).decode("utf-8") for f in manual.files)
    nodes: list[Node] = []
    for chunk in raw.split("\x1f"):
        header, _, body = chunk.lstrip("\n").partition("\n")
        if not header.startswith("File: "):
            continue
        fields = dict(re.findall(r"(Node|Next|Prev|Up): ([^,]*?)(?:,\s+|$)", header))
        name = fields.get("Node", "").strip()
        if name:
            nodes.append(Node(manual.name, name, fields.get("Up", "").strip(), body, len(nodes)))
    return nodes


_XREF = re.compile(r"(\(?)\*([Nn])ote[ \n]+([^:*]+?):(?::|[ \n]*(?:\([^)]*\))?[^.,:*()]*?(?=[.,)]))")
_UNDERLINE = re.compile(r"^[=\-*.]{3,}\s*$")
_QUOTED = re.compile("\u2018([^\u2018\u2019\n]{1,100}?)\u2019")
# Old makeinfo marks code with ASCII quotes; content with shell metacharacters keeps them (it is real quoting).
_ASCII_QUOTED = re.compile(r"(?<![\w'])'([^'\s*?$\\|<>;&\[\]]"
                           r"(?:[^'*?$\\|<>;&\[\]]{0,80}?[^'\s*?$\\|<>;&\[\]])?)'(?!\w)")
_STRONG_LINE = re.compile(r"^\*([A-Z][\w ]{0,40})\*$", re.MULTILINE)
_PLAIN_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_EMPHASIS = re.compile(r"(?<![\w])_([A-Za-z][A-Za-z ]{0,40}?)_(?!\w)")


def _xref(match: re.Match[str]) -> str:
    """*Note X:: -> See X; (*note X::) -> (see X); *note X:: -> X."""
    paren, capital, label = match.group(1), match.group(2), " ".join(match.group(3).split())
    if capital == "N":
        return paren + "See " + label
    return paren + ("see " if paren else "") + label


def clean(raw: str) -> str:
    """Info node body -> plain text: no menus, heading underlines or cross-reference markup."""
    lines = raw.split("\n")
    out: list[str] = []
    in_menu = False
    for line in lines:
        if line.startswith("* Menu:"):
            in_menu = True
            continue
        if in_menu:
            # A menu runs to the end of the node; entries and their wrapped descriptions are dropped.
            if line.startswith("* ") or line.startswith(" ") or not line.strip():
                continue
            in_menu = False
        if _UNDERLINE.match(line) and out and out[-1].strip():
            continue
        out.append(line.rstrip())
    text = "\n".join(out)
    text = _XREF.sub(_xref, text)
    text = _QUOTED.sub(r"\1", text)
    text = _ASCII_QUOTED.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _STRONG_LINE.sub(r"\1", text)
    text = text.translate(_PLAIN_QUOTES)
    text = text.replace("---------- Footnotes ----------", "Footnotes:")
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"


def _chapter_of(node: Node, by_name: dict[str, Node]) -> list[str]:
    """The chain of ancestors from the node up to (excluding) Top."""
    chain = [node.name]
    seen = {node.name}
    current = node
    while current.up and current.up not in ("Top", "(dir)") and current.up in by_name and current.up not in seen:
        current = by_name[current.up]
        chain.append(current.name)
        seen.add(current.name)
    return chain


def _wanted(manual: Manual, chain: list[str]) -> bool:
    """Whether a node (given its ancestor chain) belongs to the corpus at all."""
    chapter = chain[-1]
    if GLOBAL_SKIP.match(chain[0]) or chapter in manual.skip_chapters:
        return False
    if manual.keep_chapters is not None and chapter not in manual.keep_chapters:
        return False
    return not (manual.name == "gettext" and _gettext_skipped(chain))


def _mergeable(node: Node, kept: dict[str, Node]) -> bool:
    """Small nodes fold into a kept parent; a command's invocation node stays its own page unless tiny."""
    limit = MIN_CHARS if _COMMAND_NODE.search(node.name) else MERGE_BELOW
    return len(_body(node.text)) < limit and node.up in kept and node.up != node.name


def select(manual: Manual, nodes: list[Node]) -> list[Node]:
    """Keep reference nodes, merge tiny nodes into their parent, drop menu-only and excluded nodes."""
    by_name = {n.name: n for n in nodes}
    kept: dict[str, Node] = {}
    for node in nodes:
        if _wanted(manual, _chapter_of(node, by_name)):
            node.text = clean(node.raw)
            kept[node.name] = node
    # Children first (reverse file order), so grandchildren roll up through their parent.
    for node in sorted(kept.values(), key=lambda n: -n.order):
        if _mergeable(node, kept):
            kept[node.up].merged.append(node.name)
            kept[node.up].text += node.text
            del kept[node.name]
    for node in kept.values():
        if node.merged:
            node.text = _merged_text(node, by_name)
    return [n for n in sorted(kept.values(), key=lambda n: n.order) if len(_body(n.text)) >= MIN_CHARS]


def _merged_text(node: Node, by_name: dict[str, Node]) -> str:
    """A merged node's own text followed by its own merged children, in file order."""
    text = clean(node.raw).rstrip("\n")
    for child in sorted(node.merged, key=lambda c: by_name[c].order):
        text += "\n\n" + _merged_text(by_name[child], by_name).rstrip("\n")
    return text + "\n"


def _gettext_skipped(chain: list[str]) -> bool:
    """True for gettext subtrees that are per-language notes, history or Emacs-only."""
    if any(name in GETTEXT_SKIP_SUBTREES for name in chain):
        return True
    if len(chain) >= 3 and chain[-2] == "List of Programming Languages":
        return chain[-3] not in GETTEXT_KEEP_LANGS
    return "PO Mode" in chain or "Compendium" in chain or chain[0] in {"KBabel", "Gtranslator"}


def _body(text: str) -> str:
    """The node text without its heading line, to measure content."""
    return text.split("\n", 1)[1] if "\n" in text else ""


def build_corpus() -> list[dict[str, str]]:
    """All documents of all manuals, in manual and file order."""
    docs: list[dict[str, str]] = []
    for manual in MANUALS:
        for node in select(manual, read_nodes(manual)):
            docs.append({"_id": f"{manual.name}/{node.name}", "title": node.name, "text": node.text})
    return docs


def package_version(package: str) -> str:
    """The installed Debian version of a package, or '?' where dpkg cannot say."""
    try:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                                capture_output=True, text=True, check=False)
    except OSError:
        return "?"
    return result.stdout.strip() or "?"


def write_jsonl(path: Path, rows: list[dict[str, str]]) -> None:
    """Write rows as UTF-8 JSON Lines."""
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_queries() -> list[dict[str, object]]:
    """The judged queries, in file order."""
    lines = (HERE / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def read_qrels() -> tuple[list[str], dict[str, dict[str, int]]]:
    """The qrels header and {query-id: {corpus-id: score}}."""
    qrels: dict[str, dict[str, int]] = {}
    with (HERE / "qrels" / "test.tsv").open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader)
        for qid, did, score in reader:
            qrels.setdefault(qid, {})[did] = int(score)
    return header, qrels


def _category(query: dict[str, object]) -> object:
    """The query's metadata.category, or None."""
    metadata = query.get("metadata")
    return metadata.get("category") if isinstance(metadata, dict) else None


def validate(corpus: list[dict[str, str]]) -> list[str]:
    """Check queries.jsonl and qrels/test.tsv against the corpus; return the problems found."""
    ids = [d["_id"] for d in corpus]
    problems = ["duplicate corpus ids"] if len(set(ids)) != len(ids) else []
    queries = read_queries()
    qids = [str(q["_id"]) for q in queries]
    if len(set(qids)) != len(qids):
        problems.append("duplicate query ids")
    texts = Counter(str(q["text"]).strip().lower() for q in queries)
    problems += [f"duplicate query text {t!r}" for t, n in texts.items() if n > 1]
    problems += [f"{q['_id']}: bad category" for q in queries if _category(q) not in CATEGORIES]
    header, qrels = read_qrels()
    if header != ["query-id", "corpus-id", "score"]:
        problems.append("qrels header must be query-id, corpus-id, score")
    problems += [f"{qid}: qrels for unknown query" for qid in qrels if qid not in set(qids)]
    problems += [f"{qid}: judged id {did!r} not in corpus"
                 for qid, grades in qrels.items() for did in grades if did not in set(ids)]
    for qid in qids:
        grades = list(qrels.get(qid, {}).values())
        if not grades or max(grades) < 1 or grades.count(max(grades)) != 1:
            problems.append(f"{qid}: needs exactly one primary relevant page")
    return problems


def main() -> int:
    """Build corpus.jsonl, validate the judged set, print counts."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check-only", action="store_true", help="validate without rewriting corpus.jsonl")
    args = parser.parse_args()
    corpus = build_corpus()
    if not args.check_only:
        write_jsonl(HERE / "corpus.jsonl", corpus)
    print("source:", ", ".join(f"{m.package} {package_version(m.package)}" for m in MANUALS))
    chars = sum(len(d["text"]) for d in corpus)
    per_manual = Counter(d["_id"].split("/", 1)[0] for d in corpus)
    print(f"corpus: {len(corpus)} documents, {chars:,} characters; " +
          ", ".join(f"{m} {n}" for m, n in per_manual.items()))
    if not (HERE / "queries.jsonl").exists():
        print("no queries.jsonl yet")
        return 0
    problems = validate(corpus)
    cats = Counter(_category(q) for q in read_queries())
    print(f"queries: {sum(cats.values())}; " + ", ".join(f"{c} {cats[c]}" for c in CATEGORIES))
    for problem in problems:
        print("PROBLEM:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
