"""Plain text, Markdown and HTML into TextBlocks: paragraphs with the heading path they sit under.

A heading block's `headings` ends with the heading itself. Parsing never raises on bad markup: malformed HTML
yields best-effort text.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from search_platform.domain.models import ContentType, TextBlock
from search_platform.text.normalize import collapse_whitespace, normalize_text, shorten

TITLE_MAX_CHARS = 120

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_FRONT_MATTER = re.compile(r"---[ \t]*\n(.*?)\n---[ \t]*(?:\n|$)", re.DOTALL)
_FRONT_MATTER_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)(.*)")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_THEMATIC_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_LIST_CONTINUATION = re.compile(r"(?: {2,}|\t)\S")
_TAG = re.compile(r"<[^<>]*>")
_MARKUP = re.compile(r"""</?[A-Za-z][^<>"']*(?:(?:"[^"<]*"|'[^'<]*')[^<>"']*)*>|<[!?][^<>]*>""")
_SPHINX_TITLE_SEPARATOR = " \u2014 "

_HEADING_LEVELS = {f"h{level}": level for level in range(1, 7)}
_BLOCK_TAGS = frozenset({"p", "li", "pre", "dd", "dt", "td", "th", "blockquote", "caption", "figcaption"})
_CONTAINER_TAGS = frozenset(
    {"article", "aside", "body", "div", "dl", "hr", "main", "ol", "section", "table", "tr", "ul"}
)
_BOUNDARY_TAGS = _BLOCK_TAGS | _HEADING_LEVELS.keys() | _CONTAINER_TAGS
_SKIP_TAGS = frozenset({"script", "style", "nav", "footer", "form", "noscript", "template", "title", "svg", "button"})
_SKIP_CLASSES = frozenset({"sphinxsidebar", "related", "footer", "headerlink"})
_SKIP_ROLES = frozenset({"navigation", "search"})
_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)


@dataclass(frozen=True, slots=True)
class _Segment:
    text: str
    level: int = 0  # 1-6 for a heading, 0 for body text


@dataclass(frozen=True, slots=True)
class _Parsed:
    segments: list[_Segment]
    title: str = ""


def parse_blocks(content: str, content_type: ContentType) -> list[TextBlock]:
    """Split a document into paragraph and heading blocks, each carrying its heading path."""
    return _with_heading_paths(_PARSERS[content_type](normalize_text(content)).segments)


def extract_title(content: str, content_type: ContentType) -> str:
    """The document's title: HTML <title> or Markdown front matter, else the first h1/#, else its first line."""
    parsed = _PARSERS[content_type](normalize_text(content))
    h1 = next((segment.text for segment in parsed.segments if segment.level == 1), "")
    first_line = parsed.segments[0].text.strip().split("\n", 1)[0] if parsed.segments else ""
    return shorten(parsed.title or h1 or first_line, TITLE_MAX_CHARS)


def _with_heading_paths(segments: list[_Segment]) -> list[TextBlock]:
    """Turn segments into blocks, tracking the path of enclosing headings by level."""
    path: list[tuple[int, str]] = []
    blocks = []
    for segment in segments:
        if segment.level:
            while path and path[-1][0] >= segment.level:
                path.pop()
            path.append((segment.level, segment.text))
        headings = tuple(text for _, text in path)
        blocks.append(TextBlock(text=segment.text, headings=headings, is_heading=bool(segment.level)))
    return blocks


def _text_segments(content: str) -> _Parsed:
    """Paragraphs separated by blank lines; line breaks inside a paragraph are kept."""
    paragraphs = (_clean_lines(paragraph.split("\n")) for paragraph in _BLANK_LINE.split(content))
    return _Parsed([_Segment(paragraph) for paragraph in paragraphs if paragraph])


