"""Defined names (index time) and the names a query writes (query time): literal lists per layout."""

from __future__ import annotations

import pytest

from search_platform.text.definitions import MAX_HEAD_WORDS, MAX_LINE_CHARS, defined_names, query_names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("-s\n--squeeze-blank\n     Suppress repeated adjacent blank lines.", ["--squeeze-blank", "-s"]),
        ("       -q, --quiet-mode\n              print nothing but errors", ["--quiet-mode", "-q"]),
        ("--compress-program=PROG\n     Compress any temporary files.", ["--compress-program"]),
        ("\u2018-print0\u2019\n     True; print the full file name.", ["-print0"]),
        ("track_io_timing (boolean)\n\nEnables timing of database I/O calls.", ["track_io_timing"]),
        ("LOCATE_PATH\n     Colon-separated list of databases.", ["locate_path"]),
        ("pub fn strip_prefix<P>(&self, base: P) -> Result<&Path, StripPrefixError>",
         ["fn", "pub", "strip_prefix"]),
        ("shutil.copyfile(src, dst, *, follow_symlinks=True)", ["shutil.copyfile"]),
        ("const char *sqlite3_column_name(sqlite3_stmt*, int N);", ["char", "const", "sqlite3_column_name"]),
        ("char **backtrace_symbols(void *const *buffer, int size);", ["backtrace_symbols", "char"]),
        ("matches!\nReturns whether the expression matches the pattern.", ["matches!"]),
        ("-z    end every record with a zero byte", ["-z"]),  # term and description on one line, a wide gap between
        (" -- Action: -print0\n     True; print the full file name.", ["-print0"]),  # Texinfo's definition label
        (" -- Variable: LOCATE_PATH\n     Colon-separated list of databases.", ["locate_path"]),
        ("count=N\n     copy only N input blocks", ["count"]),  # an operand and its value
    ],
)
def test_a_line_that_starts_with_a_name_defines_it(text, names):
    assert [name for name in defined_names(text) if name in names] == names
    assert set(names) <= set(defined_names(text))


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("-m <text>, --memo=<text>", ["--memo", "-m"]),  # the head would end at the first bracket
        ("  -I[GLOB], --skip[=GLOB]", ["--skip", "-i"]),
        ("-e[CHAR[WIDTH]], --expand[=CHAR[WIDTH]]", ["--expand", "-e"]),  # an optional argument inside another
        ("-o <file>, --out-file <file>    where to write", ["--out-file", "-o"]),
        ("--[no-]keep-going", ["--keep-going", "--no-keep-going"]),
        ("-[no-]wrap: lines are folded", ["-no-wrap", "-wrap"]),
        ("-x, -y, --both-ways", ["--both-ways", "-x", "-y"]),
        ("-c COUNT, --count=COUNT...", ["--count", "-c", "count"]),  # `COUNT` is a name-shaped head word too
    ],
)
def test_a_line_that_lists_options_and_their_arguments_defines_every_option(line, names):
    assert defined_names(line) == names


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("--trim-slashes option turns this on.", []),
        ("-H, -L, or -P is given.", []),
        ("-rw-r--r--  1 alice  94K Aug 23 notes.txt", []),  # a file mode, not an option
        ("--memo (-m) was given", ["--memo"]),  # only the head before the bracket, as for any line
        ("-exec test {} -nt stamp \\; -and", ["-exec", "test"]),
    ],
)
def test_a_line_that_starts_with_an_option_but_goes_on_in_words_defines_only_its_short_head(line, names):
    assert defined_names(line) == names


def test_a_definition_label_is_not_itself_a_name():
    assert defined_names(" -- Function: char * gettext (const char * MSGID)") == ["char", "gettext"]


def test_a_sentence_that_uses_a_name_defines_nothing():
    prose = ("When given just the --delete (-d) option, tr removes any input characters.\n"
             "   The --squeeze-repeats option may also be used when translating.")
    assert defined_names(prose) == []


