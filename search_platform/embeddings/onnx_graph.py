"""The ONNX graph of a BERT-family encoder (BERT, MPNet) built from its config.json and model.safetensors.

No torch: the layers are written out with onnx.helper, op for op as transformers' eager BertModel / MPNetModel
compute them (exact Erf GELU, opset-17 LayerNormalization, the padding mask added as float32's lowest value,
MPNet's bucketed relative position bias). The graph's output is the last hidden state; pooling happens outside.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

from search_platform.embeddings.onnx_interface import OPSET, OUTPUT_NAME

IR_VERSION = 8  # the IR of opset 17: loads in every onnxruntime the project allows
_MPNET_PADDING_IDX = 1  # fixed in transformers' MPNetEmbeddings, whatever the config says
_MPNET_BUCKETS, _MPNET_MAX_DISTANCE = 32, 128  # compute_position_bias' defaults, used by MPNetEncoder


@dataclass(frozen=True, slots=True)
class _LayerNames:
    """Where one encoder layer's weights live, relative to `encoder.layer.<n>.`."""

    query: str
    key: str
    value: str
    attention_out: str
    attention_norm: str
    intermediate: str
    out: str
    out_norm: str


_LAYER_NAMES = {
    "bert": _LayerNames("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                        "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"),
    "mpnet": _LayerNames("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o",
                         "attention.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"),
}  # the keys are onnx_export.GRAPH_MODEL_TYPES (a unit test checks)


def input_names(kind: str) -> tuple[str, ...]:
    """The graph inputs of a model type (MPNet has no token types)."""
    return ("input_ids", "attention_mask") if kind == "mpnet" else ("input_ids", "attention_mask", "token_type_ids")


class _Graph:
    """Nodes and initializers under construction; every op returns the name of its (single) output."""

    def __init__(self, weights: dict[str, npt.NDArray[Any]]) -> None:
        self.weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._names: set[str] = set()
        self._count = 0

    def const(self, name: str, value: npt.NDArray[Any]) -> str:
        """A named initializer (added once; a second call with the same name reuses it)."""
        if name not in self._names:
            self._names.add(name)
            self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(self, key: str) -> str:
        """A checkpoint tensor as an initializer of the same name."""
        return self.const(key, self.weights[key])

    def op(self, op_type: str, *inputs: str, out: str | None = None, **attrs: Any) -> str:
        """Append a node; its output is named out, or generated."""
        self._count += 1
        output = out or f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], name=f"{op_type}_{self._count}", **attrs))
        return output

    def linear(self, x: str, prefix: str) -> str:
        """x @ W^T + b, the weight stored transposed (a plain MatMul, as torch exports nn.Linear)."""
        w_t = self.const(f"{prefix}.weight_t", self.weights[f"{prefix}.weight"].T)
        return self.op("Add", self.op("MatMul", x, w_t), self.weight(f"{prefix}.bias"))

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        """LayerNormalization over the last axis."""
        return self.op("LayerNormalization", x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias"),
                       axis=-1, epsilon=eps)

    def gelu(self, x: str) -> str:
        """Exact GELU: x * 0.5 * (1 + erf(x / sqrt 2))."""
        erf = self.op("Erf", self.op("Div", x, self.const("sqrt2", np.array(math.sqrt(2), np.float32))))
        one_plus = self.op("Add", erf, self.const("one", np.array(1.0, np.float32)))
        return self.op("Mul", self.op("Mul", x, one_plus), self.const("half", np.array(0.5, np.float32)))


def mpnet_bucket_table(max_positions: int) -> npt.NDArray[np.int64]:
    """MPNet's relative_position_bucket for every relative position -(max_positions-1)..max_positions-1, in
    float32 as transformers computes it; index it with relative position + max_positions - 1."""
    relative = np.arange(-(max_positions - 1), max_positions, dtype=np.int64)
    n = -relative
    half = _MPNET_BUCKETS // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    with np.errstate(divide="ignore"):
        scaled = np.log(n.astype(np.float32) / np.float32(max_exact)) / np.float32(
            math.log(_MPNET_MAX_DISTANCE / max_exact)) * np.float32(half - max_exact)
    large = np.minimum(max_exact + np.where(n < max_exact, 0, scaled).astype(np.int64), half - 1)
    table: npt.NDArray[np.int64] = ret + np.where(n < max_exact, n, large)
    return table


def _embeddings(g: _Graph, kind: str, config: dict[str, Any]) -> str:
    """Word + position (+ token type) embeddings, layer-normalised."""
    words = g.op("Gather", g.weight("embeddings.word_embeddings.weight"), "input_ids")
    if kind == "mpnet":  # positions count the non-padding tokens from padding_idx + 1, as in fairseq
        real = g.op("Cast", g.op("Not", g.op("Equal", "input_ids", g.const("pad_id", np.array(
            _MPNET_PADDING_IDX, np.int64)))), to=TensorProto.INT64)
        counted = g.op("Mul", g.op("CumSum", real, g.const("axis_1", np.array(1, np.int64))), real)
        position_ids = g.op("Add", counted, "pad_id")
        summed = g.op("Add", words, g.op("Gather", g.weight("embeddings.position_embeddings.weight"), position_ids))
    else:
        sequence = g.op("Shape", "input_ids", start=1, end=2)
        zero = g.const("axes_0", np.array([0], np.int64))
        positions = g.op("Slice", g.weight("embeddings.position_embeddings.weight"), zero, sequence, zero)
        types = g.op("Gather", g.weight("embeddings.token_type_embeddings.weight"), "token_type_ids")
        summed = g.op("Add", g.op("Add", words, types), positions)
    return g.layer_norm(summed, "embeddings.LayerNorm", config["layer_norm_eps"])


