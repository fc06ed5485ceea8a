"""Word overlap between golden-set queries and the pages that answer them, per category; and the corpus size.

Run from the repository root (needs the python3.11-doc package):

    .venv/bin/python datasets/golden/overlap.py

For each query, "content words" are its lowercase [a-z0-9_]+ words of two or more characters that are not English
stop words, made singular. Against the best page graded 2 (or each expected page if ungraded) it
reports: the fraction of content words that occur anywhere in the page text, the same fraction weighted by
inverse document frequency over the demo pages (shared rare words count more than shared common ones), and the
number of content words shared with the page title. Exit status 1 if a conceptual query shares more than
MAX_CONCEPTUAL_TITLE_WORDS content words with the title of a page that answers it.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

from search_platform.evaluation.demo_corpus import DEFAULT_DOCS_ROOT, DEMO_PAGES, PageText, read_page

GOLDEN = Path(__file__).with_name("python-docs.json")
CATEGORIES = ("exact_match", "conceptual", "mixed")
MAX_CONCEPTUAL_TITLE_WORDS = 1
_STOPWORD_LIST = (
    "a about after all also an and any are as at be because been before being but by can could did do does "
    "doing done each for from get gets getting had has have how i if in into is it its just let like make me "
    "more most my no not of on one only or other our out over own same should so some such than that the their "
    "them then there these they this those to too up use using very was way we were what when where which while "
    "who why will with without would you your"
)
STOPWORDS = frozenset(_STOPWORD_LIST.split())
_WORD = re.compile(r"[a-z0-9_]+")
_ES_PLURALS = ("sses", "shes", "ches", "xes", "zes")


def singular(word: str) -> str:
    """A crude English singular: directories -> directory, classes -> class, paths -> path."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(_ES_PLURALS):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> list[str]:
    """Lowercase words of two or more characters, stop words removed, plurals made singular."""
    return [singular(w) for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS]


@dataclass(frozen=True, slots=True)
class Page:
    """The vocabulary and title words of one demo page."""

    words: frozenset[str]
    title_words: frozenset[str]


@dataclass(frozen=True, slots=True)
class QueryOverlap:
    """How much of one query's wording its answer page already contains."""

    query: str
    category: str
    page: str
    text_overlap: float
    weighted_overlap: float
    title_shared: tuple[str, ...]


def page_vocabulary(page: PageText) -> Page:
    """The content words of a page's text and of its title."""
    return Page(frozenset(content_words(page.text)), frozenset(content_words(page.title)))


def read_pages(docs_root: Path) -> dict[str, PageText]:
    """Title and text of every demo page."""
    return {doc_id: read_page(docs_root / doc_id) for doc_id in DEMO_PAGES}


def answer_pages(item: dict[str, Any]) -> list[str]:
    """The pages that answer a query: those graded 2, or every expected page when the query is ungraded."""
    grades: dict[str, int] = item.get("relevance") or {}
    best = [doc_id for doc_id, grade in grades.items() if grade >= 2]
    return best or list(item["expected_doc_ids"])


def measure(golden: list[dict[str, Any]], pages: dict[str, Page]) -> list[QueryOverlap]:
    """Each query's overlap with the answer page sharing most of its words, and its largest answer-title overlap."""
    document_frequency = Counter(word for page in pages.values() for word in page.words)
    idf = {w: math.log((len(pages) + 1) / (document_frequency[w] + 0.5)) for w in document_frequency}
    unseen_idf = math.log((len(pages) + 1) / 0.5)
    results = []
    for item in golden:
        words = set(content_words(item["query"]))
        weight = sum(idf.get(w, unseen_idf) for w in words) or 1.0

        def score(doc_id: str, words: set[str] = words, weight: float = weight) -> tuple[float, float]:
            shared = words & pages[doc_id].words
            return len(shared) / max(len(words), 1), sum(idf[w] for w in shared) / weight

        answers = answer_pages(item)
        best = max(answers, key=score)
        title_shared = max((tuple(sorted(words & pages[d].title_words)) for d in answers), key=len)
        results.append(QueryOverlap(item["query"], item["category"], best, *score(best), title_shared))
    return results


def title_violations(results: list[QueryOverlap]) -> list[QueryOverlap]:
    """Conceptual queries sharing more than the allowed number of content words with an answer page's title."""
    return [r for r in results if r.category == "conceptual" and len(r.title_shared) > MAX_CONCEPTUAL_TITLE_WORDS]


def report(results: list[QueryOverlap], texts: dict[str, PageText]) -> str:
    """A plain-text report: corpus size, then overlap per category."""
    total_chars = sum(len(page.text) for page in texts.values())
    lines = [
        f"corpus: {len(texts)} pages, {total_chars:,} characters of main-body text",
        "",
        f"{'category':<12} {'queries':>7} {'text overlap':>13} {'idf-weighted':>13} {'title words':>12}",
    ]
    for category in (*CATEGORIES, "all"):
        rows = [r for r in results if category in ("all", r.category)]
        if rows:
            lines.append(
                f"{category:<12} {len(rows):>7} {mean(r.text_overlap for r in rows):>13.2f} "
                f"{mean(r.weighted_overlap for r in rows):>13.2f} {mean(len(r.title_shared) for r in rows):>12.2f}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the overlap report; exit 1 if a conceptual query breaks the title rule."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    parser.add_argument("--docs-root", type=Path, default=DEFAULT_DOCS_ROOT)
    parser.add_argument("--per-query", action="store_true", help="also list every query's figures")
    args = parser.parse_args(argv)
    texts = read_pages(args.docs_root)
    pages = {doc_id: page_vocabulary(page) for doc_id, page in texts.items()}
    results = measure(json.loads(args.golden.read_text(encoding="utf-8")), pages)
    print(report(results, texts))
    if args.per_query:
        for r in sorted(results, key=lambda r: (r.category, -r.weighted_overlap)):
            print(f"{r.category:<12} {r.text_overlap:.2f} {r.weighted_overlap:.2f} {r.query!r} -> {r.page}")
    violations = title_violations(results)
    for r in violations:
        print(f"conceptual query shares {r.title_shared} with the title of {r.page}: {r.query!r}", file=sys.stderr)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
