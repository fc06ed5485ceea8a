"""Whether a string is an English word, by the word list of pyspellchecker (MIT licensed, 160k words with their
frequencies, loaded once per process on first use in about 0.2 s)."""

from __future__ import annotations

from functools import cache

from spellchecker import SpellChecker


@cache
def _english() -> SpellChecker:
    return SpellChecker(language="en", distance=1)


def is_english_word(word: str) -> bool:
    """Whether word, in any case, is in the English word list."""
    return word.lower() in _english()
