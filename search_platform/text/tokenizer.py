"""Technical terms (identifiers, versions, error codes, options) for the `tech` field, at index and query time.

Every term is lowercase `[a-z0-9_]+` of 2 to 255 characters, so Elasticsearch's `standard` analyzer (UAX#29 word
segmentation + lowercase; `_` is ExtendNumLet and joins) keeps it as exactly one token. Words with no technical
shape (plain "the", "paths", "Hello", all-caps "JSON") produce nothing: the `text` field already matches those.

Shapes and what they emit (whole form first, then its parts; parts shorter than 2 characters are dropped):
  camelCase / PascalCase  getElementById -> getelementbyid get element by id
  snake_case, dunders     max_retries -> max_retries max retries; __init__ -> __init__ init
  letters with digits     sha256 -> sha256 (letter/digit boundaries are not split; 1st/2nd are not terms)
  dotted and :: names     os.path.join -> os_path_join os_path path_join os path join (prefixes, suffixes, parts)
  hyphenated with a digit CVE-2024-12345 -> cve_2024_12345 cve 2024 12345 (well-known -> nothing)
  long CLI options        --enable-shared -> enable_shared enable shared (short options like -X are not special)
  versions                3.11.2 -> 3_11_2 3_11; after a product word: Python 3.11 -> python_3_11 3_11
Call forms need nothing special: `json.dumps()` tokenizes as `json.dumps`. Non-ASCII identifiers are skipped.
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_TERM_CHARS = 255  # the standard tokenizer's max_token_length: longer tokens would be split by Elasticsearch

_RAW = re.compile(r"(?:--)?\w+(?:(?:\.|::|-)\w+)*")
_SEPARATOR = re.compile(r"\.|::|-")
_QUALIFIER = re.compile(r"\.|::")
_VERSION = re.compile(r"[vV]?\d+(?:\.\d[A-Za-z0-9]*)+", re.ASCII)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]", re.ASCII)
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+", re.ASCII)
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s", re.ASCII)
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)", re.ASCII | re.IGNORECASE)
_SAME_LINE_GAP = re.compile(r"[ \t]+")
_TERM = re.compile(r"[a-z0-9_]{2,255}", re.ASCII)
_PLAIN_WORD = re.compile(r"\w+", re.ASCII)
# a command-line option or an operand given a value, as a word of its own: -xdev, --follow=name, status=progress;
# a one-letter option (-s, -f) means something else to every command, so it marks no page
_OPTION = re.compile(r"(?<![^\s\"'`(\[])(?:--?[A-Za-z][\w-]+(?:=[\w-]+)?|[A-Za-z][\w-]*=[\w-]+)"
                     r"(?![^\s\"'`)\],;:?!])", re.ASCII)

_NOT_PRODUCT_WORDS = """
a about above after against an and any are around as at before below between but by chapter during each fig figure
for from in into is it its listing no nor not of on onto or over page part per release releases rev revision section
see since step table than that the then these this those through to under until up upon v ver version versions via
vs was were with within
"""
_NOT_PRODUCTS = frozenset(_NOT_PRODUCT_WORDS.split())


def technical_terms(text: str) -> list[str]:
    """Every technical term in text, in order and with repetitions (index time: term frequency matters)."""
    terms: list[str] = []
    previous: re.Match[str] | None = None
    for match in _RAW.finditer(text):
        raw = match.group()
        if not (_is_plain_word(raw) or len(raw) > MAX_TERM_CHARS or not raw.isascii()):
            product = _product_before(text, previous, match) if _VERSION.fullmatch(raw) else None
            terms.extend(_candidate_terms(raw, product))
        previous = match
    return terms


def technical_query(text: str, *, plain_words: bool = False) -> str:
    """The distinct technical terms of a query, space-joined in first-seen order; "" when there are none.

    With plain_words, the query's other words follow: a bare `copyfile` is no technical shape, yet it is a part of
    `shutil.copyfile`, which the `text` field keeps as one token and only the `tech` field splits.
    """
    terms = technical_terms(text)
    if plain_words:
        terms += [word for word in _PLAIN_WORD.findall(text.lower()) if _TERM.fullmatch(word)]
    return " ".join(dict.fromkeys(terms))


def identifier_phrases(text: str, *, word_compounds: bool = True) -> list[str]:
    """The query's hyphenated identifiers (`--max-unchanged-stats`, `file-like`), each once, as written: a
    word-splitting analyzer turns each into a phrase of its parts, which matches where the identifier itself is
    written and not where its parts are scattered (the parts alone are common words).

    Without word_compounds only options and compounds with a digit count (`--in-place`, `UTF-8`, `scram-sha-256`):
    inside a sentence `write-ahead` or `in-memory` is English, and its phrase would outweigh the query's names
    (benchmarks/reports/sqlite-docs.md).

    Qualified names (`os.path.join`, `BTreeMap::range`) are not phrases here: the page that defines a member names
    it bare in its own context, so their literal form marks the pages that refer to it."""
    phrases: list[str] = []
    for match in _RAW.finditer(text):
        raw = match.group()
        identifier = word_compounds or raw.startswith("-") or any(char.isdigit() for char in raw)
        if identifier and raw.isascii() and _QUALIFIER.search(raw) is None and len(raw.lstrip("-").split("-")) > 1:
            phrases.append(raw)
    return list(dict.fromkeys(phrases))


def query_options(text: str) -> list[str]:
    """The query's command-line options of more than one letter and operands given a value (`-executable`,
    `--follow=name`, `status=progress`), each once, as written. An analyzer that keeps the dashes finds the page
    that writes the option itself, where the English field reduces `-executable` to the stem of "execution" and
    `--follow=name` to two common words."""
    return list(dict.fromkeys(_OPTION.findall(text)))


def technical_index_text(text: str) -> str:
    """The value of the `tech` field for a chunk: every term, repetitions kept, space-joined."""
    return " ".join(technical_terms(text))


def _is_plain_word(raw: str) -> bool:
    """A run of letters in one case, or capitalised, or a single character: never a technical term."""
    return len(raw) < 2 or (raw.isalpha() and (raw.islower() or raw.isupper() or raw[1:].islower()))


def _product_before(text: str, previous: re.Match[str] | None, version: re.Match[str]) -> str | None:
    """The product a version belongs to: the word right before it on the same line, if it can be a name."""
    if previous is None or not _SAME_LINE_GAP.fullmatch(text, previous.end(), version.start()):
        return None
    word = previous.group()
    if not word.isascii() or not word[0].isalpha() or word.lower() in _NOT_PRODUCTS or _VERSION.fullmatch(word):
        return None
    return "_".join(_SEPARATOR.split(word.lower()))


@lru_cache(maxsize=8192)
def _candidate_terms(raw: str, product: str | None) -> tuple[str, ...]:
    """The valid terms of one candidate; cached because identifiers repeat across a corpus."""
    return tuple(term for term in _raw_terms(raw, product) if _TERM.fullmatch(term))


def _raw_terms(raw: str, product: str | None) -> list[str]:
    """Terms for one candidate, whole forms first, each distinct term once."""
    if product is not None or _VERSION.fullmatch(raw):
        return _version_terms(raw, product)
    option = raw.startswith("--")
    body = raw[2:] if option else raw
    segments = _SEPARATOR.split(body)
    if len(segments) == 1:
        return _word_terms(body) if option or _is_technical_word(body) else []
    dotted = "." in body or "::" in body
    if _is_technical_compound(body, segments, dotted=dotted, option=option):
        return list(dict.fromkeys(_compound_terms(segments, affixes=dotted)))
    return [term for segment in segments for term in _raw_terms(segment, None)]


def _version_terms(version: str, product: str | None) -> list[str]:
    """3.11.2 -> 3_11_2 3_11, preceded by the same forms prefixed with the product."""
    components = version.lower().lstrip("v").split(".")
    forms = ["_".join(components[:size]) for size in range(len(components), 1, -1)]
    with_product = [f"{product}_{form}" for form in forms] if product else []
    return with_product + forms


def _is_technical_word(word: str) -> bool:
    """snake_case, camelCase or letters mixed with digits; not plurals of acronyms (URLs) or ordinals (2nd)."""
    if "_" in word:
        return any(char.isalnum() for char in word)
    if any(char.isdigit() for char in word) and any(char.isalpha() for char in word):
        return _ORDINAL.fullmatch(word) is None
    return _CAMEL.search(word) is not None and _PLURAL_ACRONYM.fullmatch(word) is None


def _is_technical_compound(body: str, segments: list[str], *, dotted: bool, option: bool) -> bool:
    """Dotted names need a segment of 2+ characters (so not e.g); hyphenated words need a digit or --."""
    if dotted:
        return any(len(segment) > 1 for segment in segments)
    return option or any(char.isdigit() for char in body)


def _compound_terms(segments: list[str], *, affixes: bool) -> list[str]:
    """The joined whole, then (for dotted names) its shorter prefixes and suffixes, then each segment's terms."""
    lowered = [segment.lower() for segment in segments]
    terms = ["_".join(lowered)]
    if affixes:
        terms += ["_".join(lowered[:size]) for size in range(len(lowered) - 1, 1, -1)]
        terms += ["_".join(lowered[start:]) for start in range(1, len(lowered) - 1)]
    for segment in segments:
        terms += _word_terms(segment) if _is_technical_word(segment) else [segment.lower()]
    return terms


def _word_terms(word: str) -> list[str]:
    """The word lowercased, then its snake_case parts, each followed by its camelCase parts."""
    terms = [word.lower()]
    for part in word.split("_"):
        pieces = _CAMEL_PART.findall(part)
        terms.append(part.lower())
        if len(pieces) > 1:
            terms.extend(piece.lower() for piece in pieces)
    return list(dict.fromkeys(terms))
