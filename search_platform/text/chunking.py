"""Pack TextBlocks into chunks that fit the embedding model's window, overlapping within a section.

Token counts are taken per piece (paragraph, sentence or word window) and summed: for WordPiece tokenizers the
count of `a + whitespace + b` equals count(a) + count(b), because pre-tokenization splits on whitespace first.
Each finished chunk is counted once more as a whole, and if a non-additive tokenizer pushed it over the limit its
last pieces move to the next chunk, so no chunk ever exceeds max_tokens. So each input token is counted about
twice (in its piece, then in its chunk) plus the overlap: linear, never a recount per appended piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from search_platform.domain.models import TextBlock

CountTokens = Callable[[str], int]

SECTION_SEPARATOR = " > "
PARAGRAPH_SEPARATOR = "\n\n"

_SENTENCE_END = re.compile(r"([.!?][\"')\]]*)\s+")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class ChunkText:
    """The text of one chunk, the heading path it sits under and its exact token count."""

    text: str
    section: str
    token_count: int


@dataclass(frozen=True, slots=True)
class _Piece:
    paragraph: int  # index into the section's paragraphs
    start: int
    end: int
    tokens: int


@dataclass(slots=True)
class _Section:
    headings: tuple[str, ...]
    paragraphs: list[str]
    has_body: bool


def chunk_blocks(
    blocks: Sequence[TextBlock], *, max_tokens: int, overlap_tokens: int, count_tokens: CountTokens
) -> list[ChunkText]:
    """Greedily pack paragraphs into chunks of at most max_tokens, a new chunk at every heading."""
    if max_tokens < 1 or not 0 <= overlap_tokens < max_tokens:
        raise ValueError("need max_tokens >= 1 and 0 <= overlap_tokens < max_tokens")
    chunks: list[ChunkText] = []
    for section in _sections(blocks):
        packer = _Packer(section, max_tokens, overlap_tokens, count_tokens)
        chunks.extend(packer.pack(_pieces(section.paragraphs, max_tokens, overlap_tokens, count_tokens)))
    return chunks


def hf_token_counter(tokenizer: Callable[..., Mapping[str, Any]]) -> CountTokens:
    """Count tokens with a HuggingFace tokenizer, without the special tokens ([CLS], [SEP]) it would add."""

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    return count


def _sections(blocks: Sequence[TextBlock]) -> list[_Section]:
    """Group blocks into sections: a heading opens one; a heading with no body joins the subsection below it."""
    sections: list[_Section] = []
    for block in blocks:
        text = block.text.strip()
        if not text:
            continue
        last = sections[-1] if sections else None
        if last is not None and not block.is_heading and block.headings == last.headings:
            last.paragraphs.append(text)
            last.has_body = True
        elif last is not None and not last.has_body and _is_below(block.headings, last.headings):
            last.headings = block.headings
            last.paragraphs.append(text)
            last.has_body = not block.is_heading
        else:
            sections.append(_Section(block.headings, [text], has_body=not block.is_heading))
    return sections


def _is_below(headings: tuple[str, ...], parent: tuple[str, ...]) -> bool:
    """Whether a heading path lies strictly inside another."""
    return len(headings) > len(parent) and headings[: len(parent)] == parent


def _pieces(paragraphs: list[str], max_tokens: int, overlap_tokens: int, count: CountTokens) -> list[_Piece]:
    """Whole paragraphs when they fit; else their sentences; else word windows leaving room for the overlap."""
    pieces: list[_Piece] = []
    for index, text in enumerate(paragraphs):
        tokens = count(text)
        if tokens <= max_tokens:
            pieces.append(_Piece(index, 0, len(text), tokens))
            continue
        for start, end in _sentence_spans(text, 0, len(text)):
            tokens = count(text[start:end])
            if tokens <= max_tokens:
                pieces.append(_Piece(index, start, end, tokens))
            else:
                pieces.extend(_word_windows(index, text, start, end, max_tokens - overlap_tokens, count))
    return pieces


def _sentence_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Spans of the sentences in text[start:end], whitespace between them excluded."""
    position = start
    for match in _SENTENCE_END.finditer(text, start, end):
        yield position, match.end(1)
        position = match.end()
    if position < end:
        yield position, end


def _word_windows(paragraph: int, text: str, start: int, end: int, limit: int, count: CountTokens) -> list[_Piece]:
    """Greedy runs of whole words of at most limit tokens, each checked as a whole (and bisected if over)."""
    spans: list[tuple[int, int]] = []
    first: int | None = None
    last, total = start, 0
    for word in _WORD.finditer(text, start, end):
        for piece in _fitting(paragraph, text, word.start(), word.end(), limit, count):
            if first is not None and total + piece.tokens > limit:
                spans.append((first, last))
                first = None
            if first is None:
                first, total = piece.start, 0
            last, total = piece.end, total + piece.tokens
    if first is not None:
        spans.append((first, last))
    return [fitted for span in spans for fitted in _fitting(paragraph, text, *span, limit, count)]