def _additive_mask(g: _Graph, kind: str, config: dict[str, Any]) -> str:
    """(1 - mask) * float32 min as [batch, 1, 1, seq]; MPNet adds its relative position bias [1, heads, seq, seq]."""
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    inverted = g.op("Sub", g.const("one", np.array(1.0, np.float32)), mask)
    additive = g.op("Unsqueeze", g.op("Mul", inverted, g.const("lowest", np.array(np.finfo(np.float32).min))),
                    g.const("axes_1_2", np.array([1, 2], np.int64)))
    if kind != "mpnet":
        return additive
    max_positions = int(config["max_position_embeddings"])
    positions = g.op("Range", g.const("zero", np.array(0, np.int64)), g.op("Squeeze", g.op(
        "Shape", "input_ids", start=1, end=2)), g.const("step", np.array(1, np.int64)))
    relative = g.op("Sub", g.op("Unsqueeze", positions, g.const("axes_0", np.array([0], np.int64))),
                    g.op("Unsqueeze", positions, g.const("axes_1", np.array([1], np.int64))))  # memory - context
    buckets = g.op("Gather", g.const("relative_buckets", mpnet_bucket_table(max_positions)),
                   g.op("Add", relative, g.const("bucket_offset", np.array(max_positions - 1, np.int64))))
    bias = g.op("Transpose", g.op("Gather", g.weight("encoder.relative_attention_bias.weight"), buckets),
                perm=[2, 0, 1])
    return g.op("Add", g.op("Unsqueeze", bias, g.const("axes_0", np.array([0], np.int64))), additive)


def _layer(g: _Graph, h: str, prefix: str, names: _LayerNames, additive: str, config: dict[str, Any]) -> str:
    """One encoder layer: self-attention, residual + norm, GELU feed-forward, residual + norm."""
    heads = int(config["num_attention_heads"])
    head_size = int(config["hidden_size"]) // heads
    split = g.const(f"{prefix}.split_shape", np.array([0, 0, heads, head_size], np.int64))

    def per_head(name: str, perm: list[int]) -> str:
        return g.op("Transpose", g.op("Reshape", g.linear(h, prefix + name), split), perm=perm)

    q = per_head(names.query, [0, 2, 1, 3])  # [batch, heads, seq, head_size]
    k = per_head(names.key, [0, 2, 3, 1])  # [batch, heads, head_size, seq]
    v = per_head(names.value, [0, 2, 1, 3])
    scores = g.op("Div", g.op("MatMul", q, k), g.const(f"{prefix}.scale", np.array(math.sqrt(head_size), np.float32)))
    probs = g.op("Softmax", g.op("Add", scores, additive), axis=-1)
    context = g.op("Reshape", g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3]),
                   g.const(f"{prefix}.merge_shape", np.array([0, 0, heads * head_size], np.int64)))
    eps = config["layer_norm_eps"]
    attended = g.layer_norm(g.op("Add", g.linear(context, prefix + names.attention_out), h),
                            prefix + names.attention_norm, eps)
    inner = g.gelu(g.linear(attended, prefix + names.intermediate))
    return g.layer_norm(g.op("Add", g.linear(inner, prefix + names.out), attended), prefix + names.out_norm, eps)


def build_encoder(model_path: Path) -> onnx.ModelProto:
    """The model's encoder as an ONNX graph: input_names(model type) -> token_embeddings [batch, seq, hidden]."""
    from safetensors.numpy import load_file

    config = json.loads((model_path / "config.json").read_text())
    kind = config.get("model_type", "")
    if kind not in _LAYER_NAMES:
        raise ValueError(f"no torch-free ONNX graph for model_type {kind!r} (known: {sorted(_LAYER_NAMES)})")
    if config.get("hidden_act", "gelu") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"{model_path}: only exact GELU and absolute positions are supported")
    checkpoint = load_file(model_path / "model.safetensors")
    weights = {key.removeprefix(f"{kind}."): value for key, value in checkpoint.items()}
    g = _Graph(weights)
    h = _embeddings(g, kind, config)
    additive = _additive_mask(g, kind, config)
    for n in range(int(config["num_hidden_layers"])):
        h = _layer(g, h, f"encoder.layer.{n}.", _LAYER_NAMES[kind], additive, config)
    g.op("Identity", h, out=OUTPUT_NAME)
    axes = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, axes) for name in input_names(kind)]
    output = helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, [*axes, config["hidden_size"]])
    graph = helper.make_graph(g.nodes, f"{kind}-encoder", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="search-platform")
    model.graph.initializer.extend(g.initializers)  # after make_model, which copies the graph it is given
    model.ir_version = IR_VERSION
    return model
