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
