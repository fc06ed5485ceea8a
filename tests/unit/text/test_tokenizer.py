"""The technical tokenizer: literal token lists per shape, token validity, linear time."""

from __future__ import annotations

import random
import re
import time

import pytest

from search_platform.text.tokenizer import (
    MAX_TERM_CHARS,
    identifier_phrases,
    query_options,
    technical_index_text,
    technical_query,
    technical_terms,
)

VALID_TOKEN = re.compile(r"^[a-z0-9_]+$")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("getElementById", ["getelementbyid", "get", "element", "by", "id"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("XMLHttpRequest", ["xmlhttprequest", "xml", "http", "request"]),
        ("max_retries", ["max_retries", "max", "retries"]),
        ("ERR_NETWORK_TIMEOUT_504", ["err_network_timeout_504", "err", "network", "timeout", "504"]),
        ("__init__", ["__init__", "init"]),
        ("my_fooBar", ["my_foobar", "my", "foobar", "foo", "bar"]),
        ("os.path.join", ["os_path_join", "os_path", "path_join", "os", "path", "join"]),
        ("json.dumps()", ["json_dumps", "json", "dumps"]),
        ("std::vec::Vec", ["std_vec_vec", "std_vec", "vec_vec", "std", "vec"]),
        (
            "document.getElementById(id)",
            ["document_getelementbyid", "document", "getelementbyid", "get", "element", "by", "id"],
        ),
        ("TypeScript 5.7", ["typescript", "type", "script", "typescript_5_7", "5_7"]),
        ("Python 3.11.2", ["python_3_11_2", "python_3_11", "3_11_2", "3_11"]),
        ("Node.js 18.2", ["node_js", "node", "js", "node_js_18_2", "18_2"]),
        ("released in 3.11", ["3_11"]),
        ("version 2.0", ["2_0"]),
        ("v1.2.3", ["1_2_3", "1_2"]),
        ("Python\n3.11", ["3_11"]),
        ("CVE-2024-12345", ["cve_2024_12345", "cve", "2024", "12345"]),
        ("utf-8", ["utf_8", "utf"]),
        ("--enable-shared", ["enable_shared", "enable", "shared"]),
        ("--verbose", ["verbose"]),
        ("python -X dev", []),
        ("sha256", ["sha256"]),
        ("foo_bar-like", ["foo_bar", "foo", "bar"]),
    ],
)
def test_shapes(text: str, expected: list[str]) -> None:
    assert technical_terms(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the paths Hello",
        "How do I read a FILE in Python?",
        "JSON and HTTP",
        "URLs and APIs",
        "the 2nd and 3rd",
        "well-known state-of-the-art",
        "e.g. i.e. U.S.",
        "-",
        "",
        "naïve café_au_lait",
    ],
)
def test_natural_language_yields_nothing(text: str) -> None:
    assert technical_terms(text) == []
    assert technical_query(text) == ""


def test_index_text_keeps_repetitions_and_query_deduplicates() -> None:
    text = "Call os.path.join, then os.path.join again; see os.path."
    assert technical_terms(text).count("os_path_join") == 2
    assert technical_index_text(text).split() == technical_terms(text)
    assert technical_query(text) == "os_path_join os_path path_join os path join"


def test_query_and_index_agree_on_the_same_string() -> None:
    text = "ERR_NETWORK_TIMEOUT_504 from fetchUserProfile() on Python 3.11"
    assert set(technical_query(text).split()) == set(technical_terms(text))


def test_terms_longer_than_the_standard_tokenizer_limit_are_dropped() -> None:
    long_identifier = "a_" * MAX_TERM_CHARS
    assert technical_terms(f"{long_identifier} max_retries") == ["max_retries", "max", "retries"]


def test_every_token_survives_the_standard_analyzer_as_one_token() -> None:
    alphabet = "aZ09_.-:/()[]{}<>@#$%^&*+=!?,;'\"`~ \t\nÉé日😀\u2013\u2014.."
    rng = random.Random(20240501)
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        for token in technical_terms(text):
            assert VALID_TOKEN.match(token), (text, token)
            assert 2 <= len(token) <= MAX_TERM_CHARS


@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,
        "A" * 1_000_000,
        "a." * 500_000,
        "-" * 1_000_000,
        "_" * 1_000_000,
        "1." * 500_000,
        "aB " * 333_333,
        ("A" * 200 + "a_ ") * 4_900,
        ("getElementById os.path.join Python 3.11 the fox ERR_X_1 --opt-x " * 16_000)[:1_000_000],
    ],
    ids=["lower", "upper", "dots", "dashes", "underscores", "versions", "camel", "caps-run", "mixed"],
)
def test_one_megabyte_is_fast(text: str) -> None:
    started = time.perf_counter()
    technical_terms(text)
    assert time.perf_counter() - started < 5.0


def test_plain_words_follow_the_technical_terms_once_each() -> None:
    assert technical_query("copyfile os.path.join or Copyfile", plain_words=True) == (
        "os_path_join os_path path_join os path join copyfile or"
    )


def test_plain_words_keep_only_valid_terms() -> None:
    assert technical_query("a ü copyfile", plain_words=True) == "copyfile"
    assert technical_query("a ü copyfile") == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("--max-unchanged-stats", ["--max-unchanged-stats"]),
    ("sed --in-place and --in-place", ["--in-place"]),
    ("os.path.join or Vec::retain or --foo.bar-baz", []),
    ("read a file-like object", ["file-like"]),
    ("TEXTDOMAINDIR max_retries --follow=name -print0 camelCase", []),
    ("naïve-bayes", []),
])
def test_identifier_phrases_are_the_compound_identifiers_once_each(text: str, expected: list[str]) -> None:
    assert identifier_phrases(text) == expected


def test_without_word_compounds_only_options_and_compounds_with_digits_are_phrases() -> None:
    text = "enable write-ahead logging for in-memory UTF-8 data with --in-place or scram-sha-256"
    assert identifier_phrases(text, word_compounds=False) == ["UTF-8", "--in-place", "scram-sha-256"]
    assert identifier_phrases(text) == ["write-ahead", "in-memory", "UTF-8", "--in-place", "scram-sha-256"]


@pytest.mark.parametrize(("text", "expected"), [
    ("-executable", ["-executable"]),
    ("find -xdev -print0 and -xdev again", ["-xdev", "-print0"]),
    ("tail --follow=name", ["--follow=name"]),
    ("dd status=progress", ["status=progress"]),
    ('what do "-xdev" and (--one-file-system) do?', ["-xdev", "--one-file-system"]),
    ("non-blocking sockets, x-y and a -1 offset", []),
    ("sed -s and time -f, but -la", ["-la"]),
    ("os.path.join or Vec::retain or --foo.bar", []),
])
def test_query_options_are_the_options_and_operands_given_a_value_once_each(text: str, expected: list[str]) -> None:
    assert query_options(text) == expected
