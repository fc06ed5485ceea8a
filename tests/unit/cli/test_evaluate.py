"""The eval command's seed peer keeps its own encoder, whatever the platform's model; its report names the documents
ingestion refused."""

from __future__ import annotations

from pathlib import Path

from search_platform.cli.evaluate import SEED_MODEL, refused_detail, seed_embedding
from search_platform.config import EmbeddingSettings


def test_the_seed_peer_encodes_with_minilm_fp32_whatever_the_platform_uses():
    platform = EmbeddingSettings(backend="onnx", model="all-mpnet-base-v2", onnx_quantize=True,
                                 model_path=Path("/models/mine"), batch_size=16)
    seed = seed_embedding(platform)
    assert SEED_MODEL == "all-minilm-l6-v2"
    assert (seed.backend, seed.model, seed.model_path, seed.onnx_quantize, seed.batch_size) == (
        "onnx", "all-minilm-l6-v2", None, False, 16)


def test_a_platform_already_on_the_seed_model_shares_its_settings():
    platform = EmbeddingSettings(backend="onnx", model="all-minilm-l6-v2")
    assert seed_embedding(platform) == platform


def test_a_fake_backend_stays_fake():
    fake = EmbeddingSettings(backend="fake", model="all-mpnet-base-v2")
    assert seed_embedding(fake) is fake


def test_the_report_names_the_documents_ingestion_refused():
    assert refused_detail({}) == ""
    refused = {f"d{n}": f"reason {n}" for n in range(5)}
    assert refused_detail(refused, shown=2) == "; 5 documents not indexed (d0: reason 0; d1: reason 1; and 3 more)"
    assert refused_detail({"gcc": "the document makes 9100 chunks"}) == (
        "; 1 document not indexed (gcc: the document makes 9100 chunks)")