def test_a_head_of_more_than_max_words_is_prose():
    words = " ".join(["word"] * MAX_HEAD_WORDS)
    assert defined_names(f"{words} --option") == []
    assert defined_names(f"{' '.join(['word'] * (MAX_HEAD_WORDS - 1))} --option") == ["--option", "word"]


def test_names_are_lowercase_sorted_and_distinct():
    assert defined_names("SIGTERM\nsigterm\n--all\n") == ["--all", "sigterm"]
    assert defined_names("") == []


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("--squeeze-blank", ["--squeeze-blank"]),
        ("--follow=name", ["--follow"]),
        ("Path::strip_prefix", ["path::strip_prefix", "strip_prefix"]),
        ("logging.basicConfig force", ["logging.basicconfig", "basicconfig"]),
        ("what does Rc::downgrade return", ["rc::downgrade", "downgrade"]),
        ("LOCATE_PATH", ["locate_path"]),
        ("how do I use -print0 with xargs", ["-print0"]),
        ("Is there a way to copy a directory tree", ["is"]),  # a capital word may be a name (Vec, String)
        ("I want to copy a directory", []),  # one letter is no name
        ("copy a directory tree", []),  # plain lowercase words are not names
        ("matches! macro", ["matches!"]),
        ("count=8 blocks", ["count"]),  # a word given a value names an operand
        ("copy until count = 8", []),  # a comparison in words is not
    ],
)
def test_query_names_are_the_words_written_as_names(query, names):
    assert query_names(query) == names


MAN_LAYOUT = """\
       -a, --all
              list every entry, the hidden ones too

       --help show this help and exit

       --zero end each output line with a zero byte,
              not a newline

       -n NUM print NUM lines
              at most
"""


def test_an_option_one_column_short_of_its_description_is_a_term_too():
    # man(1) prints a term as wide as the hanging indent less one with one space before its description
    options = [name for name in defined_names(MAN_LAYOUT) if name.startswith("-")]
    assert options == ["--all", "--help", "--zero", "-a", "-n"]


@pytest.mark.parametrize("text", [
    "-b or --print-bytes option shows the bytes that differ, and\nthe next line of the paragraph goes on here",
    "       --help is the option that\n          wraps to a column of its own",
    "-H, -L, or -P is given.",
    "SELECT  table_schema, table_name,\n        pg_size_pretty(size)",
])
def test_one_space_after_an_option_in_a_sentence_is_no_hanging_indent(text):
    assert [name for name in defined_names(text) if name.startswith("-")] == []


JUSTIFIED = """\
       -execdir  runs  programs in the same directory in which it finds files,
       so  in  general  such a directory might be writable by untrusted users.
       For  similar  reasons,  -execdir does not allow braces to appear in the
       name  of  the  command to be run, and LC_ALL is an environment variable
       that overrides all of these settings.

       -H     If  --recursive (-R) is specified and a command line argument is
              a symbolic link to a directory, traverse it.

       -S, --suffix=SUF   use suffix SUF on compressed files, not the .gz one
       -r, --recursive    operate recursively on directories given as operand
"""


def test_a_justified_line_is_a_sentence_whatever_its_gaps():
    # man(1) widens the gaps of every full line: `-execdir  runs` is prose, `-H     If` a term (its description goes
    # on at the column after the gap) and aligned gaps a listing
    assert [name for name in defined_names(JUSTIFIED) if name.startswith("-") or "_" in name] == [
        "--recursive", "--suffix", "-h", "-r", "-s"]


def test_a_table_row_as_long_as_others_is_no_justified_line():
    rows = "\n\n".join(f"{name} |   | {description}" for name, description in [
        ("pg_lsn", "PostgreSQL Log Sequence Number"), ("tsquery", "text search query string"),
        ("tsvector", "text search document"), ("txid_snapshot", "user-level txid snapshot"),
    ])
    assert {"pg_lsn", "tsquery", "tsvector", "txid_snapshot"} <= set(defined_names(rows))


