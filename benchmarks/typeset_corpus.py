"""Write a BEIR dev set's corpus again as man(1) prints a page, to measure what formatter output costs retrieval.

    .venv/bin/python benchmarks/typeset_corpus.py --dataset datasets/gnu-info --out var/typeset/gnu-info
    .venv/bin/search-platform eval --dataset var/typeset/gnu-info --modes bm25,semantic,hybrid

Each document's text becomes a small roff page of our own making (a paragraph is `.PP`; a table entry, its terms at
the margin and its description indented, is `.TP`, as man pages set options, environment variables and operands; an
indented example is `.nf`) and is formatted by `man -l` at MANWIDTH=80 in a UTF-8 locale, as a terminal shows it:
filled and justified lines, indentation, a header and footer, and long words hyphenated across line breaks with
U+2010. With `--locale C` it is formatted as man prints in the C (POSIX) locale, a container's default: ASCII
throughout, so a hyphenation break is an ASCII hyphen like any compound's own. Queries and judgments are copied
unchanged. The source is any BEIR set (the GNU info manuals' layout maps onto it best); man pages themselves are never
read. Prints how many lines end in a hyphen after a letter; needs groff and man-db (Debian `man-db`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

MANWIDTH = "80"
MAX_TAG_CHARS = 60  # a table entry's term line (`--squeeze-blank`, `BLOCK_SIZE`, `if=FILE`) is short; longer is prose
_DEFINITION_LABEL = re.compile(r"^ -- [A-Z][A-Za-z ]{0,30}: ")  # Texinfo's definition lines, as info prints them
_HYPHENATED_LINE_END = re.compile(r"\w[\u2010-]\n")


def paragraphs(text: str) -> Iterator[list[str]]:
    """The text's blocks of consecutive non-blank lines."""
    block: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            block.append(line.rstrip())
        elif block:
            yield block
            block = []
    if block:
        yield block


def roff_line(line: str) -> str:
    """A line of text as roff input: backslashes escaped, a leading control character made literal."""
    line = line.replace("\\", "\\e")
    return f"\\&{line}" if line.startswith((".", "'")) else line


def roff_page(title: str, text: str) -> str:
    """The text as a man page source of our own making (see the module docstring)."""
    out = [f'.TH "{title.replace(chr(34), "")[:40]}" 7 "2026" "dev set" "Typeset dev set"']
    for block in paragraphs(text):
        tags = []
        for line in block:  # a table entry's terms start at the margin, its description is indented
            term = _DEFINITION_LABEL.sub("", line)  # ` -- Test: -newer FILE` is the term `-newer FILE`
            if term == term.lstrip() and len(term) <= MAX_TAG_CHARS:
                tags.append(term)
            else:
                break
        body = block[len(tags):]
        if tags and body and all(line.startswith(" ") for line in body):
            out += [".TP", roff_line(", ".join(tags)), *(roff_line(line.strip()) for line in body)]
        elif all(line.startswith("     ") for line in block):
            out += [".PP", ".RS", ".nf", *(roff_line(line[5:]) for line in block), ".fi", ".RE"]
        else:
            out += [".PP", *(roff_line(line.strip()) for line in block)]
    return "\n".join(out) + "\n"


def typeset(source: str, workdir: Path, locale: str) -> str:
    """The page as `man -l` prints it to a pipe at MANWIDTH columns in locale."""
    page = workdir / "page.7"
    page.write_text(source)
    env = {**os.environ, "MANWIDTH": MANWIDTH, "LANG": locale, "LC_ALL": locale, "MANPAGER": "cat", "PAGER": "cat"}
    done = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, env=env, check=True)
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="a BEIR directory (corpus.jsonl, queries, qrels)")
    parser.add_argument("--out", type=Path, required=True, help="the BEIR directory to write")
    parser.add_argument("--locale", default="C.UTF-8", choices=["C.UTF-8", "C"],
                        help="the locale man formats in: UTF-8 (a terminal's) or C (ASCII, a container's default)")
    args = parser.parse_args()
    if shutil.which("man") is None:
        raise SystemExit("typeset_corpus: man(1) is needed (Debian man-db)")
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copy(args.dataset / "queries.jsonl", args.out / "queries.jsonl")
    shutil.copytree(args.dataset / "qrels", args.out / "qrels", dirs_exist_ok=True)
    documents = hyphenated = lines = 0
    with tempfile.TemporaryDirectory() as tmp, (args.dataset / "corpus.jsonl").open() as source, \
            (args.out / "corpus.jsonl").open("w") as target:
        for raw in source:
            record = json.loads(raw)
            text = typeset(roff_page(record.get("title") or record["_id"], record["text"]), Path(tmp), args.locale)
            documents += 1
            lines += text.count("\n")
            hyphenated += len(_HYPHENATED_LINE_END.findall(text))
            target.write(json.dumps({**record, "text": text}, ensure_ascii=False) + "\n")
    print(f"{documents} documents typeset into {args.out}: {lines} lines, {hyphenated} end in a hyphen after a letter "
          f"({hyphenated / max(lines, 1):.1%})")


if __name__ == "__main__":
    main()
