"""Build `python-bare-names.json`: identifier lookups typed without their qualifier, over the demo corpus.

Run from the repository root (needs the python3.11-doc package):

    .venv/bin/python datasets/identifiers/build.py

Developers search for `removeprefix`, not `str.removeprefix`. Elasticsearch's standard tokenizer keeps a dotted
name whole (UAX#29: `.` between letters does not break a word), so the `text` field of a page that only ever
writes `str.removeprefix` has no token `removeprefix`. This set measures whether retrieval finds such pages.

Generated, not hand-judged, by these rules (so it can be rebuilt and audited):
- candidates are qualified names `a.b[.c...]` in a page's indexed text whose last component is a lowercase
  identifier of at least MIN_NAME_CHARS characters (`[a-z][a-z0-9_]*`);
- the query is that last component alone; the relevant pages are every page where it occurs as the last
  component of a qualified name (grade 2 where it occurs most, 1 elsewhere);
- the name must be unambiguous: it appears on at most MAX_PAGES pages in qualified form, and never as a bare word
  on a page where it is not qualified (so `split`, `format` or `open` are excluded: a bare English or builtin word
  is not an identifier lookup);
- at most PER_PAGE queries per page (the most frequent qualifying names of the page where they occur most), and
  at most MAX_QUERIES in total, chosen deterministically.
Known limitation: relevance is "the page that documents or uses the qualified name", which is what a bare-name
lookup wants, but a human might also accept a page that explains the concept under another name.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from search_platform.evaluation.demo_corpus import DEFAULT_DOCS_ROOT, DEMO_PAGES, read_page

OUT = Path(__file__).with_name("python-bare-names.json")
CATEGORY = "exact_match"  # an identifier lookup, typed bare
MIN_NAME_CHARS = 6
MAX_PAGES = 3
MAX_QUERIES = 100
PER_PAGE = 2
_QUALIFIED = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)+([a-z][a-z0-9_]*)\b", re.ASCII)
_WORD = re.compile(r"(?<![\w.])[a-z][a-z0-9_]*(?![\w.])", re.ASCII)


def qualified_counts(texts: dict[str, str]) -> dict[str, Counter[str]]:
    """For each bare name, how often each page writes it as the last component of a qualified name."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for page, text in texts.items():
        for match in _QUALIFIED.finditer(text):
            name = match.group(1)
            if len(name) >= MIN_NAME_CHARS:
                counts[name][page] += 1
    return counts


def bare_pages(texts: dict[str, str]) -> dict[str, set[str]]:
    """For each word, the pages where it occurs bare (not part of a dotted name)."""
    pages: dict[str, set[str]] = defaultdict(set)
    for page, text in texts.items():
        for word in set(_WORD.findall(text.lower())):
            pages[word].add(page)
    return pages


def build_queries(texts: dict[str, str]) -> list[dict[str, object]]:
    """The queries by the rules in the module docstring."""
    bare = bare_pages(texts)
    by_best_page: dict[str, list[tuple[str, Counter[str]]]] = defaultdict(list)
    for name, by_page in sorted(qualified_counts(texts).items()):
        if len(by_page) > MAX_PAGES or not bare.get(name, set()) <= set(by_page):
            continue
        best_page = max(sorted(by_page), key=lambda page: by_page[page])
        by_best_page[best_page].append((name, by_page))
    items = [item for page in sorted(by_best_page)
             for item in sorted(by_best_page[page], key=lambda item: (-sum(item[1].values()), item[0]))[:PER_PAGE]]
    items = sorted(items, key=lambda item: (-sum(item[1].values()), item[0]))[:MAX_QUERIES]
    return [_query(index, name, by_page) for index, (name, by_page) in enumerate(sorted(items), start=1)]


def _query(index: int, name: str, by_page: Counter[str]) -> dict[str, object]:
    top = max(by_page.values())
    grades = {page: 2 if count == top else 1 for page, count in sorted(by_page.items())}
    return {
        "id": f"bare-{index:03d}",
        "query": name,
        "expected_doc_ids": sorted(grades),
        "relevance": grades,
        "category": CATEGORY,
        "note": f"qualified as *.{name} on {len(grades)} page(s); never bare elsewhere",
    }


def main() -> None:
    """Write the dataset next to this file."""
    texts = {page: read_page(DEFAULT_DOCS_ROOT / page).text for page in DEMO_PAGES}
    queries = build_queries(texts)
    OUT.write_text(json.dumps(queries, indent=1) + "\n", encoding="utf-8")
    print(f"{len(queries)} queries over {len(texts)} pages -> {OUT}")


if __name__ == "__main__":
    main()