CONTINUED = """\
       LDAP  connection  parameter  lookup  uses  the  connection service file
       pg_service.conf  (see  Section 34.17). A line in its stanza that starts
       with  ldap:// is an LDAP URL. Porting code from PL/SQL, you can specify
       plpgsql.variable_conflict = use_column to change this behavior to match
       PL/SQL.

       pg_service.conf
              The connection service file, one stanza per service.
"""


def test_a_line_that_goes_on_with_a_full_line_above_is_no_term():
    # justified text breaks a sentence anywhere: a line under a full one at the same indentation starts mid-sentence
    assert [name for name in defined_names(CONTINUED) if "_" in name] == ["pg_service.conf"]
    assert "plpgsql.variable_conflict" not in defined_names(CONTINUED)


def _run_together(*sentences: str) -> str:
    """Sentences joined into one line longer than any printed line, as a BEIR export that collapsed a page writes."""
    text = " ".join(sentences)
    assert len(text) > MAX_LINE_CHARS
    return text


@pytest.mark.parametrize(
    ("text", "defined"),
    [
        (_run_together("List information about the FILEs in the current directory, sorted by name.",
                       "-a, --all do not ignore entries starting with .",
                       "-A, --almost-all do not list implied . and ..",
                       "--author with -l, print the author of each file",
                       "-b, --escape print C-style escapes for nongraphic characters"),
         ["--all", "--almost-all", "--author", "--escape", "-a", "-b"]),
        (_run_together("The default is off.", "track_io_timing (boolean) Enables timing of database I/O calls.",
                       "This parameter is off by default, as it will repeatedly query the operating system.",
                       "Only superusers can change this setting."),
         ["track_io_timing"]),
        (_run_together("Print a sequence of numbers to standard output.",
                       "\u2018-w\u2019 \u2018--equal-width\u2019 Print",
                       "all numbers with the same width, by padding with leading zeros, as many as needed.",
                       "One way is to search one filesystem: -- Option: -xdev -- Option: -mount Don't descend."),
         ["--equal-width", "-mount", "-w", "-xdev"]),
    ],
)
def test_a_line_run_together_from_a_page_defines_what_starts_its_sentences(text, defined):
    assert [name for name in defined_names(text) if name.startswith("-") or "_" in name] == defined


@pytest.mark.parametrize(
    "sentence",
    [
        "Set log_min_error_statement to ERROR (or lower) to log such statements.",  # a sentence word before it
        "You can invoke pg_stat_clear_snapshot() to discard the current snapshot.",
        "See application_name for details.",  # no bracket, `=` or `: ` ends a term
        "Use it as in with -l, print the author of each file, and so on for every entry.",  # an option mid-sentence
    ],
)
def test_a_name_inside_a_run_together_sentence_is_no_definition(sentence):
    text = _run_together("Prose goes on before the sentence, long enough to make the line longer than a page.",
                         sentence,
                         "Prose goes on after it, too, as in any paragraph that an export kept on one line of its own.")
    assert [name for name in defined_names(text) if name.startswith("-") or "_" in name] == []


def test_a_printed_line_is_never_split_into_sentences():
    assert defined_names("It was off, as the text says. track_io_timing (boolean) is a parameter.") == []


def test_a_paragraph_joined_into_one_line_at_the_margin_defines_what_it_starts_with():
    text = ("Print numbers from FIRST to LAST.\n\n-w --equal-width Print all numbers with the same width.\n\n"
            "-s, --separator=STRING Use STRING to separate numbers.")
    assert [name for name in defined_names(text) if name.startswith("-")] == ["--equal-width", "--separator", "-s",
                                                                               "-w"]


def test_an_indented_example_or_a_path_ending_in_a_dot_defines_no_option():
    text = "Remove the backups:\n\n     find . -name '*~' -delete\n\nfind . -depth -name core -print"
    assert [name for name in defined_names(text) if name.startswith("-")] == []
