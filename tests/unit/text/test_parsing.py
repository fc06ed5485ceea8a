"""Parsing text, Markdown and HTML into TextBlocks with heading paths, and extracting titles."""

from __future__ import annotations

import time

import pytest

from search_platform.domain.models import ContentType, TextBlock
from search_platform.text.parsing import extract_title, parse_blocks

SPHINX_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>json &#8212; JSON encoder and decoder &#8212; Python 3.11.2 documentation</title>
  <script src="../_static/doctools.js"></script>
  <style>body { color: red; }</style>
</head>
<body>
<div class="mobile-nav"><nav class="nav-content" role="navigation"><a href="/">Logo</a></nav></div>
<div class="related" role="navigation"><h3>Navigation</h3><ul><li><a href="index.html">index</a></li></ul></div>
<div class="document">
  <div class="documentwrapper"><div class="bodywrapper">
    <div class="body" role="main">
<section id="module-json">
<h1><code class="xref py py-mod"><span class="pre">json</span></code> &#8212; JSON encoder and decoder<a
 class="headerlink" href="#module-json" title="Permalink to this heading">¶</a></h1>
<p><strong>Source code:</strong> <a href="x">Lib/json/__init__.py</a></p>
<p>JSON (JavaScript   Object
Notation) is a lightweight data&nbsp;interchange format &amp; more.</p>
<section id="basic-usage">
<h2>Basic Usage<a class="headerlink" href="#basic-usage">¶</a></h2>
<dl class="py function">
<dt class="sig sig-object py" id="json.dumps"><span class="sig-prename descclassname"><span
 class="pre">json.</span></span><span class="sig-name descname"><span class="pre">dumps</span></span>(<em
 class="sig-param">obj</em>)<a class="headerlink" href="#json.dumps">¶</a></dt>
<dd><p>Serialize <em>obj</em> to a JSON formatted <code>str</code>.</p>
<div class="highlight-python3"><div class="highlight"><pre><span></span><span
 class="gp">&gt;&gt;&gt; </span>json.dumps([1, 2])
<span class="go">&#39;[1, 2]&#39;</span>
    indented   line
</pre></div></div>
</dd></dl>
<ul><li><p>first item</p></li><li>second item</li></ul>
<blockquote><div><p>quoted text</p></div></blockquote>
<table><tr><th>Python</th><td>JSON</td></tr></table>
<section id="character-encodings">
<h3>Character Encodings<a class="headerlink" href="#character-encodings">¶</a></h3>
<p>RFC 7159 requires UTF-8.</p>
</section>
</section>
</section>
    </div>
  </div></div>
  <div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><p>sidebar text</p></div>
