"""Documents back from what an index stores, for re-indexing: a document record gives the original content; an
index without records (mapping version 1) gives only chunks, so the text is rebuilt from them.

Within a section the chunker starts each chunk with the tail of the previous one (whole pieces, sentences or words,
at most `overlap_tokens`); across sections there is no overlap. So a section's text is its chunks in order, each
after the first without the longest prefix that ends the previous chunk (cut at whitespace on both sides); where no
such prefix exists the chunks are joined as paragraphs. Sections come back as Markdown headings (the heading path is
in each chunk's `section`, the heading text is the section's first paragraph), so re-chunking sees the same
paragraphs under the same headings; paragraphs that Markdown would read as markup are fenced, verbatim.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from search_platform.domain.models import ContentType, Document
from search_platform.text.chunking import PARAGRAPH_SEPARATOR, SECTION_SEPARATOR

MAX_HEADING_LEVEL = 6
MIN_FENCE = 3
_WHITESPACE = re.compile(r"\s+")
_TILDES = re.compile(r"~+")
_MARKUP_START = frozenset("#`~=-*_+")  # a line starting with one of these may be a heading, fence, rule or list


def overlap_length(previous: str, following: str) -> int:
    """Length of the longest prefix of `following` that ends `previous`, starting after whitespace in `previous`
    (or at its start) and followed by whitespace in `following`; 0 when there is none."""
    for match in reversed(list(_WHITESPACE.finditer(following))):
        size = match.start()
        if size == 0 or size > len(previous):
            continue
        if (size == len(previous) or previous[-size - 1].isspace()) and previous.endswith(following[:size]):
            return size
    return 0


def join_chunks(texts: Sequence[str]) -> str:
    """One section's text from its chunks in order, the overlap each chunk repeats from the one before removed."""
    if not texts:
        return ""
    parts = [texts[0]]
    for previous, following in itertools.pairwise(texts):
        size = overlap_length(previous, following)
        # the remainder after an overlap starts with the whitespace that separated the two in the source
        parts.append(following[size:] if size else PARAGRAPH_SEPARATOR + following)
    return "".join(parts)


def reconstruct_document(chunks: Iterable[Mapping[str, Any]]) -> Document:
    """A document from the stored chunks of one (tenant, doc_id): its text without overlaps, with its title, source,
    tags, lang and tenant; Markdown when the chunks had sections, else plain text."""
    ordered = sorted(chunks, key=lambda chunk: int(chunk["chunk_index"]))
    if not ordered:
        raise ValueError("no chunks to rebuild a document from")
    sections = [(section, join_chunks([str(chunk["text"]) for chunk in group]))
                for section, group in itertools.groupby(ordered, key=lambda chunk: str(chunk.get("section") or ""))]
    if any(section for section, _ in sections):
        content_type = ContentType.MARKDOWN
        content = PARAGRAPH_SEPARATOR.join(block for section, text in sections
                                           for block in markdown_section(section, text))
    else:
        content_type = ContentType.TEXT
        content = PARAGRAPH_SEPARATOR.join(text for _, text in sections)
    first = ordered[0]
    return Document(doc_id=str(first["doc_id"]), content=content, title=str(first.get("title") or ""),
                    content_type=content_type, source=str(first.get("source") or ""),
                    tags=tuple(str(tag) for tag in first.get("tags") or ()), lang=str(first.get("lang") or "en"),
                    tenant=str(first["tenant"]))


def markdown_section(section: str, text: str) -> list[str]:
    """The Markdown blocks of one section: its heading paragraphs as headings at their depth, then its paragraphs."""
    path = section.split(SECTION_SEPARATOR) if section else []
    paragraphs = [paragraph for paragraph in text.split(PARAGRAPH_SEPARATOR) if paragraph.strip()]
    shown = heading_count(path, paragraphs)
    depth = len(path) - shown
    headings = [f"{'#' * min(depth + n, MAX_HEADING_LEVEL)} {heading}"
                for n, heading in enumerate(paragraphs[:shown], start=1)]
    return headings + [fenced(paragraph) if needs_fence(paragraph) else paragraph
                       for paragraph in paragraphs[shown:]]


def heading_count(path: Sequence[str], paragraphs: Sequence[str]) -> int:
    """How many leading paragraphs are the last headings of the path (a heading with no body text of its own sits
    in the same section as the heading below it)."""
    for count in range(min(len(path), len(paragraphs)), 0, -1):
        leading = list(paragraphs[:count])
        if leading == list(path[-count:]) and not any("\n" in heading for heading in leading):
            return count
    return 0


def needs_fence(paragraph: str) -> bool:
    """Whether Markdown might read a line of the paragraph as markup (heading, fence, rule, list, continuation)."""
    return any(line[:1].isspace() or line.lstrip()[:1] in _MARKUP_START or line.lstrip()[:1].isdigit()
               for line in paragraph.split("\n"))


def fenced(paragraph: str) -> str:
    """The paragraph as a fenced block that no line inside can close, so Markdown keeps it verbatim."""
    longest = max((len(run) for run in _TILDES.findall(paragraph)), default=0)
    fence = "~" * max(MIN_FENCE, longest + 1)
    return f"{fence}\n{paragraph}\n{fence}"


def document_from_record(source: Mapping[str, Any]) -> Document:
    """The document a document record was made from: its original content and what was submitted with it."""
    return Document(doc_id=str(source["doc_id"]), content=str(source["content"]), title=str(source.get("title") or ""),
                    content_type=ContentType(str(source.get("content_type") or ContentType.TEXT.value)),
                    source=str(source.get("source") or ""), tags=tuple(str(tag) for tag in source.get("tags") or ()),
                    lang=str(source.get("lang") or "en"), tenant=str(source["tenant"]))
