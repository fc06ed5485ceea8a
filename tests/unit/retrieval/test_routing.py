import pytest

from search_platform.retrieval.routing import Route, classify_query, prose_words


@pytest.mark.parametrize(
    "query",
    [
        "json.JSONDecodeError",
        "shutil.copytree dirs_exist_ok",
        "asyncio.TaskGroup 3.11",
        "RLock",
        "PYTHONHASHSEED",
        "typing.TypedDict total=False",
        "bisect.insort key",
        "CVE-2024-12345",
        "--enable-shared",
        '"exception groups"',
        "sorted",
    ],
)
def test_identifiers_codes_versions_quotes_and_keyword_lookups_are_lexical(query):
    assert classify_query(query) is Route.LEXICAL


@pytest.mark.parametrize(
    "query",
    [
        "create a folder along with any missing parent folders",
        "get the three biggest numbers without sorting the whole list",
        "why does fromisoformat reject my timestamp string",
        "fixed-size buffer that throws away the oldest entries when full",
        "How do I read a file line by line?",
        "a discount of 5 % on every order",  # a lone percent sign is no directive
    ],
)
def test_natural_language_is_semantic(query):
    assert classify_query(query) is Route.SEMANTIC


@pytest.mark.parametrize(
    "query",
    [
        "python -O strips assert and __debug__ code",
        "argparse make an option mandatory required=True",
        "shutil.rmtree fails on read-only files on Windows",
        "flatten a list of lists with itertools.chain",
        'what does "yield from" do in a generator',
        "why is asyncio.run() refusing to start here",
        "upgrade from Python 3.11 to the newest release",
        "find -mtime files older than 30 days",  # an option of one dash and several letters
        "test -nt compare modification times of two files",
        "xargs -0 null separated input",  # a short option may be a digit
        "date +%s current time in epoch seconds",  # a format directive
        "printf %q quote for reuse in shell",
        "write! into a String",  # a macro
    ],
)
def test_natural_language_with_exact_signals_is_mixed(query):
    assert classify_query(query) is Route.MIXED


def test_prose_words_drop_identifiers_and_punctuation():
    assert prose_words("Why does os.path.join(a, b) fail, really?") == ["Why", "does", "b", "fail", "really"]
