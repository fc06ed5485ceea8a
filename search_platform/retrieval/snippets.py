"""Client-side snippets for hits Elasticsearch did not highlight: the passage of a chunk richest in query terms."""

from __future__ import annotations

import re

SNIPPET_CHARS = 150
WORD = re.compile(r"\w+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in", "is", "it",
    "its", "of", "on", "or", "should", "that", "the", "this", "to", "was", "what", "when", "where", "which", "who",
    "why", "will", "with",
})


def query_terms(query: str) -> frozenset[str]:
    """The query's lower-cased words, without stopwords."""
    return frozenset(word.lower() for word in WORD.findall(query)) - STOPWORDS


def windows(sentence: str, *, max_chars: int) -> list[str]:
    """A sentence cut at word boundaries into pieces of at most max_chars (a longer single word stays whole)."""
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        candidate = f"{current} {word}" if current else word
        if len(candidate) > max_chars and current:
            pieces.append(current)
            current = word
        else:
            current = candidate
    return [*pieces, current] if current else pieces


def passages(text: str, *, max_chars: int = SNIPPET_CHARS) -> list[str]:
    """The text's sentences, whitespace collapsed, each longer than max_chars cut into windows."""
    sentences = SENTENCE_END.split(" ".join(text.split()))
    return [piece for sentence in sentences for piece in windows(sentence, max_chars=max_chars)]


def overlap(passage: str, terms: frozenset[str]) -> int:
    """How many distinct query terms the passage contains."""
    return len(terms & {word.lower() for word in WORD.findall(passage)})


def mark(passage: str, terms: frozenset[str]) -> str:
    """The passage with each query term wrapped in <em>...</em>, as Elasticsearch's highlighter does."""
    return WORD.sub(lambda m: f"<em>{m.group(0)}</em>" if m.group(0).lower() in terms else m.group(0), passage)


def best_snippet(text: str, query: str, *, max_chars: int = SNIPPET_CHARS) -> str:
    """The passage sharing the most query terms (the earliest on a tie), terms marked; with no overlap at all,
    the text's first max_chars characters."""
    terms = query_terms(query)
    candidates = passages(text, max_chars=max_chars)
    best = max(candidates, key=lambda passage: overlap(passage, terms), default="")
    if not best or overlap(best, terms) == 0:
        return " ".join(text.split())[:max_chars]
    return mark(best, terms)