def _clean_lines(lines: list[str]) -> str:
    """Join lines with their trailing spaces removed, without leading or trailing blank lines."""
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _markdown_segments(content: str) -> _Parsed:
    """Headings, paragraphs, whole lists and whole fenced code blocks of a Markdown document."""
    title = ""
    front_matter = _FRONT_MATTER.match(content)
    if front_matter:
        found = _FRONT_MATTER_TITLE.search(front_matter.group(1))
        title = found.group(1).strip("'\"") if found else ""
        content = content[front_matter.end() :]
    reader = _MarkdownReader()
    for line in content.split("\n"):
        reader.feed(line)
    reader.finish()
    return _Parsed(reader.segments, title)


@dataclass(slots=True)
class _MarkdownReader:
    """A line-at-a-time Markdown block reader (the subset that matters for chunking)."""

    segments: list[_Segment] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    in_list: bool = False
    after_blank: bool = False
    fence: str = ""

    def feed(self, line: str) -> None:
        """Consume one line."""
        if self.fence:
            self._code_line(line)
        elif (fence := _FENCE.match(line)) and not _is_inline_code(line, fence):
            self.finish()
            self.fence = fence.group(1)
        elif heading := _ATX.match(line):
            self.finish()
            self._add(_atx_text(heading.group(2)), level=len(heading.group(1)))
        elif not line.strip():
            self._blank()
        elif self.lines and not self.in_list and _SETEXT.match(line):
            text = " ".join(part.strip() for part in self.lines)
            self.lines = []
            self._add(text, level=1 if line.strip().startswith("=") else 2)
        elif _THEMATIC_BREAK.match(line):
            self.finish()
        else:
            self._text_line(line)

    def finish(self) -> None:
        """Close the open paragraph, list or code block."""
        text = "\n".join(self.lines)
        self._add(text.strip("\n").rstrip() if self.fence else _clean_lines(self.lines).strip())
        self.lines, self.in_list, self.after_blank, self.fence = [], False, False, ""

    def _add(self, text: str, *, level: int = 0) -> None:
        if text.strip():
            self.segments.append(_Segment(text, level))

    def _code_line(self, line: str) -> None:
        stripped = line.strip()
        if stripped.startswith(self.fence) and not stripped.strip(self.fence[0]):
            self.finish()
        else:
            self.lines.append(line)

    def _blank(self) -> None:
        if self.in_list:
            self.after_blank = True
        else:
            self.finish()

    def _text_line(self, line: str) -> None:
        continues_list = _LIST_ITEM.match(line) is not None or _LIST_CONTINUATION.match(line) is not None
        if self.after_blank and not continues_list:
            self.finish()
        self.in_list = self.in_list or _LIST_ITEM.match(line) is not None
        self.after_blank = False
        self.lines.append(line)


def _atx_text(text: str) -> str:
    """Heading text without an optional closing run of #s (which must follow a space: `# C#` keeps its #)."""
    text = text.strip()
    unclosed = text.rstrip("#")
    return unclosed.rstrip() if not unclosed or unclosed[-1] in " \t" else text


def _is_inline_code(line: str, fence: re.Match[str]) -> bool:
    """A backtick run followed by more backticks on the same line is inline code, not a fence."""
    return fence.group(1)[0] == "`" and "`" in line[fence.end() :]


def _sphinx_title(title: str) -> str:
    """Drop the " — Project documentation" suffix Sphinx appends to every page title."""
    head, separator, tail = title.rpartition(_SPHINX_TITLE_SEPARATOR)
    return head if separator and tail.endswith("documentation") else title


def _html_segments(content: str) -> _Parsed:
    """Text blocks of an HTML page, main content only when the page marks it; best effort on bad markup."""
    parser = _BlockHTMLParser()
    try:
        parser.feed(_escape_stray_brackets(content))
        parser.close()
    except (AssertionError, ValueError):
        return _text_segments(html.unescape(_TAG.sub("\n\n", content)))
    title = _sphinx_title(collapse_whitespace(parser.title))
    return _Parsed(parser.segments(), title)


