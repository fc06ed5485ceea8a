"""Write a BEIR dev set's corpus again with each text's whitespace collapsed to single spaces, as many BEIR exports
store their documents, to measure what losing the line layout costs retrieval. With --paragraphs, each paragraph
(lines between blank lines) is collapsed into one line and the blank lines between them stay, as an export that
joins a page's paragraphs writes it.

    .venv/bin/python benchmarks/collapse_corpus.py --dataset datasets/gnu-info --out var/collapsed/gnu-info
    .venv/bin/python benchmarks/collapse_corpus.py --paragraphs --dataset datasets/gnu-info \
        --out var/paracollapsed/gnu-info
    .venv/bin/search-platform eval --dataset var/collapsed/gnu-info --modes bm25,semantic,hybrid

Line breaks, indentation and blank lines are what tell a definition (`-s, --squeeze-blank` at a line's start) from a
use, and paragraphs from each other. A corpus whose texts were joined into one line keeps the words and loses all
of that. Queries and judgments are copied unchanged, so the collapsed set differs from its source only in layout.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

_BLANK_LINE = re.compile(r"\n\s*\n")


def collapsed(text: str, *, paragraphs: bool) -> str:
    """The text with its whitespace runs as single spaces: all of them, or those inside each paragraph."""
    if not paragraphs:
        return " ".join(text.split())
    return "\n\n".join(joined for paragraph in _BLANK_LINE.split(text) if (joined := " ".join(paragraph.split())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="a BEIR directory (corpus.jsonl, queries, qrels)")
    parser.add_argument("--out", type=Path, required=True, help="the BEIR directory to write")
    parser.add_argument("--paragraphs", action="store_true", help="collapse each paragraph, keep the blank lines")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copy(args.dataset / "queries.jsonl", args.out / "queries.jsonl")
    shutil.copytree(args.dataset / "qrels", args.out / "qrels", dirs_exist_ok=True)
    written = 0
    with (args.dataset / "corpus.jsonl").open(encoding="utf-8") as source, \
            (args.out / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for line in source:
            if not line.strip():
                continue
            document = json.loads(line)
            document["text"] = collapsed(str(document.get("text") or ""), paragraphs=args.paragraphs)
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} documents written to {args.out / 'corpus.jsonl'}")


if __name__ == "__main__":
    main()
