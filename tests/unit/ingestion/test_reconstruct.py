import itertools
from dataclasses import asdict

import pytest

from search_platform.config import ChunkingSettings
from search_platform.domain.models import ContentType, Document
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.ingestion.pipeline import chunk_document, document_body
from search_platform.ingestion.reconstruct import (
    document_from_record,
    fenced,
    heading_count,
    join_chunks,
    markdown_section,
    needs_fence,
    overlap_length,
    reconstruct_document,
)
from search_platform.text.normalize import collapse_whitespace

CHUNKING = ChunkingSettings(max_tokens=24, overlap_tokens=8)
count = FakeEmbedder().count_tokens


def sentences(label: str, n: int) -> str:
    return " ".join(f"{label} sentence {i} mentions item {label}{i * 7}." for i in range(n))


def stored(document: Document, chunking: ChunkingSettings = CHUNKING) -> list[dict[str, object]]:
    """The _source of the chunks a version-1 index holds for a document (no embedding, no kind)."""
    return [{"doc_id": c.doc_id, "chunk_index": c.chunk_index, "text": c.text, "title": c.title,
             "section": c.section, "source": c.source, "tags": list(c.tags), "lang": c.lang, "tenant": c.tenant}
            for c in chunk_document(document, chunking=chunking, count_tokens=count)]


def chunk_view(document: Document, chunking: ChunkingSettings = CHUNKING) -> list[tuple[int, str, str, str]]:
    return [(c.chunk_index, c.text, c.section, c.title)
            for c in chunk_document(document, chunking=chunking, count_tokens=count)]


# --- overlap removal --------------------------------------------------------------------------------------------

def test_overlap_is_the_longest_prefix_that_ends_the_previous_chunk():
    previous = "One two three. Four five six."
    following = "Four five six. Seven eight."
    assert overlap_length(previous, following) == len("Four five six.")
    assert join_chunks([previous, following]) == "One two three. Four five six. Seven eight."


def test_overlap_across_paragraphs_keeps_the_paragraph_break():
    previous = "First paragraph.\n\nSecond paragraph ends here."
    following = "Second paragraph ends here.\n\nThird paragraph."
    assert join_chunks([previous, following]) == "First paragraph.\n\nSecond paragraph ends here.\n\nThird paragraph."


def test_overlap_must_start_at_a_word_boundary_of_the_previous_chunk():
    # "ending." ends "the ending." but "ending." is only part of a word ("nding." would be worse): no cut mid-word
    assert overlap_length("a pre-ending.", "ending. next") == 0
    assert overlap_length("a pre ending.", "ending. next") == len("ending.")


def test_no_overlap_joins_as_paragraphs():
    assert overlap_length("alpha beta.", "gamma delta.") == 0
    assert join_chunks(["alpha beta.", "gamma delta."]) == "alpha beta.\n\ngamma delta."


def test_a_whole_previous_chunk_can_be_the_overlap():
    assert overlap_length("Short.", "Short. Then more.") == len("Short.")
    assert join_chunks(["Short.", "Short. Then more."]) == "Short. Then more."


def test_the_overlap_never_swallows_the_whole_following_chunk():
    assert overlap_length("x y z", "y z") == 0  # a chunk always has text of its own after the overlap


def test_join_of_three_chunks_uses_each_neighbour():
    texts = ["a b c d.", "c d. e f g.", "f g. h i."]
    assert join_chunks(texts) == "a b c d. e f g. h i."
    assert join_chunks([]) == ""


# --- headings and fences ----------------------------------------------------------------------------------------

def test_heading_count_matches_the_end_of_the_path():
    assert heading_count(["A", "B"], ["B", "body"]) == 1
    assert heading_count(["A", "B"], ["A", "B", "body"]) == 2
    assert heading_count(["A", "B"], ["body"]) == 0
    assert heading_count([], ["body"]) == 0
    assert heading_count(["A"], ["A\nB", "body"]) == 0  # an ATX heading is one line


def test_markdown_section_puts_headings_at_their_depth():
    assert markdown_section("Guide > Install", "Install\n\nRun it.") == ["## Install", "Run it."]
    assert markdown_section("Guide > Install", "Guide\n\nInstall\n\nRun it.") == ["# Guide", "## Install", "Run it."]
    assert markdown_section("", "Plain.") == ["Plain."]