</div>
<div class="footer">&copy; Copyright 2001-2023. <form><input name="q"/></form></div>
</body>
</html>
"""

JSON_H1 = "json — JSON encoder and decoder"


def test_plain_text_splits_paragraphs_on_blank_lines() -> None:
    content = "First line\nsecond line  \n\n \n\nSecond paragraph.\r\n\r\nThird\u200b one\n"
    assert parse_blocks(content, ContentType.TEXT) == [
        TextBlock("First line\nsecond line"),
        TextBlock("Second paragraph."),
        TextBlock("Third one"),
    ]


def test_empty_content_has_no_blocks() -> None:
    for content_type in ContentType:
        assert parse_blocks("", content_type) == []
        assert parse_blocks("  \n\n  ", content_type) == []
        assert extract_title("", content_type) == ""


def test_markdown_headings_set_the_heading_path() -> None:
    content = "# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n### Linux ###\n\napt.\n\n## Use\n\nCall it.\n"
    assert parse_blocks(content, ContentType.MARKDOWN) == [
        TextBlock("Guide", ("Guide",), is_heading=True),
        TextBlock("Intro.", ("Guide",)),
        TextBlock("Install", ("Guide", "Install"), is_heading=True),
        TextBlock("Run it.", ("Guide", "Install")),
        TextBlock("Linux", ("Guide", "Install", "Linux"), is_heading=True),
        TextBlock("apt.", ("Guide", "Install", "Linux")),
        TextBlock("Use", ("Guide", "Use"), is_heading=True),
        TextBlock("Call it.", ("Guide", "Use")),
    ]


def test_markdown_fenced_code_is_one_block_and_hides_headings() -> None:
    content = "# A\n\n```python\nimport os\n\n# not a heading\nos.getcwd()\n```\n\nAfter.\n"
    assert parse_blocks(content, ContentType.MARKDOWN) == [
        TextBlock("A", ("A",), is_heading=True),
        TextBlock("import os\n\n# not a heading\nos.getcwd()", ("A",)),
        TextBlock("After.", ("A",)),
    ]


def test_markdown_unclosed_fence_runs_to_the_end() -> None:
    content = "Text\n\n~~~~\ncode line\n\nmore code\n"
    assert parse_blocks(content, ContentType.MARKDOWN) == [TextBlock("Text"), TextBlock("code line\n\nmore code")]


def test_markdown_lists_stay_together() -> None:
    content = "Options:\n- one\n- two\n\n  continued\n- three\n\nProse.\n\n1. first\n\n2. second\nlazy\n\nEnd.\n"
    assert parse_blocks(content, ContentType.MARKDOWN) == [
        TextBlock("Options:\n- one\n- two\n  continued\n- three"),
        TextBlock("Prose."),
        TextBlock("1. first\n2. second\nlazy"),
        TextBlock("End."),
    ]


def test_markdown_details() -> None:
    content = (
        "---\ntitle: 'Front Title'\ntags: [a]\n---\n"
        "Setext Title\n============\n\nBody with ```inline``` code.\n\n***\n\n"
        "# Learn C#\n\nSub\n---\n\ntext\n\n#hashtag is not a heading\n"
    )
    assert parse_blocks(content, ContentType.MARKDOWN) == [
        TextBlock("Setext Title", ("Setext Title",), is_heading=True),
        TextBlock("Body with ```inline``` code.", ("Setext Title",)),
        TextBlock("Learn C#", ("Learn C#",), is_heading=True),
        TextBlock("Sub", ("Learn C#", "Sub"), is_heading=True),
        TextBlock("text", ("Learn C#", "Sub")),
        TextBlock("#hashtag is not a heading", ("Learn C#", "Sub")),
    ]
    assert extract_title(content, ContentType.MARKDOWN) == "Front Title"


def test_sphinx_page_keeps_only_main_content() -> None:
    h1, h2 = (JSON_H1,), (JSON_H1, "Basic Usage")
    h3 = (*h2, "Character Encodings")
    assert parse_blocks(SPHINX_PAGE, ContentType.HTML) == [
        TextBlock(JSON_H1, h1, is_heading=True),
        TextBlock("Source code: Lib/json/__init__.py", h1),
        TextBlock("JSON (JavaScript Object Notation) is a lightweight data interchange format & more.", h1),
        TextBlock("Basic Usage", h2, is_heading=True),
        TextBlock("json.dumps(obj)", h2),
        TextBlock("Serialize obj to a JSON formatted str.", h2),
        TextBlock(">>> json.dumps([1, 2])\n'[1, 2]'\n    indented   line", h2),
        TextBlock("first item", h2),
        TextBlock("second item", h2),
        TextBlock("quoted text", h2),
        TextBlock("Python", h2),
        TextBlock("JSON", h2),
        TextBlock("Character Encodings", h3, is_heading=True),
        TextBlock("RFC 7159 requires UTF-8.", h3),
    ]


def test_sphinx_title_drops_the_documentation_suffix() -> None:
    assert extract_title(SPHINX_PAGE, ContentType.HTML) == JSON_H1


def test_html_without_main_skips_chrome_only() -> None:
    content = (
        "<html><head><title>Page</title></head><body>"
        "<header><h1>Site name</h1></header>"
        "<article><header><h1>Article</h1></header><p>Body <b>bold</b><br>next</p>"
        "<script>var x = '<p>no</p>';</script></article>"
        "<nav><p>menu</p></nav><footer><p>foot</p></footer>"
        "loose text</body></html>"
    )
    assert parse_blocks(content, ContentType.HTML) == [
        TextBlock("Article", ("Article",), is_heading=True),
        TextBlock("Body bold next", ("Article",)),
        TextBlock("loose text", ("Article",)),
    ]
    assert extract_title(content, ContentType.HTML) == "Page"


def test_html_title_falls_back_to_first_h1_then_first_line() -> None:
    assert extract_title("<h2>Second</h2><h1>First &amp; best</h1>", ContentType.HTML) == "First & best"
    assert extract_title("<p>Just a paragraph</p>", ContentType.HTML) == "Just a paragraph"


@pytest.mark.parametrize(
    "content",
    [
        "<div><p>one<p>two</div></span><li>three",
        "<p>unclosed <b>bold",
        "<![]]><p>after</p>",
        "<p a='1>two</p>",
        "text < with > brackets & stray &bogus; entities",
        "</p></div></p>",
        "<!-- unclosed comment <p>hidden",
        "\x00<p>\x00nul</p>",
    ],
)
def test_malformed_html_gives_best_effort_text(content: str) -> None:
    blocks = parse_blocks(content, ContentType.HTML)
    assert all(isinstance(block, TextBlock) and block.text for block in blocks)


def test_malformed_html_keeps_its_text() -> None:
    assert [block.text for block in parse_blocks("<div><p>one<p>two</div></span><li>three", ContentType.HTML)] == [
        "one",
        "two",
        "three",
    ]
    assert [block.text for block in parse_blocks("a < b and c > d", ContentType.HTML)] == ["a < b and c > d"]


@pytest.mark.parametrize("pattern", ["<p", "<a b='>' ", '<p a="', "<!--", "<div>", '<a title="<'])
def test_hostile_html_parses_in_linear_time(pattern: str) -> None:
    started = time.perf_counter()
    parse_blocks(pattern * 100_000, ContentType.HTML)
    assert time.perf_counter() - started < 5.0


def test_text_title_is_the_shortened_first_line() -> None:
    assert extract_title("\n\n  Release notes \nmore\n\nbody", ContentType.TEXT) == "Release notes"
    long_line = "word " * 100
    title = extract_title(long_line, ContentType.TEXT)
    assert len(title) <= 120
    assert title.endswith("word…")


def test_markdown_title_is_the_first_level_one_heading() -> None:
    assert extract_title("## Sub\n\n# Main Title #\n\ntext", ContentType.MARKDOWN) == "Main Title"
    assert extract_title("No heading here\nsecond", ContentType.MARKDOWN) == "No heading here"
