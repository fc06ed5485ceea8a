"""The names a document defines, and the names a query asks for.

Reference pages define a name where a line starts with it: an option list (`-s, --squeeze-blank`), a parameter
(`track_io_timing (boolean)`), an environment variable (`LOCATE_PATH`), a signature (`pub fn strip_prefix<P>(...)`,
`shutil.copyfile(src, dst)`). Pages that merely use a name write it inside a sentence. So a document's defined
names are the words of each line's head (the line up to its first bracket, `=`, `: ` or wide gap) when that head is
at most MAX_HEAD_WORDS words; a longer head is prose. The `definitions` leg ranks the documents that define one of
the query's names (benchmarks/reports/definitions.md).
"""

from __future__ import annotations

import re

MAX_HEAD_WORDS = 4  # `pub const unsafe fn name` still counts; a sentence does not
MIN_NAME_CHARS = 2  # a capital `I` or `A` starting a question is no name
MAX_NAME_CHARS = 255  # a keyword longer than this is not kept by the index (ignore_above)

_HEAD_END = re.compile(r"[(<=\[{]|\s{2,}|:\s|$")
_QUOTES = "\u2018\u2019'\"`"  # the curly quotes GNU info writes around a name, and the plain ones
_LEADING_MARKS = re.compile(rf"^[\s{_QUOTES}\u2022*\u00b7>]+")  # indentation, quotes, bullets
_WORD_EDGES = f",;{_QUOTES}"
_NAME = re.compile(r"(?:--?)?[A-Za-z_]\w*(?:(?:\.|::|-)\w+)*!?")
_QUALIFIERS = ("::", ".")


def defined_names(text: str) -> list[str]:
    """The names the text defines: every name-shaped word of a short line head, lowercase, sorted, each once."""
    names: set[str] = set()
    for raw_line in text.split("\n"):
        line = _LEADING_MARKS.sub("", raw_line)
        match = _HEAD_END.search(line)
        words = [word.strip(_WORD_EDGES) for word in line[: match.start() if match else len(line)].split()]
        if len(words) > MAX_HEAD_WORDS:
            continue
        names.update(word.lower() for word in words if _NAME.fullmatch(word) and len(word) <= MAX_NAME_CHARS)
    return sorted(names)


def query_names(text: str) -> list[str]:
    """The names a query asks for: every word written as a name (not a plain lowercase word: `--follow`,
    `LOCATE_PATH`, `Rc::downgrade`, `Vec`), lowercase, each once; a qualified name also gives its last part,
    which is how the page of its owner defines it (`strip_prefix` on the page of `Path`)."""
    names: list[str] = []
    for match in _NAME.finditer(text):
        word = match.group()
        if word.isalpha() and word.islower():
            continue
        name = word.lower()
        names.append(name)
        names.extend(name.rsplit(qualifier, 1)[1] for qualifier in _QUALIFIERS if qualifier in name)
    return list(dict.fromkeys(name for name in names if MIN_NAME_CHARS <= len(name) <= MAX_NAME_CHARS))
