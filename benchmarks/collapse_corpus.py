"""Write a BEIR dev set's corpus again with each text's whitespace collapsed to single spaces, as many BEIR exports
store their documents, to measure what losing the line layout costs retrieval.

    .venv/bin/python benchmarks/collapse_corpus.py --dataset datasets/gnu-info --out var/collapsed/gnu-info
    .venv/bin/search-platform eval --dataset var/collapsed/gnu-info --modes bm25,semantic,hybrid

Line breaks, indentation and blank lines are what tell a definition (`-s, --squeeze-blank` at a line's start) from a
use, and paragraphs from each other. A corpus whose texts were joined into one line keeps the words and loses all
of that. Queries and judgments are copied unchanged, so the collapsed set differs from its source only in layout.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="a BEIR directory (corpus.jsonl, queries, qrels)")
    parser.add_argument("--out", type=Path, required=True, help="the BEIR directory to write")
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
            document["text"] = " ".join(str(document.get("text") or "").split())
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} documents written to {args.out / 'corpus.jsonl'}")


if __name__ == "__main__":
    main()
