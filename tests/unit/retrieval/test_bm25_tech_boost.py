import pytest

from search_platform.config import RetrievalSettings
from search_platform.retrieval.base import LegRequest
from search_platform.retrieval.bm25 import BM25Retriever


class RecordingClient:
    def __init__(self) -> None:
        self.bodies: list[dict] = []

    async def search(self, *, index, body):
        self.bodies.append(body)
        return {"hits": {"hits": []}}


def tech_clauses(body: dict) -> list[dict]:
    return [clause for clause in body["query"]["bool"]["should"] if "tech" in clause["match"]]


@pytest.mark.parametrize(("override", "expected"), [(None, [2.0]), (3.0, [3.0]), (0.0, [])])
async def test_the_request_tech_boost_overrides_the_setting_and_zero_turns_the_field_off(override, expected):
    client = RecordingClient()
    retriever = BM25Retriever(client, RetrievalSettings(tech_boost=2.0))  # type: ignore[arg-type]
    await retriever.retrieve(LegRequest(text="json.JSONDecodeError", index="i", candidate_k=5, tech_boost=override))
    assert [clause["match"]["tech"]["boost"] for clause in tech_clauses(client.bodies[0])] == expected


@pytest.mark.parametrize(
    ("text", "max_words", "expected"),
    [
        ("copyfile", 2, ["copyfile"]),  # a bare lookup: its plain word may be a part of shutil.copyfile
        ("shutil copyfile", 2, ["shutil copyfile"]),
        ("copy a file tree", 2, []),  # natural language: plain words stay off the identifier parts
        ("copy file_tree now", 2, ["file_tree file tree"]),  # only the technical terms of a longer query
        ("copyfile", 0, []),  # 0: never
    ],
)
async def test_lookup_shaped_queries_also_send_their_plain_words_to_the_tech_field(text, max_words, expected):
    client = RecordingClient()
    retriever = BM25Retriever(client, RetrievalSettings(tech_lookup_max_words=max_words))  # type: ignore[arg-type]
    await retriever.retrieve(LegRequest(text=text, index="i", candidate_k=5))
    assert [clause["match"]["tech"]["query"] for clause in tech_clauses(client.bodies[0])] == expected


def field_boosts(body: dict) -> dict[str, float]:
    """The plain match clauses of the query: field -> boost (1 when the clause names none)."""
    return {field: spec.get("boost", 1.0) for clause in body["query"]["bool"]["should"] if "match" in clause
            for field, spec in clause["match"].items() if field != "tech" and not field.endswith(".ident")}


@pytest.mark.parametrize(
    ("text", "boost", "expected"),
    [
        ("locate", 0.5, {"text": 1.0, "title": 0.5, "text.exact": 0.5}),  # a lookup: its words as written too
        ("locate files", 0.5, {"text": 1.0, "title": 0.5, "text.exact": 0.5}),
        ("locate files by name", 0.5, {"text": 1.0, "title": 0.5}),  # a sentence: stems only
        ("locate", 0.0, {"text": 1.0, "title": 0.5}),  # 0: off, the default
    ],
)
async def test_a_lookup_also_matches_its_unstemmed_words_at_lookup_exact_boost(text, boost, expected):
    client = RecordingClient()
    retriever = BM25Retriever(client, RetrievalSettings(lookup_exact_boost=boost))  # type: ignore[arg-type]
    await retriever.retrieve(LegRequest(text=text, index="i", candidate_k=5))
    assert field_boosts(client.bodies[0]) == expected
    assert RetrievalSettings().lookup_exact_boost == 0.0


def phrases(body: dict) -> list[str]:
    """The queries of the phrase clauses."""
    return [spec["query"] for clause in body["query"]["bool"]["should"] if "match_phrase" in clause
            for spec in clause["match_phrase"].values()]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("apt-get", ["apt-get"]),  # a lookup: a compound of words may be a name
        ("ssh-keygen options", ["ssh-keygen"]),
        ("enable write-ahead logging with journal_mode=WAL", []),  # in a sentence a compound of words is English
        ("keep files in place with --in-place on UTF-8 text", ["--in-place", "UTF-8"]),
    ],
)
async def test_a_sentence_phrases_only_its_options_and_compounds_with_digits(text, expected):
    client = RecordingClient()
    retriever = BM25Retriever(client, RetrievalSettings(phrase_boost=3.0))  # type: ignore[arg-type]
    await retriever.retrieve(LegRequest(text=text, index="i", candidate_k=5))
    assert phrases(client.bodies[0]) == expected
