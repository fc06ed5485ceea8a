"""The CrossEncoder backend over a tiny UNTRAINED model built here: mechanics only, its scores mean nothing."""

from pathlib import Path

import pytest

from search_platform.config import RerankSettings
from search_platform.retrieval.rerank import RerankStage, build_rerank_stage
from search_platform.retrieval.rerank.cross_encoder import CrossEncoderReranker
from tests.tiny_cross_encoder import build_tiny_cross_encoder
from tests.unit.retrieval.test_rerank import HITS

TEXTS = ["tomatoes need water in hot weather", "cabinet part KX9ZQ4471", "os.path.join builds file paths"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-cross-encoder"))


@pytest.fixture(scope="module")
def reranker(model_dir: Path) -> CrossEncoderReranker:
    return CrossEncoderReranker(model_dir, max_length=32, batch_size=2)


def test_one_float_score_per_text(reranker):
    scores = reranker.rerank("watering", TEXTS)
    assert len(scores) == len(TEXTS)
    assert all(isinstance(score, float) for score in scores)


def test_scores_are_deterministic_and_independent_of_batching(reranker, model_dir):
    again = CrossEncoderReranker(model_dir, max_length=32, batch_size=16)
    assert reranker.rerank("watering", TEXTS) == pytest.approx(again.rerank("watering", TEXTS), abs=1e-6)
    assert reranker.rerank("watering", TEXTS) == reranker.rerank("watering", TEXTS)


def test_scores_depend_on_the_pair(reranker):
    assert len(set(reranker.rerank("watering", TEXTS))) > 1


def test_no_texts_no_scores(reranker):
    assert reranker.rerank("q", []) == []


async def test_stage_built_from_settings_reranks_the_top_n(model_dir):
    stage = build_rerank_stage(RerankSettings(enabled=True, model_path=model_dir, top_n=3, budget_ms=30_000))
    assert isinstance(stage, RerankStage)
    outcome = await stage.apply("q", HITS)
    assert outcome.reranked
    assert [h.rerank_score is not None for h in outcome.hits] == [True, True, True, False, False]
    assert [h.chunk_id for h in outcome.hits[3:]] == ["d", "e"]


def test_no_model_path_no_stage():
    assert build_rerank_stage(RerankSettings()) is None
