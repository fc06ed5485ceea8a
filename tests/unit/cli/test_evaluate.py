"""The eval command's seed peer keeps its own encoder, whatever the platform's model."""

from __future__ import annotations

from pathlib import Path

from search_platform.cli.evaluate import SEED_MODEL, seed_embedding
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