def test_paragraphs_markdown_would_misread_are_fenced_verbatim():
    for paragraph in ("# not a heading", "- a list", "1. first", "text\n===", "```", "  indented", "***"):
        assert needs_fence(paragraph), paragraph
    assert not needs_fence("Plain prose, with punctuation: fine.")
    assert fenced("a ~~~~ b") == "~~~~~\na ~~~~ b\n~~~~~"
    assert fenced("code") == "~~~\ncode\n~~~"


# --- documents back from chunks: re-chunking gives the same chunks ------------------------------------------------

ROUND_TRIPS = [
    Document(doc_id="plain", tenant="t1", title="Plain", source="s", tags=("a", "b"), lang="en",
             content="\n\n".join(sentences(f"P{n}", 9) for n in range(6))),
    Document(doc_id="one-long-paragraph", tenant="t2", content=sentences("L", 40)),
    Document(doc_id="words", tenant="t1", content=" ".join(f"word{n}" for n in range(150))),
    Document(doc_id="md", tenant="t1", content_type=ContentType.MARKDOWN, content="\n\n".join([
        "# Guide", "Intro text here.", "## Install", sentences("I", 8), "### Linux", sentences("X", 5),
        "## Usage", "- item one\n- item two", "```\n# a shell comment\nrun --flag\n```", sentences("U", 7),
        "# Appendix", "## Notes", "Last words."])),
    Document(doc_id="html", tenant="t3", content_type=ContentType.HTML,
             content="<h1>Top</h1><p>" + sentences("H", 6) + "</p><h2>Sub</h2><p>Sub text.</p><pre>1. code</pre>"),
]


@pytest.mark.parametrize("document", ROUND_TRIPS, ids=lambda d: d.doc_id)
def test_reconstructed_document_rechunks_to_the_same_chunks(document):
    chunks = stored(document)
    assert len(chunks) > 1, "each case must span several chunks"
    rebuilt = reconstruct_document(reversed(chunks))  # the order chunks are read in does not matter
    assert chunk_view(rebuilt) == chunk_view(document)
    assert collapse_whitespace(document_body(rebuilt)) == collapse_whitespace(document_body(document))


@pytest.mark.parametrize("document", ROUND_TRIPS[:3], ids=lambda d: d.doc_id)
def test_plain_chunks_overlap_and_the_overlap_is_removed(document):
    chunks = stored(document)
    texts = [str(chunk["text"]) for chunk in chunks]
    assert all(overlap_length(a, b) for a, b in itertools.pairwise(texts)), "every chunk repeats a tail"
    rebuilt = reconstruct_document(chunks).content
    assert len(rebuilt) < len("\n\n".join(texts))
    assert collapse_whitespace(rebuilt) == collapse_whitespace(document.content)


def test_reconstruction_keeps_the_labels():
    document = ROUND_TRIPS[0]
    rebuilt = reconstruct_document(stored(document))
    assert (rebuilt.doc_id, rebuilt.tenant, rebuilt.title, rebuilt.source, rebuilt.tags, rebuilt.lang) == (
        "plain", "t1", "Plain", "s", ("a", "b"), "en")
    assert rebuilt.content_type is ContentType.TEXT
    assert reconstruct_document(stored(ROUND_TRIPS[3])).content_type is ContentType.MARKDOWN


def test_reconstruction_with_a_larger_overlap_and_no_overlap():
    document = ROUND_TRIPS[0]
    for chunking in (ChunkingSettings(max_tokens=30, overlap_tokens=20), ChunkingSettings(max_tokens=30,
                                                                                            overlap_tokens=0)):
        rebuilt = reconstruct_document(stored(document, chunking))
        assert chunk_view(rebuilt, chunking) == chunk_view(document, chunking)


def test_no_chunks_is_an_error():
    with pytest.raises(ValueError, match="no chunks"):
        reconstruct_document([])


def test_document_from_record_is_the_original():
    original = Document(doc_id="d", content="# T\n\nbody", title="T", content_type=ContentType.MARKDOWN,
                        source="src", tags=("x",), lang="de", tenant="t")
    record = {**asdict(original), "tags": ["x"], "content_type": "markdown", "kind": "document", "body": "T\nbody"}
    assert document_from_record(record) == original
