"""The names a document defines, and the names a query asks for.

Reference pages define a name where a line starts with it: an option list (`-s, --squeeze-blank`), a parameter
(`track_io_timing (boolean)`), an environment variable (`LOCATE_PATH`), a signature (`pub fn strip_prefix<P>(...)`,
`shutil.copyfile(src, dst)`). Pages that merely use a name write it inside a sentence. So a document's defined
names are the words of each line's head (the line up to its first bracket, `=`, `: ` or wide gap) when that head is
at most MAX_HEAD_WORDS words; a longer head is prose. A line whose head is nothing but options and their arguments
(`-m <msg>, --message=<msg>`, `-I[PATTERN], --ignore[=PATTERN]`, `--[no-]verify`) defines every option in it, the
ones after a bracket too, and `--[no-]name` both `--name` and `--no-name`. In justified text (man(1)'s) a full
line's wide gaps are the formatter's, not a term's, and the line under a full one goes on with its sentence
(benchmarks/reports/typeset.md). A text whose line breaks were lost (a page or paragraph joined into one line)
is read by sentences instead (benchmarks/reports/collapsed-text.md). The `definitions` leg ranks the documents that
define one of the query's names (benchmarks/reports/definitions.md).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence

MAX_HEAD_WORDS = 4  # `pub const unsafe fn name` still counts; a sentence does not
MIN_NAME_CHARS = 2  # a capital `I` or `A` starting a question is no name
MAX_NAME_CHARS = 255  # a keyword longer than this is not kept by the index (ignore_above)
MIN_COLUMN_LINES = 2  # lines that start at a column before it counts as one of the text's indentations
MIN_MARGIN_LINES = 3  # lines that end at one column before it counts as the right margin of justified text
MIN_MARGIN_COLUMN = 60  # a justified page is wider than this (man(1) prints 80 columns); a table row is no margin
MAX_LINE_CHARS = 200  # no page prints a line this long (man(1) 80 columns): it is a paragraph or a text run together
MIN_JOINED_PARAGRAPHS = 3  # a text of fewer one-line paragraphs says nothing about how it was laid out

_HEAD_END = re.compile(r"[(<=\[{]|\s{2,}|:\s|$")
_WIDE_GAP = re.compile(r" {2,}")
_QUOTES = "\u2018\u2019'\"`"  # the curly quotes GNU info writes around a name, and the plain ones
_LEADING_MARKS = re.compile(rf"^[\s{_QUOTES}\u2022*\u00b7>]+")  # indentation, quotes, bullets
_DEFINITION_LABEL = re.compile(r"^-- [A-Z][A-Za-z ]{0,30}: ")  # Texinfo's ` -- Variable: NAME`, ` -- Action: -print0`
_WORD_EDGES = f",;{_QUOTES}"
_POINTER_MARKS = "*&"  # a C declaration writes `char *strdup(`, `void **argv`: the marks are the type's, not the name's
_NAME = re.compile(r"(?:--?)?[A-Za-z_]\w*(?:(?:\.|::|-)\w+)*!?")
_QUALIFIERS = ("::", ".")

_OPTION = r"--?(?:\[no-?\])?[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*"  # `-rw-r--r--` is a file mode, no option
_ARGUMENT = r"(?:\[=?(?:[^\[\]\s]|\[[^\[\]\s]+\])+\]|=\S+|\s(?:<[^>\s]+>|\[[^\]]+\]|[A-Za-z_][\w.-]*))(?:\.\.\.)?"
_OPTION_LIST = re.compile(rf"{_OPTION}(?:{_ARGUMENT})?(?:,?\s+{_OPTION}(?:{_ARGUMENT})?)*,?")
_OPTION_LIST_END = re.compile(r"\s{2,}|:\s")  # brackets belong to the arguments here
_ARGUMENTS = re.compile(r"<[^>]*>|\[=[^\]]*\]|=\S+")
_OPTION_NAME = re.compile(r"(?<![\w\[\]-])(--?)(\[no-?\])?([A-Za-z][\w-]*)")
_CLAUSE_BREAK = re.compile(
    r"(?<=\S[.!?])(?<![A-Za-z]\.[A-Za-z]\.)[\"')\]\u2019]*\s+"  # after a sentence's last word (not `e.g.`, `find .`)
    r"|\s+(?=-[A-Za-z0-9],\s+--[A-Za-z])"  # before a short and a long option listed together: `-b, --escape`
    r"|\s+(?=-- [A-Z][A-Za-z ]{0,30}: )"  # before a Texinfo definition line: `-- Option: -xdev`
)
_NO_QUOTES = str.maketrans("", "", _QUOTES)
# in running text a plain word after an option is prose (`--author with -l, print`), so an argument is written as one
_RUN_ON_ARGUMENT = r"(?:\[=?(?:[^\[\]\s]|\[[^\[\]\s]+\])+\]|=\S+|\s(?:<[^>\s]+>|\[[^\]]+\]|[A-Z][A-Z0-9_]*(?![\w-])))"
_RUN_ON_OPTIONS = re.compile(rf"{_OPTION}(?:{_RUN_ON_ARGUMENT})?(?:,?\s+{_OPTION}(?:{_RUN_ON_ARGUMENT})?)*")
_CLAUSE_HEAD_END = re.compile(r"[(<=\[{]|:\s")  # a clause's end is no line's end: a bracket, `=` or `: ` ends a term
_SENTENCE_WORD = re.compile(r"[A-Z][a-z]+,?")  # `Set x to ERROR (`, `You can invoke f()`: a sentence, not a term


def defined_names(text: str) -> list[str]:
    """The names the text defines: every name-shaped word of a short line head, lowercase, sorted, each once."""
    names: set[str] = set()
    lines = text.split("\n")
    margin = _right_margin(lines)
    paragraphs_joined = _paragraphs_are_lines(lines)
    for index, laid_out in enumerate(_with_hanging_gaps_widened(_with_justified_gaps_closed(lines, margin))):
        if margin is None or not _continues_a_full_line(lines, index, margin):
            names.update(_line_names(laid_out))
        if paragraphs_joined or len(lines[index]) > MAX_LINE_CHARS:  # its line breaks were lost
            names.update(_run_on_names(lines[index]))
    return sorted(name for name in names if len(name) <= MAX_NAME_CHARS)


def _line_names(raw_line: str) -> set[str]:
    """The names one line defines: the options of an option-list head, or the name-shaped words of a short head."""
    line = _unmarked(raw_line)
    match = _HEAD_END.search(line)
    return set(_listed_options(line)) | _head_names(line[: match.start() if match else len(line)])


def _unmarked(line: str) -> str:
    """The line without its indentation, quotes and bullets, and without a Texinfo definition label."""
    return _DEFINITION_LABEL.sub("", _LEADING_MARKS.sub("", line))


def _head_names(head: str, *, sentence_words: bool = True) -> set[str]:
    """The name-shaped words of a term's head, lowercase; none when the head is longer than a term's, or when
    sentence_words is off and a word of it starts a sentence."""
    words = [word.strip(_WORD_EDGES).lstrip(_POINTER_MARKS) for word in head.split()]
    starts_a_sentence = not sentence_words and any(_SENTENCE_WORD.fullmatch(word) for word in words)
    if len(words) > MAX_HEAD_WORDS or starts_a_sentence:
        return set()
    return {word.lower() for word in words if _NAME.fullmatch(word)}


def _paragraphs_are_lines(lines: list[str]) -> bool:
    """Whether every paragraph of the text is one line at the margin, and there are several: an export that joined
    each paragraph into one line writes a term and its description that way (`-w --equal-width Print all numbers
    with the same width`). Text laid out in lines has paragraphs of several lines, or indented ones."""
    filled = [index for index, line in enumerate(lines) if line.strip()]
    apart = all(later - earlier > 1 for earlier, later in itertools.pairwise(filled))
    return len(filled) >= MIN_JOINED_PARAGRAPHS and apart and not any(_indentation(lines[index]) for index in filled)


def _run_on_names(line: str) -> set[str]:
    """The names defined by a line whose line breaks were lost (a BEIR export joined a page, or each paragraph,
    into one line; a paragraph was kept as one line). So each sentence counts as a line, and so does a short
    option listed with its long one (`-b, --escape`), which man(1) had set at a line's start. Without the gap that
    ended it, a clause's option list is the run of options and arguments it starts with (`-A, --almost-all do not
    list`, `-w` and `--equal-width` in quotes before `Print`). Its head is a term only where a bracket, `=` or
    `: ` ends it (`track_io_timing (boolean) Enables`, `pub fn strip_prefix<P>(`) and no word of it starts a
    sentence."""
    names: set[str] = set()
    for raw_clause in _CLAUSE_BREAK.split(line.strip()):
        clause = _unmarked(raw_clause.translate(_NO_QUOTES))
        leading = _RUN_ON_OPTIONS.match(clause)
        names.update(_option_names(leading.group()) if leading else [])
        head = _CLAUSE_HEAD_END.search(clause)
        names.update(_head_names(clause[: head.start()], sentence_words=False) if head else [])
    return names


def _right_margin(lines: list[str]) -> int | None:
    """The column where the lines of justified text end (the commonest line end, if wide and common enough)."""
    ends = Counter(len(line.rstrip()) for line in lines if line.strip())
    margins = [end for end, count in ends.most_common(1) if count >= MIN_MARGIN_LINES and end >= MIN_MARGIN_COLUMN]
    return margins[0] if margins else None


def _continues_a_full_line(lines: list[str], index: int, margin: int) -> bool:
    """Whether the line goes on with the paragraph of the line above, which was filled to the margin at the same
    indentation: it starts wherever the formatter broke a sentence (`pg_service.conf (see Section 34.17). A line`,
    `plpgsql.variable_conflict = use_column to change`), so its head is no term."""
    line, before = lines[index], lines[index - 1] if index else ""
    return bool(before.strip()) and _indentation(before) == _indentation(line) and len(before.rstrip()) == margin


def _with_justified_gaps_closed(lines: list[str], margin: int | None) -> list[str]:
    """The lines, each line that ends at the text's right margin with its wide gaps narrowed to one space: a
    formatter that justifies (man(1) does) widens the gaps of a full line, so `-execdir  runs programs in the same`
    is a sentence, not a term and its description. A gap stays where the text after it starts at the next line's
    indentation (`-H     If --recursive (-R) ...`, the description going on below it) or at a column where a gap of
    a neighbouring line ends too (the columns of a table or of an option listing)."""
    if margin is None:
        return lines
    filled = [index for index, line in enumerate(lines) if line.strip()]
    closed = list(lines)
    for position, index in enumerate(filled):
        line = lines[index]
        indent = _indentation(line)
        gap = _WIDE_GAP.search(line, indent)
        if len(line.rstrip()) != margin or not gap:
            continue
        neighbours = [lines[other] for other in filled[max(position - 1, 0):position + 2] if other != index]
        after = lines[index + 1] if index + 1 < len(lines) else ""
        hanging = after.strip() and gap.end() == _indentation(after)
        aligned = any(gap.end() in _gap_ends(neighbour) for neighbour in neighbours)
        if not (hanging or aligned):
            closed[index] = line[:indent] + _WIDE_GAP.sub(" ", line[indent:])
    return closed


def _gap_ends(line: str) -> set[int]:
    """The columns where the line's wide gaps end (past its indentation)."""
    return {gap.end() for gap in _WIDE_GAP.finditer(line, _indentation(line))}


def _with_hanging_gaps_widened(lines: list[str]) -> list[str]:
    """The lines, each term set off from its description by one space widened to two: man(1) prints a term one
    column narrower than the description's indentation as `--help display this help` (a wider one gets a wide gap,
    a longer one a line of its own). It is a hanging indent when the next line goes on at the description's column,
    or when the line is a paragraph by itself and the description starts at a column where other lines of the text
    start. Only options get the gap (`--help`, `-n NUM`): a sentence, a statement or a table row may start with a
    name and one space too."""
    starts = Counter(_indentation(line) for line in lines if line.strip())
    text_columns = sorted(column for column, count in starts.items() if count >= MIN_COLUMN_LINES)
    padded = ["", *lines, ""]
    widened = []
    for before, line, after in zip(padded, padded[1:], padded[2:], strict=False):
        # a description goes on at the next line's indentation; a paragraph of one line at the text's
        columns = [_indentation(after)] if after.strip() else ([] if before.strip() else text_columns)
        widened.append(_widen_gap_at(line, columns))
    return widened


def _widen_gap_at(line: str, columns: Sequence[int]) -> str:
    """The line with its one space before the first of the columns widened, when what precedes it is an option
    list (and the line is not an option list as a whole)."""
    indent = _indentation(line)
    if not line.strip() or _listed_options(line.strip()):
        return line
    for column in columns:
        single_space = line[column - 1:column] == " " and line[column - 2] != " " and line[column:column + 1] != " "
        if indent + 1 < column < len(line) and single_space:
            return f"{line[:column]} {line[column:]}" if _OPTION_LIST.fullmatch(line[indent:column - 1]) else line
    return line


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _listed_options(line: str) -> list[str]:
    """Every option of a line whose head lists options and their arguments only; none for any other line."""
    head = _OPTION_LIST_END.split(line, maxsplit=1)[0]
    return _option_names(head) if _OPTION_LIST.fullmatch(head) else []


def _option_names(head: str) -> list[str]:
    """The options of an option list, lowercase; `--[no-]name` gives both `--name` and `--no-name`."""
    options: list[str] = []
    for dashes, negation, name in _OPTION_NAME.findall(_ARGUMENTS.sub(" ", head)):
        options.append(f"{dashes}{name}".lower())
        if negation:
            options.append(f"{dashes}no-{name}".lower())
    return options


def query_names(text: str) -> list[str]:
    """The names a query asks for: every word written as a name (not a plain lowercase word: `--follow`,
    `LOCATE_PATH`, `Rc::downgrade`, `Vec`) or given a value (`status` in `status=progress`, an operand a page
    defines as `status=LEVEL`), lowercase, each once; a qualified name also gives its last part, which is how the
    page of its owner defines it (`strip_prefix` on the page of `Path`)."""
    names: list[str] = []
    for match in _NAME.finditer(text):
        word = match.group()
        if word.isalpha() and word.islower() and not text.startswith("=", match.end()):
            continue
        name = word.lower()
        names.append(name)
        names.extend(name.rsplit(qualifier, 1)[1] for qualifier in _QUALIFIERS if qualifier in name)
    return list(dict.fromkeys(name for name in names if MIN_NAME_CHARS <= len(name) <= MAX_NAME_CHARS))