def _escape_stray_brackets(content: str) -> str:
    """Escape every < that does not start well-formed markup; drop an unclosed comment and what follows.

    html.parser rescans to the end of the input for each malformed tag (quadratic time on hostile pages); after
    this pass every tag it sees ends at the next >, and this pass itself is linear.
    """
    out: list[str] = []
    position = 0
    while (start := content.find("<", position)) >= 0:
        out.append(content[position:start])
        if content.startswith("<!--", start):
            end = content.find("-->", start + 4)
            position = len(content) if end < 0 else end + 3
            out.append(content[start:position] if end >= 0 else "")
        elif markup := _MARKUP.match(content, start):
            out.append(markup.group())
            position = markup.end()
        else:
            out.append("&lt;")
            position = start + 1
    out.append(content[position:])
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Open:
    tag: str
    skip: bool
    main: bool


class _BlockHTMLParser(HTMLParser):
    """Collects text between block boundaries, skipping page chrome and remembering which text is main content."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self._stack: list[_Open] = []
        self._open_tags: Counter[str] = Counter()
        self._skip = self._main = self._pre = self._heading = 0
        self._has_main = False
        self._buffer: list[str] = []
        self._found: list[tuple[_Segment, bool]] = []

    def segments(self) -> list[_Segment]:
        """The collected segments, restricted to the main content when the page has one."""
        self._flush()
        return [segment for segment, in_main in self._found if in_main or not self._has_main]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open an element: flush at block boundaries, note chrome to skip and main content."""
        if tag in _BOUNDARY_TAGS:
            self._flush()
        if tag in _VOID_TAGS:
            if tag == "br" and not self._skip:
                self._buffer.append("\n")
            return
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        main = tag == "main" or (tag == "div" and (attributes.get("role") == "main" or "body" in classes))
        self._push(_Open(tag, self._is_chrome(tag, attributes.get("role"), classes), main))

    def handle_endtag(self, tag: str) -> None:
        """Close an element and any unclosed elements inside it; stray end tags are ignored."""
        if not self._open_tags[tag]:
            return
        closing: list[_Open] = []
        while not closing or closing[-1].tag != tag:
            closing.append(self._stack.pop())
        if any(element.tag in _BOUNDARY_TAGS for element in closing):
            self._flush()
        for element in closing:
            self._pop(element)

    def handle_data(self, data: str) -> None:
        """Buffer text outside skipped elements; keep the first <title>."""
        if self._stack and self._stack[-1].tag == "title" and not self.title and not self._open_tags["svg"]:
            self.title = data
        if not self._skip:
            self._buffer.append(data)

    def _is_chrome(self, tag: str, role: str | None, classes: set[str]) -> bool:
        """Navigation, sidebars, forms and scripts; a <header> only outside an article or the main content."""
        if tag == "header":
            return not (self._main or self._open_tags["article"])
        return tag in _SKIP_TAGS or bool(classes & _SKIP_CLASSES) or role in _SKIP_ROLES

    def _push(self, element: _Open) -> None:
        self._stack.append(element)
        self._open_tags[element.tag] += 1
        self._skip += element.skip
        self._main += element.main
        self._has_main = self._has_main or element.main
        self._pre += element.tag == "pre"
        self._heading = _HEADING_LEVELS.get(element.tag, self._heading)

    def _pop(self, element: _Open) -> None:
        self._open_tags[element.tag] -= 1
        self._skip -= element.skip
        self._main -= element.main
        self._pre -= element.tag == "pre"
        if element.tag in _HEADING_LEVELS:
            self._heading = 0

    def _flush(self) -> None:
        raw = "".join(self._buffer)
        self._buffer = []
        text = raw.strip("\n").rstrip() if self._pre else collapse_whitespace(raw)
        if text:
            self._found.append((_Segment(text, self._heading), self._main > 0))


_PARSERS: dict[ContentType, Callable[[str], _Parsed]] = {
    ContentType.TEXT: _text_segments,
    ContentType.MARKDOWN: _markdown_segments,
    ContentType.HTML: _html_segments,
}