def _fitting(paragraph: int, text: str, start: int, end: int, limit: int, count: CountTokens) -> list[_Piece]:
    """text[start:end] as one piece if it counts within limit, else its halves, recursively (down to a character)."""
    tokens = count(text[start:end])
    if tokens <= limit or end - start == 1:
        return [_Piece(paragraph, start, end, tokens)]
    left_end, right_start = _cut_point(text, start, end)
    return _fitting(paragraph, text, start, left_end, limit, count) + _fitting(
        paragraph, text, right_start, end, limit, count
    )


def _cut_point(text: str, start: int, end: int) -> tuple[int, int]:
    """Where to halve a span: at the last space or newline before its middle, else mid-word."""
    middle = (start + end) // 2
    space = max(text.rfind(" ", start + 1, middle + 1), text.rfind("\n", start + 1, middle + 1))
    if space <= start:
        return middle, middle
    return start + len(text[start:space].rstrip()), end - len(text[space:end].lstrip())


@dataclass(slots=True)
class _Packer:
    """Fills chunks of one section with pieces, each chunk after the first opening with the previous one's tail."""

    section: _Section
    max_tokens: int
    overlap_tokens: int
    count: CountTokens
    chunks: list[ChunkText] = field(default_factory=list)
    current: list[_Piece] = field(default_factory=list)
    total: int = 0
    fresh: int = 0

    def pack(self, pieces: list[_Piece]) -> list[ChunkText]:
        """All chunks of the section, in order."""
        index = 0
        while index < len(pieces):
            if self.fresh and self.total + pieces[index].tokens > self.max_tokens:
                index = self._emit_then_overlap(pieces, index)
                continue
            self.current.append(pieces[index])
            self.total += pieces[index].tokens
            self.fresh += 1
            index += 1
            if index == len(pieces):
                index = self._emit_then_overlap(pieces, index)
        return self.chunks

    def _emit_then_overlap(self, pieces: list[_Piece], index: int) -> int:
        """Emit the current chunk, start the next with its tail; return where packing resumes."""
        kept, returned = self._emit()
        index -= returned
        self.current, self.total, self.fresh = [], 0, 0
        if index < len(pieces):
            budget = min(self.overlap_tokens, self.max_tokens - pieces[index].tokens)
            self.current = self._tail(kept, budget)
            self.total = sum(piece.tokens for piece in self.current)
        return index

    def _emit(self) -> tuple[list[_Piece], int]:
        """Emit the longest prefix that truly fits (overlap dropped if need be); return it and pieces left over."""
        kept = list(self.current)
        overlap, returned = len(kept) - self.fresh, 0
        while True:
            text = self._join(kept)
            tokens = self.count(text)
            if tokens <= self.max_tokens or len(kept) == 1:
                self.chunks.append(ChunkText(text, SECTION_SEPARATOR.join(self.section.headings), tokens))
                return kept, returned
            if len(kept) - overlap > 1:
                kept.pop()
                returned += 1
            else:
                kept, overlap = kept[overlap:], 0

    def _join(self, pieces: list[_Piece]) -> str:
        """The text of consecutive pieces: a paragraph's pieces as in the source, paragraphs a blank line apart."""
        parts: list[str] = []
        run_start = 0
        for position, piece in enumerate(pieces):
            following = pieces[position + 1] if position + 1 < len(pieces) else None
            if following is None or following.paragraph != piece.paragraph or following.start < piece.end:
                parts.append(self.section.paragraphs[piece.paragraph][pieces[run_start].start : piece.end])
                run_start = position + 1
        return PARAGRAPH_SEPARATOR.join(parts)

    def _tail(self, pieces: list[_Piece], budget: int) -> list[_Piece]:
        """Trailing whole pieces within budget tokens; if not even the last fits, its trailing sentences or words."""
        tail: list[_Piece] = []
        if budget <= 0:
            return tail
        for piece in reversed(pieces):
            if piece.tokens > budget:
                if not tail:
                    tail = self._trailing_part(piece, budget)
                break
            tail.insert(0, piece)
            budget -= piece.tokens
        return tail

    def _trailing_part(self, piece: _Piece, budget: int) -> list[_Piece]:
        """The last sentences of a piece that fit the budget, else the last words of its last sentence."""
        text = self.section.paragraphs[piece.paragraph]
        sentences = list(_sentence_spans(text, piece.start, piece.end))
        part: list[_Piece] = []
        for start, end in reversed(sentences):
            tokens = self.count(text[start:end])
            if tokens > budget:
                break
            part.insert(0, _Piece(piece.paragraph, start, end, tokens))
            budget -= tokens
        return part or self._trailing_words(piece.paragraph, text, *sentences[-1], budget)

    def _trailing_words(self, paragraph: int, text: str, start: int, end: int, budget: int) -> list[_Piece]:
        """The longest run of whole words ending the span whose tokens fit the budget."""
        first, tokens = end, 0
        for word in reversed(list(_WORD.finditer(text, start, end))):
            word_tokens = self.count(word.group())
            if tokens + word_tokens > budget:
                break
            first, tokens = word.start(), tokens + word_tokens
        return [_Piece(paragraph, first, end, tokens)] if tokens else []
